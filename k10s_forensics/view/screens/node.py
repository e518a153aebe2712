"""A node's GPUs (Enter on a Fleet row): one row per GPU with sparklines of activity,
power, memory, temperature and SM clock over the capture, and the rank using it."""

from __future__ import annotations

from ..diagnose import Target
from ..fmt import ABSENT, short_uuid, spark
from .table import Row, TableScreen


def _last(series: list | None, digits: int = 0) -> str:
    vals = [v for v in (series or []) if v is not None]
    return f"{vals[-1]:.{digits}f}" if vals else ABSENT


class NodeScreen(TableScreen):
    COLUMNS = ("GPU", "UUID", "RANK", "ACTIVITY %", "POWER W", "MEM %", "TEMP C", "SM CLOCK", "XID")
    WIDTHS = (4, 14, 30, 36, 36, 36, 36, 36, 8)

    def __init__(self, node: str):
        super().__init__()
        self.node = node
        self.TITLE = f"Node {node} — its GPUs over the capture (Enter: the rank on a GPU)"

    def load(self, data) -> list[Row]:
        rows = []
        for g in data.node_gpus(self.node):
            rank = f"{g['job_key']} #{g['rank']}" if g.get("rank") is not None else ABSENT
            rows.append(Row(
                key=g["gpu_uuid"],
                cells=[ABSENT if g["gpu_index"] is None else str(g["gpu_index"]), short_uuid(g["gpu_uuid"]), rank,
                       spark(g.get("activity_pct_series"), 0, 100) + " " + _last(g.get("activity_pct_series")),
                       spark(g.get("power_w_series"), 0) + " " + _last(g.get("power_w_series")),
                       spark(g.get("fb_used_pct_series"), 0, 100) + " " + _last(g.get("fb_used_pct_series")),
                       spark(g.get("temp_c_series"), 20, 95) + " " + _last(g.get("temp_c_series")),
                       spark(g.get("sm_clock_mhz_series"), 0) + " " + _last(g.get("sm_clock_mhz_series")),
                       ",".join(str(int(x)) for x in sorted({v for v in g.get("xid_series") or [] if v})) or ""],
                sort=[g["gpu_index"], g["gpu_uuid"], g.get("rank")],
                target=Target("gpu", g["gpu_uuid"], gpu_uuid=g["gpu_uuid"], node=self.node, job_key=g.get("job_key"),
                              rank=g.get("rank"), pod=g.get("pod")),
                payload=g,
            ))
        return rows

    def absent_reason(self, data) -> str | None:
        return data.absent_reason("gpu_samples") or f"no GPU samples of node {self.node}"

    def drill(self, row: Row):
        if row.payload.get("rank") is None:
            return None
        from .rank import RankScreen

        return RankScreen(row.payload["job_key"], int(row.payload["rank"]))
