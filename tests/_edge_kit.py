"""Helpers for the edge-case rule tests: derive a new raw bundle from a simulated one.

A derived bundle copies the simulated bundle's manifest and ``raw/`` (never its
``tables/``), with rows dropped or edited per raw table, so ``analyze`` rebuilds it with
the real parsers. This is how the tests make DCGM-absent, logs-absent, clock-skewed and
MIG bundles out of the simulator's scenarios.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from pathlib import Path
from typing import Any, Callable, Mapping

import pyarrow.parquet as pq

from k10s_forensics.store.bundle import RAW_SCHEMAS, Bundle, write_raw_table

Row = dict[str, Any]
RAW_NAMES = ("objects", "exec", "scrapes", "logs")


def derive(
    src: Path,
    dst: Path,
    *,
    keep: Mapping[str, Callable[[Row], bool]] | None = None,
    edit: Mapping[str, Callable[[Row], Row]] | None = None,
    collectors: Mapping[str, tuple[str, str]] | None = None,
) -> Bundle:
    """Copy ``src``'s raw layer to ``dst``, keeping rows where ``keep[name](row)`` and editing them with ``edit[name]``.

    ``collectors`` overrides manifest collector entries: name -> (status, error).
    """
    keep, edit = keep or {}, edit or {}
    (dst / "raw").mkdir(parents=True)
    for name in RAW_NAMES:
        path = src / "raw" / f"{name}.parquet"
        if not path.is_file():
            continue
        rows = pq.read_table(path).to_pylist()
        rows = [edit[name](dict(r)) if name in edit else r for r in rows if keep.get(name, lambda _r: True)(r)]
        write_raw_table(dst, name, rows)
    manifest = json.loads((src / "manifest.json").read_text(encoding="utf-8"))
    manifest.pop("parser_version", None)
    manifest["files"] = {}
    for c in manifest.get("collectors") or []:
        if c.get("name") in (collectors or {}):
            status, error = collectors[c["name"]]
            c.update(status=status, rows=0, errors=[error])
    (dst / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    return Bundle.open(dst)


# ---- clock skew -----------------------------------------------------------------------------

_API_TS = re.compile(r"^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?)Z ", re.M)
_TABLE_TS = re.compile(r"(time\s*:\s*)(\d{4}-\d\d-\d\d_\d\d:\d\d:\d\d)")
_DMESG_TS = re.compile(r"^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d),(\d{6})\+00:00", re.M)


def _shift_iso(text: str, seconds: float) -> str:
    frac = ""
    if "." in text:
        text, frac = text.split(".", 1)
    t = dt.datetime.strptime(text, "%Y-%m-%dT%H:%M:%S") + dt.timedelta(seconds=seconds)
    return t.strftime("%Y-%m-%dT%H:%M:%S") + (f".{frac}" if frac else "")


def shift_log_body(body: str | None, seconds: float) -> str | None:
    """Every node-clock timestamp of a container log shifted: API prefixes and torchrun ``time :`` lines."""
    if not body:
        return body
    body = _API_TS.sub(lambda m: _shift_iso(m.group(1), seconds) + "Z ", body)
    return _TABLE_TS.sub(lambda m: m.group(1) + (dt.datetime.strptime(m.group(2), "%Y-%m-%d_%H:%M:%S")
                                                  + dt.timedelta(seconds=seconds)).strftime("%Y-%m-%d_%H:%M:%S"), body)


def shift_dmesg(text: str | None, seconds: float) -> str | None:
    """``dmesg --time-format iso`` lines shifted."""
    if not text:
        return text
    return _DMESG_TS.sub(lambda m: _shift_iso(m.group(1), seconds) + "," + m.group(2) + "+00:00", text)


def skew_edits(node: str, seconds: float) -> dict[str, Callable[[Row], Row]]:
    """Edits that make ``node``'s clock run ``seconds`` ahead: its logs and dmesg, not ``captured_at``."""

    def logs(row: Row) -> Row:
        if row.get("node") == node:
            row["body"] = shift_log_body(row["body"], seconds)
        return row

    def exec_(row: Row) -> Row:
        if row.get("node") == node and row.get("source") == "dmesg":
            row["stdout"] = shift_dmesg(row["stdout"], seconds)
        return row

    def objects(row: Row) -> Row:  # container start/finish times come from the node's runtime
        if row.get("kind") == "Pod" and f'"nodeName": "{node}"' in row["body"].replace('":"', '": "'):
            body = json.loads(row["body"])
            for st in (body.get("status") or {}).get("containerStatuses") or []:
                for state in (st.get("state") or {}, st.get("lastState") or {}):
                    for detail in state.values():
                        for key in ("startedAt", "finishedAt"):
                            if isinstance(detail, dict) and detail.get(key):
                                detail[key] = _shift_iso(detail[key].rstrip("Z"), seconds) + "Z"
            row["body"] = json.dumps(body)
        return row

    return {"logs": logs, "exec": exec_, "objects": objects}


__all__ = ["derive", "skew_edits", "shift_log_body", "shift_dmesg", "RAW_SCHEMAS"]
