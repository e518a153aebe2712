"""A parallel layout the launch's world cannot hold (real incidents batch 133, hpcaitech/ColossalAI#6202: rank 5's
``AssertionError: World size 8 is not divisible by tp_size 1 * pp_size 3`` from MoeHybridParallelPlugin). A
framework's check that the world size divides by its tensor/pipeline/context sizes, or that a model dimension divides
by the world it is sharded over, compares the same numbers in every process: whichever rank's copy the paste shows
raised nothing of its own, so no rank is named (queries/_incident_common_mode.sql, ``common_mode``; docs/rules.md, "Session 31:
batch 133"). A divisibility check on a shape one batch brings (a sequence split over context-parallel ranks, a tensor
sharded over a mesh) is not read so: it still names its rank. Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import naming_findings

NOW = dt.datetime(2026, 12, 1, 19, 30, tzinfo=dt.timezone.utc)


def _traceback(rank: int, error: str, tag: bool = True) -> list[str]:
    pre = f"[rank{rank}]: " if tag else ""
    return [
        f"{pre}Traceback (most recent call last):",
        f'{pre}  File "/workspace/train.py", line 455, in <module>',
        f"{pre}    train(args)",
        f'{pre}  File "/workspace/train.py", line 109, in train',
        f"{pre}    plugin = build_parallel(args)",
        f"{pre}{error}",
    ]


def _torchrun_tail(local_rank: int) -> list[str]:
    return [
        f"E1201 19:30:02.123000 4242 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: 1) "
        f"local_rank: {local_rank} (pid: {4300 + local_rank}) of binary: /usr/bin/python3"
    ]


#: key: (the pasted lines, processes per node, the rank a warning/critical finding must name alone: None for none)
CASES = {
    # ColossalAI-6202's wording, rank-tagged, with the unprefixed warnings of the others after it
    "colossalai-world-size-tp-pp": (
        _traceback(
            5,
            "[rank5]: AssertionError: World size 8 is not divisible by tp_size 1 "
            "* pp_size 3",
        )
        + [
            "/opt/colossalai/shardformer/layer/normalization.py:48: "
            "UserWarning: Please install apex from source"
        ],
        8,
        None,
    ),
    # Megatron's parallel_state and arguments wordings
    "megatron-runtime-world-size": (
        _traceback(3, "[rank3]: RuntimeError: world_size (8) is not divisible by 3"),
        8,
        None,
    ),
    "megatron-args-world-size": (
        _traceback(
            6,
            "[rank6]: AssertionError: world size (8) is not divisible by "
            "total_model_size (total_model_size=3)",
        ),
        8,
        None,
    ),
    # finetrainers' ValueError, untagged under torchrun's failure line for the process
    "finetrainers-product-of-degrees": (
        _traceback(
            1,
            "ValueError: World size 2 must be divisible by the product of all "
            "parallel degrees and data parallel shards.",
            tag=False,
        )
        + _torchrun_tail(1),
        2,
        None,
    ),
    # FMS's model dimension over the world it shards (foundation-model-stack#274's title)
    "fms-hidden-dim-by-world-size": (
        _traceback(
            12, "[rank12]: AssertionError: Hidden dim must be divisible by world size"
        ),
        40,
        None,
    ),
    # contrasts: a shape one batch brings, divisible by a group's size, stays its rank's ...
    "contrast-sequence-by-cp-size": (
        _traceback(
            5,
            "[rank5]: AssertionError: Sequence length 4097 is not divisible by "
            "context parallel size 2",
        ),
        8,
        5,
    ),
    "contrast-tensor-by-mesh-size": (
        _traceback(
            2,
            "[rank2]: AssertionError: Tensor size along dimension to be sharded "
            "must be divisible by mesh size",
        ),
        8,
        2,
    ),
    # ... and so does another exception of the rank, or a world size that is only compared, not divided
    "contrast-keyerror": (_traceback(5, "[rank5]: KeyError: 'logits'"), 8, 5),
    "contrast-world-size-mismatch": (
        _traceback(
            4,
            "[rank4]: AssertionError: world size 8 does not match the checkpoint's 16",
        ),
        8,
        4,
    ),
}
BATCHED = Batched("b133", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_a_layout_the_world_cannot_hold_names_no_rank(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][2])
