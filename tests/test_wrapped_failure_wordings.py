"""Three wordings of a failure read by what they wrap (session 59).

* A DataLoader worker's own report of its fatal signal, printed by the worker's handler before (or, the paste cut,
  instead of) the main process's ``RuntimeError: DataLoader worker (pid N) is killed by signal: Bus error.``: ``ERROR:
  Unexpected bus error encountered in worker. This might be caused by insufficient shared memory (shm).`` (and the
  segmentation fault's, the floating-point exception's) is that worker's death: sigbus / segfault / sigfpe of the rank
  that tags it, one failure however many copies, no finding untagged (nothing says the training process went with
  its loader's subprocess: ray#34194 printed on); beside the main process's line the reading is the
  main process's, unchanged (parsers/log_py_exceptions.py ``worker_reports_dropped``).
* CuPy's NCCL binding's ``cupy_backends.cuda.libs.nccl.NcclError: NCCL_ERROR_SYSTEM_ERROR: unhandled system error`` (and
  its other results) is NCCL's error as torch's ``DistBackendError: NCCL error in: …, unhandled system error`` and vLLM's
  pynccl ``RuntimeError: NCCL error: …`` are, with the same subkinds (parsers/log_comm_lines.py ``_CUPY_NCCL``).
* torch's ``DeferredCudaCallError: CUDA call failed lazily at initialization with error: <inner>`` is read by its inner
  error: ``CUDA error: out of memory`` a cuda-oom, ``CUDA error: <x>`` a cuda-error of x's kind, and torch's ``device >=
  0 && device < num_gpus INTERNAL ASSERT FAILED … device=1, num_gpus=`` the ``CUDA error: invalid device ordinal`` it
  is (a device index past the visible count), read alike, its common-mode reading included (parsers/log_failures.py
  ``DEFERRED_ORDINAL``).

Contrasts: an ordinary ``RuntimeError`` stays a python-exception; a worker line behind a Ray actor's prefix (another
process than the ranks) names no rank; the bare ``RuntimeError: device >= 0 && device < num_gpus INTERNAL ASSERT FAILED``
(no lazy-init wrapper) stays a python-exception. Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, pasted
from k10s_forensics.parsers.log_classify import classify

NOW = dt.datetime(2026, 12, 6, 5, 0, tzinfo=dt.timezone.utc)

BUS = "ERROR: Unexpected bus error encountered in worker. This might be caused by insufficient shared memory (shm)."
SEGV = "ERROR: Unexpected segmentation fault encountered in worker."
FPE = "ERROR: Unexpected floating-point exception encountered in worker."
MAIN_BUS = ("RuntimeError: DataLoader worker (pid 4242) is killed by signal: Bus error. It is possible that dataloader's "
            "workers are out of shared memory. Please try to raise your shared memory limit.")
TB = ["Traceback (most recent call last):", '  File "train.py", line 10, in <module>']
CUPY = "cupy_backends.cuda.libs.nccl.NcclError: NCCL_ERROR_{} {}"
TORCH_NCCL = ("torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1970, "
              "{}, NCCL version 2.19.3")
PYNCCL = "RuntimeError: NCCL error: {} (run with NCCL_DEBUG=INFO for details)"
LAZY = "torch.cuda.DeferredCudaCallError: CUDA call failed lazily at initialization with error: "
ASSERT = ('device >= 0 && device < num_gpus INTERNAL ASSERT FAILED at "../aten/src/ATen/cuda/CUDAContext.cpp":50, please '
          "report a bug to PyTorch. device={}, num_gpus=")
ORDINAL = "RuntimeError: CUDA error: invalid device ordinal"
#: CuPy's result name, NCCL's words for it
RESULTS = {"SYSTEM_ERROR:": "unhandled system error", "UNHANDLED_CUDA_ERROR:": "unhandled cuda error",
           "INTERNAL_ERROR:": "internal error", "INVALID_USAGE:": "invalid usage",
           "REMOTE_ERROR:": "remote process exited or there was a network error"}


def _tagged(lines: list[str], rank: int) -> list[str]:
    return [f"[rank{rank}]: {line}" for line in lines]


def _raised(line: str, rank: int | None = None) -> list[str]:
    """``line`` ending a traceback, tagged by ``rank`` (or not)."""
    return TB + [line] if rank is None else _tagged(TB + [line], rank)


def _teardown(failed: int, nproc: int = 4) -> list[str]:
    """torchrun's agent tearing the other local ranks down after ``failed`` exited 1."""
    agent = "W1206 05:00:01.000000 312666 torch/distributed/elastic/multiprocessing/api.py:900] "
    term = [agent + f"Sending process {1000 + r} closing signal SIGTERM" for r in range(nproc) if r != failed]
    return term + ["E1206 05:00:02.000000 312666 torch/distributed/elastic/multiprocessing/api.py:874] failed "
                   f"(exitcode: 1) local_rank: {failed} (pid: {1000 + failed}) of binary: /usr/bin/python"]


W, C = "warning", "critical"
#: key: (lines, processes per node, world, the findings wanted: (rule, severity, cause, ranks))
CASES = {
    # 1. a DataLoader worker's own signal report
    # untagged (or a Ray worker's pid only): a loader subprocess died, nothing says the training process went with it
    "bus-untagged": ([BUS], None, None, []),
    "bus-untagged-one-node": ([BUS], 8, 8, []),
    "bus-rank2": (_tagged([BUS], 2), 8, 8, [("rank-failure", W, "sigbus", [2])]),
    "bus-rank2-four-copies": (_tagged([BUS] * 4, 2), 8, 8, [("rank-failure", W, "sigbus", [2])]),
    "segv-rank1": (_tagged([SEGV], 1), 4, 4, [("rank-failure", W, "segfault", [1])]),
    "fpe-rank1": (_tagged([FPE], 1), 4, 4, [("rank-failure", W, "sigfpe", [1])]),
    "segv-untagged": ([SEGV], None, None, []),
    "bus-rank2-then-main": (_tagged([BUS] * 2 + TB + [MAIN_BUS], 2), 4, 4, [("rank-failure", W, "sigbus", [2])]),
    "main-rank2-alone": (_tagged(TB + [MAIN_BUS], 2), 4, 4, [("rank-failure", W, "sigbus", [2])]),
    "bus-untagged-then-main": ([BUS] + TB + [MAIN_BUS], 4, 4, [("rank-failure", W, "sigbus", [])]),
    "bus-rank2-teardown": (_tagged([BUS], 2) + _teardown(2), 4, 4, [("rank-failure", C, "sigbus", [2])]),
    # contrasts: another process's worker line (a Ray actor's) beside the ranks' own names none; an ordinary RuntimeError
    "bus-ray-actor-names-none": (["(RayTrainWorker pid=46187) " + SEGV] + _tagged(["step 10 loss 2.31"], 1), 4, 4, []),
    "plain-runtime-error-rank2": (_raised("RuntimeError: bad batch", 2), 4, 4, [("rank-failure", W, "python-exception", [2])]),
    "plain-runtime-error-untagged": (_raised("RuntimeError: bad batch"), 4, 4, [("rank-failure", W, "python-exception", [])]),
    # 2. CuPy's NCCL error, as torch's
    "cupy-system-untagged": (_raised(CUPY.format("SYSTEM_ERROR:", "unhandled system error")), None, None,
                             [("rank-failure", W, "nccl-error", [])]),
    "cupy-system-rank1": (_raised(CUPY.format("SYSTEM_ERROR:", "unhandled system error"), 1), 4, 4,
                          [("rank-failure", W, "nccl-error", [1])]),
    "cupy-cuda-rank1": (_raised(CUPY.format("UNHANDLED_CUDA_ERROR:", "unhandled cuda error"), 1), 4, 4,
                        [("rank-failure", W, "nccl-error", [1])]),
    "torch-system-rank1": (_raised(TORCH_NCCL.format("unhandled system error"), 1), 4, 4,
                           [("rank-failure", W, "nccl-error", [1])]),
    "pynccl-system-rank1": (_raised(PYNCCL.format("unhandled system error"), 1), 4, 4,
                            [("rank-failure", W, "nccl-error", [1])]),
    "cupy-system-rank1-teardown": (_raised(CUPY.format("SYSTEM_ERROR:", "unhandled system error"), 1) + _teardown(1), 4, 4,
                                   [("rank-failure", W, "nccl-error", [1])]),
    "cupy-runtime-error-stays": (_raised("cupy_backends.cuda.libs.nccl.NcclError: something else", 1), 4, 4,
                                 [("rank-failure", W, "python-exception", [1])]),
    # 3. torch's DeferredCudaCallError, by the error it wraps
    "lazy-oom-rank1": (_raised(LAZY + "CUDA error: out of memory", 1), 4, 4, [("oom-cascade", W, "cuda-oom", [1])]),
    "lazy-unknown-rank1": (_raised(LAZY + "CUDA error: unknown error", 1), 4, 4, [("rank-failure", W, "cuda-error", [1])]),
    "lazy-assert-rank1-of-4": (_raised(LAZY + ASSERT.format(1), 1), 4, 4, [("rank-failure", W, "cuda-error", [])]),
    "ordinal-rank1-of-4": (_raised(ORDINAL, 1), 4, 4, [("rank-failure", W, "cuda-error", [])]),
    "lazy-assert-rank3-of-4": (_raised(LAZY + ASSERT.format(3), 3), 4, 4, [("rank-failure", W, "cuda-error", [3])]),
    "ordinal-rank3-of-4": (_raised(ORDINAL, 3), 4, 4, [("rank-failure", W, "cuda-error", [3])]),
    "lazy-assert-untagged": (_raised(LAZY + ASSERT.format(1)), None, None, [("rank-failure", W, "cuda-error", [])]),
    "lazy-assert-rank1-teardown": (_raised(LAZY + ASSERT.format(1), 1) + _teardown(1, 2), 2, 2,
                                   [("rank-failure", C, "cuda-error", [1])]),
    "ordinal-rank1-teardown": (_raised(ORDINAL, 1) + _teardown(1, 2), 2, 2, [("rank-failure", C, "cuda-error", [1])]),
    "bare-assert-stays-rank3": (_raised("RuntimeError: " + ASSERT.format(3), 3), 4, 4,
                                [("rank-failure", W, "python-exception", [3])]),
}
BATCHED = Batched("wrapped", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_wrapped_failure_wordings(key, tmp_path_factory):
    got = [(f["rule"], f["severity"], f["cause"], f["ranks"]) for f in BATCHED.findings(key, tmp_path_factory, _make)
           if f["severity"] in ("warning", "critical")]
    assert got == CASES[key][3]


def test_main_process_line_stays_the_reading_beside_the_worker_report(tmp_path_factory):
    """Both lines of one rank: the finding quotes the main process's ``RuntimeError`` as before, not the worker's line."""
    both, = [f for f in BATCHED.findings("bus-rank2-then-main", tmp_path_factory, _make) if f["rule"] == "rank-failure"]
    alone, = [f for f in BATCHED.findings("main-rank2-alone", tmp_path_factory, _make) if f["rule"] == "rank-failure"]
    assert (both["cause"], both["ranks"]) == (alone["cause"], alone["ranks"]) == ("sigbus", [2])
    assert "RuntimeError DataLoader worker (pid 4242) is killed by signal: Bus error" in both["summary"]
    assert "insufficient shared memory (shm)" not in both["summary"]


@pytest.mark.parametrize("code", list(RESULTS), ids=[c.rstrip(":").lower() for c in RESULTS])
def test_cupy_nccl_error_reads_as_torchs(code):
    """Each CuPy NCCL result is the event torch's (and pynccl's) wording of it is: kind and subkind alike."""
    def event(line: str) -> tuple:
        ev = classify(line)[0]
        return ev["kind"], ev["subkind"]

    words = RESULTS[code]
    assert event(CUPY.format(code, words)) == event(TORCH_NCCL.format(words)) == event(PYNCCL.format(words))
    assert event("[rank1]: " + CUPY.format(code, words)) == event("[rank1]: " + TORCH_NCCL.format(words))


def test_lazy_init_reads_as_its_inner_error():
    """The lazy-init wrapper reads as the error it wraps: its CUDA error's kind, its assert as the invalid ordinal."""
    for inner in ("CUDA error: unknown error", "CUDA error: an illegal memory access was encountered",
                  "CUDA error: no CUDA-capable device is detected"):
        wrapped, plain = classify(LAZY + inner)[0], classify("RuntimeError: " + inner)[0]
        assert (wrapped["kind"], wrapped["subkind"]) == (plain["kind"], plain["subkind"]) == ("cuda_error", plain["subkind"])
    ordinal, plain = classify(LAZY + ASSERT.format(1))[0], classify(ORDINAL)[0]
    assert (ordinal["kind"], ordinal["subkind"]) == (plain["kind"], plain["subkind"])
    assert "invalid device ordinal" in ordinal["error_message"]
    assert classify("RuntimeError: " + ASSERT.format(1))[0]["kind"] == "python_exception"  # no wrapper: as before


def test_worker_report_elsewhere_in_a_line_is_not_read():
    """Only the worker's own line: a log quoting it mid-sentence is no worker death."""
    line = 'INFO: retrying after "ERROR: Unexpected bus error encountered in worker." was seen'
    assert all(ev.get("error_type") != "DataLoader worker" for ev in classify(line))
