"""Findings: what ``k10s analyze`` found, most severe first; Enter or ``y`` shows one in
full (culprit, cascade, fix); rules that could not run are listed with the reason."""

from __future__ import annotations

from rich.text import Text

from k10s_forensics.analyze.incidents import incidents_of, members

from ..diagnose import Target
from ..fmt import ABSENT, fmt_num
from .table import Row, TableScreen

SEVERITY_STYLE = {"critical": "bold white on red", "warning": "bold black on dark_orange", "info": "bold"}


class FindingsScreen(TableScreen):
    SHARED_ROWS = True
    TITLE = "Findings — the analysis, most severe first"
    COLUMNS = ("SEVERITY", "RULE", "TITLE", "JOB", "RANKS", "NODES", "GPU-h", "INCIDENT")
    WIDTHS = (10, 14, 70, 30, 16, 30, 7, 14)

    @staticmethod
    def load(data) -> list[Row]:
        rows = []
        incident = {}  # finding index -> "inc-N (root)" / "inc-N": the GPU-h of one incident count once
        for inc in incidents_of(data.analysis()):
            incident.update({j: inc["id"] + (" (root)" if j == inc["root"]["finding"] else "") for j in members(inc)})
        for i, f in enumerate(data.findings()):
            rows.append(Row(
                key=f"f{i}", cells=[Text(f["severity"], style=SEVERITY_STYLE.get(f["severity"], "")), f["rule"], f["title"], f["job"] or ABSENT,
                                    ",".join(map(str, f["ranks"][:8])) or ABSENT, ",".join(f["nodes"][:3]) or (f"{ABSENT} ({f['node_unknown']})" if f.get("node_unknown") else ABSENT), fmt_num(f["gpu_hours_lost"], 2),
                                    incident.get(i, ABSENT)],
                sort=[i, f["rule"], f["title"], f["job"], (f["ranks"] or [None])[0], ",".join(f["nodes"]), f["gpu_hours_lost"], incident.get(i)],
                target=Target("finding", f["title"], job_key=f["job"], finding=f), payload=f,
            ))
        for s in data.skipped():
            rows.append(Row(key=f"skip:{s['rule']}", cells=["skipped", s["rule"], s["reason"], "", "", "", "", ""],
                            sort=[10_000, s["rule"], s["reason"], None, None, None, None, None], style="dim"))
        return rows

    @staticmethod
    def absent_reason(data) -> str | None:
        return "the analysis found nothing and skipped no rule"

    def drill(self, row: Row):
        from .diagnose import DiagnoseScreen

        return DiagnoseScreen(row.target) if row.target else None
