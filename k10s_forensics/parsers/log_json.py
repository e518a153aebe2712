"""Structured (JSON) log lines: one JSON object a line, as ``python-json-logger``, structlog's
``JSONRenderer``, a hand-written ``logging.Formatter`` or a log shipper write them.

``unjson(text)`` reads such a line as the plain line it stands for: the message, or, when the
record carries a formatted exception (``exc_info``, ``exception``, ``exc_text``, ``stack_trace``,
``traceback``: a whole Python traceback inside one JSON string), that traceback's last line, the
exception itself (``KeyError: 'labels'``); and the rank the record names (``rank``, ``global_rank``,
``RANK``; ``local_rank``, ``LOCAL_RANK``), which a traceback inside a JSON string cannot carry on its
own lines. Anything that is not one JSON object with a message is left alone (None).

torchrun's own event records (``--event-log-handler console``: ``{"name": "torchelastic.worker.status.FAILED",
"source": "WORKER", "metadata": {"global_rank": 3, …, "raw_error": "<error file JSON>", "metadata": "{… \"exit_code\":
[-11], \"worker_pid\": [4270]}"}}``) carry a failed worker's global rank: the exception its error file holds (the last
line of its ``py_callstack``, else its message), or, with none (``<NONE>``: it died on a signal), its failure-table
entry on one line (``rank : 3 (local_rank: 1) exitcode : -11 (pid: 4270)``; without a pid, the agent's ``failed
(exitcode: N) local_rank: L`` line). Other torchelastic events carry no message: left alone.
"""

from __future__ import annotations

import json
from typing import Any

_MESSAGE = ("message", "msg", "event", "text")
_EXCEPTION = ("exc_info", "exception", "exc_text", "stack_trace", "traceback", "stack")
_RANK = ("rank", "global_rank", "RANK", "rank_id")
_LOCAL = ("local_rank", "LOCAL_RANK")
#: longer lines are not parsed (a record that large is not a log line the rules read)
MAX_CHARS = 200_000


def _int(record: dict[str, Any], keys: tuple[str, ...]) -> int | None:
    for key in keys:
        value = record.get(key)
        if isinstance(value, bool):
            continue
        if isinstance(value, int) and value >= 0:
            return value
        if isinstance(value, str) and value.isdigit():
            return int(value)
    return None


def _last_line(text: str) -> str | None:
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    return lines[-1] if lines and "Traceback (most recent call last)" in text else None


def _loads(value: Any) -> dict[str, Any]:
    if isinstance(value, dict):
        return value
    try:
        loaded = json.loads(value) if isinstance(value, str) else None
    except ValueError:
        return {}
    return loaded if isinstance(loaded, dict) else {}


def _first(value: Any) -> Any:
    return value[0] if isinstance(value, list) and len(value) == 1 else value


def _elastic_failure(record: dict[str, Any]) -> tuple[str, int | None, int | None] | None:
    """A torchelastic ``worker.status.FAILED`` event of one worker: (its failure as a plain line, rank, local rank)."""
    meta = record.get("metadata")
    if record.get("name") != "torchelastic.worker.status.FAILED" or record.get("source") != "WORKER" or not isinstance(meta, dict):
        return None
    rank, more = _int(meta, ("global_rank",)), _loads(meta.get("metadata"))
    local, code, pid = (_first(more.get(k)) for k in ("local_rank", "exit_code", "worker_pid"))
    error = _loads(meta.get("raw_error")).get("message")
    if isinstance(error, dict):
        stack = _loads(error.get("extraInfo")).get("py_callstack") or error.get("extraInfo", {}).get("py_callstack")
        line = (_last_line(stack) if isinstance(stack, str) else None) or str(error.get("message") or "").split("\n", 1)[0]
        if line:
            return line, rank, local if isinstance(local, int) else None
    if isinstance(code, int) and isinstance(local, int) and not isinstance(code, bool):
        if rank is not None and isinstance(pid, int):  # the agent's failure-table entry for it, on one line
            return f"rank : {rank} (local_rank: {local}) exitcode : {code} (pid: {pid})", rank, local
        return f"failed (exitcode: {code}) local_rank: {local}", rank, local
    return None


def unjson(text: str) -> tuple[str, int | None, int | None] | None:
    """``(plain line, rank, local rank)`` for a JSON log record, else None (see the module doc)."""
    body = text.strip()
    if not (body.startswith("{") and body.endswith("}")) or len(body) > MAX_CHARS:
        return None
    try:
        record = json.loads(body)
    except ValueError:
        return None
    if not isinstance(record, dict):
        return None
    if str(record.get("name", "")).startswith("torchelastic."):
        return _elastic_failure(record)
    texts = [record[k] for k in (*_EXCEPTION, *_MESSAGE) if isinstance(record.get(k), str)]
    raised = next((last for t in texts if (last := _last_line(t))), None)  # a traceback, in its field or the message
    message = next((record[k].strip().split("\n", 1)[0] for k in _MESSAGE if isinstance(record.get(k), str) and record[k].strip()), None)
    line = raised or message
    if line is None:
        return None
    return line, _int(record, _RANK), _int(record, _LOCAL)


__all__ = ["unjson"]
