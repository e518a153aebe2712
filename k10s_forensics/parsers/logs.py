"""raw/logs -> ``log_events``: recognised lines of container logs (docs/parsers-logs.md).

Vectorised, one Parquet row group at a time (memory stays bounded by a row group, not the file):

1. pyarrow splits every body into lines (``split_pattern``, line numbers from the list
   offsets) and runs one RE2 prefilter over them (``match_substring_regex``): the vast
   majority of a training log matches nothing and is dropped without a Python loop;
2. the few candidate lines go to DuckDB, which strips and casts the API timestamp prefix
   (``timestamps=true``);
3. training-progress lines are finished in SQL (step number, ``[rankN]:`` rank) and
   thinned (``STEP_STRIDE_S``: first and last line of every run, one per 10 s, resets);
4. the event candidates go to Python (``BodyAssembler``/``classify``), which applies
   the per-kind regexes and assembles multi-line constructs.

Rows whose fetch failed (``error`` set) are counted issues; whatever body they hold is
still parsed.
"""

from __future__ import annotations

import re
from collections import defaultdict
from typing import Any, Iterator

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from k10s_forensics.store.bundle import RAW_SCHEMAS
from k10s_forensics.parsers import log_patterns as P
from k10s_forensics.parsers import log_prefilter as PF, scratch
from k10s_forensics.parsers.log_lines import LINE_CHARS, BodyAssembler, fallback_ts
from k10s_forensics.parsers.log_sql import CANDIDATES_SQL, EVENTS_SQL, LONG_LINE, STEPS_SQL, WITH_EVENTS_SQL
from k10s_forensics.parsers.log_head import head_events
from k10s_forensics.parsers.log_ext_build import ext_build_events
from k10s_forensics.parsers.log_rendezvous import rendezvous_events
from k10s_forensics.parsers.log_launch_cmd import launch_events
from k10s_forensics.parsers.log_streams import stream_events
from k10s_forensics.parsers.log_error_records import error_record_events
from k10s_forensics.parsers.log_worker_records import worker_record_events
from k10s_forensics.parsers.log_rich import unwrap_rich

SOURCE = "logs"
RAW_FILE = "raw/logs.parquet"
META_COLUMNS = ("captured_at", "node", "namespace", "pod", "pod_uid", "container", "previous", "error")
NO_TS = "recognised line without any timestamp (ts null)"
WINDOW = 1000
PREFILTER = PF.PREFILTER_EVENT + "|" + PF.PREFILTER_STEP


#: Finds where the event wording sits in an over-long line (Python re; RE2 counted
#: repetitions around a match are far too slow on megabyte lines).
_EVENT_RE = re.compile(PF.PREFILTER_EVENT)


def _window(text: str) -> str:
    """The part of an over-long line around its first event wording."""
    m = _EVENT_RE.search(text)
    start = m.start() if m else 0
    return text[max(0, start - WINDOW): start + LINE_CHARS]


def _hits(table: pa.Table) -> pa.Table:
    """Lines of every body that pass the prefilter: ``_row``, 1-based ``line_no``, ``raw_line``, ``follow``
    (a follower line, see ``_with_followers``) and ``event`` (the line matches the event prefilter).

    The prefilter is the event wording or the progress wording (``PREFILTER`` = one | the other): each is
    matched on its own, so the ~3 KB event regex is compiled once per chunk and its answer reused
    (``_with_followers``, ``_candidates``) instead of being compiled again for each (~4 ms a compile).
    """
    rows, line_nos, texts, follows, events = [], [], [], [], []
    row_ids = table["_row"].combine_chunks()
    start = 0
    for chunk in table["body"].chunks:
        lists = pc.split_pattern(chunk, "\n")
        lines = pc.list_flatten(lists)
        event = np.asarray(pc.fill_null(pc.match_substring_regex(lines, PF.PREFILTER_EVENT), False), dtype=bool)
        step = np.asarray(pc.fill_null(pc.match_substring_regex(lines, PF.PREFILTER_STEP), False), dtype=bool)
        hit = np.flatnonzero(event | step)
        if len(hit):
            offsets = np.asarray(lists.offsets)
            parents = np.asarray(pc.list_parent_indices(lists))
            hit, follow = _with_followers(hit, lines, parents, event)
            owner = parents[hit]
            line_nos.append(hit + offsets[0] - offsets[owner] + 1)
            rows.append(np.asarray(row_ids)[owner + start])
            texts.append(lines.take(pa.array(hit, pa.int64())))
            follows.append(follow)
            events.append(event[hit])
        start += len(chunk)
    if not texts:
        return pa.table({"_row": pa.array([], pa.int64()), "line_no": pa.array([], pa.int64()), "raw_line": pa.array([], pa.string()),
                         "follow": pa.array([], pa.bool_()), "event": pa.array([], pa.bool_())})
    return pa.table({
        "_row": pa.array(np.concatenate(rows), pa.int64()),
        "line_no": pa.array(np.concatenate(line_nos), pa.int64()),
        "raw_line": pa.concat_arrays(texts),
        "follow": pa.array(np.concatenate(follows), pa.bool_()),
        "event": pa.array(np.concatenate(events), pa.bool_()),
    })


def _with_followers(hit: np.ndarray, lines: pa.Array, parents: np.ndarray, event: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The hits plus the line after each event hit of the same body (a terminal may have wrapped
    the event there: BodyAssembler glues it back when that adds fields); the second array flags those.
    ``event``: per line, whether it matches the event prefilter."""
    texts = lines.take(pa.array(hit, pa.int64()))
    # container logs (API timestamp prefix) are never wrapped: only pasted lines get a follower
    pasted = np.flatnonzero(np.asarray(pc.invert(pc.match_substring_regex(texts, P.API_TS))))
    if not len(pasted):
        return hit, np.zeros(len(hit), dtype=bool)
    is_event = event[hit[pasted]]
    nxt = hit[pasted[is_event]] + 1
    nxt = nxt[nxt < len(lines)]
    nxt = np.setdiff1d(nxt[parents[nxt] == parents[nxt - 1]], hit)
    both = np.union1d(hit, nxt)
    return both, np.isin(both, nxt)


def _row_groups(ctx, path) -> Iterator[pa.Table]:
    """Row groups of raw/logs with an ``_row`` column; damaged groups are counted and skipped."""
    try:
        pf = pq.ParquetFile(path)
    except Exception as exc:
        ctx.issue(f"raw:{SOURCE}", f"unreadable parquet ({exc.__class__.__name__})", str(exc), RAW_FILE)
        return
    names = set(pf.schema_arrow.names)
    missing = [c for c in (*META_COLUMNS, "body") if c not in names]
    if missing:
        ctx.issue(SOURCE, "missing required columns", ", ".join(missing), RAW_FILE)
    offset = 0
    for i in range(pf.num_row_groups):
        n = pf.metadata.row_group(i).num_rows
        try:
            table = pf.read_row_group(i, columns=[c for c in (*META_COLUMNS, "body") if c in names])
        except Exception as exc:
            ctx.issue(SOURCE, "unreadable row group", f"row group {i} ({n} rows): {exc}", RAW_FILE, offset, count=n)
            offset += n
            continue
        for col in missing:
            table = table.append_column(col, pa.nulls(table.num_rows, RAW_SCHEMAS["logs"].field(col).type))
        yield table.append_column("_row", pa.array(range(offset, offset + table.num_rows), pa.int64()))
        offset += n


def _fetch_errors(ctx, table: pa.Table) -> None:
    bad = table.filter(pc.invert(pc.is_null(table["error"])))
    for row in bad.select(["_row", "namespace", "pod", "container", "error"]).to_pylist():
        reason = (row["error"] or "").strip().splitlines()[0][:120] if (row["error"] or "").strip() else "unknown error"
        where = f"{row['namespace']}/{row['pod']}/{row['container']}"
        ctx.issue(SOURCE, f"log fetch failed: {reason}", where, RAW_FILE, row["_row"])


def _is_event(texts: pa.Table) -> pa.Array:
    """Whether each candidate's text (its API timestamp and a trailing CR stripped) matches the event
    prefilter: the raw line's answer (``_hits``) where the text is the raw line, else matched anew
    (only those lines; none in a pasted log, so no second compile of the event regex there)."""
    event = np.asarray(texts["event"].combine_chunks().fill_null(False), dtype=bool).copy()
    changed = np.flatnonzero(~np.asarray(texts["unchanged"].combine_chunks().fill_null(False), dtype=bool))
    if len(changed):
        again = pc.match_substring_regex(texts["text"].take(pa.array(changed, pa.int64())), PF.PREFILTER_EVENT)
        event[changed] = np.asarray(pc.fill_null(again, False), dtype=bool)
    return pa.array(event, pa.bool_())


def _candidates(con) -> int:
    """TEMP table ``cand``: the hit lines' text (API timestamp stripped) and whether it is an event line;
    returns how many are neither events nor followers (the training-progress candidates).

    The event prefilter is one ~3 KB regex: DuckDB compiles it anew in every query (~25 ms a row
    group, most of a small import), pyarrow in ~6 ms; both are RE2 with its default options, so the
    answer is the same (docs/parsers-logs.md).
    """
    con.execute(f"CREATE OR REPLACE TEMP TABLE cand_text AS {CANDIDATES_SQL}")
    texts = con.sql("SELECT _row, line_no, text, follow, event, unchanged FROM cand_text").to_arrow_table()
    is_event = _is_event(texts)
    con.register("is_event_arrow", pa.table({"_row": texts["_row"], "line_no": texts["line_no"], "is_event": is_event}))
    con.execute(f"CREATE OR REPLACE TEMP TABLE cand AS {WITH_EVENTS_SQL}")
    con.unregister("is_event_arrow")
    progress = pc.and_kleene(pc.invert(is_event), pc.invert(texts["follow"]))
    return pc.sum(pc.cast(pc.fill_null(progress, False), pa.int64())).as_py() or 0


def _events(ctx, con, meta: dict[int, dict[str, Any]]) -> list[dict[str, Any]]:
    rows = con.sql(EVENTS_SQL).to_arrow_table().to_pylist()
    by_row: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        by_row[r["_row"]].append(r)
    out: list[dict[str, Any]] = []
    long_lines = truncated = no_ts = 0
    for raw_row, cands in by_row.items():
        info = meta[raw_row]
        asm = BodyAssembler(info["captured_at"])
        for c in cands:
            long_lines += bool(c["long_line"])
            text = c["text"] or ""
            asm.feed(c["line_no"], _window(text) if c["long_line"] else text, c["api_ts"], follow=bool(c["follow"]))
        finished = asm.finish()
        truncated += asm.truncated_entries
        for ev in finished:
            ev.update(info)
            ev["raw_row"] = raw_row
            no_ts += ev.get("ts") is None
            out.append(ev)
    if long_lines:
        ctx.issue(SOURCE, f"line longer than {LONG_LINE} chars: parsed a window around the first match", None, RAW_FILE, count=long_lines)
    if truncated:
        ctx.issue(SOURCE, "torchrun failure table entry without fields (log cut short)", None, RAW_FILE, count=truncated)
    if no_ts:
        ctx.issue(SOURCE, NO_TS, None, RAW_FILE, count=no_ts)
    return out


def _steps(con, meta_table: pa.Table) -> pa.Table:
    steps = con.sql(STEPS_SQL).to_arrow_table()
    if steps.num_rows == 0:
        return steps
    ts = steps["api_ts"].cast(pa.timestamp("us", tz="UTC"))
    if ts.null_count:  # no API prefix (pasted log): parse the line's own timestamp
        caps = dict(zip(meta_table["_row"].to_pylist(), meta_table["captured_at"].to_pylist()))
        values = ts.to_pylist()
        for i, (v, line, row) in enumerate(zip(values, steps["line"].to_pylist(), steps["_row"].to_pylist())):
            if v is None:
                values[i] = fallback_ts(line, caps.get(row))
        ts = pa.array(values, pa.timestamp("us", tz="UTC"))
    index = pc.index_in(steps["_row"], value_set=meta_table["_row"])
    cols = {
        "ts": ts,
        "kind": pa.array(["training_step"] * steps.num_rows, pa.string()),
        "subkind": steps["step_kind"],
        "step": steps["step"],
        "progress_value": steps["progress_value"],
        "rank": steps["rank"],
        "line": steps["line"],
        "line_no": steps["line_no"],
        "raw_row": steps["_row"],
    }
    for name in ("namespace", "pod", "pod_uid", "container", "node", "previous"):
        cols[name] = pc.take(meta_table[name], index)
    return pa.table(cols)


def derive(ctx) -> None:
    """Emit ``log_events`` from raw/logs."""
    path = ctx.bundle.raw_path("logs")
    if not path.is_file():
        return
    con = scratch.connection()
    try:
        for table in _row_groups(ctx, path):
            _fetch_errors(ctx, table)
            table = unwrap_rich(table)  # rich's exception messages wrapped under its traceback box, joined (log_rich.py)
            meta_table = table.select(["_row", *META_COLUMNS[:-1]])
            meta = {
                r["_row"]: {k: r[k] for k in ("namespace", "pod", "pod_uid", "container", "node", "previous", "captured_at")}
                for r in meta_table.to_pylist()
            }
            con.register("hits_arrow", _hits(table.select(["_row", "body"])))
            progress_lines = _candidates(con)
            events = _events(ctx, con, meta)
            for ev in events:
                ev.pop("captured_at", None)
            if events:
                ctx.emit("log_events", events)
            steps = _steps(con, meta_table) if progress_lines else None  # no candidate: STEPS_SQL would return none
            if steps is not None and steps.num_rows:
                if steps["ts"].null_count:
                    ctx.issue(SOURCE, NO_TS, None, RAW_FILE, count=steps["ts"].null_count)
                ctx.emit("log_events", steps)
            # whose own output the body shows; a rank's last ERROR record; workers' records of one second (session 72)
            for scan_own in (stream_events, error_record_events, worker_record_events):
                own = scan_own(table.select(["_row", "body"]), meta_table)
                if own is not None:
                    ctx.emit("log_events", own)
            heads = head_events(table.select(["_row", "body"]), meta_table)  # a body that begins inside a failure record
            if heads is not None:
                if heads["ts"].null_count:  # a pasted body: its first line's time is the API's, which it has not
                    ctx.issue(SOURCE, NO_TS, None, RAW_FILE, count=heads["ts"].null_count)
                ctx.emit("log_events", heads)
            for scan in (launch_events, ext_build_events, rendezvous_events):  # a launch command; a JIT build; the launcher's rendezvous
                found = scan(table.select(["_row", "body"]), meta_table)
                if found is not None:
                    if found["ts"].null_count:
                        ctx.issue(SOURCE, NO_TS, None, RAW_FILE, count=found["ts"].null_count)
                    ctx.emit("log_events", found)
            con.unregister("hits_arrow")
    finally:
        con.close()


__all__ = ["derive"]
