"""Running one allow-listed command in a pod and recording it as a ``raw/exec`` row."""

from __future__ import annotations

import datetime as dt

from k10s_forensics.store.bundle import utcnow
from k10s_forensics.capture.inventory import PodInfo
from k10s_forensics.capture.retry import CallError
from k10s_forensics.capture.calls import ExecResult

_MISSING_MARKS = ("executable file not found", "no such file or directory", "not found")


def binary_missing(result: ExecResult) -> bool:
    """True when the command could not start because the binary is not in the image."""
    text = f"{result.error or ''}\n{result.stderr if result.exit_code in (126, 127) else ''}".lower()
    if result.exit_code in (126, 127):
        return True
    return result.exit_code is None and any(mark in text for mark in _MISSING_MARKS)


def judge(ctx, result: ExecResult, *, missing: str, where: str) -> bool:
    """Record one exec's outcome on the collector: ``missing`` when the binary is absent,
    ``where: why`` when it failed, ``ok`` otherwise; returns True when it ran cleanly."""
    if binary_missing(result):
        ctx.error(missing)
    elif result.exit_code != 0:
        why = result.error or result.stderr.strip()[:200] or f"exit code {result.exit_code}"
        ctx.error(f"{where}: {why}")
    else:
        ctx.ok()
        return True
    return False


def run_command(ctx, pod: PodInfo, container: str, argv: tuple[str, ...], source: str, *, record: bool = True,
                timeout_s: float | None = None) -> ExecResult:
    """Exec ``argv`` in ``pod``/``container``; write the exec row (unless ``record`` is False).

    A refused exec (forbidden, pod gone) comes back as an ``ExecResult`` with ``exit_code``
    None and the reason in ``error``; ``Stopped`` still propagates.
    """
    started: dt.datetime = utcnow()
    try:
        result = ctx.source.exec(pod.namespace, pod.name, container, argv, timeout_s or ctx.options.exec_timeout_s)
    except CallError as exc:
        result = ExecResult(exit_code=None, stdout="", stderr="", error=str(exc), duration_ms=int((utcnow() - started).total_seconds() * 1000))
    if record:
        record_exec(ctx, pod, container, argv, source, result, started)
    return result


def record_exec(ctx, pod: PodInfo | None, container: str | None, argv: tuple[str, ...], source: str, result: ExecResult,
                started: dt.datetime, node: str | None = None) -> None:
    ctx.add("exec", {
        "captured_at": started, "duration_ms": result.duration_ms, "source": source,
        "node": pod.node if pod is not None else node, "namespace": pod.namespace if pod is not None else None,
        "pod": pod.name if pod is not None else None, "container": container, "command": " ".join(argv),
        "exit_code": result.exit_code, "stdout": result.stdout, "stderr": result.stderr, "error": result.error,
    })
