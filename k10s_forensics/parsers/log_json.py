"""Structured (JSON) log lines: one JSON object a line, as ``python-json-logger``, structlog's
``JSONRenderer``, a hand-written ``logging.Formatter`` or a log shipper write them.

``unjson(text)`` reads such a line as the plain line it stands for: the message, or, when the
record carries a formatted exception (``exc_info``, ``exception``, ``exc_text``, ``stack_trace``,
``traceback``: a whole Python traceback inside one JSON string), that traceback's last line, the
exception itself (``KeyError: 'labels'``); and the rank the record names (``rank``, ``global_rank``,
``RANK``; ``local_rank``, ``LOCAL_RANK``), which a traceback inside a JSON string cannot carry on its
own lines. Anything that is not one JSON object with a message is left alone (None).
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
    texts = [record[k] for k in (*_EXCEPTION, *_MESSAGE) if isinstance(record.get(k), str)]
    raised = next((last for t in texts if (last := _last_line(t))), None)  # a traceback, in its field or the message
    message = next((record[k].strip().split("\n", 1)[0] for k in _MESSAGE if isinstance(record.get(k), str) and record[k].strip()), None)
    line = raised or message
    if line is None:
        return None
    return line, _int(record, _RANK), _int(record, _LOCAL)


__all__ = ["unjson"]
