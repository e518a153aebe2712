"""Batch 89's straggler shapes (tests/data/real-incidents, ``"batch": 89``, family ``stragglers``): per-rank reports of
how fast every rank runs, and stall reports naming the rank the others wait for (docs/rules.md, "Session 27: batch 89").

The variants seen in the threads searched for the batch:

* a straggler detector's own per-rank report of a healthy run: NVRx's ``GPU relative performance:`` /
  ``GPU individual performance:`` blocks of ``Rank=N Node=H Score=S`` lines under Megatron-Bridge's logger (rank 0 at
  0.95, far above a straggler threshold), in either rank order, and FlagScale's ``=== Straggler Report at Step N ===``
  with ``✓ No stragglers detected.`` and a section's per-rank ``Rank N: X ms`` times;
* every process's own step line at the same pace (``mem_usage:cuda:N …, 3.4 sec/step``), the slowest line a different
  device every step;
* one ``nvidia-smi`` sample with one GPU at 0 % while the run is healthy;
* Horovod's stall warning of a 32-rank job 228 steps in, its ready lists holding every rank but one, in 0.20's
  ``[ready ranks: …]`` wording; the same stall in the header-and-rows wording, ``Missing ranks:`` (0.21+) or
  ``Stalled ranks:`` (0.19-0.20, the same list before horovod#2289 renamed it; horovod-1442's, automl-563's,
  ClipBERT-37's pastes), then ``16: [tensor, …]`` per missing rank (``16!: […]`` once it is to be shut down), behind
  mpirun's ``[1,0]<stderr>:`` tag or bare — a bare row's number is the rank it names, no srun ``--label``, so in a
  pasted multi-node job it stays with its header.

A report of scores, times or utilisation names no one by itself; a stall report's missing rank is the one the others
wait for (never-joined, horovod-364's shape). The analyses go through tests/bundle_batch.py (every input in one analysis).
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import corpus_log, naming_findings

NOW = dt.datetime(2026, 12, 1, 6, 0, tzinfo=dt.timezone.utc)

NVRX = corpus_log("megatron-bridge-2114-nvrx-perf-scores-no-straggler-control")
FLAGSCALE = corpus_log("flagscale-938-straggler-report-none-detected-control")
STEPS = corpus_log("returnn-1485-four-gpu-equal-slow-step-time-control")
SMI = corpus_log("pytorch-36285-ddp-gpu0-zero-util-nvidia-smi-control")
READY = corpus_log("horovod-215-ready-ranks-all-but-16-mid-epoch-stall")

PROGRESS = "228/625 [=========>....................] - ETA: 6:32 - loss: 7.6713 - acc: 0.0073 - top_k_categorical_accuracy: 0.0276"
WARNING = ("[2020-04-20 20:29:29.089665: W horovod/common/stall_inspector.cc:105] One or more tensors were submitted to be "
           "reduced, gathered or broadcasted by subset of ranks and are waiting for remainder of ranks for more than 60 "
           "seconds. This may indicate that different ranks are trying to submit different tensors or that only subset of "
           "ranks is submitting tensors, which will cause deadlock.")
ROW = ("{rank}: [training/SGD/DistributedSGD_Allreduce/HorovodAllreduce_training_SGD_gradients_AddN_335_0, "
       "training/SGD/DistributedSGD_Allreduce/HorovodAllreduce_training_SGD_gradients_conv1_1_BiasAdd_grad_BiasAddGrad_0]")


def _rows(header: str, rank: str = "16", tag: str = "") -> str:
    """The stall in the header-and-rows wording: the header, then the missing rank's row (mpirun's ``tag`` or none)."""
    return "\n".join([PROGRESS] + [tag + line for line in (WARNING, header, ROW.format(rank=rank))]) + "\n"


def _nvrx_swapped() -> str:
    """The same report with the lower score on rank 1 (whichever rank is lowest, 0.95 is no straggler)."""
    return NVRX.replace("Rank=0 Node=22ca9bdcfc9a Score=0.95", "Rank=0 Node=22ca9bdcfc9a Score=@@") \
        .replace("Rank=1 Node=22ca9bdcfc9a Score=1.00", "Rank=1 Node=22ca9bdcfc9a Score=0.95") \
        .replace("Score=@@", "Score=1.00")


def _disjoint(cut: bool = False) -> str:
    """A stall whose rows list DISJOINT tensors (horovod-2285's shape): rank 3 never submitted the broadcast rank 16
    did, rank 16 never submitted the allreduce rank 3 did — ranks running different collectives, no laggard; ``cut``:
    rank 16's row cut at the terminal's width (``…_gradients_AddN_33$``)."""
    row16 = ROW.format(rank="16")
    row16 = row16[:120] + "$" if cut else row16
    return "\n".join([PROGRESS] + [TAG + line for line in (WARNING, "Missing ranks:", "3: [broadcast_object_fn.sz]", row16)]) + "\n"


def _cut_row() -> str:
    """The missing rank's row cut at the terminal's width: still its row."""
    return _rows("Missing ranks:", tag=TAG).replace(ROW.format(rank="16"), ROW.format(rank="16")[:120] + "$")


TAG = "[1,0]<stderr>:"
BUILD = {"nvrx": lambda: NVRX, "nvrx-swapped": _nvrx_swapped, "flagscale": lambda: FLAGSCALE, "steps": lambda: STEPS,
         "smi": lambda: SMI, "ready": lambda: READY,
         "missing-bare": lambda: _rows("Missing ranks:"), "missing-tagged": lambda: _rows("Missing ranks:", tag=TAG),
         "stalled-bare": lambda: _rows("Stalled ranks:"), "stalled-tagged": lambda: _rows("Stalled ranks:", tag=TAG),
         "stalled-shutdown": lambda: _rows("Stalled ranks:", "16!", TAG), "missing-cut": _cut_row,
         "disjoint": _disjoint, "disjoint-cut": lambda: _disjoint(cut=True)}
#: (processes per node, world size) each paste or its thread states (None: not known)
SIZES = {"nvrx": (2, 2), "nvrx-swapped": (2, 2), "flagscale": (None, None), "steps": (4, 4), "smi": (None, None),
         "disjoint": (4, 32), "disjoint-cut": (4, 32)}

CONTROLS = list(SIZES)
#: every stall's missing rank is rank 16, the one its 31 peers wait for
CULPRITS = {key: (16, "never-joined") for key in BUILD if key not in SIZES}
BATCHED = Batched("stragglers-batch89", list(CULPRITS) + CONTROLS)


def _make(key: str, folder: Path) -> object:
    nproc, world = SIZES.get(key, (4, 32))  # the stalls: 8 nodes x 4 GPUs (horovod-215's mpirun line)
    return pasted(BUILD[key](), folder, nproc, NOW, world)


def test_the_variants_are_the_corpus_lines_reworded():
    swapped = _nvrx_swapped()
    assert "Rank=1 Node=22ca9bdcfc9a Score=0.95" in swapped and "Rank=0 Node=22ca9bdcfc9a Score=1.00" in swapped
    assert "[ready ranks: 21, 25, 26" in READY and "16," not in READY.split("[ready ranks: ")[1]
    assert READY.splitlines()[3].startswith(PROGRESS)


@pytest.mark.parametrize("key", BATCHED.params(CULPRITS, name=str))
def test_a_stall_reports_missing_rank_is_the_one_the_others_wait_for(tmp_path_factory, key):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, *CULPRITS[key])


@pytest.mark.parametrize("key", BATCHED.params(CONTROLS, name=str))
def test_a_report_of_how_fast_every_rank_runs_or_of_ranks_on_different_collectives_names_no_one(tmp_path_factory, key):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, None)
