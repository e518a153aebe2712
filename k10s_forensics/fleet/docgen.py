"""Generate the table and rule reference in docs/fleet.md from ``schema.py`` and the rules.

``python -m k10s_forensics.fleet.docgen`` rewrites the part between the markers;
``--check`` exits 1 when the document is out of date (a test runs it).
"""

from __future__ import annotations

import sys
from pathlib import Path

from k10s_forensics.docgen import sync
from k10s_forensics.fleet.registry import SETTINGS, fleet_rules
from k10s_forensics.fleet.schema import FLEET_TABLES

BEGIN = "<!-- BEGIN GENERATED FLEET REFERENCE (python -m k10s_forensics.fleet.docgen) -->"
END = "<!-- END GENERATED FLEET REFERENCE -->"
DOC = Path(__file__).resolve().parents[2] / "docs" / "fleet.md"


def _type(t) -> str:
    return {"timestamp[us, tz=UTC]": "TIMESTAMP (UTC, µs; Parquet isAdjustedToUTC)", "string": "STRING", "int64": "BIGINT",
            "double": "DOUBLE", "bool": "BOOLEAN"}.get(str(t), str(t))


def render() -> str:
    out = [BEGIN, "", "### Tables", ""]
    for table in FLEET_TABLES:
        out += [f"#### `{table.name}`", "", f"One row per {table.grain}. Files: `{table.name}/cluster=<slug>/month=<YYYY-MM>/part-<batch>.parquet`.", "",
                "| column | type | meaning |", "|---|---|---|"]
        out += [f"| `{name}` | {_type(t)} | {doc.replace('|', '/')} |" for name, t, doc in table.columns]
        out.append("")
    out += ["### Rules", "", "| rule | kind | severity | settings | what it finds |", "|---|---|---|---|---|"]
    for r in fleet_rules():
        out.append(f"| `{r.id}` | {r.kind} | {r.rule.severity} | {', '.join(r.settings) or '—'} | {r.rule.description} |")
    out += ["", "### Settings", "", "| setting | default | meaning |", "|---|---|---|"]
    out += [f"| `{name}` | {default:g} | {doc} |" for name, (default, doc) in SETTINGS.items()]
    out += ["", END]
    return "\n".join(out)


def updated(text: str) -> str:
    head, _, rest = text.partition(BEGIN)
    _, _, tail = rest.partition(END)
    return head + render() + tail


def main(argv: list[str]) -> int:
    return sync(DOC, updated(DOC.read_text(encoding="utf-8")), argv, "k10s_forensics.fleet.docgen")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
