"""Jobs: grouped by training job (PyTorchJob, TrainJob/JobSet, MPIJob, RayJob, ...), one
row per rank with sparklines of activity and memory; ranks the findings name are flagged
(culprit, straggler, ...), the flag being the rule that named them."""

from __future__ import annotations

from rich.text import Text

from k10s_forensics.analyze.node_unknown import nodes_count, shown

from ..diagnose import Target
from ..fmt import ABSENT, fmt_num, short_uuid, spark
from .table import Row, TableScreen

MAX_RANKS_PER_JOB = 4096


def rank_flags(findings: list[dict], job_key: str) -> dict[int, list[str]]:
    """Rank → the rules whose findings name it (most severe first, as the analysis sorts)."""
    out: dict[int, list[str]] = {}
    for f in findings:
        if f.get("job") == job_key:
            for r in f.get("ranks", []):
                if f["rule"] not in out.setdefault(r, []):
                    out[r].append(f["rule"])
    return out


def _mean(series: list | None) -> float | None:
    vals = [v for v in (series or []) if v is not None]
    return sum(vals) / len(vals) if vals else None


def job_row(j: dict) -> Row:
    """The job's own row: kind, state, key and size, above its ranks."""
    key = j["job_key"]
    cells = [Text(f"▾ {j['kind'] or 'job'}", style="bold"), Text(j["state"] or "state ---", style="bold"), Text(key, style="bold"),
             nodes_count(j["nodes_n"], j.get("unplaced_n"), j.get("node_unknown"), short=True), f"world {fmt_num(j['world_size'])}", "", "", "", f"{j['ranks_n']} ranks", fmt_num(j["incarnations"])]
    return Row(key=f"job:{key}", cells=cells, sort=[key] * 10, group=key, header=True, target=Target("job", key, job_key=key), payload=j)


def rank_row(job_key: str, r: dict, flags: list[str]) -> Row:
    pod = f"{job_key.split('/', 1)[0]}/{r['pod']}" if r["pod"] else None
    flag = Text(", ".join(flags), style="bold white on red") if flags else Text("")
    act, mem = r.get("activity_pct_series"), r.get("fb_used_pct_series")
    events = " ".join(f"{k} {r[k]}" for k in ("oom", "nccl", "exits", "restarts") if r.get(k))
    return Row(
        key=f"rank:{job_key}#{r['rank']}",
        cells=[f"  {r['rank']}", flag, r["pod"] or ABSENT, r["node"] or shown(r.get("node_unknown"), short=True), short_uuid(r["gpu_uuid"]),
               spark(act, 0, 100), fmt_num(_mean(act)), spark(mem, 0, 100), events, fmt_num(r["incarnations"])],
        sort=[r["rank"], ",".join(flags) or None, r["pod"], r["node"], r["gpu_uuid"], _mean(act), _mean(act),
              max([v for v in mem or [] if v is not None], default=None), (r.get("oom") or 0) + (r.get("nccl") or 0), r["incarnations"]],
        group=job_key, target=Target("rank", f"{job_key} rank {r['rank']}", job_key=job_key, rank=r["rank"], pod=pod,
                                     node=r["node"], gpu_uuid=r["gpu_uuid"]),
        payload=dict(r, job_key=job_key),
    )


class JobsScreen(TableScreen):
    SHARED_ROWS = True
    TITLE = "Jobs — one row per rank, grouped by training job"
    COLUMNS = ("RANK", "FLAG", "POD", "NODE", "GPU", "ACTIVITY", "ACT %", "MEMORY", "EVENTS", "PODS")
    WIDTHS = (10, 28, 36, 24, 14, 26, 6, 26, 28, 5)

    @staticmethod
    def load(data) -> list[Row]:
        findings = data.findings()
        rows: list[Row] = []
        for j in data.jobs():
            rows.append(job_row(j))
            flags = rank_flags(findings, j["job_key"])
            rows += [rank_row(j["job_key"], r, flags.get(r["rank"], [])) for r in data.ranks(j["job_key"])[:MAX_RANKS_PER_JOB]]
        return rows

    @staticmethod
    def absent_reason(data) -> str | None:
        return data.absent_reason("ranks") or "no ranks of a training job in this bundle"

    def drill(self, row: Row):
        if row.header:
            return None
        from .rank import RankScreen

        return RankScreen(row.payload["job_key"], int(row.payload["rank"]))
