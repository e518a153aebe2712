"""Wordings found by batch 18 of the real incidents (HPC launchers and frameworks): the "first process
to do so was" report of Open MPI 4, PRRTE (Open MPI 5) and Horovod's / Gloo's runners (``Process name:``
then ``Exit code:``, in either order), srun's ``--label`` in front of torch's own ``[rankN]:`` tag, two
tracebacks back to back in a paste (two processes), and ranks out of GPU memory at the same allocation at
once. Parser level first, then through ``import-logs`` and ``analyze`` as a user would (docs/rules.md
"Real incidents batch 18").
"""

from __future__ import annotations

import datetime as dt

import pytest

from incident_kit import naming_findings
from parser_kit import body_events
from k10s_forensics.analyze.runner import analyze
from k10s_forensics.logimport import LogSource, import_logs
from k10s_forensics.parsers.log_layout import _interleaved_max
from k10s_forensics.parsers.log_classify import classify
from k10s_forensics.parsers.log_normalize import normalize

NOW = dt.datetime(2026, 11, 28, 12, 0, tzinfo=dt.timezone.utc)
DETERMINED = "<>        [2021-12-07 10:43:01] 087c0ee7 || "


def _events(text: str) -> list[tuple]:
    return [(e["kind"], e.get("subkind"), e.get("rank"), e.get("exit_code")) for e in body_events(text.split("\n"), NOW, prefiltered=False)]


def _findings(tmp_path, text: str, **layout) -> list[dict]:
    bundle, _ = import_logs([LogSource("paste.txt", text)], tmp_path / "b", job="train", namespace="team-a", now=NOW, **layout)
    return analyze(bundle)["findings"]


def _named(tmp_path, text: str, **layout) -> list[tuple]:
    return [(f["rule"], f["cause"], f["ranks"]) for f in naming_findings(_findings(tmp_path, text, **layout))]


@pytest.mark.parametrize(("line", "rank"), [
    ("  Process name: [[12167,1],10]", 10),  # Open MPI 4: [[job,1],rank]
    ("   Process name: [prterun-gpu013-1009179@1,3]", 3),  # PRRTE / Open MPI 5: [prterun-host-pid@job,rank]
    ("Process name: 2", 2),  # Horovod's (and Gloo's) runner: the rank itself
    (DETERMINED + "Process name: 1", 1),  # the same behind Determined's log prefix
])
def test_the_first_process_report_names_its_rank(line, rank):
    assert [(e["kind"], e["subkind"], e["rank"]) for e in classify(line)] == [("process_exit", "mpirun_first", rank)]


@pytest.mark.parametrize("line", ["Process name: worker-3", "Process name: 12 of 16", "Process name: [[12167,1]]"])
def test_what_is_no_first_process_report(line):
    assert not [e for e in classify(line) if e.get("subkind") == "mpirun_first"]


@pytest.mark.parametrize("lines", [
    ["Process name: 1", "Exit code: 1"],
    ["Exit code: 1", "Process name: 1"],  # a collector that sorts the lines of one second (Determined's) swaps them
    [DETERMINED + "Exit code: 1", DETERMINED + "Process name: 1"],
], ids=["in-order", "swapped", "swapped-determined"])
def test_the_report_takes_its_exit_code_in_either_order(lines):
    assert _events("\n".join(lines)) == [("process_exit", "mpirun_first", 1, 1)]


def test_a_later_exit_line_is_not_the_report_s_own():
    text = "\n".join([DETERMINED + "Exit code: 1", DETERMINED + "Process name: 1",
                      "<info>    [2021-12-07 10:43:05] ef45fdce || INFO: container failed with non-zero exit code:  (exit code 137)"])
    assert _events(text) == [("process_exit", "mpirun_first", 1, 1), ("process_exit", "exit_code", None, 137)]


def test_determined_s_swapped_gloo_report_names_the_rank(tmp_path):
    text = "\n".join([
        DETERMINED + "RuntimeError: Horovod detected that one or more processes exited with non-zero status, thus causing the job "
        "to be terminated. The first process to do so was:",
        DETERMINED + "Exit code: 1", DETERMINED + "Process name: 1",
        "<info>    [2021-12-07 10:43:05] 087c0ee7 || INFO: container failed with non-zero exit code:  (exit code 1)",
        "<info>    [2021-12-07 10:43:22] ef45fdce || INFO: container failed with non-zero exit code:  (exit code 137)", ""])
    assert _named(tmp_path, text, nproc_per_node=1, world_size=2) == [("rank-failure", "python-exception", [1])]


@pytest.mark.parametrize(("line", "text", "rank", "local"), [
    (" 3: [rank3]:   File \"/opt/x.py\", line 954, in forward", 'File "/opt/x.py", line 954, in forward', 3, None),
    ("11: [rank11]: RuntimeError: boom", "RuntimeError: boom", 11, None),
    (" 3: ^^^^^^^^^^^^", "^^^^^^^^^^^^", 3, None),  # a wrapped caret line keeps only srun's label
    ("1: [default3]: Traceback (most recent call last):", "Traceback (most recent call last):", None, 3),  # the task is a launcher
    ("12: loss 0.31", "loss 0.31", 12, None),
])
def test_srun_label_then_the_task_s_own_tag(line, text, rank, local):
    n = normalize(line)
    assert (n.text, n.rank, n.local_rank) == (text, rank, local)


def test_an_exception_behind_srun_s_label_and_torch_s_tag_is_that_rank_s():
    assert [(e["kind"], e["rank"], e["error_type"]) for e in classify(" 5: [rank5]: ValueError: bad shape")] == [
        ("python_exception", 5, "ValueError")]


FRAMES = [
    "[rank3]:   File \"/usr/lib/python3.12/site-packages/torch/nn/modules/module.py\", line 1751, in _wrapped_call_impl",
    "[rank3]:     return self._call_impl(*args, **kwargs)",
    "[rank3]:            ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^",
]


def test_a_srun_labelled_rank_s_traceback_names_its_rank(tmp_path):
    text = "\n".join(" 3: " + line for line in ["[rank3]: Traceback (most recent call last):"] + FRAMES + ["[rank3]: ValueError: bad shape"])
    assert _named(tmp_path, text + "\n", nproc_per_node=4, world_size=8) == [("rank-failure", "python-exception", [3])]


def test_a_rank_s_traceback_pasted_from_below_its_header_names_no_one(tmp_path):
    """Cut at both ends, one rank's frames say it was unwinding an exception, and nothing more: its first frame starts
    the rank's traceback as the cut-off header would (one start, docs/rules.md "Session 28: named controls"), and a
    traceback cut before its exception alone is a suspect, no culprit (session 27): the same shape is one rank's sample
    of an error every rank hit (DeepSpeed-6737, a control)."""
    text = "\n".join(" 3: " + line for line in FRAMES)
    assert _events(text) == [("python_traceback", "started", 3, None)]
    assert _named(tmp_path, text + "\n", nproc_per_node=4, world_size=8) == []


TB = "Traceback (most recent call last):\n  File \"train.py\", line 21, in <module>\n    main()\n"


@pytest.mark.parametrize(("text", "want"), [
    (TB + "RuntimeError: boom\n" + TB + "RuntimeError: boom\n", 2),  # back to back: another process's
    (TB + "AttributeError: 'X' object has no attribute 'y'\nTraceback (most recent call last):\n", 2),
    (TB + "KeyError: 'x'\n\nDuring handling of the above exception, another exception occurred:\n\n" + TB + "RuntimeError: y\n", None),
    (TB + "RuntimeError: boom\nKilling subprocess 31867\n" + TB + "RuntimeError: boom\n", None),  # a launcher's, after its own lines
    ("".join(f"2026-11-28T12:00:0{i}.000000Z {line}\n" for i, line in enumerate((TB + "RuntimeError: a\n" + TB).split("\n")[:6])), 2),
], ids=["same-error", "cut-second", "chained", "launcher-lines-between", "api-timestamps"])
def test_tracebacks_back_to_back_are_two_processes(text, want):
    assert _interleaved_max([text]) == want


def test_a_paste_of_two_processes_raising_alike_names_no_rank(tmp_path):
    text = "Runtime Error: PID[16955]\nRuntime Error: PID[16956]\n" + TB + "RuntimeError\n" + TB + "RuntimeError\n"
    assert _named(tmp_path, text) == []


def test_one_process_s_chained_exception_is_one_failure(tmp_path):
    """One process's chained exception, not two processes': one failure. No rank is numbered and no layout
    given, so which rank failed is unknown (docs/import.md); said to be a job of one process, it is rank 0."""
    text = TB + "KeyError: 'x'\n\nDuring handling of the above exception, another exception occurred:\n\n" + TB + "RuntimeError: y\n"
    failures = [f for f in _findings(tmp_path / "as-pasted", text) if f["rule"] == "rank-failure"]
    assert [(f["cause"], f["ranks"], f["evidence"][0]["together_ranks"]) for f in failures] == [("python-exception", [], [])]
    assert _named(tmp_path / "one", text, nproc_per_node=1) == [("rank-failure", "python-exception", [0])]


def _oom(rank: int, gib: str) -> str:
    """A rank-tagged CUDA OOM (the allocator's ``GPU N`` alone names no rank: batch 20, tests/test_oom_device_ordinal.py)."""
    gpu = rank % 8
    return (f"[rank{rank}]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate {gib} GiB. GPU {gpu} has a total capacity of 79.33 GiB "
            "of which 6.37 GiB is free. Including non-PyTorch memory, this process has 72.95 GiB memory in use.")


def test_ranks_out_of_memory_at_one_allocation_at_once_name_no_culprit(tmp_path):
    findings = _findings(tmp_path, _oom(6, "8.01") + "\n" + _oom(1, "8.01") + "\n", nproc_per_node=8, world_size=16)
    oom = [f for f in findings if f["rule"] == "oom-cascade"]
    assert [(f["severity"], f["ranks"]) for f in oom] == [("critical", [])]
    assert oom[0]["title"] == "Ranks 1, 6 ran out of GPU memory at the same allocation at once"
    assert naming_findings(findings) == []


def test_ranks_out_of_memory_at_different_allocations_name_one(tmp_path):
    named = _named(tmp_path, _oom(6, "8.01") + "\n" + _oom(1, "2.00") + "\n", nproc_per_node=8, world_size=16)
    assert [(rule, cause) for rule, cause, _ in named] == [("oom-cascade", "cuda-oom")] and named[0][2] in ([1], [6])


def test_a_host_name_cut_at_its_hyphen_by_the_terminal_is_joined_again():
    from k10s_forensics.parsers.log_paste import repair_paste

    line = "pdsh@neox-autotune-worker-0: neox-autotune-worker-1: ssh exited with exit code 1"
    cut = line.index("worker-1") + len("worker-")  # the terminal's width falls right after the hyphen
    pasted = ["Loading checkpoint shards: 100%", line[:cut], line[cut:], "INFO:root:epoch 3 started"]
    assert pasted[2].startswith("1: ")  # alone, a line that reads as srun's label of task 1
    repaired = repair_paste("\n".join(x.ljust(cut) for x in pasted) + "\n").text
    assert line in repaired.split("\n")
    assert [(e[0], e[2], e[3]) for e in _events(repaired)] == [("process_exit", None, 1)]
