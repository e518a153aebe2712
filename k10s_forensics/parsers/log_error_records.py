"""A rank's own ERROR/CRITICAL-level logging record (session 65): what a program that catches its failure at the top
says of it before it exits (``logger.error(f"rank {rank}: {e}")`` then ``sys.exit(2)``; ``log.error("Training failed:
%s", e)`` then ``exit(1)``), no traceback, no exception type.

One ``error_record`` event per log body and rank (the LAST such record of that rank in the body), in a body that holds a
launcher's exit report (``exitcode``, as log_streams.py): ``error_message`` the record's message (the level and the
record's own fields taken off), ``local_rank`` from torchrun's ``--tee`` prefix (``[default1]:``), ``rank`` from the
record's rank tag (``[rank: 3]``, ``[rank3]:``, ``[Rank 3]``, ``RANK 3``) or the message's own ``rank 3:`` at its start;
a record naming no rank either way is none. The level word as the formats print it:

* the ``logging`` module's default ``ERROR:train:msg``;
* a level among the record's header fields after its time or in brackets: DeepSpeed's ``[2026-12-06 20:56:30,137]
  [ERROR] [engine.py:112:step] msg``, Hydra's ``[…][train][ERROR] - msg``, HF's ``12/06/2026 20:45:38 - ERROR -
  __main__ - msg``, loguru's ``2026-12-06 20:45:38.420 | ERROR    | __main__:main:42 - msg``, ``… ERROR train: msg``.

glog-style lines (``E1206 20:45:43.256000 10240 file.py:1002] …``: torch's own agent and C++ lines) are no record of
the program's. ``subkind``: what the message's wording is by the line classifier (log_classify.classify): ``cuda_oom``,
``cuda_error``, a peer's or teardown's wording (``peer``: gloo/NCCL connection, timeouts, ``DistBackendError``), else
``message``. No failure by itself: queries/_failure_line.sql reads it as the exception text of that rank's non-zero,
non-signal exit reported just after it (docs/rules.md, "Session 65: a handler's ERROR record").
"""

from __future__ import annotations

import re

import pyarrow as pa
import pyarrow.compute as pc

from k10s_forensics.parsers.log_classify import classify
from k10s_forensics.parsers.log_normalize import normalize
from k10s_forensics.parsers.log_patterns import API_TS
from k10s_forensics.parsers.log_streams import line_events

_API_TS = re.compile(API_TS)
_LEVEL = r"(?:ERROR|CRITICAL|FATAL)"
#: a line that may be a record (RE2 over each body, then over that body's lines)
_CANDIDATE = re.compile(r"(?:^|[\s\[|:\-])" + _LEVEL + r"(?:[\s\]|:\-]|$)")
_TEE = re.compile(r"^\[default(\d{1,4})\]:")
#: the logging module's default format: ``ERROR:name:message``
_BASIC = re.compile(r"^" + _LEVEL + r":[\w.<>-]{0,120}:(?P<msg>.*)$")
#: the level among the header's fields: a header of a time and/or bracketed fields, then the level (bracketed, or
#: between separators), then the message
_HEADED = re.compile(r"^(?P<head>.{0,160}?)(?:\[" + _LEVEL + r"\s*\]|(?:(?<=\s)|(?<=\|)|(?<=\]))" + _LEVEL
                     + r"(?=\s|\||:))\s*(?:[|:]|-(?=\s))?\s*(?P<msg>.*)$")
_TIME = re.compile(r"\d\d:\d\d:\d\d")
_BRACKETS = re.compile(r"^(?:\s*\[[^\]]{1,80}\])+\s*[-|]?\s*$")
#: the header's fields before the message: ``[engine.py:112:step]``, loguru's ``__main__:main:42 - ``, HF's ``__main__ - ``
_FIELDS = re.compile(r"^(?:\[[^\]]{0,120}\]\s*)*(?:[\w.<>-]{1,120}(?::[\w.<>-]{1,80}){0,2}(?::\d{1,7})?\s+[-|]\s+)?")
_GLOG = re.compile(r"^[EFW]\d{4} \d\d:\d\d:\d\d")
#: a launcher's own record (torch elastic's agent through ``logging``, DeepSpeed's launcher): the exit report, no rank's
_LAUNCHERS = re.compile(r"torch\.distributed\.elastic|\(exitcode: -?\d|sigkill_handler|launch\.py:\d")
#: a rank tag among the header's fields, or the message's own ``rank 3:`` at its start
_RANK_TAG = re.compile(r"\[(?:[Rr]ank|RANK)(?::\s?|\s)?(\d{1,6})\]")
_RANK_LEAD = re.compile(r"^\[?(?:[Rr]ank|RANK)(?::\s?|\s)(\d{1,6})\]?[:\]](?:\s|$)")
#: a victim's wording: a peer's or the collective's failure (a collective named), a wait that timed out, the teardown's
#: signal
_PEER = re.compile(r"(?i)connection (?:reset|closed|refused)|by peer|remote (?:worker|peer|process)|timed? ?out|timeout|"
                   r"DistBackendError|DistNetworkError|NCCL|gloo|ProcessGroup|watchdog|collective|SIGTERM|signal \d|"
                   r"socket|broken pipe|heartbeat|all[-_ ]?reduce|all[-_ ]?gather|reduce[-_ ]scatter|broadcast|barrier|"
                   r"synchroni[sz]")
_PEER_KINDS = {"nccl_remote_error", "nccl_watchdog_timeout", "watchdog_exception_summary", "nccl_desync", "torchrun_sigterm",
               "nccl_error_other", "nccl_return", "collective_mismatch"}


def record(line: str) -> tuple[int | None, int | None, str] | None:
    """(local rank, rank, message) where ``line`` is an ERROR/CRITICAL-level record naming its rank; else None."""
    text = _API_TS.sub("", line.rstrip("\r"), count=1)
    tee = _TEE.match(text)
    local = int(tee.group(1)) if tee else None
    text = text[tee.end():] if tee else text
    if _GLOG.match(text) or _LAUNCHERS.search(text):
        return None
    m = _BASIC.match(text)
    head, msg = ("", m.group("msg")) if m else ("", None)
    if m is None:
        h = _HEADED.match(text)
        if h is None or not (h.group("head").strip() == "" or _TIME.search(h.group("head")) or _BRACKETS.match(h.group("head"))):
            return None
        head, msg = h.group("head"), h.group("msg")
        cut = _FIELDS.match(msg).end() if head.strip() else 0
        head, msg = head + " " + msg[:cut], msg[cut:]
    msg = msg.strip()
    tag = _RANK_TAG.search(head) or _RANK_LEAD.match(msg)
    rank = int(tag.group(1)) if tag else None
    if local is None and rank is None:
        return None
    return local, rank, msg


def wording(message: str) -> tuple[str, str | None]:
    """(subkind, error type) of a record's message by the line classifier: ``cuda_oom``, ``cuda_error``, ``peer``, or
    ``message`` (with the exception type the message starts with, where it does)."""
    body = _RANK_LEAD.sub("", message, count=1)
    events = classify(body, normalize(body)) if body else []
    kinds = [e["kind"] for e in events]
    if _PEER.search(body) or any(k in _PEER_KINDS for k in kinds) or any(e.get("subkind") == "teardown" for e in events):
        return "peer", None
    for e in events:
        if e["kind"] in ("cuda_oom", "cuda_error"):
            return e["kind"], e.get("error_type")
    typed = next((e.get("error_type") for e in events if e["kind"] == "python_exception" and e.get("error_type")), None)
    return "message", typed


def error_record_events(table: pa.Table, meta_table: pa.Table) -> pa.Table | None:
    """``error_record`` rows of ``log_events`` for ``table`` (``_row``, ``body``); None when no body holds one."""
    table = table.filter(pc.fill_null(pc.match_substring(table["body"], "exitcode"), False))
    table = table.filter(pc.fill_null(pc.match_substring_regex(table["body"], _CANDIDATE.pattern), False))
    last: dict[tuple[int, int | None, int | None], tuple[int, str, str]] = {}
    for row, body in zip(table["_row"].to_pylist(), table["body"].to_pylist()):
        for i, line in enumerate((body or "").split("\n")):
            got = record(line) if _CANDIDATE.search(line) else None
            if got is not None:
                last[(row, got[0], got[1])] = (i + 1, line.rstrip("\r"), got[2])
    if not last:
        return None
    keys = sorted(last, key=lambda k: (k[0], last[k][0]))
    said = [wording(last[k][2]) for k in keys]
    return line_events(meta_table, [k[0] for k in keys], [last[k][0] for k in keys], [last[k][1] for k in keys],
                       "error_record", [s[0] for s in said],
                       {"local_rank": pa.array([k[1] for k in keys], pa.int64()), "rank": pa.array([k[2] for k in keys], pa.int64()),
                        "error_type": pa.array([s[1] for s in said], pa.string()),
                        "error_message": pa.array([last[k][2][:300] for k in keys], pa.string())})


__all__ = ["error_record_events", "record", "wording"]
