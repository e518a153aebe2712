"""Single-line classification of a Python exception's line: the last line of a traceback (``py_exception``), a
logged uncaught exception (``logged_uncaught``), and the wordings that make a raised exception a rank's own failure or a
peer's teardown (store waits, argparse, trackers). Re-exported by ``log_failures`` (same event dict shape)."""

from __future__ import annotations

import re
from typing import Any

from k10s_forensics.parsers import log_patterns as P
from k10s_forensics.parsers.common import size_to_mib
from k10s_forensics.parsers.log_owners import CHECKPOINT_RANKS
from k10s_forensics.parsers.log_ray_task_error import RAY_TASK_ERROR, ray_task_error

Event = dict[str, Any]

#: PyTorch's class of a device allocator's failure (``torch.OutOfMemoryError``, 2.5+; ``torch.cuda.OutOfMemoryError``
#: before): whatever its line holds (``CUDA out of memory. …``, the message cut or wrapped onto the next line, another
#: device's ``XPU out of memory``), the accelerator's out of memory of the process that raised it
TORCH_OOM_CLASSES = ("torch.OutOfMemoryError", "torch.cuda.OutOfMemoryError")
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
#: PyTorch's DataLoader worker reporting its own fatal signal from its handler (torch/csrc/DataLoader.cpp), printed before
#: (or, the paste cut, instead of) the main process's ``RuntimeError: DataLoader worker (pid N) is killed by signal: Bus
#: error.``: ``ERROR: Unexpected bus error encountered in worker. This might be caused by insufficient shared memory (shm).``,
#: ``… segmentation fault …``, ``… floating-point exception …``; read as that worker's death (queries/_failure_line.sql)
WORKER_SIGNAL = re.compile(r"^ERROR: Unexpected (bus error|segmentation fault|floating-point exception) encountered in worker\.\s*(.{0,200})$")
#: the signal's name as the main process's line says it (``strsignal``)
WORKER_SIGNAL_NAME = {"bus error": "Bus error", "segmentation fault": "Segmentation fault", "floating-point exception": "Floating point exception"}
#: the error type the worker's line is read under, its message ``killed by signal: Bus error. <the advice>`` (the main
#: process's own line is a ``RuntimeError`` ``DataLoader worker (pid N) is killed by signal: …``)
WORKER_SIGNAL_TYPE = "DataLoader worker"
#: the signal either line names
#: filelock's timeout ending a traceback (``filelock._error.Timeout: The file lock '/root/.cache/…/x.lock' could not be
#: acquired.``; ``filelock.Timeout: …``, or its bare class ``Timeout: …``): the class ends in no ``Error``, and its
#: ``Timeout`` is no wait on a peer rank (a watchdog's, a store's): the process could not get a lock another process
#: holds (a stale lock a killed run left, another job or rank doing long work under it), its own failure
FILELOCK_TIMEOUT = re.compile(r"^((?:filelock\.(?:_error\.)?)?Timeout): (The file lock '.{1,1000}' could not be acquired)\.?\s*$")
KILLED_BY = re.compile(r"killed by signal: ([A-Za-z ]{1,40}[A-Za-z])")
GROUP_STORE_KEY = re.compile(r"default_pg|//(?:cpu|cuda|xpu|hpu|mps)//|^\[?/?\d+/|barrier|torch\.rendezvous|torchelastic|MASTER_(?:ADDR|PORT)")


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
        worker = WORKER_SIGNAL.match(message) if message.startswith("ERROR: Unexpected ") else None
        if worker:  # a DataLoader worker's own report of its signal: the worker's death, as the main process reports it
            said = f"killed by signal: {WORKER_SIGNAL_NAME[worker.group(1)]}. {worker.group(2)}".strip().rstrip(".")
            return {"kind": "python_exception", "subkind": "raised", "error_type": WORKER_SIGNAL_TYPE, "error_message": said[:300]}
        lock = FILELOCK_TIMEOUT.match(message) if "could not be acquired" in message else None
        if lock:  # the process's own wait on a lock file (its holder is no rank the message names)
            return {"kind": "python_exception", "subkind": "raised", "error_type": lock.group(1), "error_message": lock.group(2)[:300]}
        task = RAY_TASK_ERROR.match(message) if "RayTaskError(" in message else None
        if task:  # Ray's task error header read alone: its inner class's exception, in the task's process (log_ray_task_error.py)
            return ray_task_error(task, py_exception(f"{task.group(2)}: {task.group(3)}"))
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
    if name in TORCH_OOM_CLASSES:  # the allocator's own class, its message cut, wrapped onto the next line or reworded
        asked = P.OOM_REQUESTED.search(text)
        return {"kind": "cuda_oom", "subkind": "pytorch_class", "oom_requested_mib": size_to_mib(asked.group(1)) if asked else None}
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


def worker_reports_dropped(events: list[Event]) -> list[Event]:
    """One log body's events less each DataLoader worker's own signal report (``WORKER_SIGNAL``) whose process (its rank
    and local rank, or none) also printed the main process's ``DataLoader worker (pid N) is killed by signal:`` of that
    signal: one worker death, the main process's line its reading as before the worker's line was read; and less a
    worker's report that names no rank (untagged, or a Ray worker's pid only): a data-loading subprocess died, and
    without the main process's line nothing says the training process went with it (ray-project/ray#34194's worker
    printed on after it)."""
    def signal(ev: Event) -> str | None:
        m = KILLED_BY.search(ev.get("error_message") or "") if ev.get("kind") == "python_exception" else None
        return m.group(1) if m else None

    mains = {(ev.get("rank"), ev.get("local_rank"), signal(ev)) for ev in events
             if ev.get("error_type") != WORKER_SIGNAL_TYPE and (ev.get("error_message") or "").startswith("DataLoader worker (pid")}
    return [ev for ev in events if ev.get("error_type") != WORKER_SIGNAL_TYPE or ev.get("kind") != "python_exception"
            or ((ev.get("rank"), ev.get("local_rank"), signal(ev)) not in mains
                and (ev.get("rank") is not None or ev.get("local_rank") is not None))]
