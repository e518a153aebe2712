"""Fleet, the landing view: GPU nodes idle-first with bar gauges. An idle GPU is loud:
amber, red after 6 hours idle (the report's fleet_nodes query decides what is idle)."""

from __future__ import annotations

from rich.text import Text

from ..diagnose import Target
from ..fmt import ABSENT, bar, fmt_num
from .table import Row, TableScreen

#: Idle longer than this is red, not amber: the report's value (reports/fleet.py, which
#: imports plotly, so it is not imported here; a test keeps the two equal).
RED_AFTER_HOURS = 6.0


def idle_text(r: dict) -> Text:
    """``2 idle · 7.5 h`` in amber, red after RED_AFTER_HOURS; ``busy`` otherwise."""
    if not r["idle_gpus"]:
        return Text("busy" if r["samples"] else ABSENT)
    hours = r["idle_hours"] or 0.0
    style = "bold white on red" if hours >= RED_AFTER_HOURS else "bold black on dark_orange"
    return Text(f"{r['idle_gpus']} idle · {'≥' if r['idle_lower_bound'] else ''}{hours:.1f} h", style=style)


class FleetScreen(TableScreen):
    SHARED_ROWS = True
    TITLE = "Fleet — GPU nodes, idle first"
    COLUMNS = ("NODE", "IDLE", "MODEL", "GPUs", "ALLOC", "UTIL", "MEM", "TEMP", "WORKLOAD", "NOTES")
    WIDTHS = (28, 16, 24, 5, 7, 14, 14, 5, 30, 40)

    @staticmethod
    def load(data) -> list[Row]:
        rows = []
        for r in data.fleet():
            gpus = r["gpu_capacity"] if r["gpu_capacity"] is not None else r["gpus_seen"]
            notes = (["NotReady"] if r["ready"] is False else []) + (["cordoned"] if r["unschedulable"] else []) + list(r["taints"] or [])[:2]
            workloads = sorted(r["workloads"] or [])
            rows.append(Row(
                key=r["node"],
                cells=[r["node"], idle_text(r), r["model"] or ABSENT, fmt_num(gpus), f"{r['allocated']}/{fmt_num(gpus)}",
                       bar(r["util_pct"]), bar(r["fb_used_pct"]), fmt_num(r["temp_c"], 0),
                       ", ".join(workloads[:2]) + (f" +{len(workloads) - 2}" if len(workloads) > 2 else ""), ", ".join(notes)],
                sort=[r["node"], r["idle_hours"] if r["idle_gpus"] else -1, r["model"], gpus, r["allocated"], r["util_pct"],
                      r["fb_used_pct"], r["temp_c"], ",".join(workloads), ",".join(notes)],
                target=Target("node", r["node"], node=r["node"], job_key=workloads[0] if len(workloads) == 1 else None),
                payload=r,
            ))
        return rows

    @staticmethod
    def absent_reason(data) -> str | None:
        return data.absent_reason("nodes") or "no GPU nodes: no node advertises nvidia.com/gpu and no GPU was sampled"

    def drill(self, row: Row):
        from .node import NodeScreen

        return NodeScreen(row.key)
