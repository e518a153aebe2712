"""HPC launcher wordings of real incidents batch 63 (docs/rules.md, "Session 23: batch 63"), each with its variants:

* gfortran's runtime report of its process's fatal signal, ``Program received signal SIGILL: Illegal instruction.``
  (parsers/log_failures.py, ``native_signal`` ``gfortran``): two or more alike are as many processes taking that
  signal, so the one rank a launcher reports (prterun's, mpirun's first reaped process) is no single culprit
  (queries/_incident.sql ``signal_alike``); one report leaves the launcher's rank named; gdb's stop is not read;
* a SYCL runtime's failed GPU call, ``hip_queue: hipMemsetAsync() failed (error code = HIP:1)`` (AdaptiveCpp /
  hipSYCL, parsers/log_failures.py ``sycl_call``): the printing process's CUDA error, and the cause of the one rank's
  SIGABRT reported below it (srun's ``task 39: Aborted``);
* Open MPI's error handler report, one field a line (parsers/log_ompi_errors.py): ``reported by process [job,rank]``
  then ``MPI_ERR_OTHER: …`` behind the same ``[host:pid]`` is that rank's communication failure (``nccl-error``);
  the other classes are not read.

Parser-level cases are calls of the readers; the end-to-end cases are imported pastes analysed together once
(tests/bundle_batch.py ``analyze_node_sets``).
"""

from __future__ import annotations

import datetime as dt
import re

import pyarrow as pa
import pyarrow.compute as pc
import pytest

from bundle_batch import analyze_node_sets, findings_of
from incident_kit import naming_findings
from k10s_forensics.parsers.log_classify import classify
from k10s_forensics.parsers.log_failures import cuda_error, fatal_signal
from k10s_forensics.parsers.log_normalize import normalize
from k10s_forensics.parsers.log_ompi_errors import OmpiErrors
from k10s_forensics.parsers.log_prefilter import PREFILTER_EVENT

NOW = dt.datetime(2026, 11, 30, 20, 0, tzinfo=dt.timezone.utc)

GFORTRAN = {
    "SIGILL": "Program received signal SIGILL: Illegal instruction.",
    "SIGSEGV": "Program received signal SIGSEGV: Segmentation fault - invalid memory reference.",
    "SIGFPE": "Program received signal SIGFPE: Floating-point exception - erroneous arithmetic operation.",
    "SIGBUS": "Program received signal SIGBUS: Access to an undefined portion of a memory object.",
    "SIGABRT": "Program received signal SIGABRT: Process abort signal.",
}
NUMBER = {"SIGILL": 4, "SIGSEGV": 11, "SIGFPE": 8, "SIGBUS": 7, "SIGABRT": 6}
HIP_CALL = ("[hipSYCL Error] from /tmp/acpp/src/runtime/hip/hip_queue.cpp:355 @ submit_memset() : "
            "hip_queue: hipMemsetAsync() failed (error code = HIP:1)")
CUDA_CALL = "[AdaptiveCpp Error] from /opt/acpp/src/runtime/cuda/cuda_queue.cpp:312 @ submit_memcpy(): cuda_queue: cudaMemcpyAsync() failed (error code = CUDA:700)"


def _ompi_report(host: str, pid: int, rank: str, klass: str = "MPI_ERR_OTHER: known error not in list", call: str = "MPI_Send") -> list[str]:
    tag = f"[{host}:{pid}] ***"
    return [f"{tag} An error occurred in {call}", f"{tag} reported by process [{rank}]", f"{tag} on communicator MPI_COMM_WORLD",
            f"{tag} {klass}", f"{tag} MPI_ERRORS_ARE_FATAL (processes in this communicator will now abort,",
            f"{tag}    and potentially your MPI job)"]


# ---- gfortran's signal report ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("sig", sorted(GFORTRAN))
def test_gfortrans_report_is_its_process_taking_the_signal(sig):
    ev = fatal_signal(GFORTRAN[sig])
    assert ev == {"kind": "native_signal", "subkind": "gfortran", "exit_code": -NUMBER[sig], "error_message": sig}


def test_a_label_in_front_keeps_its_rank():
    """srun --label's `3: ` (a tag the launcher adds): the report is rank 3's."""
    events = classify("3: " + GFORTRAN["SIGSEGV"], normalize("3: " + GFORTRAN["SIGSEGV"]))
    assert [(e["kind"], e["subkind"], e["rank"]) for e in events] == [("native_signal", "gfortran", 3)]


@pytest.mark.parametrize("line", [
    "Program received signal SIGSEGV, Segmentation fault.",  # gdb stopping the one process it debugs
    "Program received signal SIGINT: Interrupt.",  # not a fatal signal of the program's own
    "grep 'Program received signal SIGILL' slurm-1234.out",  # no colon after the name: the wording quoted, not a report
])
def test_lines_the_gfortran_reading_leaves(line):
    assert fatal_signal(line) is None


# ---- a SYCL runtime's failed GPU call -------------------------------------------------------------------------------

@pytest.mark.parametrize(("line", "message", "kind"), [
    (HIP_CALL, "hipMemsetAsync() failed (error code = HIP:1)", "HIP error"),
    ("from /tmp/acpp/hip_queue.cpp:355 @ submit_memset(): hip_queue: hipMemsetAsync() failed (error code = HIP:1)",
     "hipMemsetAsync() failed (error code = HIP:1)", "HIP error"),  # the same error in the report's body
    (CUDA_CALL, "cudaMemcpyAsync() failed (error code = CUDA:700)", "CUDA error"),
    ("cuda_backend: cuStreamSynchronize() failed (error code = CUDA:719)", "cuStreamSynchronize() failed (error code = CUDA:719)", "CUDA error"),
])
def test_a_sycl_runtimes_failed_call_is_the_processs_cuda_error(line, message, kind):
    assert cuda_error(line) == {"kind": "cuda_error", "subkind": "sycl_call", "error_type": kind, "error_message": message}


@pytest.mark.parametrize("line", [
    "hipMemsetAsync failed with error 1",  # no SYCL report's shape
    "myMemset() failed (error code = HIP:1)",  # not a HIP or CUDA runtime call
    "hipMemsetAsync() failed (error code = OPENCL:-5)",  # another backend's code
])
def test_lines_the_sycl_reading_leaves(line):
    assert cuda_error(line) is None


# ---- Open MPI's error handler report --------------------------------------------------------------------------------

def _fed(lines: list[str]) -> list[dict]:
    reader, out = OmpiErrors(), []
    for i, line in enumerate(lines, 1):
        out += reader.row(i, line, normalize(line))
    return out


@pytest.mark.parametrize(("rank_field", "rank"), [("22806528,0", 0), ("1543307265,7", 7), ("prterun-login01-12345@1,3", 3)])
def test_mpi_err_other_is_the_reporting_ranks_communication_failure(rank_field, rank):
    events = _fed(_ompi_report("nid003053", 90693, rank_field))
    assert [(e["kind"], e["subkind"], e["rank"], e["pid"], e["nccl_host"], e["error_message"]) for e in events] == [
        ("nccl_error_other", "ompi_other", rank, 90693, "nid003053", "An error occurred in MPI_Send: MPI_ERR_OTHER: known error not in list")]


@pytest.mark.parametrize("lines", [
    _ompi_report("node1", 4242, "99,1", klass="MPI_ERR_TRUNCATE: message truncated"),  # a program's misuse: every rank alike
    _ompi_report("node1", 4242, "99,1", klass="MPI_ERR_RANK: invalid rank"),
    _ompi_report("node1", 4242, "99,1")[3:],  # the class without its process's `reported by` line
    [*_ompi_report("node1", 4242, "99,1")[:2], "[node1:4243] *** MPI_ERR_OTHER: known error not in list"],  # another pid's
    [*_ompi_report("node1", 4242, "99,1")[:2], *(["unrelated output"] * 5), "[node1:4242] *** MPI_ERR_OTHER: known error not in list"],
])
def test_reports_the_open_mpi_reading_leaves(lines):
    assert _fed(lines) == []


@pytest.mark.parametrize("line", [
    GFORTRAN["SIGILL"], "2: " + GFORTRAN["SIGFPE"], HIP_CALL, CUDA_CALL,
    "[nid003053:90693] *** reported by process [22806528,0]", "[nid003053:90693] *** MPI_ERR_OTHER: known error not in list",
    "[nid003053:90693] *** An error occurred in MPI_Send",
])
def test_the_prefilter_lets_the_wordings_through(line):
    """In both engines that read it: Python's re and pyarrow's RE2 (the bulk scan, parsers/logs.py)."""
    assert re.search(PREFILTER_EVENT, line)
    assert pc.match_substring_regex(pa.array([line]), PREFILTER_EVENT).to_pylist() == [True]


# ---- end to end: pastes imported and analysed together -------------------------------------------------------------

def _gfortran_job(sig: str, reports: int, rank: int, launcher: str = "prterun") -> str:
    block = [line for _ in range(reports) for line in ("", GFORTRAN[sig], "", "Backtrace for this error:")]
    frames = [f"#{i}  0x{4198400 + i:x} in ???" for i in range(4)] * reports
    return "\n".join(["mpirun -np 4 ./solver input.in", *block, *frames, "-" * 74,
                      f"{launcher} noticed that process rank {rank} with PID {1617000 + rank} on node cpu155 exited on signal "
                      f"{NUMBER[sig]} ({'Illegal instruction' if sig == 'SIGILL' else 'Segmentation fault' if sig == 'SIGSEGV' else 'Floating point exception'}).",
                      "-" * 74]) + "\n"


def _srun_job(head: list[str], rank: int, world: int, word: str = "Aborted (core dumped)") -> str:
    others = ",".join(str(r) for r in range(world) if r != rank)
    return "\n".join([*head, f"srun: error: nid002892: task {rank}: {word}",
                      "srun: launch/slurm: _step_signal: Terminating StepId=2789083.0",
                      "slurmstepd: error: *** STEP 2789083.0 ON nid002892 CANCELLED AT 2026-11-30T19:03:07 ***",
                      f"srun: error: nid002892: tasks {others}: Killed", "srun: Force Terminated StepId=2789083.0"]) + "\n"


def _ompi_srun_job(klass: str, rank: int) -> str:
    return "\n".join(["Test sending 256 bytes from device to host", *_ompi_report("nid003053", 90693, f"22806528,{rank}", klass),
                      "In: PMI_Abort(16, N/A)", "srun: Job step aborted: Waiting up to 32 seconds for job step to finish.",
                      "slurmstepd: error: *** STEP 348.0 ON nid003053 CANCELLED AT 2026-11-30T09:51:30 ***",
                      f"srun: error: nid003056: task {1 - rank}: Killed", "srun: launch/slurm: _step_signal: Terminating StepId=348.0",
                      f"srun: error: nid003053: task {rank}: Exited with exit code 16"]) + "\n"


CASES = {
    # (paste, what the culprit findings say: (cause, ranks) each; [] for no culprit)
    "sigill-4-reports": (_gfortran_job("SIGILL", 4, 2), []),
    "sigsegv-2-reports": (_gfortran_job("SIGSEGV", 2, 1, launcher="mpirun"), []),
    "sigfpe-1-report": (_gfortran_job("SIGFPE", 1, 0, launcher="mpirun"), [("sigfpe", [0])]),
    "gdb-stops-not-read": ("Program received signal SIGSEGV, Segmentation fault.\nProgram received signal SIGSEGV, Segmentation fault.\n"
                           + _gfortran_job("SIGSEGV", 0, 3, launcher="mpirun"), [("segfault", [3])]),
    "sycl-hip-abort": (_srun_job([HIP_CALL, "The application will now be terminated.", "terminate called without an active exception"], 5, 8),
                       [("cuda-error", [5])]),
    "sycl-cuda-abort": (_srun_job([CUDA_CALL, "terminate called without an active exception"], 2, 4), [("cuda-error", [2])]),
    "abort-alone": (_srun_job(["terminate called without an active exception"], 3, 4), [("abort", [3])]),
    "ompi-err-other": (_ompi_srun_job("MPI_ERR_OTHER: known error not in list", 1), [("nccl-error", [1])]),
    "ompi-err-truncate": (_ompi_srun_job("MPI_ERR_TRUNCATE: message truncated", 0), [("exit-16", [0])]),
}


@pytest.fixture(scope="module")
def findings(tmp_path_factory):
    sets = [(name, [text]) for name, (text, _) in CASES.items()]
    return analyze_node_sets(sets, tmp_path_factory.mktemp("batch63"), NOW)


@pytest.mark.parametrize("name", list(CASES))
def test_end_to_end(findings, name):
    i = list(CASES).index(name)
    got = [(f["cause"], f["ranks"]) for f in naming_findings(findings_of(findings, i))]
    assert got == CASES[name][1]
