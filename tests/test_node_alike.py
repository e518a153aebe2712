"""One node alike (queries/_incident.sql ``node_alike``, docs/rules.md rank-failure): ranks that failed
the same way within one second are no single culprit, unless they are every rank of one pod while
ranks of another pod are in the incident alive (torn down, waiting): then that node is the culprit,
all its ranks named with its pod and node. The recorded run (tests/data/torch-runs
``t12-trun-node1-import-error``: both ranks of node 1 raise ``ModuleNotFoundError`` before
``init_process_group``, node 0's ranks time out waiting for them) as recorded (untagged tracebacks)
and as torch >= 2.2 tags them (``[rankN]:``); a node's log alone or beside a log where the other node's
ranks neither fail nor are torn down (their fate unseen), and the same failure on every node
(``t12-trun-common-mode-import-error``), name no one.
"""

from __future__ import annotations

import pytest

from torch_runs_kit import RUNS, findings_of_texts, named, plain
from incident_kit import naming_findings

RUN = RUNS / "2.14.1" / "t12-trun-node1-import-error"


def _logs(run=RUN) -> list[str]:
    return [plain((run / f"node{i}.log").read_text(encoding="utf-8")) for i in (0, 1)]


def _tagged(text: str) -> str:
    """Node 1's log with its two rank tracebacks tagged ``[rank2]:`` and ``[rank3]:`` (torch >= 2.2's prefix)."""
    out, block = [], 0
    for line in text.split("\n"):
        if line == "Traceback (most recent call last):" and block < 2:
            block += 1
        elif not line.startswith((" ", "Traceback", "ModuleNotFoundError")):
            block = 3
        out.append(f"[rank{block + 1}]: {line}" if block in (1, 2) else line)
    return "\n".join(out)


@pytest.mark.parametrize("tag", [False, True], ids=["untagged", "rank-tagged"])
def test_every_rank_of_one_node_failing_alike_names_that_node(tmp_path, tag):
    node0, node1 = _logs()
    findings = findings_of_texts(tmp_path, [node0, _tagged(node1) if tag else node1])
    [whole] = [f for f in naming_findings(findings) if f["ranks"] == [2, 3]]
    assert whole["cause"] == "python-exception" and whole["severity"] == ("critical" if tag else "warning")
    assert len(whole["nodes"]) == 1 and len(whole["pods"]) == 1
    assert all(set(f["ranks"]) <= {2, 3} for f in naming_findings(findings))


#: The other node's log with nothing of its ranks failing or being torn down: whether they failed alike is unknown.
QUIET = "[default0]:rank 0/4 (local 0, pid 7869) initialised\n[default1]:rank 1/4 (local 1, pid 7870) initialised\n"


@pytest.mark.parametrize("others", [[], [QUIET]], ids=["one-log", "other-node-quiet"])
def test_one_nodes_failure_with_its_peers_unseen_names_no_node(tmp_path, others):
    assert [2, 3] not in [ranks for _, ranks in named(findings_of_texts(tmp_path, [*others, _logs()[1]]))]


def test_every_node_failing_alike_names_no_one(tmp_path):
    assert named(findings_of_texts(tmp_path, _logs(RUNS / "2.14.1" / "t12-trun-common-mode-import-error"))) == []
