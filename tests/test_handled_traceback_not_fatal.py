"""A handled traceback is not the rank's end (docs/rules.md, "Session 61: a handled traceback is not the rank's end"), in
one analysis of small node sets.

2 x 2 under ``--tee 3`` (every line behind its local rank's ``[defaultN]:`` prefix). A rank's script catches an exception
and logs it with ``logging.exception`` (its record, then the traceback, untagged by torch), and the SAME rank's progress
lines go on after it, behind the same prefix: it was handled, not the rank's end, even though the job is torn down later
by another rank's real fault (the fifty-fourth launcher set's red herrings). Contrasts: the traceback is the rank's last
line (its failure, named); an uncaught exception torch tagged ``[rankN]:`` with the rank's stdout flushed below it (its
end); the rank prints progress again only in a later attempt torchrun restarted (the agent's
``failed (exitcode: 1)`` report between: the earlier attempt's failure still counts); every rank's caught traceback and
then a failure common to every rank (nobody named).
"""

from __future__ import annotations

import pytest

from bundle_batch import analyze_node_sets, assert_names
from test_t51_launcher_shapes import AGENT, CLOSED, SIGTERM, _stamp, _table
from torch_runs_kit import CAPTURED

KEY = "[default{lr}]:[rank{r}]: KeyError: 'num_tokens'"
LABELS = "[default{lr}]:[rank{r}]: KeyError: 'labels'"


def _log(lines: list[tuple[str, str]]) -> str:
    """One node's log in time order (a traceback's lines, one stamp, keep theirs)."""
    return _stamp(sorted(lines, key=lambda line: line[0]))


def _steps(r: int, lr: int, first: int, last: int, sec: int) -> list[tuple[str, str]]:
    return [(f"36:{sec + s - first:02d}.{r}00000", f"[default{lr}]:rank {r} step {s} loss 0.1{s}") for s in range(first, last + 1)]


def _caught(t: str, r: int, lr: int) -> list[tuple[str, str]]:
    """``logging.exception`` of a caught ValueError: the record, then the traceback behind the stream's prefix."""
    p = f"[default{lr}]:"
    return [(t, f"{p}2026-12-06 04:{t[:5]},100 ERROR [rank{r}] train: eval batch failed, skipping"),
            (t, f"{p}Traceback (most recent call last):"), (t, f'{p}  File "/workspace/train.py", line 77, in _eval'),
            (t, f"{p}ValueError: eval batch 2: expected 4 samples, got 3")]


def _fatal(t: str, r: int, lr: int, err: str) -> list[tuple[str, str]]:
    p = f"[default{lr}]:[rank{r}]: "
    return [(t, f"{p}Traceback (most recent call last):"), (t, f'{p}  File "/workspace/train.py", line 142, in main'),
            (t, err.format(lr=lr, r=r))]


def _end(node: int, t: str, failed: tuple[int, int, int], other: tuple[int, int, int]) -> list[tuple[str, str]]:
    """The agent SIGTERMing ``other`` (rank, local rank, pid) and reporting ``failed`` ending with exit status 1."""
    agent = 27166 + node
    return [(t, SIGTERM.format(t=t, agent=agent, pid=other[2])),
            (t, AGENT.format(t=t, agent=agent, code=1, lr=failed[1], pid=failed[2])),
            *_table(t, (failed[0], failed[1], failed[2], 1), (other[0], other[1], other[2], -15))]


def _closed(t: str, r: int, lr: int) -> list[tuple[str, str]]:
    return _fatal(t, r, lr, f"[default{lr}]:" + CLOSED.format(r=r))


def _herring(rank0_trains_on: bool) -> list[str]:
    """Node 0: rank 0's caught ValueError at step 2 (then, or not, its steps 2-3), then ranks 0 and 1 torn down by gloo;
    node 1: rank 2's own KeyError at step 4 (uncaught, torch's ``[rank2]:`` tag), rank 3 torn down."""
    node0 = _steps(0, 0, 0, 1, 20) + _steps(1, 1, 0, 4, 20) + _caught("36:21.500000", 0, 0)
    node0 += (_steps(0, 0, 2, 3, 22) if rank0_trains_on else [])
    node0 += _closed("36:25.300000", 0, 0) + _closed("36:25.300000", 1, 1)
    node0 += _end(0, "36:25.900000", (0, 0, 27176), (1, 1, 27177))
    node1 = _steps(2, 0, 0, 4, 20) + _steps(3, 1, 0, 4, 20) + _fatal("36:25.100000", 2, 0, KEY) + _closed("36:25.300000", 3, 1)
    node1 += _end(1, "36:25.800000", (2, 0, 27186), (3, 1, 27187))
    return [_log(node0), _log(node1)]


def _filtered(rank3_caught: bool) -> list[str]:
    """``--local-ranks-filter 1``: node 0 shows rank 1 only (its steps, then its silent ``os._exit(1)``: its agent's
    report), node 1 rank 3 only (its caught KeyError and its steps after it, or only its steps, then gloo's teardown)."""
    node0 = _steps(1, 1, 0, 3, 20) + _end(0, "36:24.500000", (1, 1, 27177), (0, 0, 27176))
    node1 = _steps(3, 1, 0, 1, 20) + (_caught("36:21.500000", 3, 1) if rank3_caught else []) + _steps(3, 1, 2, 3, 22)
    node1 += _closed("36:24.700000", 3, 1) + _end(1, "36:24.900000", (3, 1, 27187), (2, 0, 27186))
    return [_log(node0), _log(node1)]


def _flushed() -> list[str]:
    """Rank 2's uncaught KeyError (torch's ``[rank2]:`` tag) and then its own stdout's last progress line, flushed by the
    pipe after the traceback (at exit): still its end."""
    node0 = _steps(0, 0, 0, 4, 20) + _steps(1, 1, 0, 4, 20) + _closed("36:25.300000", 0, 0) + _closed("36:25.300000", 1, 1)
    node0 += _end(0, "36:25.900000", (0, 0, 27176), (1, 1, 27177))
    node1 = _steps(2, 0, 0, 3, 20) + _steps(3, 1, 0, 4, 20) + _fatal("36:25.100000", 2, 0, KEY)
    node1 += [("36:25.100001", "[default0]:rank 2 step 4 loss 0.14")] + _closed("36:25.300000", 3, 1)
    node1 += _end(1, "36:25.800000", (2, 0, 27186), (3, 1, 27187))
    return [_log(node0), _log(node1)]


def _restarted() -> list[str]:
    """One node (2 ranks): rank 0's uncaught KeyError ends attempt 0 (its agent's report), torchrun restarts the workers
    and rank 0 trains again in attempt 1 (behind the same prefix): the earlier failure stays attempt 0's."""
    node0 = _steps(0, 0, 0, 2, 20) + _steps(1, 1, 0, 2, 20) + _fatal("36:23.100000", 0, 0, KEY) + _closed("36:23.300000", 1, 1)
    node0 += _end(0, "36:23.900000", (0, 0, 27176), (1, 1, 27177))
    node0 += _steps(0, 0, 0, 3, 40) + _steps(1, 1, 0, 3, 40)
    return [_log(node0)]


def _every_rank_caught() -> list[str]:
    """Every rank's caught ValueError at step 1, every rank training on, then every rank's same KeyError in one second."""
    out = []
    for node in (0, 1):
        lines: list[tuple[str, str]] = []
        for lr in (0, 1):
            r = 2 * node + lr
            lines += _steps(r, lr, 0, 1, 20) + _caught(f"36:21.{r}00000", r, lr) + _steps(r, lr, 2, 3, 22)
        lines += _fatal(f"36:25.{node}00000", 2 * node, 0, LABELS) + _fatal(f"36:25.{node}50000", 2 * node + 1, 1, LABELS)
        lines += _end(node, "36:25.900000", (2 * node, 0, 27176 + 10 * node), (2 * node + 1, 1, 27177 + 10 * node))
        out.append(_log(lines))
    return out


#: (name, node logs, the ranks warning/critical findings name, a cause one of them gives; [] and None: nothing named)
NODE_SETS = [
    ("caught-value-rank0-trains-on-key-rank2", _herring(True), [2], "python-exception"),
    # rank 3's caught traceback no failure alike rank 1's silent exit, which node 1's teed tracebacks say is silent
    ("caught-key-rank3-trains-on-exit1-rank1-filtered", _filtered(True), [1], "exit-1"),
    # contrast: the caught traceback is rank 0's last line of its own before the teardown: its failure, and the first
    ("value-rank0-last-line-key-rank2", _herring(False), [0], "python-exception"),
    # contrast: an uncaught (torch-tagged) exception and the rank's stdout flushed below it: its end
    ("key-rank2-stdout-flushed-after", _flushed(), [2], "python-exception"),
    # contrast: rank 0 trains again only in torchrun's next attempt: attempt 0's failure is still its own
    ("key-rank0-then-restarted-attempt", _restarted(), [0], "python-exception"),
    # contrast: every rank caught one and trained on, then every rank's same KeyError within a second: no one
    ("caught-every-rank-then-common-mode", _every_rank_caught(), [], None),
]


@pytest.fixture(scope="module")
def findings(tmp_path_factory) -> list:
    return analyze_node_sets(NODE_SETS, tmp_path_factory.mktemp("handled"), CAPTURED)


@pytest.mark.parametrize(("i", "want", "cause"), [(i, w, c) for i, (_, _, w, c) in enumerate(NODE_SETS)],
                         ids=[s[0] for s in NODE_SETS])
def test_a_handled_traceback_is_not_the_rank_s_end(findings, i, want, cause):
    assert_names(findings, i, want, cause)
