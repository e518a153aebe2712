"""A call whose arguments do not fit the callee's signature is every rank's (queries/_incident_common_mode.sql).

``TypeError: AsyncRLGRPOTrainer.get_batch_samples() takes 3 positional arguments but 4 were given``, ``… got an
unexpected keyword argument 'x'``, ``… missing 1 required positional argument: 'y'``: a library and the script or subclass
that calls it apart (a version), the same code on every rank. The corpus' five such pastes are all controls; batch 333's
AgentCPM-GUI#51, a lone ``[rank0]:`` tail, named rank 0 before session 56. A TypeError of another wording stays the
rank's, and so does the signature's where a peer saw the rank's connection close (it got past the call).
"""

from __future__ import annotations

import datetime as dt

import pytest

from bundle_batch import pasted
from incident_kit import corpus_lines, naming_findings
from k10s_forensics.analyze.runner import analyze

NOW = dt.datetime(2026, 12, 5, 18, 0, tzinfo=dt.timezone.utc)
HEAD = ["[rank0]: Traceback (most recent call last):", '[rank0]:   File "train.py", line 40, in <module>',
        "[rank0]:     trainer.train()"]


def _named(lines: list[str], folder) -> list[tuple]:
    return [(f["rule"], f["cause"], f["ranks"]) for f in naming_findings(analyze(pasted(lines, folder, 2, NOW))["findings"])]


@pytest.mark.parametrize(
    "message",
    ["AsyncRLGRPOTrainer.get_batch_samples() takes 3 positional arguments but 4 were given",
     "Trainer.__init__() got an unexpected keyword argument 'tokenizer'",
     "compute_loss() missing 1 required positional argument: 'num_items_in_batch'"],
    ids=["positional", "keyword", "missing"],
)
def test_a_signature_mismatch_names_no_rank(tmp_path, message):
    assert _named(HEAD + [f"[rank0]: TypeError: {message}"], tmp_path) == []


def test_another_typeerror_stays_the_ranks(tmp_path):
    lines = HEAD + ["[rank0]: TypeError: unsupported operand type(s) for +: 'NoneType' and 'int'"]
    assert _named(lines, tmp_path) == [("rank-failure", "python-exception", [0])]


def test_a_peer_that_saw_the_rank_leave_makes_it_the_ranks(tmp_path):
    lines = HEAD + ["[rank0]: TypeError: compute_loss() missing 1 required positional argument: 'num_items_in_batch'",
                    "[rank1]: RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:534] Connection closed by peer "
                    "[127.0.0.1]:29500"]
    assert _named(lines, tmp_path) == [("rank-failure", "python-exception", [0])]


def test_agentcpm_guis_lone_rank0_tail_names_no_one(tmp_path):
    assert _named(corpus_lines("AgentCPM-GUI-51-"), tmp_path) == []
