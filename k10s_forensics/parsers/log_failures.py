"""Single-line classification of a rank's own failure: CUDA errors, Python exceptions, launchers.

Called by ``log_classify.classify`` (same event dict shape). The launchers' exit reports
that name the last spawned command instead of the failed process (legacy
``torch.distributed.launch``'s ``CalledProcessError``, DeepSpeed's ``exits with return code``)
carry ``_no_rank`` so the line's ``--local_rank=N`` is never read as the culprit; only
``--local_rank=0`` places the failure (the last process spawned was the first: there was one).
"""

from __future__ import annotations

import re

import signal
from typing import Any

from k10s_forensics.parsers import log_patterns as P
from k10s_forensics.parsers.log_absl import absl_signal
from k10s_forensics.parsers.log_native_handlers import native_handler_signal
from k10s_forensics.parsers.log_cuda_calls import (
    cuda_kind, device_count_probe, extension_check, rocr_fault, runtime_call_failed, runtime_call_number, sycl_call, thc_check, transport_call,
)
from k10s_forensics.parsers.log_gfortran import gfortran_signal
from k10s_forensics.parsers.log_launchers import FIRST_PROCESS, launcher_report
from k10s_forensics.parsers.log_nccl2 import end_event_message
from k10s_forensics.parsers.log_ompi import aborts_counted, mpi_abort
# the Python exception's own line lives in log_py_exceptions; re-exported here, with the wordings it reads
from k10s_forensics.parsers.log_py_exceptions import (  # noqa: F401
    ARGPARSE_PHRASE, CHECKPOINT_BODY, GROUP_STORE_KEY, HOROVOD_DRIVER_REPORT, LOGGED_UNCAUGHT, STORE_PEER_HINT, STORE_WAIT_KEYS,
    TRACEBACK_CHAINED, TRACKER_EXCEPTION, XLA_MESH_MASTER, logged_uncaught, py_exception)
from k10s_forensics.parsers.log_ray_workers import ray_worker

Event = dict[str, Any]


def _int(value: str | None) -> int | None:
    try:
        return int(value) if value not in (None, "") else None
    except ValueError:
        return None


#: torch's lazy CUDA init failing on its own check of the device index (``torch.cuda.DeferredCudaCallError: CUDA call
#: failed lazily at initialization with error: device >= 0 && device < num_gpus INTERNAL ASSERT FAILED at "…/CUDAContext
#: .cpp":49, … device=1, num_gpus=``): the process selected a GPU index past those it sees, the runtime's ``invalid
#: device ordinal`` in torch's words (the wrapped ``CUDA error: …`` and its out of memory read as themselves)
DEFERRED_ORDINAL = re.compile(r"failed lazily at initialization with error: device >= 0 && device < num_gpus INTERNAL ASSERT FAILED"
                              r".{0,300}?\bdevice=(\d{1,4}), num_gpus=(\d{0,4})")


def cuda_error(text: str) -> Event | None:
    """``CUDA error: <message>`` (Python, c10 or the watchdog), the runtime's error name
    (``cudaErrorECCUncorrectable: <message>``), NCCL's ``Cuda failure N 'message'`` and a kernel's own
    assertion (``Kernel.cu:144: ...: block: [..], thread: [..] Assertion `cond` failed.``: a device-side assert)."""
    o = DEFERRED_ORDINAL.search(text) if "failed lazily" in text and "num_gpus INTERNAL ASSERT" in text else None
    if o is not None:  # a device index past the visible count, found by torch's own check
        seen = f" of {o.group(2)} visible" if o.group(2) else ""
        return {"kind": "cuda_error", "subkind": cuda_kind("invalid device ordinal"), "error_type": "CUDA error",
                "error_message": f"invalid device ordinal (device {o.group(1)}{seen}, at lazy CUDA initialization)"}
    a = P.CUDA_KERNEL_ASSERT.search(text) if "Assertion " in text and "block: [" in text else None
    if a is not None:
        message = f"device-side assertion `{a.group(1)}` failed"
        return {"kind": "cuda_error", "subkind": "device-assert", "error_type": "CUDA error", "error_message": message[:300]}
    m = P.CUDA_ERROR.search(text) if "CUDA error: " in text or "HIP error: " in text else None
    if m is None and "cudaError" in text:
        m = P.CUDA_ERROR_NAME_QUOTED.search(text) or P.CUDA_ERROR_NAME.search(text)
    message = m.group(1) if m else None
    if message is None and "CUDA_ERROR_" in text:  # the driver API's name (TensorFlow/XLA, OpenACC, JAX)
        d = P.CUDA_DRIVER_ERROR_NAME.search(text)
        if d is not None and d.group(1) in P.CUDA_DRIVER_NOT_FAILURES:
            return None
        message = d.group(2) if d else None
    if message is None:
        message = end_event_message(text)
    if message is None and "Failed to bind NVLink SHARP" in text and (v := P.NVLS_BIND_FAILED.search(text)) is not None:
        return {"kind": "cuda_error", "subkind": "system-not-ready", "error_type": "CUDA error",
                "error_message": f"NVLS multicast memory bind failed: {v.group(2)} (CUDA error {v.group(1)})"[:300]}
    if message is None:
        n = P.NCCL_CUDA_FAILURE.search(text) if "Cuda failure" in text or "Test CUDA failure" in text else None
        if n is None:
            return (thc_check(text) or extension_check(text) or device_count_probe(text) or sycl_call(text)
                    or transport_call(text) or runtime_call_number(text) or rocr_fault(text) or runtime_call_failed(text))
        message = n.group(2)
    if "out of memory" in message:
        return None
    message = message.split("\\n", 1)[0]  # a JSON record's escaped newline ends the message (milabench's event log)
    return {"kind": "cuda_error", "subkind": cuda_kind(message), "error_type": "CUDA error", "error_message": message[:300]}


def srun_tasks(text: str) -> list[Event]:
    """srun's report of how a group of tasks ended, one event per task (rank). ``Killed`` is
    ``srun_killed``: a SIGKILL that is srun's own teardown when srun reports another task failing
    (queries/_incident.sql); ``Out Of Memory`` is ``srun_oom``. Every task of one line shares the
    line's wording as its message, so tasks reported alike in a log without a clock fail together. The line is read after
    an indent every line of a container's own output may carry (a markdown list's, a wrapper's: real incidents batch 151)."""
    m = P.SRUN_TASKS.match(text) if text.lstrip(" \t").startswith("srun: error: ") else None
    if m is None:
        return []
    ranks: list[int] = []
    for part in m.group(2).split(","):
        lo, _, hi = part.partition("-")
        ranks.extend(range(int(lo), int(hi or lo) + 1))
        if len(ranks) > 65536:
            return []
    word = m.group(4)
    code = _int(m.group(3)) if word is None else P.SRUN_SIGNALS[word]
    sub = {"Killed": "srun_killed", "Out Of Memory": "srun_oom"}.get(word or "", "srun")
    message = ("Exited with exit code " + m.group(3)) if word is None else word
    return [{"kind": "process_exit", "subkind": sub, "rank": r, "exit_code": code, "error_message": message} for r in sorted(set(ranks))]


def launcher_exit(text: str) -> Event | None:
    """Launchers' own exit reports (mpirun, legacy torch.distributed.launch, DeepSpeed; Composer, vLLM's
    executor and launches that never started: ``log_launchers``), and JAX's coordination service on a
    task it lost."""
    m = FIRST_PROCESS.search(text) if "Process name: " in text else None
    if m:
        return {"kind": "process_exit", "subkind": "mpirun_first", "rank": _int(m.group(1) or m.group(2) or m.group(3))}
    m = P.MPI_NOTICED.search(text)
    if m:
        return {"kind": "process_exit", "subkind": "mpirun_noticed", "rank": _int(m.group(1)), "pid": _int(m.group(2)),
                "exit_code": -int(m.group(4))}
    m = P.SPAWN_EXIT.search(text) if "terminated with" in text else None
    if m:
        code = -int(signal.Signals[m.group(2)]) if m.group(2) in signal.Signals.__members__ else _int(m.group(3))
        return {"kind": "process_exit", "subkind": "spawn", "local_rank": _int(m.group(1)), "exit_code": code}
    m = P.SPAWN_RAISED.search(text) if "terminated with the following error" in text else None
    if m:  # the exception printed next is that process's own
        return {"kind": "process_exit", "subkind": "spawn", "local_rank": _int(m.group(1)), "exit_code": 1, "_raised_by": _int(m.group(1))}
    m = P.HOROVOD_EXIT.search(text) if "exit with status code" in text else None
    if m:
        return {"kind": "process_exit", "subkind": "horovod", "rank": _int(m.group(1)), "exit_code": _int(m.group(2))}
    # these two name the LAST spawned command (a launcher bug), never the failed process: no rank
    m = P.LEGACY_LAUNCH_EXIT.search(text) if "CalledProcessError" in text else None
    if m:
        return _last_cmd(text, -int(m.group(1)) if m.group(1) else _int(m.group(2)))
    m = P.DEEPSPEED_EXIT.search(text)
    if m:
        return _last_cmd(text, _int(m.group(1)))
    m = P.RUNNER_EXIT.search(text) if "returned non-zero exit status" in text else None
    if m:  # a runner of one command (Cloud ML Engine's): the exit status of the process its line's pod ran
        return {"kind": "process_exit", "subkind": "runner_command", "exit_code": _int(m.group(1))}
    m = P.SPAWNED.search(text)
    if m:
        return {"kind": "rank_spawn", "subkind": "deepspeed", "pid": _int(m.group(1)), "local_rank": _int(m.group(2))}
    m = P.JAX_TASK_ERROR.search(text) if "/task:" in text else None
    if m and jax_service_host_alive(int(m.group(1)), text):
        m = None  # the service runs in task 0's process: its own missed heartbeats were printed by it, alive
    if m:  # JAX's coordination service lost a task: it failed, was preempted or crashed (how is not said)
        how = "stopped sending heartbeats" if "heartbeat timeout" in text else "was set to ERROR"
        return {"kind": "process_exit", "subkind": "jax_task_error", "rank": _int(m.group(1)), "exit_code": None,
                "error_message": f"JAX's coordination service: task {m.group(1)} {how}"}
    return launcher_report(text) or ray_worker(text) or mpi_abort(text)


def jax_service_host_alive(task: int, text: str) -> bool:
    """JAX's coordination service runs in process 0 (``jax.distributed.initialize`` starts it there): its report that
    task 0's heartbeats stopped (``task:0 heartbeat timeout``, or task 0 among the tasks ``unhealthy (stopped sending
    heartbeats)``) was made by task 0's own process, alive to make it: a slow initialisation or a too-short timeout,
    not a failed, preempted or crashed task. Another task, or task 0 set to ERROR for a reason of its own, is not this."""
    return task == 0 and ("heartbeat timeout" in text or "stopped sending heartbeats" in text)


def fatal_signal(text: str) -> Event | None:
    """faulthandler's ``Fatal Python error: Segmentation fault`` and glog's ``*** SIGSEGV (@0x0) received by
    PID 24044 …`` (the process's own words for the signal that ends it, printed before it dies): an exit on
    that signal. The only line a process run without a launcher leaves (one process per pod); under torchrun
    its agent's exit status says the same."""
    m = P.FAULTHANDLER.search(text) if "Fatal Python error: " in text else None
    if m is not None:
        return {"kind": "process_exit", "subkind": "faulthandler", "exit_code": -P.FAULTHANDLER_SIGNALS[m.group(1)]}
    return (_glog_signal(text) or _ompi_signal(text) or gfortran_signal(text) or absl_signal(text) or aborts_counted(text)
            or native_assert(text) or native_handler_signal(text))


#: glibc's ``assert()`` failing in native code (a C++/CUDA extension's host code, a C program), printed just before its
#: ``abort()``: ``python: /opt/DeepEP/csrc/hybrid_ep/extension/permute.cu:412: void permute_launcher(PermuteArgs) [with …]:
#: Assertion 'args.output_tokens_ptr != nullptr' failed.`` (glibc 2.35+ quotes '…', older `…'); the program, the file and
#: the function may sit on the line before (a wrapped paste). Group 1 the file:line where given, 2 the condition. A
#: kernel's device-side assertion (``block: [..], thread: [..]``) is a CUDA error (cuda_error), not this.
NATIVE_ASSERT = re.compile(r"(?:(\S{1,400}:\d{1,7}): .{0,1200}?)?: Assertion [`'](.{1,300}?)' failed\.\s*$")


def native_assert(text: str) -> Event | None:
    """glibc's failed assertion in the process's native code: its SIGABRT (−6), the condition and where it failed.
    Every process runs that code on its own config and data, so it is read as common mode where it is the first failure
    (queries/_incident_common_mode.sql: the corpus' four such pastes are all of every rank alike)."""
    m = NATIVE_ASSERT.search(text) if "Assertion " in text and "' failed." in text and "block: [" not in text else None
    if m is None:
        return None
    where = f" at {m.group(1)}" if m.group(1) else ""
    return {"kind": "process_exit", "subkind": "native_assert", "exit_code": -6,
            "error_message": f"native assertion `{m.group(2)}` failed{where}"[:300]}


def _glog_signal(text: str) -> Event | None:
    """glog's handler (Paddle's processes): the signal and the pid it ends."""
    m = P.GLOG_SIGNAL.search(text) if ") received by PID " in text else None
    if m is None:
        return None
    pid = int(m.group(2)) if m.group(2).isdigit() else None  # a pasted log may mask it
    return {"kind": "process_exit", "subkind": "glog_signal", "pid": pid, "exit_code": -P.GLOG_SIGNALS[m.group(1)]}


def _ompi_signal(text: str) -> Event | None:
    """Open MPI's signal handler in the process that took the signal: ``[host:pid] Signal: Bus error (7)``. No exit of its
    own (mpirun reports that, for the first process it reaps): the process by its host and pid, the signal, so that
    processes taking the same signal are counted (queries/_incident.sql ``signal_alike``)."""
    m = P.OMPI_SIGNAL.search(text) if "] Signal: " in text else None
    if m is None:
        return None
    return {"kind": "native_signal", "subkind": "ompi", "nccl_host": m.group(1), "pid": _int(m.group(2)),
            "exit_code": -int(m.group(4)), "error_message": f"{m.group(3)} ({m.group(4)})", "_no_rank": True}


def _last_cmd(text: str, code: int | None) -> Event:
    """A launcher's exit report printed with its last spawned command: which process failed is
    unknown (``local_rank`` None), unless that command was local rank 0, i.e. the only one."""
    local = P.LAST_CMD_LOCAL_RANK.search(text)
    only = 0 if local and int(local.group(1)) == 0 else None
    return {"kind": "process_exit", "subkind": "launcher_last_cmd", "exit_code": code, "local_rank": only, "_no_rank": True}


def store_timeout(text: str) -> Event | None:
    """c10d's store client giving up on a key another rank was to set (``[c10d] waitForInput: socket … timed
    out after 1800000ms``): the rank was waiting for a peer, like a watchdog's timeout; the traceback that
    follows (often cut before its ``DistBackendError … Socket Timeout``) is that wait's teardown."""
    m = P.STORE_SOCKET_TIMEOUT.search(text) if "waitForInput" in text else None
    if m is None:
        return None
    waited = f" after {m.group(1)} ms" if m.group(1) else ""
    return {"kind": "python_exception", "subkind": "teardown", "error_type": "c10d store timeout",
            "error_message": "waiting on the c10d store for another rank's key timed out" + waited}


__all__ = ["cuda_error", "fatal_signal", "launcher_exit", "logged_uncaught", "py_exception", "srun_tasks", "store_timeout"]
