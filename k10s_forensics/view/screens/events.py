"""Events and Logs: the bundle's Kubernetes events, and its recognised log lines with the
rank, job and node the shared k10s_log view resolves for each."""

from __future__ import annotations

from rich.text import Text

from ..diagnose import Target
from ..fmt import ABSENT, fmt_num, fmt_ts
from .table import Row, TableScreen


class EventsScreen(TableScreen):
    SHARED_ROWS = True
    TITLE = "Events — Kubernetes events, newest first"
    COLUMNS = ("TIME", "TYPE", "REASON", "OBJECT", "COUNT", "MESSAGE")
    WIDTHS = (21, 8, 22, 50, 6, 200)

    @staticmethod
    def load(data) -> list[Row]:
        rows = []
        for i, e in enumerate(data.events()):
            kind = (e["object"] or "").split("/", 1)[0]
            pod = f"{e['namespace']}/{e['name']}" if kind == "Pod" and e["namespace"] else None
            target = Target("node", e["name"], node=e["name"]) if kind == "Node" else (
                Target("pod", pod, pod=pod) if pod else None)
            rows.append(Row(key=f"e{i}", cells=[fmt_ts(e["ts"]), Text(e["type"] or ABSENT, style="dark_orange" if e["type"] == "Warning" else ""),
                                                 e["reason"] or ABSENT, e["object"], fmt_num(e["count"]), (e["message"] or "")[:300]],
                            sort=[str(e["ts"]), e["type"], e["reason"], e["object"], e["count"], e["message"]], target=target, payload=e))
        return rows

    @staticmethod
    def absent_reason(data) -> str | None:
        return data.absent_reason("events")


class LogsScreen(TableScreen):
    SHARED_ROWS = True
    TITLE = "Logs — recognised log lines (OOM, NCCL, torchrun, Xid, ...), newest first"
    COLUMNS = ("TIME", "JOB", "RANK", "POD", "KIND", "LINE")
    WIDTHS = (21, 28, 5, 40, 24, 300)

    @staticmethod
    def load(data) -> list[Row]:
        rows = []
        for i, e in enumerate(data.logs()):
            target = Target("rank" if e["rank"] is not None else "pod", f"{e['job_key'] or e['pod']} rank {fmt_num(e['rank'])}",
                            job_key=e["job_key"], rank=e["rank"], pod=e["pod"], node=e["node"]) if e["pod"] else (
                Target("node", e["node"], node=e["node"]) if e["node"] else None)
            rows.append(Row(key=f"l{i}", cells=[fmt_ts(e["ts"]), e["job_key"] or ABSENT, fmt_num(e["rank"]), e["pod"] or ABSENT, e["kind"],
                                                 (e["line"] or "")[:400]],
                            sort=[str(e["ts"]), e["job_key"], e["rank"], e["pod"], e["kind"], e["line"]], target=target, payload=e))
        return rows

    @staticmethod
    def absent_reason(data) -> str | None:
        return data.absent_reason("log_events")
