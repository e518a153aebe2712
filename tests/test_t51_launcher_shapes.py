"""The fifty-first launcher set's hidden waiters (docs/rules.md, "Session 59: a hidden rank's exit after the waits"), in
one analysis of small node sets.

2 x 2 under ``--tee 3 --local-ranks-filter 0``: rank 0 stops mid-step (a lock another process holds), node 1's shown
rank 2 times out in gloo (``Timed out waiting 3000ms for recv operation``), and each node's agent then reports its hidden
local rank 1 (ranks 1 and 3) ending with exit status 1 and its local rank 0 SIGTERMed. The hidden exits come after the
shown rank's wait ran out, in the other node's log as well as its own, and no shown rank saw a peer's connection close:
they are two more waits, not a first failure, so no rank is named (rank 0, the one that never came, is not told by
these logs: tests/torch_runs_not_yet_t51.py). Contrasts: the shown rank seeing a peer's connection close (a peer had
ended), or a hidden exit reported before the wait ran out, leave that exit the first failure.
"""

from __future__ import annotations

import pytest

from bundle_batch import analyze_node_sets, assert_names
from torch_runs_kit import CAPTURED

AGENT = ("E1206 04:{t} {agent} torch/distributed/elastic/multiprocessing/api.py:1002] failed (exitcode: {code}) local_rank: {lr} "
         "(pid: {pid}) of binary: /opt/venv/bin/python3")
SIGTERM = "W1206 04:{t} {agent} torch/distributed/elastic/multiprocessing/api.py:1028] Sending process {pid} closing signal SIGTERM"
TIMEOUT = ("[rank{r}]: RuntimeError: [/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:78] Timed out "
           "waiting 3000ms for recv operation to complete")
CLOSED = ("[rank{r}]: RuntimeError: [/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:553] Connection closed by "
          "peer [127.0.0.1]:20687. This is typically caused by a remote worker crashing.")
SIGNALS = {1: "", -6: "  (SIGABRT)", -15: "  (SIGTERM)"}
P = "[default0]:"


def _stamp(lines: list[tuple[str, str]]) -> str:
    return "".join(f"2026-12-06T04:{t}Z {line}\n" for t, line in lines)


def _tb(t: str, r: int, err: str) -> list[tuple[str, str]]:
    return [(t, f"{P}[rank{r}]: Traceback (most recent call last):"),
            (t, f'{P}[rank{r}]:   File "/workspace/train.py", line 102, in main'), (t, P + err.format(r=r))]


def _table(t: str, *entries: tuple[int, int, int, int]) -> list[tuple[str, str]]:
    """torchrun's failure table: (rank, local rank, pid, exit code) per entry, the first its Root Cause."""
    def rows(i, e):
        return [f"[{i}]:", f"  time      : 2026-12-06_04:{t[:5]}", "  host      : localhost",
                f"  rank      : {e[0]} (local_rank: {e[1]})", f"  exitcode  : {e[3]} (pid: {e[2]}){SIGNALS[e[3]]}",
                "  error_file: <N/A>"]
    out = ["torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ", "Failures:"]
    for i, e in enumerate(entries[1:], 1):
        out += rows(i, e)
    out += ["Root Cause (first observed failure):", *rows(0, entries[0]), "=" * 60]
    return [(t, line) for line in out]


def _steps(rank: int) -> list[tuple[str, str]]:
    return [(f"36:22.{s}00000", f"{P}rank {rank} step {s} loss 0.1{s}") for s in range(3)]


def _lock_held(err: str, node0_exit_at: str = "36:28.896000", node1_exit_at: str = "36:28.978000") -> list[str]:
    """Node 0: rank 0's steps, its last words, its agent SIGTERMing it and reporting hidden rank 1's exit 1 (at
    ``node0_exit_at``); node 1: rank 2's ``err`` at 36:25.857, its agent SIGTERMing it, hidden rank 3's exit 1 (at
    ``node1_exit_at``)."""
    node0 = _steps(0) + [("36:22.770357", f"{P}rank 0: step 3 taking the checkpoint lock /tmp/ckpt/ckpt.lock"),
                         ("36:28.606632", SIGTERM.format(t="36:28.598000", agent=27166, pid=27177)),
                         (node0_exit_at, AGENT.format(t=node0_exit_at, agent=27166, code=1, lr=1, pid=27179))]
    node0 += _table(node0_exit_at, (1, 1, 27179, 1), (0, 0, 27177, -15))
    node1 = _steps(2) + _tb("36:25.857835", 2, err) + [
        ("36:28.643662", SIGTERM.format(t="36:28.643000", agent=27168, pid=27176)),
        (node1_exit_at, AGENT.format(t=node1_exit_at, agent=27168, code=1, lr=1, pid=27178))]
    node1 += _table(node1_exit_at, (3, 1, 27178, 1), (2, 0, 27176, -15))
    return [_stamp(node0), _stamp(node1)]


#: (name, node logs, the ranks warning/critical findings name, a cause one of them gives; [] and None: nothing named)
NODE_SETS = [
    ("lock-held-hidden-exits-after-the-wait", _lock_held(TIMEOUT), [], None),
    # a peer's connection closed (node 1's hidden exit two seconds after node 0's: not failing alike): rank 1 ended first
    ("lock-held-peer-closed-hidden-exit-first", _lock_held(CLOSED, node1_exit_at="36:30.978000"), [1], None),
    ("lock-held-hidden-exit-before-the-wait", _lock_held(TIMEOUT, node0_exit_at="36:24.112000"), [1], None),
]


@pytest.fixture(scope="module")
def findings(tmp_path_factory) -> list:
    return analyze_node_sets(NODE_SETS, tmp_path_factory.mktemp("t51shapes"), CAPTURED)


@pytest.mark.parametrize(("i", "want", "cause"), [(i, w, c) for i, (_, _, w, c) in enumerate(NODE_SETS)],
                         ids=[s[0] for s in NODE_SETS])
def test_the_fifty_first_set_s_hidden_waiters(findings, i, want, cause):
    assert_names(findings, i, want, cause)
