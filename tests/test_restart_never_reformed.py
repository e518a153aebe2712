"""A restart that never re-formed (docs/rules.md, "A restart that never re-formed (twenty-second launcher set)"):
torchrun restarted its workers after rank 2 left with exit status 0 (its peers saw the connection close), and the new
attempt's group never formed: node 1's new workers timed out waiting for rank 0's gloo address (an unprefixed
``DistStoreError: wait timeout``), node 0's in gloo's ``connectFullMesh``. The restarted worker whose agent reports it
failing, with only such unprefixed teardowns and store waits above it since the agent's earlier report, was torn down,
and the later attempt's report says nothing of how rank 2 ended in the first: rank 2 is named ``never-joined``. Where the
restarted worker raised an error of its own, that failure is still its own; a job without a restart is unchanged."""

from __future__ import annotations

import pytest

from bundle_batch import analyze_node_sets, assert_names
from torch_runs_kit import CAPTURED

CLOSED = ("[rank{r}]: RuntimeError: [/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:561] Connection "
          "closed by peer [127.0.0.1]:21378. This is typically caused by a remote worker crashing.")
MESH = ("RuntimeError: Gloo connectFullMesh failed with [/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/pair.h:311] "
        "Connect timeout [none]")
STORE = "torch.distributed.DistStoreError: wait timeout after 10000ms, keys: /attempt1/0//cpu//0/0"
#: torch 2.14's c10d warning above the store wait's traceback
SOCKET = ("[W1130 04:10:23.709004597 socket.cpp:494] [c10d] waitForInput: socket SocketImpl(fd=3, addr=[::ffff:127.0.0.1]:43176, "
          "remote=[::ffff:127.0.0.1]:38427) timed out after 10000ms")
OWN = "ValueError: shard 7 has 0 samples"
AGENT = ("E1130 04:{t} 8157 torch/distributed/elastic/multiprocessing/api.py:1002] failed (exitcode: 1) local_rank: {lr} "
         "(pid: {pid}) of binary: /opt/venv/bin/python3")
SIGTERM = "W1130 04:{t} 8166 torch/distributed/elastic/multiprocessing/api.py:1028] Sending process {pid} closing signal SIGTERM"
TB = ["Traceback (most recent call last):", '  File "/workspace/train.py", line 40, in <module>', "    main()"]


def _stamp(lines: list[tuple[str, str]]) -> str:
    return "".join(f"2026-11-30T04:{t}Z {line}\n" for t, line in lines)


def _steps(ranks: tuple[int, int]) -> list[tuple[str, str]]:
    return [("10:00.100000", f"rank {r} step {s} loss 0.01{r}") for s in range(3) for r in ranks]


def _raised(t: str, r: int | None, err: str) -> list[tuple[str, str]]:
    tag = f"[rank{r}]: " if r is not None else ""
    return [(t, tag + line) for line in TB] + [(t, err.format(r=r))]


def _table(t: str, *entries: tuple[int, int, int]) -> list[tuple[str, str]]:
    """torchrun's failure table: (rank, local rank, pid) per entry, exit code 1, the first its Root Cause."""
    rows = lambda i, e: [f"[{i}]:", "  time      : 2026-11-30_04:11:26", "  host      : localhost",  # noqa: E731
                         f"  rank      : {e[0]} (local_rank: {e[1]})", f"  exitcode  : 1 (pid: {e[2]})",
                         "  error_file: <N/A>"]
    out = ["torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ", "Failures:"]
    for i, e in enumerate(entries[1:], 1):
        out += rows(i, e)
    out += ["Root Cause (first observed failure):", *rows(0, entries[0]), "=" * 60]
    return [(t, line) for line in out]


def _job(restarted_err: str | None, warned: bool = False) -> list[str]:
    """Two nodes x 2: rank 2 leaves silently; torchrun restarts (``restarted_err``: what each restarted node-1 worker
    prints, no rank tag; ``warned``: c10d's socket warning above each) or, None, the job ends with the first attempt."""
    warn = (lambda t: [(t, SOCKET)]) if warned else (lambda t: [])  # noqa: E731
    node0 = _steps((0, 1)) + _raised("10:03.396000", 1, CLOSED) + _raised("10:05.373000", 0, CLOSED)
    node1 = _steps((2, 3)) + _raised("10:03.383000", 3, CLOSED)
    if restarted_err is None:
        return [_stamp(node0 + [("10:05.500000", AGENT.format(t="10:05.500000", lr=1, pid=16936))] + _table("10:05.500100", (1, 1, 16936))),
                _stamp(node1 + [("10:05.496000", AGENT.format(t="10:05.496000", lr=1, pid=16937))] + _table("10:05.496100", (3, 1, 16937)))]
    node0 += ([("10:05.959000", SIGTERM.format(t="10:05.958000", pid=16934)),
               ("10:05.959100", SIGTERM.format(t="10:05.959000", pid=16936))]
              + _raised("11:04.091000", None, MESH) + _raised("11:04.092000", None, MESH)
              + [("11:06.323000", AGENT.format(t="11:06.322000", lr=0, pid=17117))])
    node1 += ([("10:05.496000", AGENT.format(t="10:05.496000", lr=1, pid=16937))]
              + warn("10:23.852000") + _raised("10:23.896000", None, restarted_err)
              + warn("10:24.080000") + _raised("10:24.099000", None, restarted_err)
              + [("10:26.539000", AGENT.format(t="10:26.537000", lr=0, pid=17116))]
              + _table("10:26.539600", (2, 0, 17116), (3, 1, 17118)))
    return [_stamp(node0), _stamp(node1)]


#: (name, node logs, the ranks a warning/critical finding must name, a cause one of them must give)
NODE_SETS = [
    ("restart-store-wait", _job(STORE), [2], "never-joined"),
    ("restart-store-wait-warned", _job(STORE, warned=True), [2], "never-joined"),
    # the restarted worker's own error stays its own failure
    ("restart-own-error", _job(OWN), [2], "python-exception"),
    # no restart: the silent rank 2 as before
    ("no-restart", _job(None), [2], "never-joined"),
]


@pytest.fixture(scope="module")
def findings(tmp_path_factory) -> list:
    return analyze_node_sets(NODE_SETS, tmp_path_factory.mktemp("reformed"), CAPTURED)


@pytest.mark.parametrize(("i", "want", "cause"), [(i, w, c) for i, (_, _, w, c) in enumerate(NODE_SETS)],
                         ids=[s[0] for s in NODE_SETS])
def test_a_restart_that_never_reformed_leaves_the_first_attempt_s_culprit(findings, i, want, cause):
    assert_names(findings, i, want, cause)
