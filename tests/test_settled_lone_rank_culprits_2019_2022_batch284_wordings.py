"""Settled lone-rank culprits of 2019-2022 threads (real incidents batch 284), pinned as read.
Three culprits and one control, collected blind. Rank 1's TensorFlow allocator failure under Open MPI's ``[1,1]<stderr>:``
tag (horovod/horovod#1152: ``Resource exhausted: OOM when allocating tensor`` and ``ResourceExhaustedError``) names rank
1, but as a Python exception: TensorFlow's words for a GPU out of memory are not read as cuda-oom (PyTorch's ``CUDA out
of memory`` in their place is). Rank 1's ``Horovod has been shut down`` and mpirun's ``The first process to do so was:
Process name: [[50371,1],0]`` (ChenRocks/UNITER#31: an OOM the author had missed) name rank 0 (python-exception; the
OOM is only prose). Horovod's untagged ``Stalled ranks:`` / ``2: [...]`` list (rwth-i6/returnn#1084: a crashed worker)
names rank 2 as never-joined (critical), and nothing at all once every line carries the API's timestamp. Both processes'
identical ``NameError`` under the DeepSpeed launcher (deepspeedai/DeepSpeed#618, the control) name no one. Scored 1/4
with the cause both ways as collected (3/4 by rank both ways); no rule changed (measure only). Contrasts: the tag
renumbered names the new rank; the OOM's exception line removed leaves only an info suspect; mpirun's process-name line
removed, or pointing at the shutdown victim, names no one; the OOM line on rank 0 makes it cuda-oom; the stall row
renumbered names the new rank, the row removed names no one, the tagged list API-stamped names rank 2 again; one
traceback under a ``[rank1]:`` tag names rank 1. Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted, pasted_cases
from incident_kit import api_stamped, corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 5, 2, 30, tzinfo=dt.timezone.utc)

TF_OOM = corpus_lines("horovod-1152-")
SHUTDOWN_FIRST_EXIT = corpus_lines("UNITER-31-")
STALL_LIST = corpus_lines("returnn-1084-")
BOTH_NAMEERROR = corpus_lines("DeepSpeed-618-")

_TF_EXCEPTION = (
    "tensorflow.python.framework.errors_impl.ResourceExhaustedError: OOM when allocating tensor with "
    "shape[2,1023,50257] and type float on /job:localhost/replica:0/task:0/device:GPU:0 by allocator GPU_0_bfc"
)
#: the same allocator failure printed by rank 0
TF_OOM_RANK0 = [line.replace("[1,1]", "[1,0]") for line in TF_OOM]
#: PyTorch's words for the out-of-memory in the place of TensorFlow's exception line
TORCH_OOM = [
    line.replace(
        _TF_EXCEPTION,
        "RuntimeError: CUDA out of memory. Tried to allocate 392.00 MiB (GPU 0; 10.76 GiB "
        "total capacity; 9.01 GiB already allocated; 58.56 MiB free; 9.63 GiB reserved in total by "
        "PyTorch)",
    )
    for line in TF_OOM
]
#: the allocator warning and traceback frames without the exception line
TF_OOM_NO_EXCEPTION = [line for line in TF_OOM if "ResourceExhaustedError" not in line]
#: mpirun's block without its ``Process name: [[50371,1],0]`` line
SHUTDOWN_NO_NAME = [line for line in SHUTDOWN_FIRST_EXIT if "Process name:" not in line]
#: mpirun naming the shutdown victim (vpid 1) as the first to exit
SHUTDOWN_FIRST_IS_VICTIM = [
    line.replace("[[50371,1],0]", "[[50371,1],1]") for line in SHUTDOWN_FIRST_EXIT
]
#: rank 0's own out-of-memory line before the block
SHUTDOWN_WITH_OOM = [
    "[1,0]<stderr>:RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 10.76 GiB total "
    "capacity; 9.83 GiB already allocated; 7.56 MiB free; 9.93 GiB reserved in total by PyTorch)"
] + SHUTDOWN_FIRST_EXIT
#: the stall list's row renumbered
STALL_RANK3 = [
    ("3" + line[1:]) if line.startswith("2: [") else line for line in STALL_LIST
]
#: the warning and header without the row
STALL_NO_ROW = STALL_LIST[:2]
#: every line as ``kubectl logs --timestamps`` serves it
STALL_STAMPED = api_stamped(STALL_LIST)
#: the same lines behind Open MPI's tag of the coordinator, then stamped
STALL_TAGGED_STAMPED = api_stamped(["[1,0]<stderr>:" + line for line in STALL_LIST])
#: the launcher's lines and one of the two tracebacks
ONE_NAMEERROR = BOTH_NAMEERROR[:11]
#: the launcher's lines and one traceback under a ``[rank1]:`` tag
ONE_NAMEERROR_RANK1 = BOTH_NAMEERROR[:7] + [
    "[rank1]: " + line for line in BOTH_NAMEERROR[7:11]
]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # as collected, pasted and laid out as the threads say (today's readings; three are NOT_YET, batch 284)
    "tf-oom-rank1-as-pasted": (TF_OOM, None, None, 1, "cuda-oom"),
    "tf-oom-rank1-two-ranks": (TF_OOM, 2, 2, 1, "cuda-oom"),
    "shutdown-first-exit-as-pasted": (
        SHUTDOWN_FIRST_EXIT,
        None,
        None,
        0,
        "python-exception",
    ),
    "shutdown-first-exit-two-ranks": (SHUTDOWN_FIRST_EXIT, 2, 2, 0, "python-exception"),
    "stall-rank2-as-pasted": (STALL_LIST, None, None, 2, "never-joined"),
    "stall-rank2-four-ranks": (STALL_LIST, 4, 4, 2, "never-joined"),
    "both-nameerror-as-pasted": (BOTH_NAMEERROR, None, None, None, None),
    "both-nameerror-two-ranks": (BOTH_NAMEERROR, 2, 2, None, None),
    # contrasts
    "tf-oom-rank0-tag-names-rank0": (TF_OOM_RANK0, 2, 2, 0, "cuda-oom"),
    "torch-oom-wording-names-rank1-cuda-oom": (TORCH_OOM, 2, 2, 1, "cuda-oom"),
    "tf-oom-warning-alone-names-rank1": (TF_OOM_NO_EXCEPTION, 2, 2, 1, "cuda-oom"),
    "shutdown-without-process-name-names-none": (SHUTDOWN_NO_NAME, 2, 2, None, None),
    "shutdown-first-exit-victim-names-none": (
        SHUTDOWN_FIRST_IS_VICTIM,
        2,
        2,
        None,
        None,
    ),
    "shutdown-with-oom-line-names-rank0-cuda-oom": (
        SHUTDOWN_WITH_OOM,
        2,
        2,
        0,
        "cuda-oom",
    ),
    "stall-row-rank3-names-rank3": (STALL_RANK3, 4, 4, 3, "never-joined"),
    "stall-without-row-names-none": (STALL_NO_ROW, 4, 4, None, None),
    "stall-api-stamped-names-rank2": (STALL_STAMPED, None, None, 2, "never-joined"),
    "stall-tagged-api-stamped-names-rank2": (
        STALL_TAGGED_STAMPED,
        None,
        None,
        2,
        "never-joined",
    ),
    "one-nameerror-names-none": (ONE_NAMEERROR, 2, 2, None, None),
    "one-nameerror-rank1-tag-names-rank1": (
        ONE_NAMEERROR_RANK1,
        2,
        2,
        1,
        "python-exception",
    ),
}
BATCHED = Batched("b284", list(CASES))


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_lone_rank_culprit_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(
        BATCHED.findings(key, tmp_path_factory, pasted_cases(CASES, NOW))
    )
    assert_one_rank(named, CASES[key][3], CASES[key][4])


def _findings(lines: list[str], folder: Path, nproc: int | None) -> list[tuple]:
    from k10s_forensics.analyze.runner import analyze

    findings = analyze(pasted(lines, folder, nproc, NOW, world=nproc))["findings"]
    return [
        (f["rule"], f["severity"], f["cause"], f["ranks"])
        for f in findings
        if f["severity"] != "info" or f["ranks"]
    ]


def test_identical_nameerrors_are_a_failure_of_no_rank(tmp_path):
    """Both processes' untagged ``NameError`` under the DeepSpeed launcher: one Python failure (warning) of no rank."""
    assert _findings(BOTH_NAMEERROR, tmp_path, 2) == [
        ("rank-failure", "warning", "python-exception", [])
    ]


def test_tensorflow_oom_is_rank_1_s_cuda_oom_with_or_without_its_exception(tmp_path):
    """TensorFlow's ``ResourceExhaustedError: OOM when allocating tensor … device:GPU:0 by allocator GPU_0_bfc`` is rank
    1's CUDA OOM (session 51; it was read as a Python exception); without that line, the op's ``Resource exhausted: OOM
    when allocating tensor`` warning on the same device says so alone."""
    assert _findings(TF_OOM, tmp_path / "a", 2) == [
        ("oom-cascade", "warning", "cuda-oom", [1])
    ]
    assert _findings(TF_OOM_NO_EXCEPTION, tmp_path / "b", 2) == [
        ("oom-cascade", "warning", "cuda-oom", [1])
    ]


def test_stall_row_is_critical_never_joined(tmp_path):
    """The untagged stall list alone is a hang on rank 2 (critical); with the API's stamp on every line too (session 51;
    it was lost)."""
    assert _findings(STALL_LIST, tmp_path / "a", 4) == [
        ("nccl-hang", "critical", "never-joined", [2])
    ]
    assert _findings(STALL_STAMPED, tmp_path / "b", 4) == [
        ("nccl-hang", "critical", "never-joined", [2])
    ]
