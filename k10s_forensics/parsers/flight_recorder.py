"""raw/exec source=flight-recorder -> ``flight_recorder`` (one row per entry per rank) and
``flight_recorder_dumps`` (one row per dump file found).

The exec's stdout is the JSON envelope written by the capture's read-only dump reader
(``k10s_forensics.capture.dump_commands``): ``{"k10s": "flight-recorder/1", "prefix": ...,
"files": [{"path", "bytes", "b64" | "skipped"}]}``; each file's bytes are base64 (a dump is
binary). A dump is either a pickle (read by :mod:`fr_unpickle`, which builds data only and
refuses every global) or JSON (``TORCH_NCCL_DUMP_ON_TIMEOUT`` with the JSON writer).

Layout read (PyTorch FlightRecorder, dump versions 2.x): ``version``, ``pg_config``
(``{pg name: {name, desc, ranks}}``, ranks as a list or as its text), ``pg_status``,
``entries`` (``record_id``, ``pg_id``, ``process_group`` = (name, desc), ``collective_seq_id``,
``p2p_seq_id``, ``op_id``, ``is_p2p``, ``profiling_name`` such as ``nccl:all_reduce``,
``input_sizes``, ``input_dtypes``, ``output_sizes``, ``output_dtypes``, ``state``
scheduled/started/completed, ``time_created_ns``, ``time_discovered_started_ns``,
``time_discovered_completed_ns``, ``duration_ms``, ``timeout_ms``, ``retired``, ``frames``).
Unknown keys are ignored and missing ones are null, so older and newer versions both load.
A dump that is refused (a global, too large, not a dict) costs only that dump: a
``flight_recorder_dumps`` row says ``refused`` and why, and a parse issue is counted.
"""

from __future__ import annotations

import base64
import binascii
import datetime as dt
import json
import re
from typing import Any

from k10s_forensics.errors import ParseError
from k10s_forensics.parsers.fr_unpickle import MAX_DUMP_BYTES, UnsafePickleError, loads_data
from k10s_forensics.parsers.gpu_common import capture_failure, int_or_none

SOURCE = "flight-recorder"
ISSUE_SOURCE = "exec:flight-recorder"
RAW_FILE = "raw/exec.parquet"
ENVELOPE = "flight-recorder/1"
_RANK_SUFFIX = re.compile(r"(\d+)(?:\.\w+)?$")
UTC = dt.timezone.utc


def decode_dump(data: bytes, max_bytes: int = MAX_DUMP_BYTES) -> tuple[dict[str, Any], str]:
    """(dump dict, ``json``/``pickle``) from a dump file's bytes.

    Raises:
        UnsafePickleError: the pickle asked for a global (nothing ran).
        ParseError: too large, unreadable, or not a dict.
    """
    if len(data) > max_bytes:
        raise ParseError(f"dump of {len(data)} bytes is over the {max_bytes}-byte limit; refused")
    head = data.lstrip()[:1]
    if head in (b"{", b"["):
        try:
            doc, fmt = json.loads(data.decode("utf-8", errors="replace")), "json"
        except ValueError as exc:
            raise ParseError(f"not readable JSON ({str(exc)[:120]})") from exc
    else:
        doc, fmt = loads_data(data, max_bytes), "pickle"
    if not isinstance(doc, dict):
        raise ParseError(f"dump is a {type(doc).__name__}, not a dict")
    return doc, fmt


def _ns_ts(value: Any) -> dt.datetime | None:
    ns = int_or_none(value)
    if not ns or ns <= 0:
        return None
    try:
        return dt.datetime.fromtimestamp(ns / 1e9, tz=UTC)
    except (OverflowError, OSError, ValueError):
        return None


def _ranks_list(value: Any) -> list[int] | None:
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            return [int(x) for x in re.findall(r"-?\d+", value)] or None
    if isinstance(value, (list, tuple)):
        out = [int_or_none(v) for v in value]
        return [v for v in out if v is not None]
    return None


def _pg_ranks(doc: dict[str, Any]) -> dict[str, list[int]]:
    config = doc.get("pg_config")
    out: dict[str, list[int]] = {}
    if isinstance(config, dict):
        for key, pg in config.items():
            if isinstance(pg, dict):
                ranks = _ranks_list(pg.get("ranks"))
                if ranks is not None:
                    out[str(pg.get("name", key))] = ranks
    return out


def _pg_name(entry: dict[str, Any]) -> tuple[str | None, str | None]:
    pg = entry.get("process_group")
    if isinstance(pg, (list, tuple)) and pg:
        return str(pg[0]), (str(pg[1]) if len(pg) > 1 else None)
    if isinstance(pg, str):
        return pg, None
    pg_id = entry.get("pg_id")
    return (str(pg_id) if pg_id is not None else None), None


def _text(value: Any, cache: dict[str, str]) -> str | None:
    """JSON text of a small value (sizes, dtypes); ``cache`` by repr: they repeat across entries."""
    if value is None:
        return None
    key = repr(value)
    found = cache.get(key)
    if found is None:
        try:
            found = json.dumps(value, default=str)
        except (TypeError, ValueError):
            found = str(value)
        cache[key] = found
    return found


def _frame(entry: dict[str, Any]) -> str | None:
    frames = entry.get("frames")
    if isinstance(frames, list) and frames and isinstance(frames[0], dict):
        f = frames[0]
        return f"{f.get('name')} at {f.get('filename')}:{f.get('line')}"
    return None


def entry_rows(doc: dict[str, Any]) -> list[dict[str, Any]]:
    """flight_recorder rows (without pod/rank context) of one decoded dump."""
    pg_ranks = _pg_ranks(doc)
    version = doc.get("version")
    rows = []
    texts: dict[str, str] = {}
    entries = doc.get("entries")
    for e in entries if isinstance(entries, list) else []:
        if not isinstance(e, dict):
            continue
        name, desc = _pg_name(e)
        ranks = pg_ranks.get(name) if name is not None else None
        rows.append({
            "dump_version": str(version) if version is not None else None,
            "pg_id": int_or_none(e.get("pg_id")), "pg_name": name, "pg_desc": desc,
            "pg_ranks": ranks, "pg_size": len(ranks) if ranks is not None else None,
            "record_id": int_or_none(e.get("record_id")),
            "collective_seq_id": int_or_none(e.get("collective_seq_id")),
            "p2p_seq_id": int_or_none(e.get("p2p_seq_id")), "op_id": int_or_none(e.get("op_id")),
            "is_p2p": bool(e["is_p2p"]) if e.get("is_p2p") is not None else None,
            "op": str(e.get("profiling_name")) if e.get("profiling_name") is not None else None,
            "input_sizes": _text(e.get("input_sizes"), texts), "output_sizes": _text(e.get("output_sizes"), texts),
            "input_dtypes": _text(e.get("input_dtypes"), texts), "output_dtypes": _text(e.get("output_dtypes"), texts),
            "state": str(e.get("state")) if e.get("state") is not None else None,
            "time_created": _ns_ts(e.get("time_created_ns")),
            "time_started": _ns_ts(e.get("time_discovered_started_ns")),
            "time_completed": _ns_ts(e.get("time_discovered_completed_ns")),
            "duration_ms": float(e["duration_ms"]) if isinstance(e.get("duration_ms"), (int, float)) else None,
            "timeout_ms": int_or_none(e.get("timeout_ms")),
            "retired": bool(e["retired"]) if e.get("retired") is not None else None,
            "frame": _frame(e),
        })
    return rows


def rank_of(path: str, prefix: str | None) -> int | None:
    """The rank in a dump file name ``<prefix><rank>``."""
    tail = path[len(prefix):] if prefix and path.startswith(prefix) else path
    m = _RANK_SUFFIX.search(tail)
    return int(m.group(1)) if m else None


def parse_envelope(stdout: str) -> tuple[str | None, list[dict[str, Any]]]:
    """(prefix, files) of the dump reader's output. Raises ParseError when it is not one."""
    try:
        doc = json.loads(stdout)
    except ValueError as exc:
        raise ParseError(f"dump reader output is not JSON ({str(exc)[:80]})") from exc
    if not isinstance(doc, dict) or doc.get("k10s") != ENVELOPE or not isinstance(doc.get("files"), list):
        raise ParseError("dump reader output has no flight-recorder/1 envelope")
    return doc.get("prefix"), [f for f in doc["files"] if isinstance(f, dict)]


def parse_file(item: dict[str, Any], prefix: str | None) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """(flight_recorder_dumps row, flight_recorder rows) of one file of the envelope."""
    path = str(item.get("path") or "")
    dump = {"dump_file": path, "prefix": prefix, "rank": rank_of(path, prefix), "bytes": int_or_none(item.get("bytes")),
            "status": "parsed", "reason": None, "dump_format": None, "dump_version": None, "entries": 0}
    if item.get("skipped"):
        dump.update(status="skipped", reason=str(item["skipped"])[:300])
        return dump, []
    try:
        if isinstance(item.get("json"), str):  # a dump re-encoded as JSON text (k10s redact opens dumps this way)
            data = item["json"].encode("utf-8")
        else:
            data = base64.b64decode(str(item.get("b64") or ""), validate=True)
        doc, fmt = decode_dump(data)
    except (binascii.Error, ValueError) as exc:
        dump.update(status="unreadable", reason=f"bad base64 ({str(exc)[:80]})")
        return dump, []
    except UnsafePickleError as exc:
        dump.update(status="refused", reason=str(exc))
        return dump, []
    except ParseError as exc:
        dump.update(status="refused" if "limit" in str(exc) else "unreadable", reason=str(exc))
        return dump, []
    rows = entry_rows(doc)
    dump.update(dump_format=fmt, dump_version=str(doc.get("version")) if doc.get("version") is not None else None, entries=len(rows))
    return dump, rows


def envelope_rows(stdout: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(flight_recorder_dumps rows, flight_recorder rows) of one reader output, without the pod
    columns. A reader that found nothing gives one ``none`` row (this pod was read). Raises
    ParseError when the output is not an envelope."""
    prefix, files = parse_envelope(stdout)
    if not files:
        return [{"prefix": prefix, "status": "none", "reason": f"no dump file under {prefix}", "entries": 0}], []
    dumps, entries = [], []
    for item in files:
        dump, rows = parse_file(item, prefix)
        dumps.append(dump)
        entries += [{**r, "rank": dump["rank"], "dump_file": dump["dump_file"], "dump_format": dump["dump_format"]} for r in rows]
    return dumps, entries


def derive(ctx) -> None:
    """Emit flight_recorder and flight_recorder_dumps from every flight-recorder exec row."""
    for table in ctx.raw_groups("exec", source=SOURCE):
        dumps: list[dict[str, Any]] = []
        entries: list[dict[str, Any]] = []
        for row in table.select(["captured_at", "node", "namespace", "pod", "container", "exit_code", "stdout", "error", "_row"]).to_pylist():
            failure = capture_failure(row)
            if failure:
                ctx.issue(ISSUE_SOURCE, failure, row.get("error") or (row.get("stdout") or "")[:200], RAW_FILE, row["_row"])
                continue
            try:
                found, rows = envelope_rows(row.get("stdout") or "")
            except ParseError as exc:
                ctx.issue(ISSUE_SOURCE, str(exc), (row.get("stdout") or "")[:200], RAW_FILE, row["_row"])
                continue
            where = {k: row[k] for k in ("captured_at", "node", "namespace", "pod", "container")}
            for dump in found:
                if dump["status"] in ("refused", "unreadable"):
                    ctx.issue(ISSUE_SOURCE, f"dump {dump['status']}: {dump['reason'].split(':')[0][:80]}",
                              f"{dump['dump_file']}: {dump['reason']}", RAW_FILE, row["_row"])
                elif dump["status"] == "skipped" and "size limit" in (dump["reason"] or ""):
                    ctx.issue(ISSUE_SOURCE, "dump not read at capture: over the size limit",
                              f"{dump['dump_file']}: {dump['bytes']} bytes", RAW_FILE, row["_row"])
                dumps.append({**where, **dump, "raw_row": row["_row"]})
            entries += [{**where, **r} for r in rows]
        if dumps:
            ctx.emit("flight_recorder_dumps", dumps)
        if entries:
            ctx.emit("flight_recorder", entries)


__all__ = ["derive", "decode_dump", "entry_rows", "envelope_rows", "parse_envelope", "parse_file", "rank_of", "SOURCE", "ENVELOPE"]
