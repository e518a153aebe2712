"""A rank (Enter on a Jobs row): its pod, node, GPU and sockets on top, then the timeline
of its incident events and the log lines themselves (the report's timeline_events)."""

from __future__ import annotations

from k10s_forensics.analyze.node_unknown import shown

from ..diagnose import Target, socket_lines
from ..fmt import ABSENT, fmt_ts, short_uuid
from .table import Row, TableScreen


class RankScreen(TableScreen):
    COLUMNS = ("TIME", "CATEGORY", "KIND", "LINE")
    WIDTHS = (21, 16, 24, 300)

    def __init__(self, job_key: str, rank: int):
        super().__init__()
        self.job_key, self.rank = job_key, rank
        self.TITLE = f"Rank {rank} of {job_key} — timeline of its events and log lines"
        self.info = ""

    def load(self, data) -> list[Row]:
        info = next((r for r in data.ranks(self.job_key) if r["rank"] == self.rank), None)
        pod = f"{self.job_key.split('/', 1)[0]}/{info['pod']}" if info and info["pod"] else None
        target = Target("rank", f"{self.job_key} rank {self.rank}", job_key=self.job_key, rank=self.rank, pod=pod,
                        node=info["node"] if info else None, gpu_uuid=info["gpu_uuid"] if info else None)
        sockets = socket_lines(data, pod)[0]
        self.info = (f"pod {pod or ABSENT} · node {target.node or shown(info.get('node_unknown') if info else None)} · GPU {short_uuid(target.gpu_uuid)}\n"
                     f"sockets: {sockets}")
        events = [e for e in data.timeline() if e["lane_kind"] == "rank" and e["job_key"] == self.job_key and e["rank"] == self.rank]
        if pod:
            events += [e for e in data.timeline() if e["lane_kind"] == "pod" and e["lane_name"] == pod]
        events.sort(key=lambda e: e["ts"])
        return [Row(key=f"ev{i}", cells=[fmt_ts(e["ts"]), e["category"], e["kind"], (e["text"] or "")[:400]],
                    sort=[e["ts"], e["category"], e["kind"], e["text"]], target=target, payload=e) for i, e in enumerate(events)]

    def _show(self, rows, absent) -> None:
        super()._show(rows, absent)
        self.query_one("#info").update(self.info)
        self.query_one("#info").display = True

    def absent_reason(self, data) -> str | None:
        return data.absent_reason("log_events") or "no incident event or log line of this rank"

    def action_diagnose(self) -> None:
        if not self.rows:
            from .diagnose import DiagnoseScreen

            self.app.push_screen(DiagnoseScreen(Target("rank", f"{self.job_key} rank {self.rank}", job_key=self.job_key, rank=self.rank)))
            return
        super().action_diagnose()
