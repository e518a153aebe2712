"""NVIDIA-NeMo (Megatron-Bridge, RL) and torchtitan failures of 2026 (real incidents batch 280), pinned as read.
Four controls, collected blind (no culprit found in the time given); one was read with a culprit as collected
(NOT_YET, batch 280) and is pinned here as read so a change of reading is seen: torch-elastic's ``Root Cause (first
observed failure)`` block naming ``rank : 7 (local_rank: 7)`` with ``exitcode : 1`` and a traceback into the model, its
exception cut (pytorch/torchtitan#3817: TP + MXFP8's ``mat2 must be col_major`` on every TP rank) names rank 7. The
three others name no one: a ``[rank18]:`` traceback cut before its assertion (NVIDIA-NeMo/Megatron-Bridge#2022:
Megatron-FSDP with the precision-aware optimizer, every rank) is rank 18's info suspect; unranked, indented frames of
torchtitan's async checkpoint save (pytorch/torchtitan#3476: ``async_with_pinned_mem``'s staging KeyError, a PyTorch
2.11 regression) and one Ray ``VllmAsyncGenerationWorker``'s EngineCore frames in a compiled MoE graph
(NVIDIA-NeMo/RL#2579: the CUDA 13 bump) are read as nothing. Scored 3/4 both ways as collected; no rule changed
(measure only). Contrasts: without the root-cause block's ``rank`` line no one is named; the block renumbered names the
new rank; ``exitcode : -9`` with ``Signal 9 (SIGKILL)`` names rank 7 for a host OOM kill; the assertion line under
``[rank18]:`` (or ``[rank5]:``) names that rank, a CUDA OOM line names it for cuda-oom; the stager frames under
``[rank1]:`` with the KeyError name rank 1; the Ray worker tagged ``[rank=3]`` with an exception names rank 3, untagged
its CUDA OOM is a critical OOM of no rank and its illegal memory access a CUDA error of no rank. Torch-elastic's
summary indents the worker's exception line; cut from its header, the indented ``  KeyError: <class 'type'>`` is not
read at all, flush it is a Python failure of no rank. Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import (
    Batched,
    assert_info_suspect,
    assert_one_rank,
    pasted,
    pasted_cases,
)
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 5, 0, 40, tzinfo=dt.timezone.utc)

ROOT_CAUSE = corpus_lines("torchtitan-3817-")
RANK18 = corpus_lines("Megatron-Bridge-2022-")
STAGER = corpus_lines("torchtitan-3476-")
ENGINE = corpus_lines("NeMo-RL-2579-")

#: the root-cause block without its ``rank : 7 (local_rank: 7)`` line
ROOT_CAUSE_NO_RANK = [line for line in ROOT_CAUSE if "rank      :" not in line]
#: the same block for global/local rank 3
ROOT_CAUSE_RANK3 = [
    line.replace(": 7 (local_rank: 7)", ": 3 (local_rank: 3)").replace(
        "attempt_0/7/", "attempt_0/3/"
    )
    for line in ROOT_CAUSE
]
#: the same block as torch-elastic words a SIGKILL: ``exitcode : -9``, no error file, ``Signal 9 (SIGKILL)``
ROOT_CAUSE_SIGNAL_9 = ROOT_CAUSE[:5] + [
    "  exitcode  : -9 (pid: 297621)",
    "  error_file: <N/A>",
    "  traceback : Signal 9 (SIGKILL) received by PID 297621",
]
#: rank 18's traceback ended by the assertion the title names
RANK18_ASSERTION = RANK18 + [
    "[rank18]:     assert not self.use_precision_aware_optimizer",
    "[rank18]: AssertionError",
]
#: the same traceback and assertion on rank 5
RANK5_ASSERTION = [line.replace("[rank18]", "[rank5]") for line in RANK18_ASSERTION]
#: rank 18's traceback ended by a CUDA out-of-memory instead
RANK18_OOM = RANK18 + [
    "[rank18]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 2 has a total capacity of "
    "79.19 GiB of which 1.06 GiB is free."
]
#: the stager frames as rank 1's tagged traceback with its KeyError
STAGER_RANK1 = (
    ["[rank1]: Traceback (most recent call last):"]
    + ["[rank1]: " + line for line in STAGER]
    + ["[rank1]: KeyError: <class 'type'>"]
)
#: the stager frames ended by torch-elastic's indented exception line, and by the same line flush
STAGER_INDENTED_ERROR = STAGER + ["  KeyError: <class 'type'>"]
STAGER_FLUSH_ERROR = STAGER + ["KeyError: <class 'type'>"]
_RAY = "(VllmAsyncGenerationWorker pid=4162718, ip=10.109.25.162) (EngineCore pid=4163284) "
#: the Ray worker as a ranked actor (``[rank=3]``) whose engine raises
ENGINE_RANK3 = [
    line.replace(
        "(VllmAsyncGenerationWorker pid=", "(VllmAsyncGenerationWorker[rank=3] pid="
    )
    for line in ENGINE
] + [
    _RAY.replace("Worker pid=", "Worker[rank=3] pid=")
    + "RuntimeError: moe_forward_shared failed"
]
#: the untagged worker's engine ending in a CUDA OOM, and in an illegal memory access
ENGINE_OOM = ENGINE + [
    _RAY
    + "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total "
    "capacity of 79.19 GiB of which 1.06 GiB is free."
]
ENGINE_IMA = ENGINE + [
    _RAY + "RuntimeError: CUDA error: an illegal memory access was encountered"
]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # as collected, pasted and laid out as the threads say (today's reading; the first is NOT_YET)
    "root-cause-rank7-as-pasted": (ROOT_CAUSE, None, None, 7, "python-exception"),
    "root-cause-rank7-eight-per-node": (ROOT_CAUSE, 8, 8, 7, "python-exception"),
    "rank18-traceback-as-pasted": (RANK18, None, None, None, None),
    "rank18-traceback-four-nodes": (RANK18, 8, 32, None, None),
    "stager-frames-as-pasted": (STAGER, None, None, None, None),
    "stager-frames-two-gpus": (STAGER, 2, 2, None, None),
    "engine-frames-as-pasted": (ENGINE, None, None, None, None),
    "engine-frames-two-nodes": (ENGINE, 8, 16, None, None),
    # contrasts
    "root-cause-without-rank-line-names-none": (ROOT_CAUSE_NO_RANK, 8, 8, None, None),
    "root-cause-rank3-names-rank3": (ROOT_CAUSE_RANK3, 8, 8, 3, "python-exception"),
    "root-cause-signal-9-names-rank7": (ROOT_CAUSE_SIGNAL_9, 8, 8, 7, "host-oom-kill"),
    "rank18-assertion-names-rank18": (RANK18_ASSERTION, 8, 32, 18, "python-exception"),
    "rank5-assertion-names-rank5": (RANK5_ASSERTION, 8, 32, 5, "python-exception"),
    "rank18-oom-names-rank18": (RANK18_OOM, 8, 32, 18, "cuda-oom"),
    "stager-rank1-keyerror-names-rank1": (STAGER_RANK1, 2, 2, 1, "python-exception"),
    "stager-indented-keyerror-names-none": (STAGER_INDENTED_ERROR, 2, 2, None, None),
    "engine-rank3-exception-names-rank3": (ENGINE_RANK3, 8, 16, 3, "python-exception"),
    "engine-oom-names-none": (ENGINE_OOM, 8, 16, None, None),
    "engine-illegal-access-names-none": (ENGINE_IMA, 8, 16, None, None),
}
BATCHED = Batched("b280", list(CASES))


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_batch280_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(
        BATCHED.findings(key, tmp_path_factory, pasted_cases(CASES, NOW))
    )
    assert_one_rank(named, CASES[key][3], CASES[key][4])


def _failures(
    lines: list[str], folder: Path, nproc: int | None, world: int | None
) -> list[tuple]:
    from k10s_forensics.analyze.runner import analyze

    findings = analyze(pasted(lines, folder, nproc, NOW, world=world))["findings"]
    return [(f["rule"], f["severity"], f["cause"], f["ranks"]) for f in findings]


def test_rank18_frames_without_assertion_are_an_info_suspect(tmp_path):
    """Rank 18's traceback cut before its assertion: an info Python failure holding rank 18, nothing louder."""
    from k10s_forensics.analyze.runner import analyze

    assert_info_suspect(
        analyze(pasted(RANK18, tmp_path, 8, NOW, world=32))["findings"], 18
    )


def test_root_cause_block_without_rank_line_is_a_failure_of_no_rank(tmp_path):
    """The root-cause block without its ``rank`` line still reads as a Python failure (warning), of no rank."""
    assert _failures(ROOT_CAUSE_NO_RANK, tmp_path, 8, 8) == [
        ("rank-failure", "warning", "python-exception", [])
    ]


def test_indented_exception_line_is_not_read_flush_it_is(tmp_path):
    """Torch-elastic's summary indents the worker's exception; cut from its header, ``  KeyError: <class 'type'>`` is not
    read, while the same line flush is a Python failure of no rank."""
    assert _failures(STAGER_INDENTED_ERROR, tmp_path / "a", 2, 2) == []
    assert _failures(STAGER_FLUSH_ERROR, tmp_path / "b", 2, 2) == [
        ("rank-failure", "warning", "python-exception", [])
    ]


def test_untagged_ray_engine_errors_name_no_rank(tmp_path):
    """The untagged Ray worker's engine: a CUDA OOM is a critical OOM of no rank, an illegal memory access a CUDA error
    of no rank."""
    assert _failures(ENGINE_OOM, tmp_path / "a", 8, 16) == [
        ("oom-cascade", "critical", "cuda-oom", [])
    ]
    assert _failures(ENGINE_IMA, tmp_path / "b", 8, 16) == [
        ("rank-failure", "warning", "cuda-error", [])
    ]
