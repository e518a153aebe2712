"""Wordings the eighth set of real launcher runs (tests/data/torch-runs, ``t8-*``) brought: a rank's own
DataLoader timeout is its failure, not a peer's teardown; a ``logging`` record with the process id and no
rank (``%(asctime)s [%(process)d] ERROR …``) gives the traceback under it that process's pid, which the
launcher's failure report turns into a rank."""

from __future__ import annotations

import datetime as dt

import pytest

from k10s_forensics.analyze.runner import analyze
from k10s_forensics.logimport import LogSource, import_logs
from k10s_forensics.parsers.log_failures import py_exception
from k10s_forensics.parsers.log_normalize import normalize

NOW = dt.datetime(2026, 11, 29, 4, 30, tzinfo=dt.timezone.utc)


@pytest.mark.parametrize("message, sub", [
    ("RuntimeError: DataLoader timed out after 3 seconds", "raised"),
    ("RuntimeError: Timed out waiting 6000ms for recv operation to complete", "teardown"),
    ("torch.distributed.DistStoreError: wait timeout after 6000ms, keys: /default_pg/0//cpu//0/3", "teardown"),
    ("RuntimeError: [../third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:81] Timed out waiting 30000ms for recv", "teardown"),
])
def test_a_dataloader_timeout_is_the_ranks_own(message, sub):
    assert py_exception(message)["subkind"] == sub


def test_a_logging_records_pid_is_read_and_no_rank():
    norm = normalize("2026-11-29 04:08:25,072 [2909] ERROR trainer: training failed")
    assert (norm.text, norm.pid, norm.rank) == ("ERROR trainer: training failed", 2909, None)


def _node(pids: dict[int, int], culprit_pid: int, victim_pid: int, agent_pid: int) -> list[str]:
    """One torchrun node whose workers log through ``logging`` (pid, no rank): the culprit's own
    exception, a victim's gloo teardown, the agent's failure table naming each pid's rank (its Root Cause
    the victim's exit, the first the agent saw: the table alone would name the wrong rank)."""
    out = [f"2026-11-29 04:08:24,763 [{culprit_pid}] WARNING trainer: step 2 loss 0.0007"]
    for pid, error in ((culprit_pid, "AttributeError: Can't pickle local object '_gather_metrics.<locals>.<lambda>'"),
                       (victim_pid, "RuntimeError: [pair.cc:553] Connection closed by peer [127.0.0.1]:46795")):
        out += [f"2026-11-29 04:08:25,072 [{pid}] ERROR trainer: training failed", "Traceback (most recent call last):",
                '  File "/workspace/train.py", line 123, in _gather_metrics', "    dist.all_gather_object(out, metrics)", error]
    out.append(f"E1129 04:08:27.297000 {agent_pid} torch/distributed/elastic/multiprocessing/api.py:1002] failed (exitcode: 1) "
               f"local_rank: {pids[victim_pid] % 2} (pid: {victim_pid}) of binary: /opt/venv/bin/python3")
    out += ["torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ", "=" * 60, "train.py FAILED", "-" * 60, "Failures:"]
    # as torchrun prints it: the other failures as [1], [2], …, then the first it observed (here the victim's exit) as [0]
    others = [pid for pid in sorted(pids, key=pids.get) if pid != victim_pid]
    for i, pid in [*((i, pid) for i, pid in enumerate(others, start=1)), (0, victim_pid)]:
        if i == 0:
            out += ["-" * 60, "Root Cause (first observed failure):"]
        out += [f"[{i}]:", "  time      : 2026-11-29_04:08:27", "  host      : localhost", f"  rank      : {pids[pid]} (local_rank: {pids[pid] % 2})",
                f"  exitcode  : 1 (pid: {pid})", "  error_file: <N/A>",
                "  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html"]
    return [*out, "=" * 60]


def test_a_traceback_under_a_pid_record_is_that_ranks(tmp_path):
    """Rank 1 (pid 2912) raised its own exception; rank 0 (pid 2909) only saw its connection close:
    rank 1 is named, though no line of the log carries a rank tag."""
    lines = _node({2909: 0, 2912: 1}, culprit_pid=2912, victim_pid=2909, agent_pid=2696)
    bundle, _ = import_logs([LogSource("node0.log", "\n".join(lines) + "\n")], tmp_path / "b", now=NOW)
    named = [(f["severity"], f["ranks"], f["cause"]) for f in analyze(bundle)["findings"] if f["rule"] == "rank-failure"]
    assert [(r, c) for _, r, c in named] == [([1], "python-exception")], named
