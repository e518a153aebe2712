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
from k10s_forensics.parsers.log_cuda_calls import (
    cuda_kind, extension_check, runtime_call_number, sycl_call, thc_check, transport_call,
)
from k10s_forensics.parsers.log_gfortran import gfortran_signal
from k10s_forensics.parsers.log_launchers import FIRST_PROCESS, launcher_report
from k10s_forensics.parsers.log_nccl2 import end_event_message
from k10s_forensics.parsers.log_ompi import aborts_counted, mpi_abort
from k10s_forensics.parsers.log_owners import CHECKPOINT_RANKS
from k10s_forensics.parsers.log_ray_workers import ray_worker

Event = dict[str, Any]

#: the keys of a c10d store wait that timed out (``DistStoreError: wait timeout after 2000ms, keys: /user/ready-103``)
#: The body of torch.utils.checkpoint's CheckpointError (the recomputation in the backward pass did not
#: match the forward): ``recomputed metadata: {'shape': ...}`` under ``tensor at position N:``, or
#: ``Number of tensors saved during recomputation: 0``. A paste that starts below the exception's headline
#: still shows which rank raised it.
CHECKPOINT_BODY = re.compile(r"^(?:recomputed metadata: \{'shape'|Number of tensors saved during recomputation: \d)")
STORE_WAIT_KEYS = re.compile(r"wait timeout after \d+ ?ms, keys: (\S.{0,400})")
#: keys a peer, the process group or the elastic agent sets (a rank's address under ``<pg>//<device>//``, a numbered
#: group's prefix, a barrier, the rendezvous' ``torch.rendezvous.<id>`` / ``torchelastic`` / ``MASTER_ADDR`` keys): a
#: wait on one is a peer's absence, the waiter its victim
#: the tail torch (2.2+) adds to a c10d store error when the store's host stopped answering (``store->get('0') got error:
#: Connection reset by peer`` and the C++ frames above it): on a line of its own it starts with the ``. `` that ended the
#: message. The rank printing it lost the store (its host crashed, or the network): a peer's failure, not its own.
STORE_PEER_HINT = re.compile(r"^\.?\s*This may indicate a possible application crash on rank (\d{1,7}) or a network set ?up issue\.?\s*$")
#: torch_xla's spawned process unable to reach the mesh master its launcher serves (XRT's rendezvous at start,
#: ``Failed to connect to client mesh master: d7c1c93dfe8c:56419``): the launch's setup, shared by every process
XLA_MESH_MASTER = re.compile(r"^Failed to connect to client mesh master: (\S{1,200})\s*$")
GROUP_STORE_KEY = re.compile(r"default_pg|//(?:cpu|cuda|xpu|hpu|mps)//|^\[?/?\d+/|barrier|torch\.rendezvous|torchelastic|MASTER_(?:ADDR|PORT)")


def _int(value: str | None) -> int | None:
    try:
        return int(value) if value not in (None, "") else None
    except ValueError:
        return None


def cuda_error(text: str) -> Event | None:
    """``CUDA error: <message>`` (Python, c10 or the watchdog), the runtime's error name
    (``cudaErrorECCUncorrectable: <message>``), NCCL's ``Cuda failure N 'message'`` and a kernel's own
    assertion (``Kernel.cu:144: ...: block: [..], thread: [..] Assertion `cond` failed.``: a device-side assert)."""
    a = P.CUDA_KERNEL_ASSERT.search(text) if "Assertion " in text and "block: [" in text else None
    if a is not None:
        message = f"device-side assertion `{a.group(1)}` failed"
        return {"kind": "cuda_error", "subkind": "device-assert", "error_type": "CUDA error", "error_message": message[:300]}
    m = P.CUDA_ERROR.search(text) if "CUDA error: " in text else None
    if m is None and "cudaError" in text:
        m = P.CUDA_ERROR_NAME.search(text)
    message = m.group(1) if m else end_event_message(text)
    if message is None:
        n = P.NCCL_CUDA_FAILURE.search(text) if "Cuda failure" in text or "Test CUDA failure" in text else None
        if n is None:
            return thc_check(text) or extension_check(text) or sycl_call(text) or transport_call(text) or runtime_call_number(text)
        message = n.group(2)
    if "out of memory" in message:
        return None
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
    return _glog_signal(text) or _ompi_signal(text) or gfortran_signal(text) or absl_signal(text) or aborts_counted(text)


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


#: horovodrun's driver ending the job, its Gloo runner (``gloo_run.py``, static and elastic): ``RuntimeError: Horovod
#: detected that one or more processes exited with non-zero status, thus causing the job to be terminated. The first
#: process to do so was:``, then ``Process name:`` and ``Exit code:``: the launcher's report of a process it ran, raised
#: in the driver, no rank's exception (its MPI runner's ``mpirun failed with exit code N`` reads as a rankless exit)
HOROVOD_DRIVER_REPORT = re.compile(r"Horovod detected that one or more processes exited with non-zero status")
#: An experiment tracker's client exception (``wandb.errors.errors.CommError: Run initialization has timed out …``,
#: ``mlflow.exceptions.MlflowException``, ``neptune.exceptions.…``, ``clearml.…``, ``comet_ml.exceptions.…``): the
#: process's own call to the tracker's service failed, whatever its words say timed out; no peer rank is waited on
TRACKER_EXCEPTION = re.compile(r"^(?:wandb|mlflow|comet_ml|neptune|clearml)\.(?:\w+\.){0,6}[A-Z]\w*$")


#: argparse's usage error under a program name of the parser's own (``ArgumentParser('BEiT fine-tuning script', …)``, not
#: ``train.py``), known by argparse's own words (unilm#1597, real incidents batch 271)
ARGPARSE_PHRASE = re.compile(r"^[^\n]{1,200}?: error: ((?:unrecognized arguments: |the following arguments are required: |ambiguous "
                             r"option: |argument -{1,2}[\w.-]{1,80}(?:/-{1,2}[\w.-]{1,80})?: )[^\n]{0,500}?)\s*$")


def py_exception(message: str, tagged: bool = False) -> Event | None:
    """The last line of a Python traceback (on the normalised message); with ``tagged`` (the line
    carries a launcher's rank prefix) also the first line, for a traceback whose end was cut off."""
    m = P.PY_EXCEPTION.match(message)
    if not m:
        usage = P.ARGPARSE_ERROR.match(message) if ".py: error: " in message else None
        usage = usage or (ARGPARSE_PHRASE.match(message) if ": error: " in message else None)
        if usage:  # argparse exits with status 2 after it
            return {"kind": "python_exception", "subkind": "raised", "error_type": "argparse usage error", "error_message": usage.group(1)[:300]}
        hint = STORE_PEER_HINT.match(message) if "possible application crash" in message else None
        if hint:  # the store error's own line cut away above it: the rank lost the store's host (a peer)
            return {"kind": "python_exception", "subkind": "teardown", "error_type": "c10d store connection lost",
                    "error_message": f"lost the c10d store (a possible crash of rank {hint.group(1)}, or the network)"}
        mesh = XLA_MESH_MASTER.match(message) if "client mesh master" in message else None
        if mesh:
            return {"kind": "python_exception", "subkind": "raised", "error_type": "XLA mesh master unreachable",
                    "error_message": f"could not connect to the XLA mesh master at {mesh.group(1)}"}
        if CHECKPOINT_BODY.match(message):
            return {"kind": "python_exception", "subkind": "raised", "error_type": "torch.utils.checkpoint.CheckpointError",
                    "error_message": "recomputed tensors differ from the forward pass"}
        start = P.TRACEBACK_START.match(message) if tagged else None
        if start:  # embedded in one log record (SGLang's "Scheduler hit an exception: Traceback"): its lines follow untagged
            return {"kind": "python_traceback", "subkind": "started", "_embedded": start.group("embedded") is not None}
        if tagged and TRACEBACK_CHAINED.match(message):  # the rank is printing a chained traceback of its own
            return {"kind": "python_traceback", "subkind": "started", "_embedded": False}
        return None
    name, text = m.group(1), (m.group(2) or "").strip()
    if name.endswith(P.LAUNCHER_EXCEPTIONS) or HOROVOD_DRIVER_REPORT.match(text):
        return None  # the launcher's own exception (its failure table / exit report is the event)
    own = _own_store_wait(text) or _own_bare_timeout(name, text) or TRACKER_EXCEPTION.match(name) is not None
    sub = "teardown" if P.PY_TEARDOWN.search(name + ": " + text) and not own else "raised"
    ev = {"kind": "python_exception", "subkind": sub, "error_type": name[:200], "error_message": text[:300] or None}
    failed = CHECKPOINT_RANKS.search(text) if name.endswith("CheckpointException") else None
    if failed:  # DCP gathers every rank's failure and raises on all: it names the ranks whose part failed
        ev["_failed_ranks"] = sorted({int(r) for r in failed.group(1).replace(" ", "").split(",") if r})
    return ev


def _own_bare_timeout(name: str, text: str) -> bool:
    """A ``TimeoutError`` with no message is the program's own bounded wait (``concurrent.futures``' ``result(timeout=…)``,
    ``asyncio.wait_for``, a ``multiprocessing`` pool's ``get(timeout=…)``), no peer's: torch's, gloo's, NCCL's and the
    launchers' timeouts always say what they waited for (``Timed out waiting …``, ``wait timeout after …``)."""
    return not text and name.rsplit(".", 1)[-1] == "TimeoutError"


#: Python's marker between the chained tracebacks of one exception (``raise … from …``, or an exception raised
#: while handling another): the process printing it is printing its own traceback, whatever cut its lines
TRACEBACK_CHAINED = re.compile(r"^(?:The above exception was the direct cause of the following exception|"
                               r"During handling of the above exception, another exception occurred):\s*$")
#: A script's own ``sys.excepthook`` (or a ``try``/``except`` around ``main``) that logs the exception it did not
#: handle as one record and no traceback, then exits 1: ``ERROR train: uncaught KeyError: 'labels'``,
#: ``CRITICAL:root:Unhandled exception: ValueError: bad``, loguru's ``Unhandled exception ValueError('bad')``. Only
#: the words uncaught / unhandled and a Python exception's name: a handled, retried error logged alike says neither
LOGGED_UNCAUGHT = re.compile(
    r"(?:^|[\s:|\-\]])(?:[Uu]ncaught|[Uu]nhandled|UNCAUGHT|UNHANDLED)(?: [Ee]xception(?: in [\w.<>-]{1,80})?)?[:,]? {1,3}"
    r"(?:[Ee]xception:? )?((?:[A-Za-z_]\w{0,80}\.){0,8}_{0,2}[A-Z]\w{0,80}(?:Error|Exception|Interrupt))"
    r"(?:(?::|:? -) ?(.{0,300})|\((.{0,300})\))?\s*$")


def logged_uncaught(message: str) -> Event | None:
    """A logging record of an exception the program did not handle, with no traceback (``LOGGED_UNCAUGHT``): no
    failure by itself; it says why a rank its launcher reports exiting 1 ended (queries/_incident.sql)."""
    m = LOGGED_UNCAUGHT.search(message) if "ncaught" in message or "nhandled" in message or "NCAUGHT" in message \
        or "NHANDLED" in message else None
    if m is None or m.group(1).endswith(P.LAUNCHER_EXCEPTIONS):
        return None
    text = (m.group(2) if m.group(2) is not None else m.group(3) or "").strip()
    return {"kind": "logged_exception", "subkind": "uncaught", "error_type": m.group(1)[:200], "error_message": text[:300] or None}


def _own_store_wait(text: str) -> bool:
    """A store wait that timed out on keys of the program's own (``store.wait(["ready-103"])`` on a ``TCPStore``),
    no peer's, group's or launcher's: nothing another rank was to do is named, the rank's own step failed."""
    m = STORE_WAIT_KEYS.search(text) if "wait timeout after" in text else None
    return m is not None and not GROUP_STORE_KEY.search(m.group(1))


__all__ = ["cuda_error", "fatal_signal", "launcher_exit", "logged_uncaught", "py_exception", "srun_tasks", "store_timeout"]
