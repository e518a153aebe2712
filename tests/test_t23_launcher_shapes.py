"""The twenty-third launcher set's shapes (docs/rules.md, "Twenty-third launcher set"), in one analysis of small node sets.

* A restart whose second attempt ends on another rank by a signal: node 0's agent reports rank 0's segfault
  (``failed (exitcode: -11)``) and restarts; in the new attempt rank 3 is SIGKILLed, which node 1's agent reports after
  its own earlier report. The job ended with the last attempt's failure: rank 3, ``host-oom-kill`` (not the first
  attempt's segfault, nor the SIGKILL read as that segfault's teardown escalating). Without the restart (one attempt,
  the SIGKILL 10 s after the segfault) the SIGKILL stays the teardown's and rank 0 is named.
* A hang whose culprit ``--local-ranks-filter 0`` hides: the ranks shown (0 and 2) timed out in gloo (``Timed out waiting
  5000ms for recv operation``), rank 3's exit status 1 is in node 1's failure table beside rank 2's, rank 1 was
  SIGTERMed. Rank 3, known only by that status, is one more waiter, not a first failure: it is not named. Where the ranks
  shown saw a peer's connection close instead (a rank that ended), the hidden rank's exit 1 is still the first failure.
"""

from __future__ import annotations

import pytest

from bundle_batch import analyze_node_sets, assert_names
from torch_runs_kit import CAPTURED

AGENT = ("E1130 19:{t} {agent} torch/distributed/elastic/multiprocessing/api.py:1002] failed (exitcode: {code}) local_rank: {lr} "
         "(pid: {pid}) of binary: /opt/venv/bin/python3")
SIGTERM = "W1130 19:{t} {agent} torch/distributed/elastic/multiprocessing/api.py:1028] Sending process {pid} closing signal SIGTERM"
TIMEOUT = ("[rank{r}]: RuntimeError: [/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:81] Timed out "
           "waiting 5000ms for recv operation to complete")
CLOSED = ("[rank{r}]: RuntimeError: [/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:553] Connection closed by "
          "peer [127.0.0.1]:20687. This is typically caused by a remote worker crashing.")
RESET = ("[rank{r}]: RuntimeError: [/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:537] Read error "
         "[127.0.0.1]:18663: Connection reset by peer. This is typically caused by a remote worker crashing.")
SIGNALS = {1: "", -9: "  (SIGKILL)", -11: "  (SIGSEGV)", -15: "  (SIGTERM)"}


def _stamp(lines: list[tuple[str, str]]) -> str:
    return "".join(f"2026-11-30T19:{t}Z {line}\n" for t, line in lines)


def _tb(t: str, r: int, err: str, prefix: str = "") -> list[tuple[str, str]]:
    return [(t, f"{prefix}[rank{r}]: Traceback (most recent call last):"),
            (t, f'{prefix}[rank{r}]:   File "/workspace/train.py", line 40, in <module>'), (t, prefix + err.format(r=r))]


def _table(t: str, *entries: tuple[int, int, int, int]) -> list[tuple[str, str]]:
    """torchrun's failure table: (rank, local rank, pid, exit code) per entry, the first its Root Cause."""
    def rows(i, e):
        sig = SIGNALS[e[3]]
        return [f"[{i}]:", f"  time      : 2026-11-30_19:{t[:5]}", "  host      : localhost",
                f"  rank      : {e[0]} (local_rank: {e[1]})", f"  exitcode  : {e[3]} (pid: {e[2]}){sig}", "  error_file: <N/A>"]
    out = ["torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ", "Failures:"]
    for i, e in enumerate(entries[1:], 1):
        out += rows(i, e)
    out += ["Root Cause (first observed failure):", *rows(0, entries[0]), "=" * 60]
    return [(t, line) for line in out]


def _steps(ranks, prefix: str = "") -> list[tuple[str, str]]:
    return [("51:00.100000", f"{prefix}rank {r} step {s} loss 0.01{r}") for s in range(3) for r in ranks]


def _restart(restarted: bool) -> list[str]:
    """2 x 2: rank 0 segfaults; ``restarted``: torchrun restarts and in the new attempt rank 3 is SIGKILLed (else: one
    attempt, rank 3 SIGKILLed 10 s after the segfault, as a teardown escalating)."""
    node0 = _steps((0, 1)) + _tb("51:06.142000", 1, RESET) + [
        ("51:06.339000", SIGTERM.format(t="51:06.331000", agent=25162, pid=25269)),
        ("51:06.455000", AGENT.format(t="51:06.445000", agent=25162, code=-11, lr=0, pid=25267))]
    node1 = _steps((2, 3)) + _tb("51:06.118000", 3, RESET) + [
        ("51:06.812000", SIGTERM.format(t="51:06.811000", agent=25164, pid=25268))]
    if not restarted:
        node0 += _table("51:06.456000", (0, 0, 25267, -11), (1, 1, 25269, -15))
        node1 += [("51:16.812000", AGENT.format(t="51:16.811000", agent=25164, code=-9, lr=1, pid=25270))]
        node1 += _table("51:16.813000", (3, 1, 25270, -9), (2, 0, 25268, -15))
        return [_stamp(node0), _stamp(node1)]
    node0 += _steps((0, 1)) + _tb("51:28.958000", 0, RESET) + _tb("51:29.355000", 1, CLOSED) + [
        ("51:32.271000", SIGTERM.format(t="51:32.263000", agent=25162, pid=25326)),
        ("51:32.447000", AGENT.format(t="51:32.436000", agent=25162, code=1, lr=0, pid=25325))]
    node0 += _table("51:32.448000", (0, 0, 25325, 1), (1, 1, 25326, -15))
    node1 += _steps((2, 3)) + _tb("51:28.952000", 2, RESET) + [
        ("51:29.215000", SIGTERM.format(t="51:29.210000", agent=25164, pid=25323)),
        ("51:29.395000", AGENT.format(t="51:29.391000", agent=25164, code=-9, lr=1, pid=25324))]
    node1 += _table("51:29.403000", (3, 1, 25324, -9), (2, 0, 25323, -15))
    return [_stamp(node0), _stamp(node1)]


def _filtered(err: str) -> list[str]:
    """2 x 2 under ``--tee 3 --local-ranks-filter 0``: only local rank 0's lines; ranks 0 and 2 print ``err``, rank 3's
    exit 1 is in node 1's table beside rank 2's, rank 1 (node 0's hidden rank) was SIGTERMed."""
    node0 = _steps((0,), "[default0]:") + _tb("51:57.114000", 0, err, "[default0]:") + [
        ("52:00.372000", SIGTERM.format(t="52:00.371000", agent=25341, pid=25353)),
        ("52:00.651000", AGENT.format(t="52:00.630000", agent=25341, code=1, lr=0, pid=25351))]
    node0 += _table("52:00.652000", (0, 0, 25351, 1), (1, 1, 25353, -15))
    node1 = _steps((2,), "[default0]:") + _tb("51:57.126000", 2, err, "[default0]:") + [
        ("51:59.955000", AGENT.format(t="51:59.946000", agent=25343, code=1, lr=0, pid=25350))]
    node1 += _table("51:59.956000", (2, 0, 25350, 1), (3, 1, 25352, 1))
    return [_stamp(node0), _stamp(node1)]


#: (name, node logs, the ranks warning/critical findings name, a cause one of them gives; [] and None: nothing named)
NODE_SETS = [
    ("restart-sigkill-after-segfault", _restart(True), [3], "host-oom-kill"),
    ("one-attempt-sigkill-escalated", _restart(False), [0], "segfault"),
    # since session 72 (docs/rules.md "Session 72: a waiter's quoted timeout in a failure table is a wait"): ranks 0, 2
    # and 3 exit as waiters, rank 1 (hidden, SIGTERMed) the one they waited for, as t23's recorded filtered hang
    ("filtered-hang-hidden-exit", _filtered(TIMEOUT), [1], "never-joined"),
    ("filtered-peer-closed-hidden-exit", _filtered(CLOSED), [3], "python-exception"),
]


@pytest.fixture(scope="module")
def findings(tmp_path_factory) -> list:
    return analyze_node_sets(NODE_SETS, tmp_path_factory.mktemp("t23shapes"), CAPTURED)


@pytest.mark.parametrize(("i", "want", "cause"), [(i, w, c) for i, (_, _, w, c) in enumerate(NODE_SETS)],
                         ids=[s[0] for s in NODE_SETS])
def test_the_twenty_third_set_s_shapes(findings, i, want, cause):
    assert_names(findings, i, want, cause)
