"""The twenty-fourth launcher set's shape (docs/rules.md, "Twenty-fourth launcher set"), in one analysis of small node sets.

Two ranks of one ``torchrun --standalone`` node fail within a second, each by an exception of its own type (a
``ZeroDivisionError`` on one, a ``KeyError`` on the other, 50 ms apart): no one cause failed them alike. Every other rank
was torn down, one by gloo's ``Connection closed by peer``, one SIGTERMed by the agent without a line: both ranks are
named, ``python-exception``. The same exception on both (``KeyError`` alike) stays no single culprit, and so do two
exceptions of other types where a third rank's exit 1 says nothing (not a rank torn down: it may have failed its own way).
"""

from __future__ import annotations

import pytest

from bundle_batch import analyze_node_sets, assert_names
from torch_runs_kit import CAPTURED

AGENT = ("E1130 22:{t} 21747 torch/distributed/elastic/multiprocessing/api.py:1002] failed (exitcode: 1) local_rank: {lr} "
         "(pid: {pid}) of binary: /opt/venv/bin/python3")
SIGTERM = "W1130 22:{t} 21747 torch/distributed/elastic/multiprocessing/api.py:1028] Sending process {pid} closing signal SIGTERM"
CLOSED = ("RuntimeError: [/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:553] Connection closed by peer "
          "[127.0.0.1]:27306. This is typically caused by a remote worker crashing.")
ERRORS = {"zerodiv": "ZeroDivisionError: division by zero", "keyerror": "KeyError: 'labels'"}
PIDS = {0: 21792, 1: 21793, 2: 21794, 3: 21795}


def _tb(t: str, r: int, err: str) -> list[tuple[str, str]]:
    return [(t, f"[rank{r}]: Traceback (most recent call last):"),
            (t, f'[rank{r}]:   File "/workspace/train.py", line 40, in <module>'), (t, f"[rank{r}]: {err}")]


def _row(i: int, rank: int, code: int) -> list[str]:
    sig = "  (SIGTERM)" if code == -15 else ""
    return [f"[{i}]:", "  time      : 2026-11-30_22:55:29", "  host      : localhost", f"  rank      : {rank} (local_rank: {rank})",
            f"  exitcode  : {code} (pid: {PIDS[rank]}){sig}", "  error_file: <N/A>"]


def _node(first: str, second: str, rank0_torn: bool = True) -> list[str]:
    """1 x 4: rank 2 raises ``first``, rank 1 ``second`` 50 ms later; rank 3 sees a peer close; rank 0 is SIGTERMed
    without a line (``rank0_torn``) or exits 1 without one before the agent stops anyone."""
    lines = [("55:26.100000", f"rank {r}/4 (local {r}, pid {PIDS[r]}) initialised") for r in range(4)]
    lines += [("55:27.100000", f"rank {r} step {s} loss 0.01{r}") for s in range(3) for r in range(4)]
    lines += _tb("55:27.800000", 2, ERRORS[first]) + _tb("55:27.850000", 1, ERRORS[second]) + _tb("55:27.900000", 3, CLOSED)
    sigtermed = [3, 0] if rank0_torn else [3]
    lines += [("55:29.718000", SIGTERM.format(t=f"55:29.71{i}000", pid=PIDS[r])) for i, r in enumerate(sigtermed)]
    lines += [("55:29.824000", AGENT.format(t="55:29.824000", lr=1, pid=PIDS[1]))]
    table = ["torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ", "Failures:"]
    table += _row(1, 2, 1) + _row(2, 3, -15) + _row(3, 0, -15 if rank0_torn else 1)
    table += ["Root Cause (first observed failure):", *_row(0, 1, 1), "=" * 60]
    lines += [("55:29.825000", line) for line in table]
    return ["".join(f"2026-11-30T22:{t}Z {line}\n" for t, line in lines)]


#: (name, node logs, the ranks warning/critical findings name, a cause one of them gives; [] and None: nothing named)
NODE_SETS = [
    ("apart-two-types", _node("zerodiv", "keyerror"), [1, 2], "python-exception"),
    ("alike-one-type", _node("keyerror", "keyerror"), [], None),
    ("apart-a-rank-unwitnessed", _node("zerodiv", "keyerror", rank0_torn=False), [], None),
]


@pytest.fixture(scope="module")
def findings(tmp_path_factory) -> list:
    return analyze_node_sets(NODE_SETS, tmp_path_factory.mktemp("t24shapes"), CAPTURED, nproc=lambda name: 4)


@pytest.mark.parametrize(("i", "want", "cause"), [(i, w, c) for i, (_, _, w, c) in enumerate(NODE_SETS)],
                         ids=[s[0] for s in NODE_SETS])
def test_the_twenty_fourth_set_s_shape(findings, i, want, cause):
    assert_names(findings, i, want, cause)
