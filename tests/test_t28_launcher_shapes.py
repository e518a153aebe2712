"""The twenty-eighth launcher set's shapes (docs/rules.md, "Twenty-eighth launcher set"), in one analysis of node-log sets
made from its recordings.

* Rank 1's ``os._exit(0)`` under ``--redirects 3 --tee 3 --local-ranks-filter 0``: the console shows local rank 0 of each
  node (ranks 0 and 2: gloo's connection reset by peer); node 1's agent stopped rank 3 in its teardown (its table's one
  entry for it a SIGTERM, no line of its own); rank 1 is nowhere, not even in node 0's table (`<NO_OTHER_FAILURES>`).
  As recorded rank 1 is named ``never-joined``; with node 1 cut before its agent's report (rank 3 unaccounted for: two ranks
  nowhere) no one is.
* The heterogeneous 2 + 3 job with rank 3's ``KeyError`` under ``--tee 3``: with torch's ``[rankN]:`` tags taken off (the
  tee prefix's local rank only, ``[default1]:``, as torch before 2.2 prints it) rank 3 is named: node 1's own failure
  table, ``rank: 3 (local_rank: 1)``, says its first rank is 2 (session 27, parsers/log_node_nproc.py); before, the
  layout gave every node one process count and node 1's local rank 1 was read as ``1 × 3 + 1 = 4``, a false culprit.
"""

from __future__ import annotations

import re

import pytest

from bundle_batch import analyze_node_sets, assert_names, shape_params
from torch_runs_kit import AGENT_FIRST, CAPTURED, load_runs, until

RANK_TAG = re.compile(r"\[rank\d+\]: ?")


def _shapes() -> list[tuple]:
    runs = {r.id: r.stamped() for r in load_runs() if "/t28-" in r.id}
    shapes = []
    for v in ("2.13.0", "2.14.1"):
        exit0 = runs[f"{v}/t28-trun-2x2-redirects-filter0-exit0-rank1"]
        hetero = runs[f"{v}/t28-trun-hetero-2p3-tee-keyerror-rank3"]
        #: (name, node logs, the ranks warning/critical findings name ([]: none), a cause)
        shapes += [
            (f"{v}-exit0-filtered", exit0, [1], "never-joined"),
            (f"{v}-exit0-node1-unreported", [exit0[0], until(exit0[1], AGENT_FIRST)], [], None),
            (f"{v}-hetero-local-prefix-only", [RANK_TAG.sub("", t) for t in hetero], [3], "python-exception"),
        ]
    return shapes


SHAPES = _shapes()
@pytest.fixture(scope="module")
def findings(tmp_path_factory) -> list:
    return analyze_node_sets(SHAPES, tmp_path_factory.mktemp("t28shapes"), CAPTURED)


@pytest.mark.parametrize(("i", "want", "cause"), shape_params(SHAPES))
def test_the_twenty_eighth_set_s_shapes(findings, i, want, cause):
    assert_names(findings, i, want, cause)  # want []: a control, no rank named


def test_the_shapes_differ_as_described():
    """The cut shapes hold what they say: rank 1 nowhere, rank 3 only as its agent's SIGTERM; no rank tag left."""
    by = {s[0]: s[1] for s in SHAPES}
    for v in ("2.13.0", "2.14.1"):
        node0, node1 = by[f"{v}-exit0-filtered"]
        assert "<NO_OTHER_FAILURES>" in node0 and "rank      : 1 " not in node0 and "[rank1]" not in node0
        assert "rank      : 3 (local_rank: 1)" in node1 and "(SIGTERM)" in node1 and "[rank3]" not in node1
        assert "rank      : 3 " not in by[f"{v}-exit0-node1-unreported"][1]
        tagless = "".join(by[f"{v}-hetero-local-prefix-only"])
        assert "[rank" not in tagless and "[default1]:KeyError: 'labels'" in tagless
