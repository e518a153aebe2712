"""Batch 95's numerical-failure shapes (tests/data/real-incidents, ``"batch": 95``, family ``numerical``), each with its
wording variants, as one pasted log through ``k10s import-logs`` (docs/rules.md, "Session 27: batch 95"):

* controls: Megatron's per-rank NaN/Inf check raised by whichever rank's local value went non-finite first names no
  one — the rerun state machine's ``RuntimeError: Rank 15, node …, device 15, iteration -1: Unexpected result nan
  (message='found NaN in local grad norm for bucket #0 …')`` (ms-swift-9791), the older ``AssertionError: Rank 3: found
  NaN in local grad norm in backwards pass. Device: 3, node: …`` in an interleaved untagged traceback
  (Pai-Megatron-Patch-60), ``found NaN in local forward loss calculation``, an ``Unexpected result inf`` of ``found Inf
  in local grad norm``, NeMo-run's ``i.pretrain/0 [rankN]:`` prefix, and a torchrun-tagged traceback ending in it;
* culprits, the contrast: the same tagged traceback ending in another exception stays its rank's own.

The analyses go through tests/bundle_batch.py (every input in one analysis).
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import corpus_log, naming_findings

NOW = dt.datetime(2026, 12, 1, 7, 0, tzinfo=dt.timezone.utc)

SWIFT = corpus_log("ms-swift-9791-rank15-nan-grad-norm-triton-ascend-gdn-control")
PAI = corpus_log("pai-megatron-patch-60-rank3-nan-grad-norm-pp2-no-flash-attn-control")

#: a torchrun-tagged traceback through Megatron's training step, ending in ``{error}``
TAGGED = ("[rank{r}]: Traceback (most recent call last):\n"
          "[rank{r}]:   File \"/workspace/Megatron-LM/pretrain_gpt.py\", line 233, in <module>\n"
          "[rank{r}]:     pretrain(\n"
          "[rank{r}]:   File \"/workspace/Megatron-LM/megatron/training/training.py\", line 1252, in train_step\n"
          "[rank{r}]:     losses_reduced = forward_backward_func(\n"
          "[rank{r}]: {error}\n")
ERRORS = {
    "rerun_nan": "RuntimeError: Rank {r}, node gpu-node-07, device {d}, iteration 412: Unexpected result nan (message="
                 "'found NaN in local grad norm for bucket #0 in backward pass before data-parallel communication collective')",
    "rerun_inf": "RuntimeError: Rank {r}, node gpu-node-07, device {d}, iteration -1: Unexpected result inf (message="
                 "'found Inf in local grad norm for bucket #6 in backward pass before data-parallel communication collective')",
    "forward_loss": "AssertionError: Rank {r}: found NaN in local forward loss calculation. Device: {d}, node: gpu-node-07",
    "key_error": "KeyError: 'input_ids'",
}


def _swift(rank: int) -> str:
    """ms-swift-9791's one line, rank 15 (device 15) moved to ``rank``."""
    return SWIFT.replace("[rank15]:", f"[rank{rank}]:").replace("Rank 15,", f"Rank {rank},").replace(
        "device 15,", f"device {rank % 8},")


def _pai(rank: int) -> str:
    return PAI.replace("Rank 3:", f"Rank {rank}:").replace("Device: 3,", f"Device: {rank % 8},")


def _tagged(error: str, rank: int) -> str:
    return TAGGED.format(r=rank, error=ERRORS[error].format(r=rank, d=rank % 8))


def _nemo_run(rank: int) -> str:
    """NeMo-run's executor prefix before torchrun's (``i.pretrain/0 [default4]:[rank4]:``)."""
    return "".join(f"i.pretrain/0 [default{rank}]:{line}\n" for line in _tagged("rerun_inf", rank).splitlines())


BUILD = {"swift": _swift, "pai": _pai, "nemo_run": _nemo_run,
         **{e: (lambda r, e=e: _tagged(e, r)) for e in ERRORS}}
#: (processes per node, world size) for each shape (None: not known)
SIZES = {"swift": (None, None), "pai": (None, None), "nemo_run": (8, 8), "rerun_nan": (8, 16), "rerun_inf": (8, 8),
         "forward_loss": (4, 8), "key_error": (8, 16)}

# key: (shape, rank); the expected (culprit, cause)
CULPRITS = {("key_error", 5): (5, "python-exception"), ("key_error", 0): (0, "python-exception")}
CONTROLS = [("swift", 15), ("swift", 0), ("swift", 3), ("pai", 3), ("pai", 0), ("pai", 6),
            ("rerun_nan", 5), ("rerun_nan", 0), ("rerun_inf", 2), ("forward_loss", 7), ("forward_loss", 0),
            ("nemo_run", 4)]
BATCHED = Batched("numerical-batch95", list(CULPRITS) + CONTROLS)


def _make(key: tuple, folder: Path) -> object:
    nproc, world = SIZES[key[0]]
    return pasted(BUILD[key[0]](key[1]), folder, nproc, NOW, world)


@pytest.mark.parametrize("key", BATCHED.params(CULPRITS))
def test_a_rank_s_own_exception_is_still_named(tmp_path_factory, key):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, *CULPRITS[key])


@pytest.mark.parametrize("key", BATCHED.params(CONTROLS))
def test_a_per_rank_nan_check_names_no_one(tmp_path_factory, key):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, None)


def test_the_variants_keep_their_shape():
    """The builders move the rank, not the wording the tests are about."""
    assert _swift(15) == SWIFT.replace("device 15,", "device 7,") and _pai(3) == PAI
    assert "Unexpected result inf (message='found Inf in local grad norm for bucket #6" in _nemo_run(4)
    assert _nemo_run(4).startswith("i.pretrain/0 [default4]:[rank4]: Traceback (most recent call last):")
