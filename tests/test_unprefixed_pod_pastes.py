"""``kubectl logs -l <selector>`` WITHOUT ``--prefix`` (docs/rules.md, "Session 71: a wait's time from its failure
table", its paste part): the pods' logs one after another, nothing saying which pod a line is from, so no boundary
between the blocks is known and the blocks' order (kubectl's, a Go map's) is none of the incident's. Such a paste must
name no rank the logs do not name: the culprit where its own lines or its launcher's report say so, whichever block
comes first, and never an innocent or a control's rank.

The pastes are made from recorded runs' node logs (tests/data/torch-runs) as plain ``kubectl logs`` shows them (no
timestamps), concatenated in the recorded order and reversed: what ``kubectl logs -l … --tail=-1`` prints for a job
of one container per node.
"""

from __future__ import annotations

import pytest

from incident_kit import naming_findings
from k10s_forensics.analyze.runner import analyze
from torch_runs_kit import import_paste, load_runs, plain

_OP_MISMATCH = "2.13.0/t68-spawn-2x2-op-mismatch-rank2-init-w2-uncaught-logging-rank"  # mp.spawn 2 x 2, truth rank 2
_CONTROL = "2.13.0/t57-spawn-2x2-config-every-rank-step8"  # CONTROL: every rank's same ValueError
_FILTERED = "2.13.0/t72-trun-2x3-loader-sigbus-rank4-step5-train-w2-record-logging-slash-filter2"  # truth rank 4


def _named(tmp_path, run_id: str, reverse: bool) -> list[list[int]]:
    run = next(r for r in load_runs() if r.id == run_id)
    texts = [plain(t) for t in run.stamped()]
    paste = tmp_path / "paste.log"
    paste.write_text("".join(t if t.endswith("\n") else t + "\n" for t in (texts[::-1] if reverse else texts)), "utf-8")
    return [f["ranks"] for f in naming_findings(analyze(import_paste(paste, tmp_path))["findings"])]


@pytest.mark.parametrize("reverse", [False, True])
def test_the_op_mismatch_run_pasted_without_prefix_names_rank_2_either_order(tmp_path, reverse):
    named = _named(tmp_path, _OP_MISMATCH, reverse)
    assert [2] in named and all(ranks == [2] for ranks in named), named


@pytest.mark.parametrize("reverse", [False, True])
def test_contrast_the_control_pasted_without_prefix_names_no_rank(tmp_path, reverse):
    assert _named(tmp_path, _CONTROL, reverse) == []


def test_the_filtered_loader_run_pasted_without_prefix_names_no_innocent(tmp_path):
    # rank 4's own lines filtered out, its launcher's table in the second block: rank 4 or no rank, never a waiting peer
    assert all(ranks == [4] for ranks in _named(tmp_path, _FILTERED, False))
