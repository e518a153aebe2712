"""Fleet analysis as text (terminal), markdown and JSON."""

from __future__ import annotations

import json
from typing import Any

from k10s_forensics.output import ABSENT, cell, jsonable

MAX_ROWS_TEXT = 50


def display_columns(result: dict[str, Any]) -> list[str]:
    """Columns to show: ``*_epoch_s`` as their ISO ``*_at`` twin, bundle ids as a count."""
    out = []
    for name in result.get("columns", []):
        if name.endswith("_epoch_s"):
            out.append(name[: -len("_epoch_s")] + "_at")
        elif name == "bundle_ids":
            out.append("bundles")
        else:
            out.append(name)
    return out


def display_value(row: dict[str, Any], column: str) -> str:
    if column == "bundles" and "bundle_ids" in row:
        ids = [b for b in str(row.get("bundle_ids") or "").split(",") if b]
        return str(len(ids))
    value = row.get(column)
    return ABSENT if value is None or value == "" else cell(value)


def _table(result: dict[str, Any], limit: int | None, sep: str, md: bool) -> list[str]:
    cols = display_columns(result)
    rows = result["rows"][:limit] if limit else result["rows"]
    cells = [[display_value(r, c).replace("|", "\\|") if md else display_value(r, c) for c in cols] for r in rows]
    if md:
        lines = ["| " + " | ".join(cols) + " |", "|" + "|".join("---" for _ in cols) + "|"]
        return lines + ["| " + " | ".join(r) + " |" for r in cells]
    widths = [max([len(c)] + [min(len(r[i]), 48) for r in cells]) for i, c in enumerate(cols)]
    clip = [[v if len(v) <= 48 else v[:47] + "…" for v in r] for r in cells]
    lines = [sep.join(c.ljust(w) for c, w in zip(cols, widths)), sep.join("-" * w for w in widths)]
    return lines + [sep.join(v.ljust(w) for v, w in zip(r, widths)).rstrip() for r in clip]


def _heading(fleet: dict[str, Any]) -> str:
    return (f"{fleet['bundles']} bundles from {fleet['clusters']} clusters, {fleet['first_window'] or ABSENT} .. "
            f"{fleet['last_window'] or ABSENT} ({fleet['engine']}; recurrence = {int(fleet['settings']['min_incidents'])}+ "
            f"incidents within {fleet['settings']['period_s'] / 86400:g} days)")


def to_text(result: dict[str, Any]) -> str:
    lines = [f"k10s fleet: {result['fleet']['path']}", _heading(result["fleet"]), ""]
    for r in result["results"]:
        head = f"[{r['kind']}] {r['rule']}: {r['title']}"
        if "skipped" in r:
            lines += [head, f"  {ABSENT} skipped: {r['skipped']}", ""]
            continue
        if not r["rows"]:
            lines += [head, "  nothing found" if r["kind"] == "finding" else "  no rows", ""]
            continue
        lines.append(f"{head} ({len(r['rows'])} row{'s' if len(r['rows']) != 1 else ''})")
        if r["kind"] == "finding" and r.get("recommendation"):
            lines.append(f"  do: {r['recommendation']}")
        lines += ["  " + line for line in _table(r, MAX_ROWS_TEXT, "  ", False)]
        if len(r["rows"]) > MAX_ROWS_TEXT:
            lines.append(f"  ... {len(r['rows']) - MAX_ROWS_TEXT} more rows (--format json has them all)")
        lines.append("")
    if not any(r.get("rows") for r in result["results"] if r["kind"] == "finding"):
        lines.append("No recurrence: every incident so far stands alone. To see what one looks like: "
                     "k10s fleet simulate -o /tmp/sim --rows && k10s fleet analyze /tmp/sim")
    return "\n".join(lines).rstrip() + "\n"


def to_markdown(result: dict[str, Any]) -> str:
    lines = [f"# Fleet analysis: {result['fleet']['path']}", "", _heading(result["fleet"]), ""]
    for r in result["results"]:
        lines.append(f"## {r['title']} (`{r['rule']}`, {r['kind']})")
        lines.append("")
        if "skipped" in r:
            lines += [f"{ABSENT} skipped: {r['skipped']}", ""]
            continue
        if r.get("description"):
            lines += [r["description"], ""]
        if not r["rows"]:
            lines += ["Nothing found." if r["kind"] == "finding" else "No rows.", ""]
            continue
        if r["kind"] == "finding" and r.get("recommendation"):
            lines += [f"**Do:** {r['recommendation']}", ""]
        lines += _table(r, None, " | ", True) + [""]
    return "\n".join(lines).rstrip() + "\n"


def to_json(result: dict[str, Any]) -> str:
    return json.dumps(jsonable(result), indent=2) + "\n"


__all__ = ["to_text", "to_markdown", "to_json", "display_columns", "display_value"]
