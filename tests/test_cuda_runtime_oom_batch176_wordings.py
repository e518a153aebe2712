"""The CUDA runtime's own name for a failed allocation, ``cudaErrorMemoryAllocation: out of memory``, is a CUDA out of
memory of the process that printed it (real incidents batch 176, mpi4jax/mpi4jax#106: mpi4jax's ``Error 2
cudaErrorMemoryAllocation: out of memory`` glued to Open MPI's banner, then ``MPI_ABORT was invoked on rank 1 ... with
errorcode 0.``; CuPy's ``CUDARuntimeError: cudaErrorMemoryAllocation: out of memory``, thrust's ``bad_alloc``). It was
read as no event at all (the runtime-name reading of CUDA errors leaves out-of-memory messages to the OOM reading, which
did not know this wording), so mpi4py/mpi4jax's ``MPI_Abort(comm, 0)`` after it looked like an orderly end with no
error before it and named no one. Now the OOM is an error before the abort, which stays rank 1's
(parsers/log_patterns_cuda.py ``OOM_CUDA_RUNTIME``, parsers/log_ompi.py; docs/rules.md "Session 34: batch 176").
A documentation hint naming the code alone (``Search for `cudaErrorMemoryAllocation' in https://docs.nvidia.com/…``)
is no OOM, and an errorcode-0 abort with nothing failing before it still names no one. Pasted logs through
``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import naming_findings
from k10s_forensics.parsers.log_classify import classify

NOW = dt.datetime(2026, 12, 2, 7, 0, tzinfo=dt.timezone.utc)
RULE = "-" * 74
NOTE = [
    "NOTE: invoking MPI_ABORT causes Open MPI to kill all MPI processes.",
    "You may or may not see output from other processes, depending on",
    "exactly when Open MPI kills them.",
]


def _abort(rank: int, code: int) -> list[str]:
    return [
        f"MPI_ABORT was invoked on rank {rank} in communicator MPI_COMM_WORLD",
        f"with errorcode {code}.",
        "",
        *NOTE,
        RULE,
    ]


AS_PASTED = [  # mpi4jax#106: the OOM glued to the banner's first rule, rank 0 still in its halo exchange
    "cudaStreamSynchronize failed with the following error:",
    "\tError 2 cudaErrorMemoryAllocation: out of memory" + RULE,
    *_abort(1, 0),
    "[uc2n488:987641:0:987641] Caught signal 11 (Segmentation fault: invalid permissions for mapped object at "
    "address 0x1527cda20a00)",
    *["BFD: Dwarf Error: Can't find .debug_ranges section."] * 6,
    "r0 | es6Zz9YH | MPI_Sendrecv <- 0 (tag -1, 92 items) / -> 0 (tag 0, 92 items) ",
]
CUPY = "cupy_backends.cuda.api.runtime.CUDARuntimeError: cudaErrorMemoryAllocation: out of memory"
HINT = (
    "(MegatronPolicyWorker pid=35477) Search for `cudaErrorMemoryAllocation' in "
    "https://docs.nvidia.com/cuda/cuda-runtime-api/group__CUDART__TYPES.html formore information."
)

#: key: (the pasted lines, world size, the rank a warning/critical finding must name alone: None for none)
CASES = {
    "mpi4jax-106-as-pasted": (AS_PASTED, 2, 1),
    "own-line-then-abort": (
        [
            "cudaStreamSynchronize failed with the following error:",
            "\tError 2 cudaErrorMemoryAllocation: out of memory",
            RULE,
            *_abort(1, 0),
        ],
        2,
        1,
    ),
    "cupy-runtime-error-then-abort": (
        [
            "Traceback (most recent call last):",
            '  File "solve.py", line 40, in <module>',
            "    u = cp.zeros((n, n, n))",
            CUPY,
            RULE,
            *_abort(3, 0),
        ],
        4,
        3,
    ),
    "four-ranks-abort-errorcode-1": (
        ["\tError 2 cudaErrorMemoryAllocation: out of memory", RULE, *_abort(2, 1)],
        4,
        2,
    ),
    # contrasts: a documentation hint naming the code is no OOM, so the errorcode-0 abort stays an orderly end ...
    "hint-then-errorcode-0": ([HINT, RULE, *_abort(1, 0)], 2, None),
    # ... and an errorcode-0 abort with nothing failing before it names no one
    "errorcode-0-alone": ([RULE, *_abort(1, 0)], 2, None),
}
BATCHED = Batched("b176", list(CASES))


def _make(key: str, folder: Path):
    lines, world, _ = CASES[key]
    return pasted(lines, folder, world, NOW)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_cuda_runtime_oom_keeps_the_abort_its_callers(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][2])


@pytest.mark.parametrize(
    "text",
    [
        "\tError 2 cudaErrorMemoryAllocation: out of memory",
        CUPY,
        "terminate called after throwing an instance of 'thrust::system::detail::bad_alloc'  what():  "
        "std::bad_alloc: cudaErrorMemoryAllocation: out of memory",
    ],
)
def test_runtime_wording_is_a_cuda_oom(text):
    assert [e["kind"] for e in classify(text)] == ["cuda_oom"]


@pytest.mark.parametrize(
    "text",
    [
        HINT,
        "cudaErrorMemoryAllocation = 2",
        "CUDA error: an illegal memory access was encountered",
    ],
)
def test_other_mentions_are_no_oom(text):
    assert "cuda_oom" not in [e["kind"] for e in classify(text)]
