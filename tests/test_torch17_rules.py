"""The seventeenth launcher set's fixes (docs/rules.md, "Real launcher runs, seventeenth set").

A torch build's refusal
(``Torch not compiled with CUDA enabled``, ``Distributed package doesn't have NCCL built in``) is common mode (every
process imports the same torch) unless one rank raised it while another rank saw a peer's connection close (gloo's
teardown, ``closed by peer`` or ``reset by peer``): that rank waited in a collective, past the code the first one
failed in, so the code path was the failing rank's own (``.to("cuda")`` on one rank only).

Node logs without timestamps through ``k10s import-logs``, one file per node; every node set in one merged analysis.

A whole pod whose ranks never reported a gloo timeout while the others did is no hang's culprit when that pod's launcher
never reported either (no failure report, no SIGTERM of its workers) and another pod's did: the node was lost with its
launcher (the recorded 3 x 3 run whose node 2 was killed, as a captured PyTorchJob's pod logs); the same pod whose
launcher SIGTERMed its workers keeps them named.
"""

from __future__ import annotations

import pytest

from bundle_batch import analyze_node_sets, findings_of
from incident_kit import naming_findings
from test_borrowed_clock_controls import AGENT, RESET, SIGTERM, _node, _table
from torch_runs_kit import CAPTURED, Run, load_runs, podlog_bundle

NOT_COMPILED = "[rank{r}]: AssertionError: Torch not compiled with CUDA enabled"
NO_NCCL = "[rank{r}]: RuntimeError: Distributed package doesn't have NCCL built in"
CLOSED = ("[rank{r}]: RuntimeError: [/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:553] Connection closed "
          "by peer [127.0.0.1]:24967. This is typically caused by a remote worker crashing.")


def _one_rank(err: str, peer: str | None) -> list[str]:
    """Two nodes × 2: rank 3 raises ``err``; ranks 0-2 print ``peer`` (None: nothing, SIGTERMed by their agents)."""
    peers = lambda rs: [(r, peer) for r in rs] if peer else []  # noqa: E731
    node0 = _node(peers([0, 1]), [SIGTERM.format(s="21.910000", pid=8218), AGENT.format(s="21.930000", lr=0, pid=8216)]
                  + _table((0, 0, 1 if peer else -15, 8216), (1, 1, -15, 8218)))
    node1 = _node(peers([2]) + [(3, err)], [SIGTERM.format(s="20.867000", pid=8217), AGENT.format(s="20.900000", lr=1, pid=8215)]
                  + _table((3, 1, 1, 8215), (2, 0, -15, 8217)))
    return [node0, node1]


def _every_rank(err: str) -> list[str]:
    return [_node([(0, err), (1, err)], [AGENT.format(s="21.930000", lr=0, pid=8216)] + _table((0, 0, 1, 8216), (1, 1, 1, 8218))),
            _node([(2, err), (3, err)], [AGENT.format(s="21.960000", lr=0, pid=8215)] + _table((2, 0, 1, 8215), (3, 1, 1, 8217)))]


#: (name, node logs, the ranks a warning/critical finding must name: [] for none)
NODE_SETS = [
    ("not-compiled-one-rank-peers-closed", _one_rank(NOT_COMPILED, CLOSED), [3]),
    ("not-compiled-one-rank-peers-reset", _one_rank(NOT_COMPILED, RESET), [3]),
    ("no-nccl-one-rank-peers-closed", _one_rank(NO_NCCL, CLOSED), [3]),
    # no peer shows it waited in a collective (its agent SIGTERMed it first): common mode, as before
    ("not-compiled-one-rank-peers-silent", _one_rank(NOT_COMPILED, None), []),
    ("not-compiled-every-rank", _every_rank(NOT_COMPILED), []),
]


@pytest.fixture(scope="module")
def findings(tmp_path_factory) -> list:
    return analyze_node_sets(NODE_SETS, tmp_path_factory.mktemp("torch17"), CAPTURED, nproc=lambda name: 2)


@pytest.mark.parametrize(("i", "want"), [(i, want) for i, (_, _, want) in enumerate(NODE_SETS)], ids=[s[0] for s in NODE_SETS])
def test_a_torch_build_refusal_is_one_ranks_where_its_peers_waited_on_it(findings, i, want):
    named = naming_findings(findings_of(findings, i))
    assert sorted({r for f in named for r in f["ranks"]}) == want, [(f["rule"], f["severity"], f["ranks"], f["summary"]) for f in named]


LOST = "2.13.0/t17-trun-3x3-node2-lost"
AGENT_TERM = ("2026-11-30T07:03:44.000000000Z W1130 07:03:44.000000 10700 torch/distributed/elastic/multiprocessing/api.py:1028] "
              "Sending process {pid} closing signal SIGTERM")


def test_a_node_lost_with_its_launcher_names_no_hung_ranks(tmp_path):
    from k10s_forensics.analyze.runner import analyze

    run = next(r for r in load_runs() if r.id == LOST)
    reported = tmp_path / "reported"
    reported.mkdir()
    for name in [*run.truth["node_logs"], "truth.json"]:
        (reported / name).write_text((run.folder / name).read_text(encoding="utf-8"), encoding="utf-8")
    with (reported / "node2.log").open("a", encoding="utf-8") as f:  # node 2's agent alive: it SIGTERMs its hung workers
        f.write("".join(AGENT_TERM.format(pid=pid) + "\n" for pid in (10791, 10792, 10793)))
    findings = analyze(podlog_bundle([run, Run(run.version, "reported", reported, run.truth)], tmp_path / "b"))["findings"]
    ranks = [sorted({r for f in naming_findings(findings_of(findings, i)) for r in f["ranks"]}) for i in (0, 1)]
    assert ranks == [[], [6, 7, 8]], ranks
