"""Batch 121's shapes (tests/data/real-incidents, ``"batch": 121``, family ``ddp-reducer-autograd``), with their
wording variants, as pasted logs through ``k10s import-logs`` (docs/rules.md, "Session 30: batch 121").

DDP's check that a parameter's gradient hook fires once an iteration (``RuntimeError: Expected to mark a variable ready
only once. This error is caused by one of the following reasons: 1) Use of a module parameter outside the `forward`
function … 2) Reused parameters in multiple reentrant backward passes …``) is the model's structure and options
(a parameter shared across passes, reentrant activation checkpointing), which every rank runs alike: one rank's copy
names no one. DDP's unused-parameter error (``Expected to have finished reduction …`` with ``Parameter indices which did
not receive grad for rank N``), which one rank's batch can cause, still names its rank, and so does another exception.

The analyses go through tests/bundle_batch.py (every input in one analysis).
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import corpus_log, naming_findings

NOW = dt.datetime(2026, 12, 1, 17, 0, tzinfo=dt.timezone.utc)

MS_SWIFT = corpus_log("ms-swift-3171-grpo-ddp-rank3-mark-variable-ready-twice-reentrant-control")
ULTRALYTICS = corpus_log("ultralytics-24612-yolo26x-rank2-unused-head-params-reducer")

#: torch 1.9's wording (before `_set_static_graph()` was suggested), as older pastes hold it
OLD_WORDING = ("RuntimeError: Expected to mark a variable ready only once. This error is caused by one of the following "
               "reasons: 1) Use of a module parameter outside the `forward` function. Please make sure model parameters "
               "are not shared across multiple concurrent forward-backward passes2) Reused parameters in multiple "
               "reentrant backward passes. For example, if you use multiple `checkpoint` functions to wrap the same part "
               "of your model, it would result in the same set of parameters been used by different reentrant backward "
               "passes multiple times, and hence marking a variable ready multiple times. DDP does not support such use "
               "cases yet.")
#: with TORCH_DISTRIBUTED_DEBUG's line naming the parameter, under a rank tag
NAMED_PARAM = ("[rank1]: " + MS_SWIFT.split("[rank3]: ", 1)[1].rstrip("\n") + "\n"
               "[rank1]: Parameter at index 695 with name base_model.model.model.layers.35.mlp.down_proj.lora_B.default"
               ".weight has been marked as ready twice. This means that multiple autograd engine  hooks have fired for "
               "this particular parameter during this iteration.\n")

#: key: (the log, the rank a warning/critical finding must name alone: None for none)
CASES = {
    "ms-swift-3171": (MS_SWIFT, None),
    "rank0-old-wording": ("[rank0]: " + OLD_WORDING + "\n", None),
    "untagged-old-wording": (OLD_WORDING + "\n", None),
    "rank1-named-parameter": (NAMED_PARAM, None),
    # contrast: the unused-parameter error names the rank whose batch broke the reduction
    "ultralytics-24612": (ULTRALYTICS, 2),
    # contrast: another exception of a rank is that rank's own (since session 61 not the device-placement error, which in
    # a lone paste is the program's, a suspect: tests/test_lone_paste_program_structure.py)
    "rank3-other-runtime-error": ("[rank3]: RuntimeError: shape '[2048, 1, 4096]' is invalid for input of size 0\n", 3),
}
BATCHED = Batched("b121", list(CASES))


def _make(key: str, folder: Path):
    return pasted(CASES[key][0], folder, 8, NOW)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_ddp_reducer_shapes(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][1])
