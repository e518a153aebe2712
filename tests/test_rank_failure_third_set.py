"""Causes of a rank's failure that the third set of real torchrun recordings showed
(tests/data/torch-runs, ``t3-*``; docs/rules.md "rank-failure"): one small node log per wording,
imported as ``k10s import-logs`` would and analyzed."""

from __future__ import annotations

import datetime as dt

import pytest

from k10s_forensics.analyze.runner import analyze
from k10s_forensics.logimport import import_logs, read_source

NOW = dt.datetime(2026, 11, 28, 12, 0, tzinfo=dt.timezone.utc)
AGENT = "{lvl}1128 11:44:19.{ms:03d}000 31047 torch/distributed/elastic/multiprocessing/api.py:{line}] "
GLOO_CLOSED = ("[rank{r}]: RuntimeError: [/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:553] Connection closed "
               "by peer [127.0.0.1]:19329. This is typically caused by a remote worker crashing. Check the logs of the remote worker "
               "before reporting an error. GLHF!")


def _table(rank: int, local: int, code: int, pid: int, sig: str) -> list[str]:
    return ["torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ", "=" * 55, "/workspace/train.py FAILED",
            "-" * 55, "Failures:", "  <NO_OTHER_FAILURES>", "-" * 55, "Root Cause (first observed failure):", "[0]:",
            "  time      : 2026-11-28_11:44:19", "  host      : localhost", f"  rank      : {rank} (local_rank: {local})",
            f"  exitcode  : {code} (pid: {pid})  ({sig})", "  error_file: <N/A>",
            f"  traceback : Signal {-code} ({sig}) received by PID {pid}", "=" * 55]


def rank_failures(tmp_path, lines: list[str]) -> list[tuple]:
    path = tmp_path / "node0.log"
    path.write_text("\n".join(["rank 0/2 (local 0) initialised", "rank 1/2 (local 1) initialised", "step 0 loss 1.0000", *lines]) + "\n",
                    encoding="utf-8")
    bundle, _ = import_logs([read_source(str(path))], tmp_path / "b", job="train", namespace="team-a", now=NOW)
    return [(f["severity"], f["ranks"], f["cause"]) for f in analyze(bundle)["findings"] if f["rule"] == "rank-failure"]


def test_sigill_exit_minus_4(tmp_path):
    lines = [GLOO_CLOSED.format(r=1), AGENT.format(lvl="W", ms=10, line=1028) + "Sending process 30889 closing signal SIGTERM",
             AGENT.format(lvl="E", ms=49, line=1002) + "failed (exitcode: -4) local_rank: 0 (pid: 30888) of binary: /usr/bin/python3",
             *_table(0, 0, -4, 30888, "SIGILL")]
    assert rank_failures(tmp_path, lines) == [("critical", [0], "sigill")]


def test_sigterm_the_agent_did_not_send_is_the_ranks_own(tmp_path):
    """The agent logs its SIGTERM to rank 0's pid, none to rank 1's: rank 1's -15 came from outside."""
    lines = [GLOO_CLOSED.format(r=0), AGENT.format(lvl="W", ms=10, line=1028) + "Sending process 31085 closing signal SIGTERM",
             AGENT.format(lvl="E", ms=30, line=1002) + "failed (exitcode: -15) local_rank: 1 (pid: 31088) of binary: /usr/bin/python",
             *_table(1, 1, -15, 31088, "SIGTERM")]
    assert rank_failures(tmp_path, lines) == [("critical", [1], "sigterm")]


def test_sigterm_the_agent_sent_stays_a_victim(tmp_path):
    lines = [AGENT.format(lvl="W", ms=10, line=1028) + "Sending process 31085 closing signal SIGTERM",
             AGENT.format(lvl="W", ms=11, line=1028) + "Sending process 31088 closing signal SIGTERM",
             AGENT.format(lvl="E", ms=30, line=1002) + "failed (exitcode: -15) local_rank: 1 (pid: 31088) of binary: /usr/bin/python",
             *_table(1, 1, -15, 31088, "SIGTERM")]
    assert [f for f in rank_failures(tmp_path, lines) if f[1]] == []


@pytest.mark.parametrize("error, cause", [
    ("MemoryError", "host-oom"),
    ("RuntimeError: [enforce fail at alloc_cpu.cpp:117] data. DefaultCPUAllocator: can't allocate memory: you tried to allocate "
     "4294967296 bytes. Error code 12 (Cannot allocate memory)", "host-oom"),
    ("RuntimeError: DataLoader worker (pid 31513) is killed by signal: Killed. ", "host-oom-kill"),
    ("RuntimeError: DataLoader worker (pid 31513) is killed by signal: Bus error. It is possible that dataloader's workers are "
     "out of shared memory. Please try to raise your shared memory limit.", "sigbus"),
    ("KeyError: 'labels'", "python-exception"),
])
def test_host_memory_and_loader_worker_signals(tmp_path, error, cause):
    lines = ["[rank1]: Traceback (most recent call last):", '[rank1]:   File "/workspace/train.py", line 9, in <module>',
             f"[rank1]: {error}", GLOO_CLOSED.format(r=0),
             AGENT.format(lvl="W", ms=10, line=1028) + "Sending process 31085 closing signal SIGTERM",
             AGENT.format(lvl="E", ms=30, line=1002) + "failed (exitcode: 1) local_rank: 1 (pid: 31088) of binary: /usr/bin/python"]
    assert rank_failures(tmp_path, lines) == [("critical", [1], cause)]


@pytest.mark.parametrize("code, sig, cause", [(-31, "SIGSYS", "sigsys"), (-24, "SIGXCPU", "sigxcpu"), (-5, "SIGTRAP", "sigtrap"),
                                              (-25, "SIGXFSZ", "sigxfsz"), (-40, "SIGRT6", "signal-40")])
def test_any_other_signal_is_named(tmp_path, code, sig, cause):
    """A signal outside the usual few (a seccomp kill, a CPU-time or file-size limit, a trap) is the
    rank's own failure, named after the signal; before, such a rank was left out altogether."""
    lines = [GLOO_CLOSED.format(r=1), AGENT.format(lvl="W", ms=10, line=1028) + "Sending process 30889 closing signal SIGTERM",
             AGENT.format(lvl="E", ms=49, line=1002) + f"failed (exitcode: {code}) local_rank: 0 (pid: 30888) of binary: /usr/bin/python3",
             *_table(0, 0, code, 30888, sig)]
    assert rank_failures(tmp_path, lines) == [("critical", [0], cause)]


@pytest.mark.parametrize("line, cause", [
    ("mpirun noticed that process rank 1 with PID 4242 on node gpu-a exited on signal 31 (Bad system call).", "sigsys"),
    ("mpirun noticed that process rank 1 with PID 4242 on node gpu-a exited on signal 7 (Bus error).", "sigbus"),
])
def test_mpirun_signals_by_number(tmp_path, line, cause):
    got = rank_failures(tmp_path, ["[1,0]<stdout>:step 1", line])
    assert [f for f in got if f[1]] and all(f[1] == [1] and f[2] == cause for f in got if f[1]), got


def test_a_loader_workers_kill_is_said_as_the_workers(tmp_path):
    """The rank raised (exit 1); the SIGKILL was its DataLoader worker's (the forty-seventh set): the summary says so."""
    lines = ["[rank1]: Traceback (most recent call last):", '[rank1]:   File "/workspace/train.py", line 9, in <module>',
             "[rank1]: RuntimeError: DataLoader worker (pid 31513) is killed by signal: Killed. ", GLOO_CLOSED.format(r=0),
             AGENT.format(lvl="E", ms=30, line=1002) + "failed (exitcode: 1) local_rank: 1 (pid: 31088) of binary: /usr/bin/python"]
    path = tmp_path / "node0.log"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    bundle, _ = import_logs([read_source(str(path))], tmp_path / "b", job="train", namespace="team-a", now=NOW)
    (f,) = [f for f in analyze(bundle)["findings"] if f["rule"] == "rank-failure"]
    assert "lost a DataLoader worker to SIGKILL" in f["summary"] and "exit -9" not in f["summary"]
