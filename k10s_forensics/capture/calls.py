"""What one API call gives back: an exec's result, or an HTTP error as a ``CallError``.

Shared by the API source (``capture.source``) and the exec clients (``capture.execws``,
``capture.fastws``), which sit below the source and must not import it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from k10s_forensics.capture.retry import CallError

_STATUS_KIND = {401: "unauthorized", 403: "forbidden", 404: "not-found", 410: "gone", 429: "throttled"}


@dataclass
class ExecResult:
    """What one exec gave back. ``exit_code`` is None when the command never ran."""

    exit_code: int | None
    stdout: str
    stderr: str
    error: str | None
    duration_ms: int


def http_error(status: int, text: str, path: str, retry_after: float | None) -> CallError:
    """The ``CallError`` for a non-2xx answer: the API's own message and a retry class."""
    message = text.strip()[:300]
    try:
        doc = json.loads(text)
        if isinstance(doc, dict) and doc.get("message"):
            message = str(doc["message"])
    except ValueError:
        pass
    kind = _STATUS_KIND.get(status, "server" if status >= 500 else "http")
    label = {"forbidden": "forbidden", "not-found": "not found", "unauthorized": "unauthorized", "throttled": "throttled"}.get(kind, f"HTTP {status}")
    return CallError(f"{label}: {message or path}", status=status, kind=kind, retry_after_s=retry_after)


__all__ = ["ExecResult", "http_error"]
