"""The ``y`` diagnostic: why is this GPU idle, why did this rank fail, why is this pending.

It is built from the analysis, never a second copy of it: the findings of ``k10s analyze``
that name the selected row (rank, pod, GPU, node, job or workload) come first — culprit,
cascade and fix in the rules' own words — then the row-specific facts the rules compute,
each read by one named query over the shared ``k10s_*`` views (view/sql/fact_*.sql) or a
report query: last OOM and its headroom, Xid/ECC on its GPU, socket health, Warning
events in the last 10 minutes, taints and idle time of a node, queue quota. A fact whose
source is absent is ``---`` with the reason.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from k10s_forensics.analyze.incident_text import one_line
from k10s_forensics.analyze.incidents import incidents_of, members
from k10s_forensics.output import ABSENT

from .data import ViewData
from .fmt import fmt_mib, fmt_ts


@dataclass(frozen=True)
class Target:
    """The selected row: what it is and the keys findings may name."""

    kind: str  # node, gpu, job, rank, workload, pod, finding
    label: str
    job_key: str | None = None
    rank: int | None = None
    pod: str | None = None  # namespace/pod
    node: str | None = None
    gpu_uuid: str | None = None
    finding: dict[str, Any] | None = None


@dataclass
class Diagnosis:
    """What ``y`` shows: a title and sections of lines."""

    title: str
    sections: list[tuple[str, list[str]]] = field(default_factory=list)

    def text(self) -> str:
        out = [self.title, ""]
        for heading, lines in self.sections:
            out.append(heading)
            out += [f"  {line}" for line in lines] or [f"  {ABSENT}"]
            out.append("")
        return "\n".join(out).rstrip() + "\n"


def names(finding: dict[str, Any], t: Target) -> bool:
    """Does this finding name the target row?"""
    if t.kind == "finding":
        return finding is t.finding
    if t.kind == "job":
        return finding.get("job") == t.job_key
    if t.kind == "node":
        return t.node in finding.get("nodes", [])
    hits = (t.rank is not None and t.rank in finding.get("ranks", []) and finding.get("job") == t.job_key) or \
        (t.pod is not None and t.pod in finding.get("pods", [])) or \
        (t.gpu_uuid is not None and t.gpu_uuid in finding.get("gpus", []))
    if t.kind == "workload":
        hits = hits or (t.job_key is not None and finding.get("job") == t.job_key)
    return bool(hits)


def finding_lines(f: dict[str, Any]) -> list[str]:
    """Culprit, cascade and fix of one finding, as the analysis wrote them."""
    lines = [f"[{f['severity'].upper()}] {f['rule']}: {f['title']}"]
    if f.get("summary"):
        lines.append(f["summary"])
    who = [f"{k} {', '.join(str(v) for v in f[k][:6])}" if f.get(k) else f"nodes {ABSENT} ({f['node_unknown']})"
           for k in ("ranks", "pods", "nodes", "gpus") if f.get(k) or (k == "nodes" and f.get("node_unknown"))]
    if who:
        lines.append("culprit: " + " · ".join(who))
    if f.get("gpu_hours_lost"):
        lines.append(f"{f['gpu_hours_lost']:.2f} GPU-hours lost")
    lines.append("Fix: " + (f.get("recommendation") or ABSENT))
    return lines


def diagnose(data: ViewData, t: Target) -> Diagnosis:
    """The diagnostic of one row."""
    findings = data.findings()
    incidents = incidents_of(data.analysis())
    naming = [inc for inc in incidents if any(names(findings[i], t) for i in members(inc))]
    mine = [inc for inc in naming if not inc.get("advice")]
    notes = [inc for inc in naming if inc.get("advice")]
    d = Diagnosis(f"y · {t.kind} {t.label}")
    if mine:
        for inc in mine:  # one incident: its one line, the root cause in full, a line per symptom
            root = findings[inc["root"]["finding"]]
            symptoms = [findings[s["finding"]] for s in inc.get("symptoms") or []]
            lines = [f"Incident {inc['id']}: {one_line(inc)}"] + finding_lines(root)
            lines += [f"symptom: [{f['severity'].upper()}] {f['rule']}: {f['title']}" for f in symptoms]
            d.sections.append((f"Finding: {root['title']}", lines))
    else:
        d.sections.append(("Findings", [f"no finding names this {t.kind}" + _skips(data)]))
    if notes:  # risks, not incidents (docs/rules.md "Preventive notes")
        d.sections.append(("Preventive notes", [line for inc in notes for line in finding_lines(findings[inc["root"]["finding"]])]))
    if t.job_key and t.kind in ("rank", "pod", "gpu", "node"):
        others = [inc for inc in incidents if inc.get("job") == t.job_key and inc not in mine and not inc.get("advice")]
        if others:
            d.sections.append(("Elsewhere in this job", [f"[{inc['severity']}] {inc['id']}: {one_line(inc)}" for inc in others[:5]]))
    for heading, lines in FACTS.get(t.kind, lambda data, t: [])(data, t):
        d.sections.append((heading, lines))
    return d


def _skips(data: ViewData) -> str:
    skipped = data.skipped()
    return "; rules not run: " + "; ".join(f"{s['rule']} ({s['reason']})" for s in skipped[:4]) if skipped else ""


# -- facts per row kind ----------------------------------------------------------------------


def _absent(data: ViewData, table: str, why_empty: str) -> list[str]:
    reason = data.absent_reason(table)
    return [f"{ABSENT} ({reason or why_empty})"]


def _oom(data: ViewData, t: Target) -> list[str]:
    if t.rank is None or not t.job_key:
        return [f"{ABSENT} (no rank)"]
    rows = data.facts("fact_rank_oom", "job_key", "rank").get((t.job_key, t.rank), [])
    if not rows:
        if data.count("log_events") == 0 and data.count("gpu_samples") == 0:
            return _absent(data, "log_events", "")
        return ["no out-of-memory of this rank in the logs or the framebuffer"]
    o = rows[0]
    step = f" at step {o['step']}" if o["step"] is not None else ""
    return [f"{fmt_ts(o['ts'])}{step}: {fmt_mib(o['in_use_mib'])} / {fmt_mib(o['total_mib'])} in use, "
            f"headroom {fmt_mib(o['headroom_mib'])}, asked for {fmt_mib(o['requested_mib'])} ({o['source']})"]


def _xid(data: ViewData, gpu_uuid: str | None) -> list[str]:
    if not gpu_uuid:
        return [f"{ABSENT} (GPU of this row unknown: no GPU UUID resolved)"]
    rows = data.facts("fact_gpu_xid", "gpu_uuid").get(gpu_uuid, [])
    if not rows:
        return _absent(data, "gpus", "no Xid and no ECC counters for this GPU")
    return [f"{fmt_ts(r['ts'])} {r['what']}: {r['detail']}{'  FATAL' if r['fatal'] else ''}" for r in rows[:10]]


def socket_lines(data: ViewData, pod: str | None) -> list[str]:
    if not pod:
        return [f"{ABSENT} (no pod)"]
    rows = data.facts("fact_pod_net", "pod_key").get(pod, [])
    if not rows:
        return _absent(data, "tcp_samples", "no ss samples between this pod and its job's peers")
    n = rows[0]
    verdict = "SICK: most peer paths degraded" if n["culprit"] else "healthy"
    return [f"{n['degraded_peers']} of {n['peers']} peer paths degraded ({verdict}); median RTT {_ms(n['median_rtt_ms'])}"
            f" (min {_ms(n['median_minrtt_ms'])}), max retransmit rate {_pct(n['max_retrans_rate'])} vs job {_pct(n['job_retrans_rate'])}"]


def _events(data: ViewData, namespace: str | None, name: str | None) -> list[str]:
    if not name:
        return [f"{ABSENT} (no object)"]
    if data.window_end is None:
        return [f"{ABSENT} (the bundle has no capture window end)"]
    rows = [r for r in data.facts("fact_recent_events", "object_name").get(name, []) if namespace is None or r["namespace"] == namespace]
    if not rows:
        return _absent(data, "events", "no Warning event in the last 10 minutes of the capture")
    return [f"{fmt_ts(r['ts'])} {r['reason']} ×{r['count'] or 1}: {r['message']}" for r in rows[:8]]


def start_lines(data: ViewData, pod: str | None) -> list[str]:
    """Why the pod's containers are not running (the gpu-startup finding above names the cause)."""
    if not pod:
        return [f"{ABSENT} (no pod)"]
    rows = data.facts("fact_pod_start", "pod_key").get(pod, [])
    if not rows:
        return [f"{ABSENT} (pod not in the bundle)"]
    head = rows[0]
    lines = [f"pod {head['phase'] or ABSENT}{' (' + head['pod_reason'] + ')' if head['pod_reason'] else ''}"]
    for r in rows:
        if r["container"] is not None:
            lines.append(f"{'init ' if r['init'] else ''}container {r['container']}: {r['state'] or ABSENT} {r['reason'] or ''}"
                         f"{' - ' + r['message'] if r['message'] else ''}".rstrip())
    if len(lines) == 1:
        lines.append("every container runs" if head["phase"] == "Running" else "no container status")
    if head["pulled"]:
        lines.append(f"last image pull: {head['pulled']}")
    return lines


def _split(pod: str | None) -> tuple[str | None, str | None]:
    if not pod or "/" not in pod:
        return None, pod
    ns, name = pod.split("/", 1)
    return ns, name


def _rank_facts(data: ViewData, t: Target):
    ns, name = _split(t.pod)
    return [("Why not running (containers)", start_lines(data, t.pod)),
            ("Last OOM and headroom", _oom(data, t)), ("Xid / ECC on its GPU", _xid(data, t.gpu_uuid)),
            ("Sockets (ss in the pod)", socket_lines(data, t.pod)), ("Warning events, last 10 min", _events(data, ns, name))]


def _pod_facts(data: ViewData, t: Target):
    if t.rank is not None:
        return _rank_facts(data, t)
    ns, name = _split(t.pod)
    return [("Why not running (containers)", start_lines(data, t.pod)),
            ("Warning events, last 10 min", _events(data, ns, name)), ("Sockets (ss in the pod)", socket_lines(data, t.pod))]


def _node_facts(data: ViewData, t: Target):
    row = next((r for r in data.fleet() if r["node"] == t.node), None)
    if row is None:
        state = [f"{ABSENT} (node not in the fleet table)"]
    else:
        idle = (f"{row['idle_gpus']} idle GPU(s), {'≥ ' if row['idle_lower_bound'] else ''}{row['idle_hours'] or 0:.1f} h idle"
                if row["idle_gpus"] else ("busy" if row["samples"] else f"{ABSENT} ({data.absent_reason('gpu_samples') or 'no samples of this node'})"))
        state = [idle, f"allocated {row['allocated']} of {row['gpu_capacity'] or row['gpus_seen'] or ABSENT} GPUs; workloads: {', '.join(row['workloads'] or []) or 'none'}",
                 "taints: " + (", ".join(row["taints"] or []) or "none") + ("; cordoned" if row["unschedulable"] else "") +
                 ("; NotReady" if row["ready"] is False else "")]
    gpus = [g["gpu_uuid"] for g in data.node_gpus(t.node)] if t.node else []
    xids = [line for g in gpus for line in _xid(data, g) if "Xid" in line or "FATAL" in line]
    return [("Node state", state), ("Xid / ECC on its GPUs", xids or ["none"]), ("Warning events, last 10 min", _events(data, None, t.node))]


def _gpu_facts(data: ViewData, t: Target):
    facts = [("Xid / ECC", _xid(data, t.gpu_uuid))]
    if t.rank is not None:
        facts.append(("Last OOM and headroom of its rank", _oom(data, t)))
    return facts


def _workload_facts(data: ViewData, t: Target):
    q = data.queue()
    wl = next((w for w in q["workloads"] if f"{w['namespace']}/{w['workload']}" == t.label), None)
    if wl is None:
        return [("Queue", [f"{ABSENT} ({data.absent_reason('kueue_workloads') or 'workload not found'})"])]
    lines = [f"state {wl['state']}; {wl['message'] or 'no message'}"]
    for r in q["cluster"]:
        if r["cluster_queue"] == wl["cluster_queue"]:
            lines.append(f"ClusterQueue {r['cluster_queue']} {r['flavor']}/{r['resource']}: used {_num(r['used'])} of quota {_num(r['nominal_quota'])}"
                         f"{', borrowed ' + _num(r['borrowed']) if r['borrowed'] else ''}")
    return [("Queue and quota", lines)]


def _ms(v: float | None) -> str:
    return ABSENT if v is None else f"{v:.2f} ms"


def _pct(v: float | None) -> str:
    return ABSENT if v is None else f"{v * 100:.3f}%"


def _num(v: float | None) -> str:
    return ABSENT if v is None else (f"{v:.0f}" if float(v).is_integer() else f"{v:.1f}")


FACTS = {"rank": _rank_facts, "pod": _pod_facts, "node": _node_facts, "gpu": _gpu_facts, "workload": _workload_facts}

__all__ = ["Target", "Diagnosis", "diagnose", "names", "finding_lines"]
