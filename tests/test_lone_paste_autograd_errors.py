"""Autograd's refusal of the program's graph in a paste of one rank's lines only (docs/rules.md, "Session 60: a lone copy
of a deterministic autograd error"): ``RuntimeError: element 0 of tensors does not require grad and does not have a
grad_fn`` (a loss with no path to a trainable parameter) and ``RuntimeError: Output 0 of ViewBackward0 is a view and its
base or another view of its base has been modified inplace`` (a view the graph needs changed in place) are the model's
and its code's, which every data-parallel rank runs alike at its first backward: the rank is a suspect, said at info
(low_why ``lone-paste-autograd-graph``; batch 370's DiffSynth-Studio#703 and batch 282's Liger-Kernel#48 named rank 0
at warning, both controls). Contrasts: the same error while the other ranks' lines show them running past it names that
rank; two ranks' copies name no one; DDP's unused-parameter error (``Expected to have finished reduction``, one rank's
batch can cause it: ultralytics#24612's culprit) and a lone ``AttributeError ... object has no attribute`` (rvc-webui#33,
nanotron#405: culprits) stay the rank's own; a ``ValueError`` quoting "does not require grad" stays the rank's.
"""

from __future__ import annotations

import datetime as dt

import pytest

from bundle_batch import pasted_findings
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 6, 8, 0, tzinfo=dt.timezone.utc)

NO_GRAD_FN = "RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn"
VIEW_INPLACE = ("RuntimeError: Output 0 of ViewBackward0 is a view and its base or another view of its base has been "
                "modified inplace. This view is the output of a function that returns multiple views. Such functions do "
                "not allow the output views to be modified inplace. You should replace the inplace operation by an "
                "out-of-place one.")


def _tail(rank: int, error: str) -> list[str]:
    return [f"[rank{rank}]: Traceback (most recent call last):",
            f'[rank{rank}]:   File "/workspace/train.py", line 212, in <module>',
            f"[rank{rank}]:     accelerator.backward(loss)",
            f'[rank{rank}]:   File "/usr/lib/python3/site-packages/torch/autograd/__init__.py", line 347, in backward',
            f"[rank{rank}]:     _engine_run_backward(",
            f"[rank{rank}]: {error}"]


def _gist(findings: list[dict]) -> list[tuple]:
    return [(f["rule"], f["severity"], f["cause"], f["ranks"]) for f in findings]


def _rank_failures(findings: list[dict]) -> list[tuple]:
    return [(f["severity"], f["ranks"], f["evidence"][0].get("low_why")) for f in findings if f["rule"] == "rank-failure"]


@pytest.mark.parametrize("error", [NO_GRAD_FN, VIEW_INPLACE,
                                   "RuntimeError: element 3 of tensors does not require grad and does not have a grad_fn"])
@pytest.mark.parametrize("nproc", [None, 8])
def test_a_lone_rank_s_autograd_graph_error_is_a_suspect_only(tmp_path, error, nproc):
    findings = pasted_findings(_tail(3, error), tmp_path, nproc, nproc, NOW)
    assert naming_findings(findings) == [], _gist(findings)
    assert _rank_failures(findings) == [("info", [3], "lone-paste-autograd-graph")]
    failure = next(f for f in findings if f["rule"] == "rank-failure")
    assert failure["confidence"] == "low"
    assert "autograd's refusal of the program's graph" in failure["summary"]


@pytest.mark.parametrize("slug, rank", [("DiffSynth-Studio-703-", 0), ("Liger-Kernel-48-", 0)])
def test_the_corpus_lone_autograd_controls_are_suspects_only(tmp_path, slug, rank):
    """DiffSynth-Studio#703 and Liger-Kernel#48 as collected: rank 0's suspect at info, no one named."""
    findings = pasted_findings(corpus_lines(slug), tmp_path, None, None, NOW)
    assert naming_findings(findings) == [], _gist(findings)
    assert _rank_failures(findings) == [("info", [rank], "lone-paste-autograd-graph")]


def test_the_autograd_error_of_one_rank_while_the_others_run_on_names_it(tmp_path):
    """The others' lines show them past the first backward (their next steps, then their peer's connection closing):
    the program did not fail them alike, so the rank that raised it is named."""
    lines = [f"[rank{r}]: step 10 loss 0.5" for r in range(4)] + _tail(2, NO_GRAD_FN)
    lines += [f"[rank{r}]: step 11 loss 0.4" for r in (0, 1, 3)]
    lines += [f"[rank{r}]: RuntimeError: [/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:534] Connection closed by "
              f"peer [10.0.0.2]:45678" for r in (0, 1, 3)]
    named = naming_findings(pasted_findings(lines, tmp_path, 4, 4, NOW))
    assert {r for f in named for r in f["ranks"]} == {2}, _gist(named)


@pytest.mark.parametrize("error", [NO_GRAD_FN, VIEW_INPLACE])
def test_two_ranks_copies_name_no_one(tmp_path, error):
    named = naming_findings(pasted_findings(_tail(0, error) + _tail(1, error), tmp_path, 2, 2, NOW))
    assert named == [], _gist(named)


@pytest.mark.parametrize("error", [
    # DDP's unused parameters: one rank's batch can leave a head without gradients (ultralytics#24612's culprit)
    "RuntimeError: Expected to have finished reduction in the prior iteration before starting a new one.",
    # a lone AttributeError: the corpus' lone copies are culprits as often as controls (rvc-webui#33, nanotron#405)
    "AttributeError: 'NoneType' object has no attribute 'item'",
    # the words in another exception: a check of the script's own, not autograd's refusal
    "ValueError: parameter lora_A.weight does not require grad and does not have a grad_fn in this config",
])
def test_a_lone_rank_s_other_errors_still_name_it(tmp_path, error):
    named = naming_findings(pasted_findings(_tail(2, error), tmp_path, 8, 8, NOW))
    assert [(f["severity"], f["ranks"]) for f in named] == [("warning", [2])], _gist(named)


def test_the_corpus_lone_unused_parameter_culprit_stays_named(tmp_path):
    """ultralytics#24612 as collected: DDP's reducer names rank 2 (`did not receive grad for rank 2`), still warning."""
    named = naming_findings(pasted_findings(corpus_lines("ultralytics-24612-"), tmp_path, 8, 8, NOW))
    assert [(f["severity"], f["cause"], f["ranks"]) for f in named] == [("warning", "python-exception", [2])]
