"""A log cut at its head mid-incident (a viewer's last N lines — Headlamp's default 100, ``kubectl logs --tail`` —
or a paste that starts inside the failure): parsers/log_head.py marks a body whose first line is already inside a
traceback, queries/_incident.sql ``head_cut`` reads it where that traceback ends in a victim's teardown error
(docs/rules.md, "Session 22: head-cut logs").

A rank known only by its launcher's exit status (torchrun's ``failed (exitcode: 1) local_rank: 2``, the failure
table's ``exitcode : 1``) in such a log is not known to be the first to fail: its own error, a victim's
``Connection closed by peer`` or another rank's first error, may lie above the cut. The same report in a log that
begins with the run's own lines still names its rank, a culprit whose own error is still in the cut log (tagged
``[rank2]:``, or untagged above its launcher's report) is still named, and so is the one rank left when every other
rank of the job is seen torn down (its agent's SIGTERM, a teardown error). A paste that begins with the launcher's
own report (its SIGTERMs, its ChildFailedError traceback) is not cut inside the incident and names as before.
"""

from __future__ import annotations

import datetime as dt

import pytest

from incident_kit import named_in_paste
from k10s_forensics.parsers.log_head import head_kind

NOW = dt.datetime(2026, 11, 30, 8, 0, tzinfo=dt.timezone.utc)
API = "2026-11-30T07:00:{:02d}.154189000Z "
TORCH = "/opt/venv/lib/python3.11/site-packages/torch/distributed"
FRAMES = [f'  File "{TORCH}/c10d_logger.py", line 83, in wrapper', "    return func(*args, **kwargs)",
          "           ^^^^^^^^^^^^^^^^^^^^^", f'  File "{TORCH}/distributed_c10d.py", line 4394, in all_gather_single',
          "    work.wait()"]
PEER = ("RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:553] Connection closed by peer [10.0.0.7]:45751. "
        "This is typically caused by a remote worker crashing.")


def _tagged(rank: int, lines: list[str]) -> list[str]:
    return [f"[rank{rank}]:{line}" if line.startswith(" ") else f"[rank{rank}]: {line}" for line in lines]


def _victim(rank: int, header: bool = True) -> list[str]:
    """A rank's teardown error: a peer went away (the traceback's header, or only its last frames)."""
    return _tagged(rank, (["Traceback (most recent call last):", '  File "/workspace/train.py", line 40, in <module>'] if header else [])
                   + FRAMES + [PEER])


def _report(culprit: int, victims: tuple[int, ...] = (0, 1, 3)) -> list[str]:
    """torchrun's agent: SIGTERM to ``victims``, the culprit's exit status, its failure table (the victims under
    ``Failures:`` with -15, the culprit its Root Cause)."""
    agent = "torch/distributed/elastic/multiprocessing/api.py"
    lines = [f"W1130 07:00:20.650000 6004 {agent}:1028] Sending process {6180 + v} closing signal SIGTERM" for v in victims]
    lines.append(f"E1130 07:00:20.779000 6004 {agent}:1002] failed (exitcode: 1) local_rank: {culprit} (pid: {6180 + culprit}) "
                 "of binary: /opt/venv/bin/python3")
    lines += ["torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ", "=" * 60, "train.py FAILED", "-" * 60,
              "Failures:"]
    for i, v in enumerate(victims, start=1):  # the workers it SIGTERMed, as torchrun lists them
        lines += [f"[{i}]:", "  time      : 2026-11-30_07:00:20", "  host      : node-a", f"  rank      : {v} (local_rank: {v})",
                  f"  exitcode  : -15 (pid: {6180 + v})", "  error_file: <N/A>", f"  traceback : Signal 15 (SIGTERM) received by PID {6180 + v}"]
    lines += ["-" * 60, "Root Cause (first observed failure):", "[0]:",
              "  time      : 2026-11-30_07:00:20", "  host      : node-a", f"  rank      : {culprit} (local_rank: {culprit})",
              f"  exitcode  : 1 (pid: {6180 + culprit})", "  error_file: <N/A>",
              "  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html", "=" * 60]
    return lines


def _named(tmp_path, lines: list[str], stamped: bool = False) -> list[tuple]:
    if stamped:
        lines = [API.format(18 + i * 2 // max(len(lines), 1)) + line for i, line in enumerate(lines)]
    return named_in_paste(tmp_path, "\n".join(lines) + "\n", 4, 4, NOW)


STARTUP = ["rank 0/4 initialised", "rank 1/4 initialised", "rank 0 step 1 loss 0.0266", "rank 1 step 1 loss 0.0266"]

CUT = {  # the log's first line is already inside a victim's failure record
    "frame": _victim(1, header=False),  # a victim's traceback, its header cut
    "source-line": _victim(1, header=False)[1:],  # cut one line lower: a frame's source line
    "victim-traceback": _victim(1),  # a victim's whole traceback first
}
LAUNCHER = ['  File "/opt/venv/lib/python3.11/site-packages/torch/distributed/launcher/api.py", line 263, in launch_agent',
            "    raise ChildFailedError("]


@pytest.mark.parametrize("cut", sorted(CUT))
@pytest.mark.parametrize("stamped", [False, True], ids=["pasted", "api-stamped"])
def test_an_exit_status_in_a_log_cut_at_its_head_names_no_one(tmp_path, cut, stamped):
    """Ranks 0 and 1 torn down, rank 3 not seen at all (it may have left first, its lines above the cut)."""
    assert _named(tmp_path, CUT[cut] + _report(2, victims=(0, 1)), stamped) == []


@pytest.mark.parametrize("cut", sorted(CUT))
def test_the_one_rank_left_when_every_other_is_torn_down_is_named_in_a_cut_log(tmp_path, cut):
    """The agent SIGTERMed every other rank of the job (alive at its poll): whatever the cut hid, rank 2 failed first."""
    assert [ranks for _, _, ranks in _named(tmp_path, CUT[cut] + _report(2, victims=(0, 1, 3)))] == [[2]]


@pytest.mark.parametrize("stamped", [False, True], ids=["pasted", "api-stamped"])
def test_the_same_report_in_a_log_that_begins_with_the_run_names_its_rank(tmp_path, stamped):
    assert [ranks for _, _, ranks in _named(tmp_path, STARTUP + _victim(1) + _report(2, victims=(0, 1)), stamped)] == [[2]]


@pytest.mark.parametrize("head", ["agent-sigterms", "launcher-traceback"])
def test_a_paste_that_begins_with_the_launchers_report_names_its_rank(tmp_path, head):
    """Users paste the launcher's report from its first line: the agent's SIGTERMs, or the frames of its own
    ChildFailedError traceback above the table. That is no cut inside the incident: the exit status names its rank."""
    report = _report(2, victims=(0, 1))
    lines = report if head == "agent-sigterms" else LAUNCHER + report[report.index("torch.distributed.elastic.multiprocessing.errors.ChildFailedError: "):]
    assert [ranks for _, _, ranks in _named(tmp_path, lines)] == [[2]]


@pytest.mark.parametrize("cut", sorted(CUT))
def test_a_culprit_whose_own_error_is_still_in_the_cut_log_is_named(tmp_path, cut):
    own = _tagged(2, ["Traceback (most recent call last):", '  File "/workspace/train.py", line 52, in <module>',
                      "    check(batch)", "ValueError: batch 7 has 3 columns, expected 4"])
    assert [ranks for _, _, ranks in _named(tmp_path, CUT[cut] + own + _report(2, victims=(0, 1)))] == [[2]]


def test_an_untagged_error_above_its_launchers_report_is_still_the_culprits(tmp_path):
    """One process's exception naming no rank, then its agent's report: the report is of that error's process."""
    own = ["Traceback (most recent call last):", '  File "/workspace/train.py", line 52, in <module>', "    check(batch)",
           "ValueError: batch 7 has 3 columns, expected 4"]
    assert [ranks for _, _, ranks in _named(tmp_path, FRAMES[1:] + own + _report(2, victims=(0, 1)))] == [[2]]


@pytest.mark.parametrize("lines,kind", [
    (['  File "/workspace/train.py", line 4, in <module>'], "frame"),
    (["[rank3]:   File \"/x.py\", line 9, in f"], "frame"),
    (["        ^^^^^^^^^^"], "frame"),
    (["    loss.backward()", '  File "/x.py", line 9, in f'], "frame"),
    (["trainer/1 [0]:[rank2]:   File \"/x.py\", line 9, in f"], "frame"),  # torchx's replica prefix, --tee's local rank
    (["[rank6]: Traceback (most recent call last):"], "traceback"),
    (["  rank      : 3 (local_rank: 3)"], None),  # a failure table's field: the launcher's report, not read
    (["W1130 07:00:20.650000 6004 api.py:1028] Sending process 6183 closing signal SIGTERM"], None),
    (["rank 0/4 initialised"], None),
    (["    lr: 0.001", "    batch_size: 8"], None),  # an indented config dump: no frame below it
    (["Traceback (most recent call last): see above"], None),
])
def test_head_kind_reads_a_bodys_first_lines(lines, kind):
    assert head_kind(lines) == kind
