"""raw/exec source=ncclras and RAS reports pasted in container logs -> ``nccl_ras``.

Exec rows: the output of ``ncclras`` (text) or ``ncclras -f json`` run by the capture in
one pod per job; the format is read from the output itself. A row where the command did not
run or answered nothing (binary absent from the image, no RAS listener, an older client
refusing ``-f json``) becomes one ``unavailable`` row saying exactly why, so "RAS was not
consulted" is visible rather than silent (it is not counted as a parse issue).

Logs: a container log that holds a RAS report (someone ran ``ncclras`` in the training
script, or the job printed it) is read too; only bodies that contain the RAS tables are
read in Python (a vectorised substring filter picks them).
"""

from __future__ import annotations

import re
from typing import Any

import pyarrow.compute as pc

from k10s_forensics.parsers.gpu_common import capture_failure
from k10s_forensics.parsers.ncclras_text import parse_output, parse_text

SOURCE = "ncclras"
ISSUE_SOURCE = "exec:ncclras"
RAW_FILE = "raw/exec.parquet"
_LOG_NEEDLE = r"Group +Comms +Nodes|managing GPU|ranks? ha(?:s|ve) launched up to"
_API_TS = re.compile(r"^\d{4}-\d\d-\d\dT[\d:.]+Z? ")
_WHERE = ("captured_at", "node", "namespace", "pod", "container")


def _exec_rows(ctx) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for table in ctx.raw_groups("exec", source=SOURCE):
        for row in table.select([*_WHERE, "command", "exit_code", "stdout", "stderr", "error", "_row"]).to_pylist():
            where = {k: row[k] for k in _WHERE} | {"raw_row": row["_row"], "ts": row["captured_at"]}
            failure = capture_failure(row)
            text = row.get("stdout") or ""
            if failure and not text.strip():
                # not a parse problem (no client in the image, an older client refusing -f): recorded as a row
                why = (row.get("error") or row.get("stderr") or failure).strip().splitlines()
                out.append({**where, "origin": "exec", "kind": "unavailable", "detail": f"{row.get('command')}: {(why[0] if why else failure)[:300]}"})
                continue
            rows, fmt = parse_output(text)
            if not rows:
                ctx.issue(ISSUE_SOURCE, "no RAS report in the output", text[:200], RAW_FILE, row["_row"])
            out += [{**where, **r, "origin": f"exec-{fmt}"} for r in rows]
    return out


def _log_rows(ctx) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    offset = 0
    for batch in ctx.raw_batches("logs", columns=["captured_at", "node", "namespace", "pod", "pod_uid", "container", "body"]):
        hits = pc.fill_null(pc.match_substring_regex(batch.column("body"), _LOG_NEEDLE), False)
        for i in [i for i, hit in enumerate(hits.to_pylist()) if hit]:
            row = batch.slice(i, 1).to_pylist()[0]
            text = "\n".join(_API_TS.sub("", line, count=1) for line in (row["body"] or "").split("\n"))
            where = {k: row[k] for k in _WHERE} | {"pod_uid": row["pod_uid"], "raw_row": offset + i, "ts": row["captured_at"]}
            out += [{**where, **r, "origin": "log"} for r in parse_text(text)]
        offset += batch.num_rows
    return out


def derive(ctx) -> None:
    """Emit nccl_ras rows from ncclras exec rows and RAS reports in container logs."""
    rows = _exec_rows(ctx) + _log_rows(ctx)
    if rows:
        ctx.emit("nccl_ras", rows)


__all__ = ["derive", "SOURCE"]
