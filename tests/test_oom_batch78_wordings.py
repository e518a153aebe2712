"""Batch 78's out-of-memory shapes (tests/data/real-incidents, ``"batch": 78``, family ``oom-one-or-all``), each with
its wording variants, as one pasted log through ``k10s import-logs`` (docs/rules.md, "Session 26: batch 78"):

* controls: one untagged ``RuntimeError: CUDA out of memory … GPU N`` line quoted alone (lightning-thunder-2116: a
  regression every rank hits); several processes' ``OutOfMemoryError`` heads spliced before one GPU's message
  (ColossalAI-4537); one rank's tagged OOM followed by another rank's own traceback (LlamaFactory-7781's predict,
  ms-swift-5943's GRPO on two nodes) — none names a rank;
* contrast: one rank's tagged traceback alone, glued to a progress bar, cut before its exception (ultralytics-19917),
  makes that rank a suspect at info only since session 27 (a NOT_YET in tests/corpus_not_yet.py).

The analyses go through tests/bundle_batch.py (every input in one analysis).
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import corpus_log, naming_findings

NOW = dt.datetime(2026, 12, 1, 5, 0, tzinfo=dt.timezone.utc)

LONE = corpus_log("lightning-thunder-2116-lone-gpu3-oom-line-checkpointing-regression-control")
SPLICED = corpus_log("ColossalAI-4537-glued-oom-heads-gpu6-32gib-control")
PREDICT = corpus_log("LlamaFactory-7781-eval-rank7-oom-rank4-traceback-control")
GRPO = corpus_log("ms-swift-5943-grpo-27b-two-nodes-rank15-oom-rank12-traceback-control")
ASSIGNER = corpus_log("ultralytics-19917-rank1-assigner-traceback-oom-cut-second-gpu-full")


def _lone(gpu: int, wording: str) -> str:
    """The one quoted line, on another GPU, with the exception as older or newer torch names it."""
    return LONE.replace("GPU 3 ", f"GPU {gpu} ").replace("RuntimeError: ", wording)


def _spliced(gpu: int) -> str:
    return SPLICED.replace("(GPU 6;", f"(GPU {gpu};")


def _two_ranks(text: str, old: tuple[int, int], new: tuple[int, int]) -> str:
    """The OOM rank and the rank whose traceback follows, renumbered (the OOM's GPU with it, modulo 8)."""
    (a, b), (x, y) = old, new
    text = text.replace(f"[rank{a}]:", "[@A]:").replace(f"[rank{b}]:", "[@B]:")
    text = text.replace(f"GPU {a % 8} has", f"GPU {x % 8} has")
    return text.replace("[@A]:", f"[rank{x}]:").replace("[@B]:", f"[rank{y}]:")


def _assigner(rank: int) -> str:
    return ASSIGNER.replace("[rank1]:", f"[rank{rank}]:")


BUILD = {"lone": _lone, "spliced": _spliced,
         "predict": lambda x, y: _two_ranks(PREDICT, (7, 4), (x, y)),
         "grpo": lambda x, y: _two_ranks(GRPO, (15, 12), (x, y)),
         "assigner": _assigner}
#: (processes per node, world size) the thread states for each shape (None: not known)
SIZES = {"lone": (8, 8), "spliced": (8, 8), "predict": (8, 8), "grpo": (8, 16), "assigner": (2, 2)}

# key: (shape, parameters …); the expected culprit rank (the cause is the NOT_YET), None for a control
CULPRITS = {("assigner", 1): 1, ("assigner", 0): 0}
CONTROLS = [("lone", 3, "RuntimeError: "), ("lone", 0, "RuntimeError: "), ("lone", 7, "torch.OutOfMemoryError: "),
            ("lone", 5, "torch.cuda.OutOfMemoryError: "),
            ("spliced", 6), ("spliced", 0), ("spliced", 3),
            ("predict", 7, 4), ("predict", 2, 5), ("predict", 0, 1),
            ("grpo", 15, 12), ("grpo", 3, 9), ("grpo", 8, 0)]
BATCHED = Batched("oom-batch78", list(CULPRITS) + CONTROLS)


def _make(key: tuple, folder: Path) -> object:
    nproc, world = SIZES[key[0]]
    return pasted(BUILD[key[0]](*key[1:]), folder, nproc, NOW, world)


def _id(key: tuple) -> str:
    return "-".join(str(part).replace(" ", "_").rstrip(":_") for part in key)


@pytest.mark.parametrize("key", BATCHED.params(CULPRITS, _id))
def test_a_lone_ranks_cut_traceback_makes_that_rank_a_suspect_only(tmp_path_factory, key):
    """Since session 27 a traceback cut before its exception, alone, is said at info (docs/rules.md, "Session 27: a cut
    traceback alone"): the rank is shown as a suspect, no culprit is named."""
    findings = BATCHED.findings(key, tmp_path_factory, _make)
    rank = CULPRITS[key]
    assert naming_findings(findings) == [], [(f["rule"], f["cause"], f["ranks"]) for f in naming_findings(findings)]
    assert any(f["severity"] == "info" and f["ranks"] == [rank] and "confidence low" in f["summary"] for f in findings), findings


@pytest.mark.parametrize("key", BATCHED.params(CONTROLS, _id))
def test_the_common_mode_oom_controls_name_no_one(tmp_path_factory, key):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, None)


def test_the_variants_keep_their_shape():
    """The builders change ranks, GPUs and the exception's name, not the wording the tests are about."""
    lone = _lone(5, "torch.cuda.OutOfMemoryError: ")
    assert lone.startswith("torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 448.00 MiB. GPU 5 has")
    assert lone.count("\n") == 1 and "GPU 3" not in lone
    spliced = _spliced(3)
    assert spliced.startswith("torch.cuda.OutOfMemoryErrortorch.cuda: torch.cuda.OutOfMemoryError.OutOfMemoryError:")
    assert "(GPU 3; 79.20 GiB total capacity" in spliced
    predict = _two_ranks(PREDICT, (7, 4), (2, 5))
    assert predict.startswith("[rank2]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 270.00 MiB. GPU 2 has")
    assert predict.count("[rank5]:") == 9 and "[rank7]" not in predict and "[rank4]" not in predict
    grpo = _two_ranks(GRPO, (15, 12), (8, 0))
    assert grpo.startswith("[rank8]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.63 GiB. GPU 0 has")
    assert grpo.count("[rank0]:") == 9 and "[rank15]" not in grpo
    assigner = _assigner(0)
    assert "2.14it/s][rank0]: Traceback (most recent call last):" in assigner and "[rank1]" not in assigner
