"""The thirty-seventh launcher set's shapes (layouts beyond 2 x 2, where local rank, global rank, node rank and agent
order differ; tests/tools/torch_scenarios37.py), in one analysis of node-log sets cut from its recordings as users paste
them (each truth written before the set was analysed; ``kubectl logs --timestamps``, one file per pod unless said; a
set's files are named ``node0.log``, ``node1.log``, ... in the order given, so a pod given alone is ``node0.log``
whatever node it was).

* One pod alone where the culprit is on it: 4 x 2's node 2 (rank 5's ``KeyError``, local rank 1), 2 x 4's node 1
  (rank 6's SIGKILL, local rank 2), 3 x 2's node 2 (the last rank's segfault), the swapped pods' file node1.log
  (group rank 0: ranks 0-1, rank 1's ``KeyError``), the one agent x 8's log (rank 6 hidden by the filter, its table).
* The one agent x 8's workers only (cut at its agent's first line): ranks 0-3's gloo errors, the failing rank 6 never
  shown: no one.
* One pod alone where the culprit is on another: 4 x 2's node 0, 2 x 4's node 0, 3 x 2's node 1, the swapped pods'
  node0.log (ranks 2-3), the hang's node 0: no one.
* Several pods: 4 x 2's nodes 2 and 3 (two files), the swapped pods both as recorded (node0.log ranks 2-3, node1.log
  ranks 0-1), every pod in one file (no prefix) for each culprit run.
* Controls: every rank's same configuration ``ValueError`` (node 0 alone, every pod in one file); the clean run with
  each rank's own warnings (node 1 alone, every pod in one file).
"""

from __future__ import annotations

import pytest

from bundle_batch import analyze_node_sets, assert_names, shape_params
from torch_runs_kit import AGENT_FIRST, CAPTURED, load_runs, until

#: shape: why it is missed (strict xfail)
NOT_YET: dict[str, str] = {}


def _shapes() -> list[tuple]:
    runs = {r.id: r for r in load_runs() if "/t37-" in r.id}
    shapes = []
    for v in ("2.13.0", "2.14.1"):
        def run(name: str, v: str = v) -> list[str]:
            return runs[f"{v}/t37-trun-{name}"].stamped()

        key, kill, seg = run("4x2-keyerror-rank5"), run("2x4-sigkill-rank6"), run("3x2-segfault-rank5")
        swap, filt, hang = run("2x2-pods-swapped-keyerror-rank1"), run("1x8-filter0123-keyerror-rank6"), run(
            "4x2-hang-rank7")
        same, warn = run("4x2-same-config-error-every-rank"), run("3x2-clean-per-rank-warnings")
        #: (name, node logs, the ranks warning/critical findings name ([]: none), a cause)
        shapes += [
            (f"{v}-4x2-keyerror-node2-only", key[2:3], [5], "python-exception"),
            (f"{v}-4x2-keyerror-node0-only", key[:1], [], None),
            (f"{v}-4x2-keyerror-nodes2-3", key[2:], [5], "python-exception"),
            (f"{v}-4x2-keyerror-pods-in-one-file", ["".join(key)], [5], "python-exception"),
            (f"{v}-2x4-sigkill-node1-only", kill[1:], [6], "host-oom-kill"),
            (f"{v}-2x4-sigkill-node0-only", kill[:1], [], None),
            (f"{v}-2x4-sigkill-pods-in-one-file", ["".join(kill)], [6], "host-oom-kill"),
            (f"{v}-3x2-segfault-node2-only", seg[2:], [5], "segfault"),
            (f"{v}-3x2-segfault-node1-only", seg[1:2], [], None),
            (f"{v}-3x2-segfault-pods-in-one-file", ["".join(seg)], [5], "segfault"),
            (f"{v}-swapped-node1-file-only", swap[1:], [1], "python-exception"),
            (f"{v}-swapped-node0-file-only", swap[:1], [], None),
            (f"{v}-swapped-both-files", swap, [1], "python-exception"),
            (f"{v}-swapped-pods-in-one-file", ["".join(swap)], [1], "python-exception"),
            (f"{v}-1x8-filter-log", filt, [6], "python-exception"),
            (f"{v}-1x8-filter-workers-only", [until(filt[0], AGENT_FIRST)], [], None),
            (f"{v}-4x2-hang-node0-only", hang[:1], [], None),
            (f"{v}-4x2-hang-pods-in-one-file", ["".join(hang)], [7], "never-joined"),
            (f"{v}-same-config-error-node0-only", same[:1], [], None),
            (f"{v}-same-config-error-pods-in-one-file", ["".join(same)], [], None),
            (f"{v}-clean-warnings-node1-only", warn[1:2], [], None),
            (f"{v}-clean-warnings-pods-in-one-file", ["".join(warn)], [], None),
        ]
    return shapes


SHAPES = _shapes()


@pytest.fixture(scope="module")
def findings(tmp_path_factory) -> list:
    return analyze_node_sets(SHAPES, tmp_path_factory.mktemp("t37shapes"), CAPTURED)


@pytest.mark.parametrize(("i", "want", "cause"), shape_params(SHAPES, NOT_YET))
def test_the_thirty_seventh_set_s_shapes(findings, i, want, cause):
    assert_names(findings, i, want, cause)  # want []: a control, no rank named


def test_the_shapes_hold_what_they_say():
    """The cuts hold the ranks they say: the culprit's own lines are in the pod said, not in the other."""
    by = {s[0]: s[1] for s in SHAPES}
    for v in ("2.13.0", "2.14.1"):
        assert "[rank5]: KeyError" in by[f"{v}-4x2-keyerror-node2-only"][0]
        assert "KeyError" not in by[f"{v}-4x2-keyerror-node0-only"][0]
        assert "rank      : 6 (local_rank: 2)" in by[f"{v}-2x4-sigkill-node1-only"][0]
        assert "rank      : 5 (local_rank: 1)" in by[f"{v}-3x2-segfault-node2-only"][0]
        assert "rank 1/4 (local 1, node 0" in by[f"{v}-swapped-node1-file-only"][0]
        assert "rank 3/4 (local 1, node 1" in by[f"{v}-swapped-node0-file-only"][0]
        assert "KeyError" not in by[f"{v}-1x8-filter-workers-only"][0]
        assert "rank 6/8" not in by[f"{v}-1x8-filter-log"][0]
        assert "rank      : 6 (local_rank: 6)" in by[f"{v}-1x8-filter-log"][0]
        assert "not a multiple of the number of attention heads" in by[f"{v}-same-config-error-node0-only"][0]
