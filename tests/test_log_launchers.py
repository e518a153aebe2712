"""More launchers (parsers/log_launchers.py, real incidents batch 12): Composer's launcher, vLLM V1's
executor on a dead worker, launches that never started a process; and silence in a paste
(queries/_evidence_logs.sql): ranks a paste never shows are silent only against a clear majority
of waiters. Each wording is read as its event; the rules then name (or do not name) the rank.
"""

from __future__ import annotations

import datetime as dt

import pytest

from incident_kit import named_in_paste
from k10s_forensics.parsers.log_classify import classify
from k10s_forensics.parsers.log_prefilter import PREFILTER_EVENT

NOW = dt.datetime(2026, 11, 29, 3, 0, tzinfo=dt.timezone.utc)


def _events(line: str) -> list[tuple]:
    return [(e["kind"], e.get("subkind"), e.get("rank"), e.get("exit_code")) for e in classify(line)]


@pytest.mark.parametrize(("line", "rank", "code", "pid"), [
    ("ERROR:composer.cli.launcher:Rank 1 crashed with exit code 1.", 1, 1, None),
    ("ERROR:composer.cli.launcher:Rank 2 crashed with exit code -7.", 2, -7, None),
    ("ERROR:composer.cli.launcher:Global rank 0 (PID 208865) exited with code -11", 0, -11, 208865),
    ("2024-08-30 11:06:40,101: ERROR: composer.cli.launcher: Global rank 13 (PID 4242) exited with code 1", 13, 1, 4242),
])
def test_composer_launcher_names_the_global_rank(line, rank, code, pid):
    (ev,) = classify(line)
    assert (ev["kind"], ev["subkind"], ev["rank"], ev["exit_code"], ev.get("pid")) == ("process_exit", "composer", rank, code, pid)


@pytest.mark.parametrize("line", [
    "(EngineCore_0 pid=271) ERROR 08-25 12:24:19 [multiproc_executor.py:146] Worker proc VllmWorker-1 died unexpectedly, shutting down executor.",
    "ERROR 03-02 10:11:12 [multiproc_executor.py:140] Worker proc VllmWorker-1 died unexpectedly, shutting down executor.",
    # its client of a data-parallel deployment: the engine's data-parallel index (ms-swift#7933, batch 331)
    "ERROR 01-29 08:37:48 [core_client.py:564] Engine core proc EngineCore_DP1 died unexpectedly, shutting down client.",
])
def test_vllm_executor_names_the_worker_that_died(line):
    assert _events(line) == [("process_exit", "vllm_worker_died", 1, None)]


@pytest.mark.parametrize(("line", "subkind", "message"), [
    ("slurmstepd: error: execve(): torchrun: No such file or directory", "execve", "torchrun: No such file or directory"),
    ("slurmstepd-gpu017: error: execve(): /opt/venv/bin/python: Permission denied", "execve", "/opt/venv/bin/python: Permission denied"),
    ('Error: failed to create containerd task: failed to create shim task: OCI runtime create failed: runc create failed: unable to '
     'start container process: exec: "torchrun": executable file not found in $PATH: unknown', "oci_exec",
     "torchrun: executable file not found in $PATH"),
    ("bash: torchrun: command not found", "command_not_found", "torchrun: command not found"),
    ("/var/spool/slurm/job123/slurm_script: line 12: deepspeed: command not found", "command_not_found", "deepspeed: command not found"),
])
def test_a_launch_that_never_started_a_process(line, subkind, message):
    (ev,) = classify(line)
    assert (ev["kind"], ev["subkind"], ev["error_message"], ev["rank"]) == ("launch_failed", subkind, message, None)


@pytest.mark.parametrize("line", [
    "ERROR:composer.cli.launcher:Rank 1 crashed with exit code 1.",
    "(EngineCore_0 pid=271) ERROR 08-25 12:24:19 [multiproc_executor.py:146] Worker proc VllmWorker-1 died unexpectedly, shutting down executor.",
    "ERROR 01-29 08:37:48 [core_client.py:564] Engine core proc EngineCore_DP1 died unexpectedly, shutting down client.",
    "slurmstepd: error: execve(): torchrun: No such file or directory",
    'OCI runtime create failed: exec: "torchrun": executable file not found in $PATH: unknown',
    "bash: torchrun: command not found",
])
def test_the_prefilter_lets_each_wording_through(line):
    import re

    assert re.search(PREFILTER_EVENT, line)


@pytest.mark.parametrize("line", [
    "Rank 0 crashed the party with exit plans",  # not Composer's sentence
    "INFO 08-25 12:24:19 [multiproc_executor.py:520] Parent process exited, terminating worker",
    "echo 'torchrun: command not found' is what you get without the module",  # not at the end of the line
    "srun: error: g1301: task 0: Exited with exit code 2",  # srun's own task line, unchanged
])
def test_lines_that_are_none_of_these(line):
    assert not [e for e in classify(line) if e["subkind"] in ("composer", "vllm_worker_died") or e["kind"] == "launch_failed"]


def _named(tmp_path, text: str, nproc: int | None, world: int | None):
    return named_in_paste(tmp_path, text, nproc, world, NOW)


COMPOSER = ("2023-04-24 16:03:12,379: rank0[1003409][MainThread]: DEBUG: composer.utils.dist: Initializing torch.dist: global_rank=0, "
            "local_rank=0, world_size=8, local_world_size=8, node_rank=0\n"
            "ERROR:composer.cli.launcher:Rank 1 crashed with exit code 1.\n"
            "Waiting up to 30 seconds for all training processes to terminate. Press Ctrl-C to exit immediately.\n")
VLLM = ("(EngineCore_0 pid=271) ERROR 08-25 12:24:19 [multiproc_executor.py:146] Worker proc VllmWorker-1 died unexpectedly, "
        "shutting down executor.\n" + "".join(
            f"(VllmWorker TP{r} pid={404 + r}) INFO 08-25 12:24:19 [multiproc_executor.py:520] Parent process exited, terminating worker\n"
            for r in (0, 2, 3)))


@pytest.mark.parametrize(("text", "nproc", "culprit", "cause"), [
    (COMPOSER, 8, [1], "python-exception"),
    (COMPOSER.replace("Rank 1 crashed with exit code 1.", "Global rank 5 (PID 1003414) exited with code -11"), 8, [5], "segfault"),
    (VLLM, 4, [1], "exit-unknown"),
])
def test_the_rank_a_launcher_names_is_the_culprit(tmp_path, text, nproc, culprit, cause):
    assert _named(tmp_path, text, nproc, nproc) == [("rank-failure", cause, culprit)]


SRUN_NO_EXEC = ("slurmstepd: error: execve(): torchrun: No such file or directory\n"
                "srun: error: g1301: task 0: Exited with exit code 2\n"
                "srun: launch/slurm: _step_signal: Terminating StepId=3022331.0\n")


@pytest.mark.parametrize("text", [
    SRUN_NO_EXEC,
    SRUN_NO_EXEC.replace("slurmstepd: error: execve(): torchrun: No such file or directory",
                         "/var/spool/slurmd/job3022331/slurm_script: line 9: torchrun: command not found"),
])
def test_srun_task_of_a_program_that_never_ran_is_no_rank(tmp_path, text):
    assert _named(tmp_path, text, 2, 2) == []


def test_srun_task_exit_still_names_the_rank_without_an_exec_failure(tmp_path):
    text = "srun: error: g1301: task 1: Exited with exit code 2\nsrun: error: g1301: task 0: Terminated\n"
    assert _named(tmp_path, text, 2, 2) == [("rank-failure", "exit-2", [1])]


def _timeout(rank: int, seq: int = 137429, ran_for: int = 600004) -> str:
    return (f"[rank{rank}]:[E816 00:34:01.133910474 ProcessGroupNCCL.cpp:629] [Rank {rank}] Watchdog caught collective operation "
            f"timeout: WorkNCCL(SeqNum={seq}, OpType=_ALLGATHER_BASE, NumelIn=71552, NumelOut=572416, Timeout(ms)=600000) ran for "
            f"{ran_for} milliseconds before timing out.\n")


@pytest.mark.parametrize(("waiters", "world", "named"), [
    # two waiters, no other rank in the paste, the world guessed from the highest rank seen: no one named
    ((0, 2), None, []),
    # three of four waited: the fourth, absent from the paste, never joined (as before)
    ((0, 1, 3), 4, [("nccl-hang", "never-joined", [2])]),
    ((1, 2, 3), None, [("nccl-hang", "never-joined", [0])]),
])
def test_silence_in_a_paste_needs_a_clear_majority_of_waiters(tmp_path, waiters, world, named):
    text = "".join(_timeout(r) for r in waiters)
    nproc = world or (4 if len(waiters) == 3 else None)
    assert _named(tmp_path, text, nproc, world) == named


def test_a_silent_rank_whose_own_lines_are_in_the_paste_still_counts(tmp_path):
    text = _timeout(0) + _timeout(2) + "[rank1]:[I816 00:24:00.000000000 train.py:1] step 1200 loss 0.31\n"
    assert _named(tmp_path, text, 3, 3) == [("nccl-hang", "never-joined", [1])]


# A paste quoted before the terminal cut it (parsers/log_paste.py): the rows the cut made carry no
# `>`, so the width is the quoted lines' own; unwrapped before the quoting is undone.
QUOTED = "\n".join("> " + ln for ln in [
    "using fused AdamW: True",
    "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: -11) local_rank: 0 (pid: 1299143) of binary: "
    "/root/miniconda3/envs/pretrain/bin/python",
    "Traceback (most recent call last):",
    '  File "/root/miniconda3/envs/pretrain/lib/python3.11/site-packages/torch/distributed/elastic/multiprocessing/errors/'
    '__init__.py", line 346, in wrapper',
])


def test_a_quoted_paste_cut_at_the_terminal_width():
    from k10s_forensics.parsers.log_paste import repair_paste
    from paste_damage import combined, redact, wrap

    want = [ln[2:] for ln in QUOTED.split("\n")]
    got = repair_paste(wrap(QUOTED, 80, True))  # padded: a handful of cut lines is evidence enough
    assert [ln.rstrip() for ln in got.text.split("\n")] == want
    assert got.notes[-1] == "> quoting (depth 1)" and got.notes[0].startswith("terminal wrapping at 80 columns")
    # quoted again as a whole reply, double spaced, CRLF: the outer quote first, the log's own last
    got = repair_paste(combined(QUOTED))
    assert [ln.rstrip() for ln in got.text.split("\n")] == [ln[2:] for ln in redact(QUOTED).split("\n")]
    assert "> quoting (depth 2)" in got.notes
