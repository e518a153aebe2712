"""mp.spawn's ``-- Process N terminated with the following error:`` is a LOCAL process index (docs/rules.md, "Session 62:
mp.spawn's Process N is a local index"). Batch 389's lightning-1375 (a NOT_YET: tests/corpus_not_yet_s62.py) pastes a
non-zero node's spawn report, ``Process 0`` and frames cut before the exception, and k10s names rank 0 at warning.
Measured over the 50 corpus logs holding ``Process N terminated with``: capping a spawn report with no exception line
at info (a launcher's exit report) lost 21 culprits read right today (ASR-Wav2vec-Finetune-13, mmf-1025, RVT-40, ...:
the same shape, their thread settling Process N as the culprit) to gain 13 controls: not adopted. Reading the index as
a local one holds already where the sizes say several nodes (world > processes per node): the finding says the local
rank and names no global rank. Where nothing says so (lightning-1375: no sizes, no node rank, no GLOBAL_RANK line in
any of the 50 logs), the paste is read as one node and Process N as its rank, as the 21 culprits need.
"""

from __future__ import annotations

import datetime as dt

import pytest

from bundle_batch import pasted_findings
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 6, 5, 0, tzinfo=dt.timezone.utc)

#: a non-zero node's report, the exception past the excerpt (the control)
NONZERO_NODE_HEAD = corpus_lines("lightning-1375-")
#: the same shape on a one-node run whose thread settles Process 1 as the culprit
ONE_NODE_HEAD = corpus_lines("ASR-Wav2vec-Finetune-13-")
#: a spawn report with its exception line
WITH_EXCEPTION = ["Traceback (most recent call last):", '  File "train.py", line 30, in <module>',
                  "    mp.spawn(main, nprocs=4)", "Exception: ", "",
                  "-- Process 1 terminated with the following error:", "Traceback (most recent call last):",
                  '  File "/usr/lib/python3/site-packages/torch/multiprocessing/spawn.py", line 69, in _wrap',
                  "    fn(i, *args)", '  File "train.py", line 10, in main', "    raise ValueError('bad batch')",
                  "ValueError: bad batch"]
#: a spawn exit status (a signal) only
SIGKILLED = ["torch.multiprocessing.spawn.ProcessExitedException: process 3 terminated with signal SIGKILL"]


def _gist(findings: list[dict]) -> list[tuple]:
    return [(f["rule"], f["severity"], f["cause"], f["ranks"]) for f in findings]


@pytest.mark.parametrize("sizes", [(None, None), (4, 4)])
def test_a_one_node_spawn_head_names_its_process_at_warning(tmp_path, sizes):
    """The 21 culprits' shape: the report and frames, no exception line, on a run the paste shows as one node."""
    findings = pasted_findings(ONE_NODE_HEAD, tmp_path, *sizes, NOW)
    assert [(f["severity"], f["cause"], f["ranks"]) for f in naming_findings(findings)] == \
        [("warning", "python-exception", [1])], _gist(findings)


def test_the_non_zero_node_head_reads_the_same_as_pasted(tmp_path):
    """Pinned as read (lightning-1375's NOT_YET): nothing in the paste tells it from a one-node run's culprit."""
    findings = pasted_findings(NONZERO_NODE_HEAD, tmp_path, None, None, NOW)
    assert [(f["severity"], f["ranks"]) for f in naming_findings(findings)] == [("warning", [0])], _gist(findings)


@pytest.mark.parametrize("lines", [NONZERO_NODE_HEAD, ONE_NODE_HEAD, WITH_EXCEPTION, SIGKILLED],
                         ids=["non-zero-node-head", "one-node-head", "with-exception", "sigkilled"])
def test_process_n_names_no_global_rank_where_the_sizes_say_several_nodes(tmp_path, lines):
    """World 8 over 4 processes per node: Process N is local rank N of some node; no global rank is named."""
    findings = pasted_findings(lines, tmp_path, 4, 8, NOW)
    assert naming_findings(findings) == [], _gist(findings)
    failures = [f for f in findings if f["rule"] == "rank-failure"]
    assert failures and all(f["ranks"] == [] for f in failures), _gist(findings)
    assert any("local rank" in f["summary"] for f in failures), [f["summary"] for f in failures]


@pytest.mark.parametrize("lines, rank", [(WITH_EXCEPTION, 1), (SIGKILLED, 3)], ids=["with-exception", "sigkilled"])
def test_a_one_node_spawn_report_names_its_process(tmp_path, lines, rank):
    named = naming_findings(pasted_findings(lines, tmp_path, None, None, NOW))
    assert [f["ranks"] for f in named] == [[rank]], _gist(named)
