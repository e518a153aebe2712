"""Generate the derived-table reference in docs/bundle-format.md from ``tables.py``.

``python -m k10s_forensics.docgen`` rewrites the part between the markers;
``--check`` exits 1 when the document is out of date (a test runs it).
"""

from __future__ import annotations

import sys
from pathlib import Path

from k10s_forensics.store.tables import TABLES

BEGIN = "<!-- BEGIN GENERATED TABLES (python -m k10s_forensics.docgen) -->"
END = "<!-- END GENERATED TABLES -->"
DOC = Path(__file__).resolve().parents[1] / "docs" / "bundle-format.md"


def _type_name(t) -> str:
    return str(t).replace("timestamp[us, tz=UTC]", "timestamp (UTC, µs)")


def render() -> str:
    out = [BEGIN, ""]
    for table in TABLES:
        out.append(f"### `{table.name}`")
        out.append("")
        out.append(f"One row per {table.grain}. Fed by: {table.sources}.")
        out.append("")
        out.append("| column | type | meaning |")
        out.append("|---|---|---|")
        for col in table.columns:
            doc = col.doc.replace("|", "\\|") or "—"
            out.append(f"| `{col.name}` | {_type_name(col.type)} | {doc} |")
        out.append("")
    out.append(END)
    return "\n".join(out)


def updated(text: str) -> str:
    head, _, rest = text.partition(BEGIN)
    _, _, tail = rest.partition(END)
    return head + render() + tail


def sync(doc: Path, new: str, argv: list[str], module: str) -> int:
    """Write ``new`` to ``doc``; with ``--check`` in ``argv`` only compare (1 when out of date)."""
    if "--check" in argv:
        current = doc.read_text(encoding="utf-8") if doc.is_file() else ""
        if current != new:
            print(f"{doc} is out of date: run python -m {module}", file=sys.stderr)
            return 1
        return 0
    doc.write_text(new, encoding="utf-8")
    return 0


def main(argv: list[str]) -> int:
    return sync(DOC, updated(DOC.read_text(encoding="utf-8")), argv, "k10s_forensics.docgen")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
