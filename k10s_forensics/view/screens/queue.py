"""Queue: Kueue ClusterQueues (quota and usage), their LocalQueues and the pending and
admitted workloads under them; "Kueue not present" with the reason — never a crash."""

from __future__ import annotations

from rich.text import Text

from k10s_forensics.reports.queues import _kueue_absent_reason

from ..diagnose import Target
from ..fmt import ABSENT, bar, fmt_num, fmt_ts
from .table import Row, TableScreen


class QueueScreen(TableScreen):
    SHARED_ROWS = True
    TITLE = "Queue — LocalQueue → ClusterQueue, pending and admitted workloads"
    COLUMNS = ("QUEUE / WORKLOAD", "STATE", "GPUs", "QUOTA / USED", "PRIORITY", "CREATED", "MESSAGE")
    WIDTHS = (48, 14, 6, 24, 9, 21, 200)

    @staticmethod
    def load(data) -> list[Row]:
        q = data.queue()
        rows: list[Row] = []
        names = list(dict.fromkeys([r["cluster_queue"] for r in q["cluster"]] + [w["cluster_queue"] for w in q["workloads"]]))
        for cq in names:
            res = [r for r in q["cluster"] if r["cluster_queue"] == cq]
            gpu = next((r for r in res if r["resource"] == "nvidia.com/gpu"), res[0] if res else None)
            usage = bar((gpu["used"] or 0) / gpu["nominal_quota"] * 100 if gpu and gpu["nominal_quota"] else None)
            quota = f"{fmt_num(gpu['used'], 0)}/{fmt_num(gpu['nominal_quota'], 0)} {usage}" if gpu else ABSENT
            rows.append(Row(key=f"cq:{cq}", cells=[Text(f"ClusterQueue {cq or '(none)'}", style="bold"),
                                                    f"{fmt_num(res[0]['pending_workloads']) if res else ABSENT} pending", "", quota, "", "", ""],
                            sort=[cq] * 7, group=cq or "", header=True))
            for w in [w for w in q["workloads"] if w["cluster_queue"] == cq]:
                name = f"{w['namespace']}/{w['workload']}"
                style = "bold dark_orange" if w["state"] == "pending" else ""
                rows.append(Row(
                    key=f"wl:{name}", cells=[f"  {w['namespace']}/{w['queue_name']} → {w['workload']}", Text(w["state"], style=style),
                                             fmt_num(w["gpu_request"]), "", fmt_num(w["priority"]), fmt_ts(w["created_at"]), (w["message"] or "")[:200]],
                    sort=[name, w["state"], w["gpu_request"], None, w["priority"], str(w["created_at"]), w["message"]], group=cq or "",
                    target=Target("workload", name, job_key=f"{w['namespace']}/{w['owner'].split(' ', 1)[-1]}"), payload=w,
                ))
        if not q["cluster"] and not q["workloads"] and q["pending_pods"]:
            rows.append(Row(key="kueue-absent", cells=[Text(_kueue_absent_reason(data.bundle), style="dim")] + [""] * 6,
                            sort=[""] * 7, group="~kueue", header=True))
        if q["pending_pods"]:
            rows.append(Row(key="pending-pods", cells=[Text("Pods pending in the scheduler", style="bold"), f"{len(q['pending_pods'])} pending",
                                                          "", "", "", "", ""], sort=[""] * 7, group="~pods", header=True))
        for p in q["pending_pods"]:
            rows.append(Row(
                key=f"pod:{p['pod']}", cells=[f"  {p['pod']}", Text("pending", style="bold dark_orange"), fmt_num(p["gpu_request"]), "", "",
                                              fmt_ts(p["created_at"]), (p["message"] or "")[:200]],
                sort=[p["pod"], "pending", p["gpu_request"], None, None, str(p["created_at"]), p["message"]], group="~pods",
                target=Target("pod", p["pod"], pod=p["pod"], job_key=p["job_key"]), payload=p,
            ))
        return rows

    @staticmethod
    def absent_reason(data) -> str | None:
        return _kueue_absent_reason(data.bundle)
