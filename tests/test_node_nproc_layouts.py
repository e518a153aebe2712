"""Nodes of one job running different process counts (torchrun's ``--nproc-per-node 2`` on node 0, ``3`` on node 1: ranks
0-1, then 2-4; docs/parsers-logs.md "Session 27: per-node process counts").

* Through pod env (parsers/ranks.py, ``rank_identity.first_rank``): each pod's own ``PET_NPROC_PER_NODE`` /
  ``LOCAL_WORLD_SIZE``; a node's first rank is the sum of the lower nodes' counts where each is known and they differ,
  else ``node x nproc`` (uniform jobs, or a lower node with no pod, unchanged).
* Through ``k10s import-logs`` (parsers/log_node_nproc.py): each node's log's failure-table pairs (``rank : 3
  (local_rank: 1)``), tee pairs (``[default1]:[rank3]:``) and stated counts; the culprit's traceback tagged with its local
  rank only is its own rank, not ``node x nproc + local``; a log that contradicts the uniform layout while a lower node's
  count is unknown names no wrong rank.
"""

from __future__ import annotations

import pytest

from bundle_batch import analyze_node_sets, findings_of
from incident_kit import naming_findings
from k8s_builders import container, obj_row, pod
from k10s_forensics.parsers.log_node_nproc import node_nproc
from node_nproc_kit import node_logs
from test_parsers_k8s_ranks_controllers import derive
from torch_runs_kit import CAPTURED


def _job_pods(counts: list[int | None], env_key: str = "PET_NPROC_PER_NODE", nnodes: int | None = None) -> list[dict]:
    """An Indexed Job's pods, pod ``i`` at node rank ``i`` with its own process count (None: no pod at that index)."""
    out = []
    for i, c in enumerate(counts):
        if c is None:
            continue
        env = {env_key: str(c), **({"PET_NNODES": str(nnodes)} if nnodes else {})}
        out.append(pod(f"hj-{i}-x", labels={"batch.kubernetes.io/job-name": "hj", "batch.kubernetes.io/job-completion-index": str(i)},
                       containers=[container(env=env)], owner=("Job", "hj")))
    return out


def _ranks(tmp_path, counts, **kw) -> tuple[list[tuple[str, int, int]], set]:
    ctx = derive(tmp_path, [obj_row(p) for p in _job_pods(counts, **kw)])
    rows = ctx.table("ranks").to_pylist()
    return sorted((r["pod"], r["local_rank"], r["rank"]) for r in rows), {r["world_size"] for r in rows}


@pytest.mark.parametrize(("counts", "key", "want"), [
    ([2, 3], "PET_NPROC_PER_NODE", [0, 1, 2, 3, 4]),
    ([3, 2], "LOCAL_WORLD_SIZE", [0, 1, 2, 3, 4]),
    ([1, 2, 1], "PET_NPROC_PER_NODE", [0, 1, 2, 3]),
    ([4, 4, 4], "PET_NPROC_PER_NODE", list(range(12))),
])
def test_pod_env_counts_give_each_node_its_first_rank(tmp_path, counts, key, want):
    got, world = _ranks(tmp_path, counts, env_key=key, nnodes=len(counts))
    assert [r for _, _, r in sorted(got, key=lambda x: (int(x[0].split("-")[1]), x[1]))] == want
    assert world == {len(want)}


def test_pod_env_lower_node_unknown_keeps_the_uniform_formula(tmp_path):
    """Node 1 has no pod: node 2's first rank is 2 x its own count, as before."""
    got, _ = _ranks(tmp_path, [2, None, 3])
    assert [(p, r) for p, loc, r in got if loc == 0] == [("hj-0-x", 0), ("hj-2-x", 6)]


def test_pod_env_uniform_counts_unchanged(tmp_path):
    got, _ = _ranks(tmp_path, [8, 8, 8])
    assert [(p, r) for p, loc, r in got if loc == 0] == [("hj-0-x", 0), ("hj-1-x", 8), ("hj-2-x", 16)]


@pytest.mark.parametrize(("counts", "culprit", "nproc", "want"), [
    ([2, 3], 3, 3, [2, 3]),
    ([3, 2], 4, 3, None),  # node x 3 already gives node 1's first rank
    ([1, 2, 1], 2, 2, [1, 2, 2]),  # the last node's count is the layout's (its log does not state it)
    ([2, 2], 3, 2, None),
    ([4, 4, 4], 9, 4, None),
])
def test_node_nproc_from_each_node_s_failure_table(counts, culprit, nproc, want):
    assert node_nproc(node_logs(counts, culprit), nproc) == want


def test_node_nproc_stated_counts_and_tee_pairs():
    stated = ["I1201 agent local_world_size=2\n", "[default1]:[rank3]: KeyError: 'labels'\n"]
    assert node_nproc(stated, 3) == [2, 3]
    assert node_nproc(["x --nproc-per-node 3\n", "x --nproc-per-node 3\n"], 3) is None  # uniform
    disagree = ["", "[default1]:[rank3]: x\n[default0]:[rank3]: y\n"]  # two first ranks in one node's log
    assert node_nproc(disagree, 3) is None


def test_node_nproc_contradiction_with_a_lower_count_unknown():
    """Node 1's log has no table: node 2's table (rank 6, local 1: first rank 5) contradicts 2 x 3 = 6, and node 1's count is
    unknown: nodes 1 and 2 get no first rank (None), node 0 keeps its own."""
    assert node_nproc(node_logs([2, 3, 3], 6, [True, False, True]), 3) == [3, None, None]


#: (name, node logs, the culprit, the ranks no finding may name)
IMPORTED = [
    ("hetero-2p3", node_logs([2, 3], 3), 3, {4}),
    ("hetero-3p2", node_logs([3, 2], 4), 4, {3, 5}),
    ("hetero-1p2p1", node_logs([1, 2, 1], 2), 2, {3}),
    ("uniform-2p2", node_logs([2, 2], 3), 3, set()),
    ("contradicted-2p3p3", node_logs([2, 3, 3], 6, [True, False, True]), None, {7}),
]


@pytest.fixture(scope="module")
def findings(tmp_path_factory) -> list:
    return analyze_node_sets([(n, logs) for n, logs, *_ in IMPORTED], tmp_path_factory.mktemp("nodenproc"), CAPTURED)


@pytest.mark.parametrize(("i", "culprit", "wrong"), [pytest.param(i, c, w, id=n) for i, (n, _, c, w) in enumerate(IMPORTED)])
def test_import_logs_names_the_node_s_own_rank(findings, i, culprit, wrong):
    named = naming_findings(findings_of(findings, i))
    got = {r for f in named for r in f["ranks"]}
    assert not got & wrong, [(f["rule"], f["ranks"]) for f in named]
    if culprit is None:
        assert got <= {6}, [(f["rule"], f["ranks"]) for f in named]  # the table's own global rank, or no one
    else:
        assert got == {culprit}, [(f["rule"], f["ranks"]) for f in named]
        assert "python-exception" in {f.get("cause") for f in named}


def test_import_logs_marks_the_unplaceable_nodes(tmp_path):
    from k10s_forensics.logimport import LogSource, import_logs

    logs = node_logs([2, 3, 3], 6, [True, False, True])
    bundle, layout = import_logs([LogSource(f"node{i}.log", t) for i, t in enumerate(logs)], tmp_path / "b", now=CAPTURED)
    assert layout.node_nproc == [3, None, None]
    from k10s_forensics.engine import connect
    with connect(bundle) as con:
        rows = con.execute("SELECT pod, min(rank), count(*) FROM ranks GROUP BY pod ORDER BY pod").fetchall()
    assert rows == [("imported-master-0", 0, 3)]
