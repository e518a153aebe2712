"""Ray's task error header read alone (session 68; docs/rules.md, "Session 68: Ray's task error header").

A caller that awaited a Ray task or actor method re-raises the task's exception as a class Ray makes for it,
``RayTaskError(<the exception's class name>)``, and prints it as ``ray.exceptions.RayTaskError(RuntimeError):
ray::RayModel.train() (pid=80, ip=10.244.16.90)`` (newer Ray adds ``, actor_id=…, repr=…``), the task's own traceback and
its exception line (``RuntimeError: boom``) under it. A paste cut after the header (or a log holding the header only)
keeps the header alone: its parentheses name the exception's class, and its ``(pid=N, ip=A)`` the process that raised
it. Such a header is read as that class's exception (``py_exception`` on ``<class>: <the rest>``), raised in that
process (its pid and IP: Ray Train's worker group and Ray's IPs to pods place it, queries/_failure_line.sql), never
the printer's (the caller: the driver, a trainable).

Where the task's own exception line follows (within ``HEADER_GAP`` lines, from the same printer), that line is the
event and the header is dropped (``RayTaskHeaders``); so is a header above another (Ray prints a task's error that
another task re-raised as nested headers, the innermost last): the full form reads as before.

Session 69 (docs/rules.md, "Session 69: Ray's task-error classes and Tune's trainable header"): whatever classifier
reads the header's class (``RayTaskError(DistBackendError)``: an NCCL error; a header whose line carries torch's ``CUDA
out of memory``: a CUDA OOM), its event is placed in the process the header names (``placed``). Ray Tune's trainable
(``ray::_Inner.train()``, ``ray::TrainTrainable.train()``, ``ray::ImplicitFunc.train()``) re-raises its workers' errors:
its header names the trainable's pid and IP, no worker's, so it places nothing (``_ray_trainable``), and where a
worker's own error was printed above it (a rank's tag, a relayed process's prefix, a worker's header) it is dropped.
"""

from __future__ import annotations

import re
from typing import Any

from k10s_forensics.parsers.log_ray_workers import RAY_TASK_HEAD

Event = dict[str, Any]

#: ``ray.exceptions.RayTaskError(RuntimeError): ray::f() (pid=N, ip=A)``: group 2 the inner exception's class, 3 the rest
RAY_TASK_ERROR = re.compile(r"^((?:[A-Za-z_]\w{0,80}\.){0,4}RayTaskError)\(((?:[A-Za-z_]\w{0,80}\.){0,8}[A-Za-z_]\w{0,80})\): ?(.{1,2000}?)\s*$")
#: the header, then (within this many lines) the task's own exception line that makes it redundant (log_owners.OWNER_GAP)
HEADER_GAP = 200
#: the events a task's own exception line is read as, below its header (Ray's dead-actor report among them)
INNER_KINDS = ("python_exception", "cuda_oom", "cuda_error", "nccl_error_other", "nccl_remote_error")
#: Ray Tune's trainable actor running ``train()`` (Ray Train's trainer as a trial: ``_Inner``, ``TrainTrainable`` in Ray
#: 2.0-2.1; a function trainable: ``ImplicitFunc``): it awaits the workers and re-raises their errors, itself no worker
TRAINABLE = re.compile(r"^ray::(?:_Inner|TrainTrainable|ImplicitFunc)\.train\(\)")
#: a line Ray relays from a process (``(RayTrainWorker pid=N, ip=A) …``), not a trainable's own (``(TrainTrainable pid=N)``)
RELAYED = re.compile(r"^\((?!(?:_Inner|TrainTrainable|ImplicitFunc)\b)(?:[A-Za-z_][\w.]{0,80} )?pid=")


def ray_task_error(header: re.Match[str], inner: Event | None) -> Event | None:
    """The header's event: its inner class's reading (``inner``), in the process the header names."""
    if inner is None:
        return None
    return {**inner, **_place(header)}


def _place(header: re.Match[str]) -> Event:
    """The header's process (its pid and IP), or none for a Tune trainable's (it names no worker)."""
    if TRAINABLE.match(header.group(3)):
        return {"pid": None, "ip": None, "_ray_header": True, "_ray_trainable": True}
    task = RAY_TASK_HEAD.search(header.group(3))
    return {**({"pid": int(task.group(1)), "ip": task.group(2)} if task else {}), "_ray_header": True}


def placed(message: str, events: list[Event]) -> None:
    """A header another classifier read first (its class an NCCL error, its line torch's CUDA OOM): placed as any header."""
    header = RAY_TASK_ERROR.match(message) if "RayTaskError(" in message and not events[0].get("_ray_header") else None
    if header and events[0]["kind"] in INNER_KINDS:
        events[0].update(_place(header))


def _workers(text: str, head: Event) -> bool:
    """A worker's own error: a rank's tag, a relayed process's prefix, a worker's (not a trainable's) header."""
    if head.get("_ray_header"):
        return not head.get("_ray_trainable")
    return head.get("_prefix_rank") is not None or bool(RELAYED.match(text))


class RayTaskHeaders:
    """Per log body: the last header event read alone, dropped when its task's exception line follows."""

    def __init__(self) -> None:
        self._pending: tuple[int, Any, Event] | None = None  # (line_no, printer, the header's event)
        self._worker: int | None = None  # line_no of the last worker's own error (``_workers``)

    def mark(self, line_no: int, events: list[Event], message: str = "", text: str = "") -> None:
        placed(message, events)
        head = events[0]
        inner = head["kind"] in INNER_KINDS or head.get("subkind") == "ray_worker_died"
        if head.get("_ray_trainable") and self._worker is not None and line_no - self._worker <= HEADER_GAP:
            head["_superseded"] = True  # a Tune trainable re-raising the worker's error printed above it
        if inner and head.get("subkind") != "teardown" and _workers(text, head):
            self._worker = line_no
        if self._pending is not None and inner:
            at, printer, header = self._pending
            if line_no - at <= HEADER_GAP and head.get("_printer") == printer:
                header["_superseded"] = True
            self._pending = None
        if head.get("_ray_header"):
            self._pending = (line_no, head.get("_printer"), head)


def kept(events: list[Event]) -> list[Event]:
    """A body's events less the headers their task's own exception line made redundant."""
    return [ev for ev in events if not ev.get("_superseded")]


__all__ = ["RAY_TASK_ERROR", "TRAINABLE", "RayTaskHeaders", "kept", "placed", "ray_task_error"]
