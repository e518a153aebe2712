"""Long-context training with sequence / context parallelism (real incidents batch 205): their wordings, pinned as read.
Culprit: EasyContext's Yi-34B run whose CUDA ``indexSelectLargeIndex`` device-side assert is followed by rank 6's
NCCL watchdog terminating with ``device-side assert triggered`` (jzhang38/EasyContext#13) names rank 6 (cuda-error),
also in a layout of 8 x 1 and 4 x 2. Held controls: ring-flash-attention's varlen test whose ranks raise the same
``IndexError: too many indices for tensor of dimension 2`` (zhuzilin/ring-flash-attention#44; the first line's lost
``[`` kept; also with rank 3's copy appended), accelerate's launcher traceback ending in ``Failures: <NO_OTHER_FAILURES>``
(jzhang38/EasyContext#11), one rank's Megatron traceback cut before its exception under CP > 1 (NVIDIA-NeMo/
Megatron-Bridge#1292, modelscope/ms-swift#7897) name no one. Contrast: the assert with two ranks' watchdogs reporting
it names neither alone. No rule changed for the batch (all five met as collected). Pasted logs through
``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 2, 12, 0, tzinfo=dt.timezone.utc)


RING = corpus_lines("ring-flash-attention-44-")
ASSERT = corpus_lines("EasyContext-13-")
LAUNCHER = corpus_lines("EasyContext-11-")
CP_RANK1 = corpus_lines("Megatron-Bridge-1292-")
CP_RANK7 = corpus_lines("ms-swift-7897-")

#: rank 3's copy of the ring test's traceback, as ranks 0-2 print it
RING_RANK3 = [line.replace("[rank0]:", "[rank3]:") for line in RING[6:12]]
#: the device-side assert reported by rank 2's watchdog as well as rank 6's
TWO_WATCHDOGS = (
    ASSERT[:2]
    + [ASSERT[1].replace("rank6", "rank2").replace("Rank 6", "Rank 2")]
    + ASSERT[2:]
)

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # EasyContext-13's shape: the assert, then rank 6's watchdog on the device-side assert
    "index-select-assert-rank6-as-pasted": (ASSERT, None, None, 6, "cuda-error"),
    "index-select-assert-rank6-layout-8x1": (ASSERT, 8, 8, 6, "cuda-error"),
    "index-select-assert-rank6-layout-4x2": (ASSERT, 4, 8, 6, "cuda-error"),
    # ring-flash-attention-44's shape: every rank's identical IndexError
    "ring-varlen-indexerror-as-pasted": (RING, None, None, None, None),
    "ring-varlen-indexerror-layout-4": (RING, 4, 4, None, None),
    "ring-varlen-indexerror-all-four": (RING + RING_RANK3, 4, 4, None, None),
    # EasyContext-11's shape: the accelerate launcher's traceback, no failure listed
    "accelerate-launcher-no-other-failures-as-pasted": (
        LAUNCHER,
        None,
        None,
        None,
        None,
    ),
    "accelerate-launcher-no-other-failures-layout-8": (LAUNCHER, 8, 8, None, None),
    # Megatron-Bridge-1292 / ms-swift-7897's shape: one rank's traceback cut before its exception
    "cp-rank1-traceback-cut-as-pasted": (CP_RANK1, None, None, None, None),
    "cp-rank1-traceback-cut-layout-8": (CP_RANK1, 8, 8, None, None),
    "cp-rank7-traceback-cut-as-pasted": (CP_RANK7, None, None, None, None),
    "cp-rank7-traceback-cut-layout-8x2": (CP_RANK7, 8, 16, None, None),
    # contrast: two ranks' watchdogs report the device-side assert: neither is named alone
    "index-select-assert-two-watchdogs-contrast": (TWO_WATCHDOGS, 8, 8, None, None),
}
BATCHED = Batched("b205", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_long_context_sp_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])
