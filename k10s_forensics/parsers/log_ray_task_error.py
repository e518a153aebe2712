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


def ray_task_error(header: re.Match[str], inner: Event | None) -> Event | None:
    """The header's event: its inner class's reading (``inner``), in the process the header names."""
    if inner is None:
        return None
    task = RAY_TASK_HEAD.search(header.group(3))
    place = {"pid": int(task.group(1)), "ip": task.group(2)} if task else {}
    return {**inner, **place, "_ray_header": True}


class RayTaskHeaders:
    """Per log body: the last header event read alone, dropped when its task's exception line follows."""

    def __init__(self) -> None:
        self._pending: tuple[int, Any, Event] | None = None  # (line_no, printer, the header's event)

    def mark(self, line_no: int, events: list[Event]) -> None:
        head = events[0]
        inner = head["kind"] in INNER_KINDS or head.get("subkind") == "ray_worker_died"
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


__all__ = ["RAY_TASK_ERROR", "RayTaskHeaders", "kept", "ray_task_error"]
