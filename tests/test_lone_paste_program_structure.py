"""The program's own structure refused, and a check comparing two ranks, in a paste of one rank's lines only
(docs/rules.md, "Session 61: a lone copy of the program's own structure refused"): ``RuntimeError: Expected all tensors to
be on the same device, but found at least two devices, cuda:0 and cpu!``, ``AttributeError: 'DistributedDataParallel'
object has no attribute 'train_blocks'`` and ``KeyError: ("Mesh dimension 'ep' does not exist.", ...)`` are the code and
config every rank runs (low_why ``lone-paste-program-structure``); DeepSpeed's ``RuntimeError: Detected a disagreement on
list length between rank0 and rank7`` fires on whichever rank compares, not on the one that diverged (low_why
``lone-paste-cross-rank-check``); CUDA graph capture's ``CUDA error: operation failed due to a previous error during capture``
is the program's stream use under capture (low_why ``lone-paste-graph-capture``). huatuogpt-o1#9, sd-scripts#1551,
torchtitan#1396, LlamaFactory#10224 and Megatron-Bridge#1901 named their lone rank at warning, all five controls: each is
now a suspect, said at info. Contrasts: the same error while the other ranks'
lines show them running past it names that rank; two ranks' copies name no one; a lone rank's KeyError of its own batch
(the torch runs' injected ``KeyError: 'labels'``, a DataLoader worker's re-raised KeyError), another AttributeError
(nanotron#405's ``'NoneType' object has no attribute 'item'``, a culprit; an unwrapped model's ``... has no attribute
'module'``, rvc-webui#33's culprit shape) and a size or shape mismatch stay the rank's; the capture lines with an ECC
error in place of the capture error stay the rank's (critical).
"""

from __future__ import annotations

import datetime as dt

import pytest

from bundle_batch import pasted_findings
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 6, 11, 0, tzinfo=dt.timezone.utc)

STRUCTURE = [
    "RuntimeError: Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!",
    "RuntimeError: Expected all tensors to be on the same device, but found at least two devices, cuda:1 and cuda:0! "
    "(when checking argument for argument mat2 in method wrapper_CUDA_mm)",
    "AttributeError: 'DistributedDataParallel' object has no attribute 'train_blocks'",
    "AttributeError: 'FullyShardedDataParallel' object has no attribute 'generate'",
    "KeyError: (\"Mesh dimension 'ep' does not exist.\", \"Available mesh dimensions are: mesh_dim_names=('dp_shard_mod_ep', "
    "'dp_shard_in_ep')\")",
]
CROSS_RANK = [
    "RuntimeError: Detected a disagreement on list length between rank0 and rank7: rank0: 30815, rank7: 30833",
    "RuntimeError: Detected a disagreement on list length between rank 0 and rank 3:",
]
#: a lone rank's own errors of the same families that stay named (culprit shapes of the corpus and the torch runs)
OWN = [
    "KeyError: 'labels'",
    "KeyError: Caught KeyError in DataLoader worker process 0.",
    "AttributeError: 'NoneType' object has no attribute 'item'",
    "AttributeError: 'SynthesizerTrnMs256NSFSid' object has no attribute 'module'",
    "RuntimeError: The size of tensor a (2535) must match the size of tensor b (20280) at non-singleton dimension 1",
    "RuntimeError: Expected to have finished reduction in the prior iteration before starting a new one.",
]


def _tail(rank: int, error: str) -> list[str]:
    return [f"[rank{rank}]: Traceback (most recent call last):",
            f'[rank{rank}]:   File "/workspace/train.py", line 212, in <module>',
            f"[rank{rank}]:     loss = step(model, batch)",
            f'[rank{rank}]:   File "/workspace/train.py", line 140, in step',
            f"[rank{rank}]:     out = model.forward_blocks(batch)",
            f"[rank{rank}]: {error}"]


def _gist(findings: list[dict]) -> list[tuple]:
    return [(f["rule"], f["severity"], f["cause"], f["ranks"]) for f in findings]


def _rank_failures(findings: list[dict]) -> list[tuple]:
    return [(f["severity"], f["ranks"], f["evidence"][0].get("low_why")) for f in findings if f["rule"] == "rank-failure"]


@pytest.mark.parametrize("error, why, words", [
    *[(e, "lone-paste-program-structure", "the program's own structure refused") for e in STRUCTURE],
    *[(e, "lone-paste-cross-rank-check", "a check comparing its state with another rank's") for e in CROSS_RANK],
])
@pytest.mark.parametrize("nproc", [None, 8])
def test_a_lone_rank_s_structure_error_is_a_suspect_only(tmp_path, error, why, words, nproc):
    findings = pasted_findings(_tail(3, error), tmp_path, nproc, nproc, NOW)
    assert naming_findings(findings) == [], _gist(findings)
    assert _rank_failures(findings) == [("info", [3], why)]
    failure = next(f for f in findings if f["rule"] == "rank-failure")
    assert failure["confidence"] == "low"
    assert words in failure["summary"]


@pytest.mark.parametrize("slug, rank, why", [
    ("huatuogpt-o1-9-", 0, "lone-paste-program-structure"),
    ("sd-scripts-1551-", 0, "lone-paste-program-structure"),
    ("torchtitan-1396-", 1, "lone-paste-program-structure"),
    ("LlamaFactory-10224-", 7, "lone-paste-cross-rank-check"),
])
def test_the_corpus_lone_structure_errors_are_suspects_only(tmp_path, slug, rank, why):
    """huatuogpt-o1#9, sd-scripts#1551, torchtitan#1396 and LlamaFactory#10224 as collected: the lone rank's suspect."""
    findings = pasted_findings(corpus_lines(slug), tmp_path, None, None, NOW)
    assert naming_findings(findings) == [], _gist(findings)
    assert _rank_failures(findings) == [("info", [rank], why)]


@pytest.mark.parametrize("error", [STRUCTURE[0], STRUCTURE[2], CROSS_RANK[0]])
def test_the_error_of_one_rank_while_the_others_run_on_names_it(tmp_path, error):
    """The others' lines show them past the step (their next steps, then their peer's connection closing): the code did
    not fail them alike, so the rank that raised it is named."""
    lines = [f"[rank{r}]: step 10 loss 0.5" for r in range(4)] + _tail(2, error)
    lines += [f"[rank{r}]: step 11 loss 0.4" for r in (0, 1, 3)]
    lines += [f"[rank{r}]: RuntimeError: [/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:534] Connection closed by "
              f"peer [10.0.0.2]:45678" for r in (0, 1, 3)]
    named = naming_findings(pasted_findings(lines, tmp_path, 4, 4, NOW))
    assert {r for f in named for r in f["ranks"]} == {2}, _gist(named)


@pytest.mark.parametrize("error", OWN)
def test_a_lone_rank_s_own_error_of_the_same_families_stays_named(tmp_path, error):
    """Its own batch's key, another object's attribute, a shape: named (warning), never these classes."""
    findings = pasted_findings(_tail(5, error), tmp_path, None, None, NOW)
    assert [(s, r, w) for s, r, w in _rank_failures(findings)] == [("warning", [5], None)], _gist(findings)


def test_the_corpus_culprit_of_another_attribute_error_stays_named(tmp_path):
    """nanotron#405 (a culprit): rank 0, a non-final pipeline stage, asks `.item()` of its None loss alone."""
    findings = pasted_findings(corpus_lines("nanotron-405-"), tmp_path, None, None, NOW)
    assert [(f["ranks"], f["cause"]) for f in naming_findings(findings)] == [([0], "python-exception")], _gist(findings)


@pytest.mark.parametrize("error", [STRUCTURE[0], STRUCTURE[2], CROSS_RANK[0]])
def test_two_ranks_copies_name_no_one(tmp_path, error):
    findings = pasted_findings(_tail(0, error) + _tail(1, error), tmp_path, None, None, NOW)
    assert naming_findings(findings) == [], _gist(findings)
    whys = [w for _s, _r, w in _rank_failures(findings)]
    assert "lone-paste-program-structure" not in whys and "lone-paste-cross-rank-check" not in whys


CAPTURE = ["torch.AcceleratorError: CUDA error: operation failed due to a previous error during capture",
           "RuntimeError: CUDA error: operation not permitted when stream is capturing"]


@pytest.mark.parametrize("error", CAPTURE)
@pytest.mark.parametrize("nproc", [None, 4])
def test_a_lone_rank_s_graph_capture_error_is_a_suspect_only(tmp_path, error, nproc):
    findings = pasted_findings(_tail(3, error), tmp_path, nproc, nproc, NOW)
    assert naming_findings(findings) == [], _gist(findings)
    assert [(f["severity"], f["cause"], f["ranks"], f["evidence"][0].get("low_why")) for f in findings
            if f["rule"] == "rank-failure"] == [("info", "cuda-error", [3], "lone-paste-graph-capture")]
    assert "CUDA graph capture" in next(f for f in findings if f["rule"] == "rank-failure")["summary"]


def test_the_corpus_lone_graph_capture_error_is_a_suspect_only(tmp_path):
    """Megatron-Bridge#1901 as collected: rank 3's five lines, a suspect."""
    findings = pasted_findings(corpus_lines("megatron-bridge-1901-"), tmp_path, None, None, NOW)
    assert naming_findings(findings) == [], _gist(findings)
    assert _rank_failures(findings) == [("info", [3], "lone-paste-graph-capture")]


def test_an_ecc_error_in_the_capture_lines_stays_the_rank_s(tmp_path):
    lines = corpus_lines("megatron-bridge-1901-")
    lines = [lines[0].replace("operation failed due to a previous error during capture", "uncorrectable ECC error encountered")]
    lines += corpus_lines("megatron-bridge-1901-")[2:]
    named = naming_findings(pasted_findings(lines, tmp_path, 4, 4, NOW))
    assert [(f["severity"], f["ranks"]) for f in named] == [("critical", [3])], _gist(named)


def test_a_capture_error_of_one_rank_while_the_others_run_on_names_it(tmp_path):
    lines = [f"[rank{r}]: step 10 loss 0.5" for r in range(4)] + _tail(2, CAPTURE[0])
    lines += [f"[rank{r}]: step 11 loss 0.4" for r in (0, 1, 3)]
    named = naming_findings(pasted_findings(lines, tmp_path, 4, 4, NOW))
    assert {r for f in named for r in f["ranks"]} == {2}, _gist(named)
