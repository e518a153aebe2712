"""THC's check of a CUDA call (PyTorch <= 1.10: ``THCudaCheck FAIL file=... line=280 error=710 : device-side assert
triggered``) is the printing process's own CUDA fault (real incidents batch 187, jaywalnut310/vits#106: VITS
``train_ms.py`` on one GPU, the assert before NCCL's ``unhandled cuda error`` and ``Process Group destroyed on rank
0``). Read like ATen's ``CUDA error: <message>``, so the rank's cause is the CUDA error, not the NCCL abort it
poisoned; only for a fault's message (assert, illegal address, launch failure, ECC, lost device). The same wording
for a set-up refusal (``error=10 : invalid device ordinal``: more processes than GPUs, every process alike) or an
allocation (``out of memory``) stays unread, as before (docs/rules.md, "Session 35: batch 187"). Pasted logs through
``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import naming_findings

NOW = dt.datetime(2026, 12, 2, 10, 0, tzinfo=dt.timezone.utc)
LIB = "/environment/miniconda3/lib/python3.7/site-packages/torch/lib"
THC = "THCudaCheck FAIL file={f} line={n} error={e} : {m}"
ABORT = [
    "terminate called after throwing an instance of 'c10::Error'",
    "  what():  NCCL error in: ../torch/csrc/distributed/c10d/NCCLUtils.hpp:181, unhandled cuda error, NCCL version 21.0.3",
    "Process Group destroyed on rank 0",
    "Exception raised from ncclCommAbort at ../torch/csrc/distributed/c10d/NCCLUtils.hpp:181 (most recent call first):",
    f"frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x42 (0x7f854408dd62 in {LIB}/libc10.so)",
    f"frame #3: c10d::ProcessGroupNCCL::~ProcessGroupNCCL() + 0x113 (0x7f85a1357813 in {LIB}/libtorch_cuda_cpp.so)",
]
HOST = "../aten/src/THC/THCCachingHostAllocator.cpp"


def _thc(message: str, error: int = 710, f: str = HOST, n: int = 280) -> str:
    return THC.format(f=f, n=n, e=error, m=message)


#: key: (the pasted lines, processes per node, the rank a warning/critical finding must name alone (None: none),
#: the cause it must give)
CASES = {
    # vits-106's shape: PyTorch 1.10, the host allocator's check, then the NCCL abort
    "assert-then-nccl-abort": (
        [_thc("device-side assert triggered"), *ABORT],
        1,
        0,
        "cuda-error",
    ),
    # CUDA 10's number for the assert, an absolute build path (PyTorch 1.4-1.8 wheels)
    "assert-cuda10-number": (
        [
            _thc(
                "device-side assert triggered",
                59,
                "/pytorch/aten/src/THC/THCCachingHostAllocator.cpp",
                278,
            ),
            *ABORT,
        ],
        1,
        0,
        "cuda-error",
    ),
    # an illegal address in the same wording, a Windows build's path
    "illegal-address-windows": (
        [
            _thc(
                "an illegal memory access was encountered",
                700,
                r"..\aten\src\THC\THCCachingHostAllocator.cpp",
                278,
            ),
            *ABORT,
        ],
        1,
        0,
        "cuda-error",
    ),
    # the check alone, trailing blanks kept by the paste
    "assert-alone": ([_thc("device-side assert triggered") + "  "], 1, 0, "cuda-error"),
    # contrasts: the set-up refusal in the same wording, every process alike (OpenNMT-py-1456, ocr-pytorch-1) ...
    "invalid-ordinal-every-process": (
        [_thc("invalid device ordinal", 10, "/pytorch/torch/csrc/cuda/Module.cpp", 33)]
        * 2,
        4,
        None,
        None,
    ),
    # ... and a Windows build's number for it
    "invalid-ordinal-windows": (
        [_thc("invalid device ordinal", 101, r"..\torch\csrc\cuda\Module.cpp", 37)] * 2,
        4,
        None,
        None,
    ),
    # the exception THC raised for the check (PyTorch <= 1.5, session 44): a fault of the process, as the check's line
    "raised-illegal-address": (
        ["RuntimeError: cuda runtime error (77) : an illegal memory access was encountered at "
         "/opt/conda/conda-bld/pytorch_1579022060824/work/aten/src/THC/THCCachingHostAllocator.cpp:265"],
        1,
        0,
        "cuda-error",
    ),
    "raised-ecc": ([f"RuntimeError: cuda runtime error (39) : uncorrectable ECC error encountered at {HOST}:265"], 1, 0,
                   "cuda-error"),
    # ... its allocation failure, an OOM of the process
    "raised-out-of-memory": (
        ["RuntimeError: cuda runtime error (2) : out of memory at /pytorch/aten/src/THC/generic/THCStorage.cu:58"],
        1,
        0,
        "cuda-oom",
    ),
    # ... and its set-up refusal, every process alike: no one
    "raised-invalid-ordinal-every-process": (
        ["RuntimeError: cuda runtime error (101) : invalid device ordinal at /pytorch/torch/csrc/cuda/Module.cpp:59"] * 2,
        4,
        None,
        None,
    ),
}
BATCHED = Batched("b187", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc = CASES[key][0], CASES[key][1]
    return pasted(lines, folder, nproc, NOW)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_thc_check_of_a_fault_is_the_process_cuda_error(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][2], CASES[key][3])
