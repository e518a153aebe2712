"""Text, JSON and markdown of a diff (the dict ``k10s_forensics.diff.diff`` returns)."""

from __future__ import annotations

import json
from typing import Any

from k10s_forensics.output import ABSENT

MAX_TEXT = 60


def to_json(result: dict[str, Any]) -> str:
    return json.dumps(result, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def _short(value: Any, width: int = MAX_TEXT) -> str:
    text = "" if value is None else str(value)
    return text if len(text) <= width else text[: width - 1] + "…"


def where(g: dict[str, Any]) -> str:
    if g["scope"] in ("job", "queue", "all"):
        return ", ".join(g["subjects"])
    noun = {"gpu": "GPU", "node": "node", "rank": "rank"}.get(g["scope"], g["scope"])
    head = f"{g['count']} of {g['of']} {noun}s" if g["count"] > 1 else f"{noun} {g['subjects'][0]}"
    if g["scope"] == "gpu" and g["nodes"]:
        head += " on " + ", ".join(g["nodes"][:3]) + (" …" if len(g["nodes"]) > 3 else "")
    return head


def change_line(g: dict[str, Any]) -> str:
    """One line for a change: what, from, to, where, how much."""
    if g["facet"] == "behaviour":
        item = g["items"][0]
        size = f" ({item['size'] * 100:+.0f} %)" if item.get("size") is not None else ""
        more = f" (+{g['count'] - 1} more)" if g["count"] > 1 else ""
        return f"{g['attribute']}: {item['subject']} {item['current']}{size}{more}; baseline {g['baseline']}"
    if g["attribute"] == "present":
        what = "appeared" if g["current"] == "present" else "gone"
        return f"{g['facet']} {what}: {where(g)}"
    return f"{g['facet']} {g['attribute']}: {_short(g['baseline'])} -> {_short(g['current'])} on {where(g)}"


def counts_line(result: dict[str, Any]) -> str:
    un = result["unchanged"]
    total = sum(c["unchanged"] for c in un.values())
    parts = ", ".join(f"{f} {c['unchanged']}" for f, c in un.items())
    return f"{total} compared items unchanged ({parts})"


def culprit_line(result: dict[str, Any]) -> str:
    c = result["culprits"]
    if not c["findings"]:
        return "culprits: none (no critical or warning finding in the bundle)"
    bits = [f"{k} {', '.join(str(v) for v in c[k][:8])}" for k in ("ranks", "nodes", "gpus") if c[k]]
    if c.get("node_unknown"):  # some culprit on no node: say why (analyze.node_unknown)
        bits.insert(1 if c["ranks"] else 0, f"node {ABSENT} ({c['node_unknown']})")
    rules = ", ".join(sorted({f["rule"] for f in c["findings"]}))
    return f"culprits ({rules}): " + ("; ".join(bits) or "none named")


def to_text(result: dict[str, Any], limit: int = 50) -> str:
    base, cur = result["baseline"], result["bundle"]
    runs = f" ({base['runs']} runs)" if base["runs"] > 1 else ""
    lines = [f"k10s diff: {base['given']}{runs} -> {cur['given']}", culprit_line(result)]
    changes = result["changes"]
    lines.append(f"{len(changes)} change(s); {counts_line(result)}")
    for g in changes[:limit]:
        lines.append(f"{g['rank']:>3}. [{g['tier']}] {change_line(g)}")
    if len(changes) > limit:
        lines.append(f"     ... {len(changes) - limit} more (--format json lists them all)")
    return "\n".join(lines) + "\n"


def _md(text: Any) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def to_markdown(result: dict[str, Any], heading: str = "## What changed since the baseline") -> str:
    base, cur = result["baseline"], result["bundle"]
    out = [heading, "", f"Baseline: `{_md(base['given'])}` ({base['runs']} run(s)); bundle: `{_md(cur['given'])}`.", "",
           _md(culprit_line(result)) + ".", "", _md(counts_line(result)) + ".", ""]
    if not result["changes"]:
        return "\n".join(out + ["Nothing changed beyond the baseline's own spread.", ""])
    out += ["| # | where | facet | what | baseline | now | subjects |", "|---|---|---|---|---|---|---|"]
    for g in result["changes"]:
        now = g["current"] if g["current"] is not None else "; ".join(f"{i['subject']}: {i['current']}" for i in g.get("items", [])[:3])
        out.append(f"| {g['rank']} | {g['tier']} | {g['facet']} | {_md(g['attribute'])} | {_md(_short(g['baseline']))} | "
                   f"{_md(_short(now))} | {_md(where(g))} |")
    return "\n".join(out) + "\n"


__all__ = ["to_json", "to_text", "to_markdown", "change_line", "where", "culprit_line", "counts_line"]
