"""Loss NaN, gradient overflow and divergence pastes (real incidents batch 179, family nan-divergence-mixed-precision).

A paste whose lines the importer places on no rank, imported with no layout option, is one pod of one process; that the
process is rank 0 is the importer's guess. The guess is no better when the log numbers a process the one-process layout
does not hold: mmdetection's collective loss-keys check (open-mmlab/mmdetection#9291) prints `AssertionError: loss log
variables are different across GPUs!` on every rank, each followed by `rank N len(log_vars): ...`; read as one process,
the assertion became rank 0's own, a critical culprit for a line rank 1 printed as much as rank 0. Such a pod is now
``assumed`` as when no line numbers a rank (parsers/log_nproc_guess.py), so the exception names no rank; a log that
numbers only rank 0 keeps the one-process reading (a number run on into letters, a pod's hash, numbers nothing). Fp16 loss-scale overflow printed by every process (apex amp) or by
rank 0 for all (DeepSpeed) names no one either (docs/rules.md, "Session 35: batch 179"). Pasted logs through
``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import naming_findings

NOW = dt.datetime(2026, 12, 2, 9, 0, tzinfo=dt.timezone.utc)
ASSERT = "AssertionError: loss log variables are different across GPUs!"
RANK1 = "rank 1 len(log_vars): 3 keys: loss_rpn_cls,loss_rpn_bbox,s0.loss_bbox"
RANK0 = ("rank 0 len(log_vars): 11 keys: loss_rpn_cls,loss_rpn_bbox,s0.loss_cls,s0.acc,s0.loss_bbox,s1.loss_cls,s1.acc,"
         "s1.loss_bbox,s2.loss_cls,s2.acc,s2.loss_bbox")
FRAMES = ["Traceback (most recent call last):", '  File "tools/train.py", line 242, in <module>', "    main()",
          '  File "mmdet/models/detectors/base.py", line 219, in _parse_losses',
          "    assert log_var_length == len(log_vars) * dist.get_world_size(), message"]
APEX = "Gradient overflow.  Skipping step, loss scaler 0 reducing loss scale to {}"
BAR = ("Train 0:   1%|▉                                                           | 7/468 [00:10<09:58,  1.30s/it, acc=0, "
       "loss=39.8, skip=0]")
DS = ("[2023-04-28 06:51:{s:02d},903] [INFO] [loss_scaler.py:181:update_scale] [deepspeed] OVERFLOW! Rank 0 Skipping step. "
      "Attempted loss scale: {a}, reducing to {b}")
T5BAR = ("  0%|▋" + " " * 161 + "| {n}/24128 [00:40<2:40:10,  2.50it/s][2021-11-27 00:36:55,194] [INFO] [stage2.py:1628:step] "
         "[deepscale] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: 1, reducing to 1")

#: key: (the pasted lines, the rank a warning/critical finding must name alone: None for none)
CASES = {
    # mmdetection-9291 as pasted: both ranks' assertions with their key lists
    "mmdet-both-ranks": ([ASSERT, RANK1, "", ASSERT, RANK0], None),
    "mmdet-rank0-first": ([ASSERT, RANK0, ASSERT, RANK1], None),
    "mmdet-with-frames": (FRAMES + [ASSERT, RANK1] + FRAMES + [ASSERT, RANK0], None),
    # one assertion, followed by the other rank's detail only: still a process the one-process layout does not hold
    "mmdet-one-assert-rank1-detail": ([ASSERT, RANK1], None),
    "rank-2-loss-line-under-traceback": (FRAMES[:3] + ["RuntimeError: loss is nan", "rank=2 step=10 loss=nan"], None),
    # apex amp under DDP: every process prints the same skip (dialogue-generation-10)
    "apex-every-process": ([APEX.format("1024.0")] * 2 + [BAR + APEX.format("256.0")] + [APEX.format("256.0")] * 7, None),
    # DeepSpeed's scaler logs for all ranks from rank 0 (DeepSpeed-931, transformers-14531)
    "deepspeed-rank0-halvings": ([DS.format(s=29 + i, a=65536 >> i, b=32768 >> i) for i in range(4)], None),
    "deepspeed-glued-bars": ([T5BAR.format(n=n) for n in (98, 99)], None),
    # contrasts that still name: a tagged rank's own traceback ...
    "rank6-anomaly-tagged": (["[rank6]: Traceback (most recent call last):",
                              '[rank6]:   File "train.py", line 12, in <module>',
                              "[rank6]:     accelerator.backward(loss)",
                              "[rank6]: RuntimeError: Function 'Log1PBackward0' returned nan values in its 0th output."], 6),
}
#: ... and a log that numbers only rank 0: the one-process layout holds it, the exception is rank 0's
ONE_PROCESS = {
    "rank0-only-detail": ([ASSERT, RANK0], 0),
    # a number run on into letters is a name's (a pod's hash: tensorflow-18984's `cmle-training-worker-7bc72ccf46-0`)
    "rank0-and-hashed-pod-name": ([ASSERT, RANK0, '  compute.googleapis.com/resource_name:  "cmle-training-worker-7bc72ccf46-0-qz5zj"'], 0),
}
BATCHED = Batched("b179", list(CASES) + list(ONE_PROCESS))


def _make(key: str, folder: Path):
    return pasted((CASES | ONE_PROCESS)[key][0], folder, None, NOW, world=None)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_a_rank_the_one_process_layout_does_not_hold_places_no_untagged_failure(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][1])


@pytest.mark.parametrize("key", BATCHED.params(list(ONE_PROCESS), name=str))
def test_a_log_numbering_only_rank_0_keeps_the_one_process_reading(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, ONE_PROCESS[key][1], "python-exception")
