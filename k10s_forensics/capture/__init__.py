"""``k10s capture``: collect a bundle from a live cluster, read-only, quickly, safely.

``capture(...)`` is the Python entry point used by the CLI, the tests and the benchmark.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from k10s_forensics.store.bundle import utcnow
from k10s_forensics.capture.context import CaptureOptions
from k10s_forensics.capture.retry import Deadline, RetryPolicy
from k10s_forensics.capture.scope import JobRef, Scope
from k10s_forensics.capture.source import ClusterConnection, KubeSource, load_connection
from k10s_forensics.errors import CollectorError

_DURATION = re.compile(r"(\d+(?:\.\d+)?)(ms|s|m|h|d)?")
_UNITS = {"ms": 0.001, "s": 1, "m": 60, "h": 3600, "d": 86400, None: 1}
_SIZE = re.compile(r"(\d+)\s*(k|ki|kb|m|mi|mb|g|gi|gb)?", re.IGNORECASE)


def parse_duration(text: str) -> float:
    """Seconds from ``90``, ``90s``, ``2m``, ``1h30m``, ``500ms``.

    Raises:
        CollectorError: not a duration.
    """
    value = text.strip().lower()
    pos, total = 0, 0.0
    for m in _DURATION.finditer(value):
        if m.start() != pos:
            break
        total += float(m.group(1)) * _UNITS[m.group(2)]
        pos = m.end()
    if pos != len(value) or not value:
        raise CollectorError(f"{text!r} is not a duration (use e.g. 90s, 2m, 1h30m)")
    return total


def parse_size(text: str) -> int:
    """Bytes from ``5Mi``, ``10MB``, ``512k``, ``1048576``."""
    m = _SIZE.fullmatch(text.strip())
    if not m:
        raise CollectorError(f"{text!r} is not a size (use e.g. 5Mi, 512Ki, 1048576)")
    unit = (m.group(2) or "").lower()[:1]
    return int(m.group(1)) * {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30}[unit]


def default_output_dir(context: str) -> Path:
    """``k10s-<context>-<UTC time>`` with the context made safe for a file name."""
    safe = re.sub(r"[^A-Za-z0-9._-]+", "-", context).strip("-") or "cluster"
    return Path(f"k10s-{safe}-{utcnow().strftime('%Y%m%dT%H%M%SZ')}")


def capture(out_dir: str | Path | None = None, *, kubeconfig: str | None = None, context: str | None = None,
            connection: ClusterConnection | None = None, namespaces: tuple[str, ...] = (), all_namespaces: bool = False,
            jobs: tuple[str, ...] = (), options: CaptureOptions | None = None, progress: Any = None):
    """Capture a bundle. Returns the result; the bundle is at ``result.bundle.path``.

    Raises:
        CollectorError: no cluster configuration, bad scope, or the API server is unreachable.
    """
    from k10s_forensics.capture.engine import CaptureEngine

    options = options or CaptureOptions()
    connection = connection or load_connection(kubeconfig, context)
    scope = Scope.build(namespaces=tuple(namespaces), all_namespaces=all_namespaces, jobs=tuple(jobs),
                        default_namespace=connection.namespace)
    deadline_s = options.deadline_s if options.deadline_s is not None else options.duration_s + 600
    deadline = Deadline(deadline_s)
    source = KubeSource(connection, deadline, timeout_s=options.timeout_s, retry=RetryPolicy(), pool_size=options.concurrency)
    target = Path(out_dir) if out_dir else default_output_dir(connection.context)
    try:
        return CaptureEngine(source, scope, options, target, progress=progress, deadline=deadline).run()
    finally:
        source.close()


__all__ = ["capture", "CaptureOptions", "JobRef", "Scope", "KubeSource",
           "load_connection", "parse_duration", "parse_size", "default_output_dir"]
