"""Incidents: the findings that describe one incident, grouped under one root cause, one cost.

Several rules see the same failure from their side (rank 5 runs out of memory: oom-cascade
names it, nccl-hang's victims time out waiting for it, crashloop counts its restarts). Each
finding measures GPU-time of the same job over the same minutes, so summing them counts one
GPU-hour several times. ``group`` links findings pairwise (``linked``), takes the connected
groups as incidents, picks each one's root by an explicit precedence (``strength``) and
costs it once. docs/rules.md "Incidents: grouping, root, cost" is the reference.

Pure Python over the ``analyze --format json`` findings: the report and the view call it
on a saved analysis that has no ``incidents`` list yet. ``price`` adds the USD figures from
the bundle's DuckDB connection (``k10s_gpu_prices``).
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from k10s_forensics.store.bundle import parse_iso

SEVERITIES = ("critical", "warning", "info")
#: Findings of one job whose windows lie within this of each other may be one incident.
SLACK_S = 120.0
#: Rules that see a job fail: the first failure, its cascade, the hang it causes, the restarts.
FAILURE_RULES = ("oom-cascade", "rank-failure", "nccl-hang", "crashloop", "disruption")
#: rules whose finding naming no rank and no pod is about the whole job (gpu-startup: a start failure read from a log)
JOB_WIDE_RULES = FAILURE_RULES + ("gpu-startup",)
#: Root precedence (lower wins), see ``strength``.
TIERS = {"gpu-health-critical": 0, "disruption": 1, "oom-cascade": 2, "gpu-startup": 3, "rank-failure": 4, "nccl-hang": 5,
         "rank-failure-weak": 6, "crashloop": 7, "network": 8, "straggler": 9, "pending": 10, "no-single-culprit": 11,
         "gpu-health": 12, "idle-gpu": 13, "gpu-startup-advice": 14}
OTHER_TIER = 15
#: (rule, cause) of findings that warn of a risk instead of describing something that happened
#: (a preventive note): never part of an incident, each forms an incident marked ``advice``,
#: which the incident counts and totals leave out.
ADVICE = frozenset({("gpu-startup", "shm-default")})


def _when(value: Any) -> dt.datetime | None:
    try:
        return parse_iso(value) if isinstance(value, str) else None
    except ValueError:
        return None


def _values(f: dict[str, Any], key: str) -> set[str]:
    """A culprit list as a set of strings (a saved analysis may hold anything)."""
    value = f.get(key)
    return {str(v) for v in value} if isinstance(value, list) else set()


def _window(f: dict[str, Any]) -> tuple[dt.datetime, dt.datetime] | None:
    """The finding's time span; one with only an end time (a failure whose start the log does
    not date) is the point of its end."""
    start = _when(f.get("started_at")) or _when(f.get("ended_at"))
    if start is None:
        return None
    end = _when(f.get("ended_at")) or start
    return start, max(start, end)


def _overlap(a: dict[str, Any], b: dict[str, Any], *, timeless_ok: bool) -> bool:
    """Do the two findings' windows lie within ``SLACK_S`` of each other? A finding without a
    window (a straggler over the whole capture) overlaps only when ``timeless_ok``."""
    wa, wb = _window(a), _window(b)
    if wa is None or wb is None:
        return timeless_ok
    slack = dt.timedelta(seconds=SLACK_S)
    return wa[0] <= wb[1] + slack and wb[0] <= wa[1] + slack


def _named(f: dict[str, Any]) -> bool:
    return bool(f.get("ranks") or f.get("pods") or f.get("gpus"))


def _shares_culprit(a: dict[str, Any], b: dict[str, Any]) -> bool:
    return any(_values(a, k) & _values(b, k) for k in ("ranks", "pods", "gpus"))


def _job_level(f: dict[str, Any]) -> bool:
    """A finding about the whole job: pending (the gang cannot run), or a failure with no
    single culprit (ranks failing together, a hang of all ranks; a start failure read from a log, no pod)."""
    return f.get("rule") == "pending" or (f.get("rule") in JOB_WIDE_RULES and not f.get("ranks") and not f.get("pods"))


def _tied_hardware(hw: dict[str, Any], f: dict[str, Any]) -> bool:
    """A job-less gpu-health finding belongs to a job's incident when it names the GPU of a
    culprit (or, naming only nodes, a culprit's node) at the same time."""
    if hw.get("rule") != "gpu-health":
        return False
    if _values(hw, "gpus"):
        same = bool(_values(hw, "gpus") & _values(f, "gpus"))
    else:
        same = bool(_values(hw, "nodes") & _values(f, "nodes"))
    return same and _overlap(hw, f, timeless_ok=True)


def is_advice(f: dict[str, Any]) -> bool:
    return (f.get("rule"), f.get("cause")) in ADVICE


def linked(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """Do findings ``a`` and ``b`` describe one incident? (A preventive note describes none.)"""
    if is_advice(a) or is_advice(b):
        return False
    ja, jb = a.get("job"), b.get("job")
    if ja and jb:
        if ja != jb:
            return False
        if a.get("rule") in FAILURE_RULES and b.get("rule") in FAILURE_RULES and _overlap(a, b, timeless_ok=False):
            return True  # one job fails once at a time: first failure, cascade, hang, restarts
        if _shares_culprit(a, b) and _overlap(a, b, timeless_ok=True):
            return True
        return (_job_level(a) or _job_level(b)) and _overlap(a, b, timeless_ok=False)
    if ja or jb:
        hw, f = (b, a) if ja else (a, b)
        return _tied_hardware(hw, f)
    return (a.get("rule") == b.get("rule") == "gpu-health" and bool(_values(a, "gpus") & _values(b, "gpus"))
            and _overlap(a, b, timeless_ok=True))


def strength(f: dict[str, Any]) -> int:
    """Root precedence of a finding (lower is stronger evidence of the cause):
    a fatal hardware fault (critical gpu-health) on the culprit's GPU or node explains its
    failure; then Kubernetes' own stop of the culprit's pod (disruption: preempted, evicted, its node
    shut down); then a named rank that failed with a cause (oom-cascade; a GPU pod that cannot
    start or crashes for a startup cause, gpu-startup, whose gang's held GPUs sit idle; then
    rank-failure); then the hang's named culprit (nccl-hang); a rank named by an exit status only
    (rank-failure warning); the restarts (crashloop); a degraded network path; a straggler; pending (the gang
    cannot run, its held GPUs idle); failures with no single culprit; other GPU health
    (throttling, application Xids); idle GPUs; a preventive note; any other rule."""
    rule = str(f.get("rule"))
    if rule == "gpu-health":
        return TIERS["gpu-health-critical" if f.get("severity") == "critical" else "gpu-health"]
    if rule in JOB_WIDE_RULES and not f.get("ranks") and not f.get("pods"):
        return TIERS["no-single-culprit"]
    if rule == "rank-failure" and f.get("severity") != "critical":
        return TIERS["rank-failure-weak"]
    if (rule, f.get("cause")) in ADVICE:
        return TIERS["gpu-startup-advice"]
    return TIERS.get(rule, OTHER_TIER)


def _sev(f: dict[str, Any]) -> int:
    return SEVERITIES.index(f["severity"]) if f.get("severity") in SEVERITIES else len(SEVERITIES)


def _root_key(findings: list[dict[str, Any]]):
    def key(i: int):
        w = _window(findings[i])
        return (strength(findings[i]), _sev(findings[i]), w is None, w[0] if w else dt.datetime.min.replace(tzinfo=dt.timezone.utc), i)
    return key


def _components(findings: list[dict[str, Any]]) -> list[list[int]]:
    parent = list(range(len(findings)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i in range(len(findings)):
        for j in range(i + 1, len(findings)):
            if find(i) != find(j) and linked(findings[i], findings[j]):
                parent[max(find(i), find(j))] = min(find(i), find(j))
    groups: dict[int, list[int]] = {}
    for i in range(len(findings)):
        groups.setdefault(find(i), []).append(i)
    return list(groups.values())


def _hours(f: dict[str, Any]) -> float | None:
    value = f.get("gpu_hours_lost")
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _ref(findings: list[dict[str, Any]], i: int) -> dict[str, Any]:
    return {"finding": i, "rule": findings[i].get("rule"), "cause": findings[i].get("cause")}


def _incident(findings: list[dict[str, Any]], members: list[int]) -> dict[str, Any]:
    root_i = min(members, key=_root_key(findings))
    root = findings[root_i]
    windows = [w for w in (_window(findings[i]) for i in members) if w]
    costed = [i for i in members if _hours(findings[i]) is not None]
    hours = [_hours(findings[i]) for i in costed]
    costliest = max(costed, key=lambda i: (_hours(findings[i]), -i), default=None)
    return {
        "id": "",
        "severity": SEVERITIES[min([_sev(findings[i]) for i in members] + [len(SEVERITIES) - 1])],
        "job": root.get("job") or next((findings[i]["job"] for i in members if findings[i].get("job")), None),
        "title": root.get("title"),
        "cause": root.get("cause"),
        "confidence": root.get("confidence"),
        "root": _ref(findings, root_i),
        "symptoms": [_ref(findings, i) for i in sorted(members) if i != root_i],
        **{k: list(root[k]) if isinstance(root.get(k), list) else [] for k in ("ranks", "pods", "nodes", "gpus")},
        **({"node_unknown": root["node_unknown"]} if root.get("node_unknown") else {}),
        "started_at": _iso(min(w[0] for w in windows)) if windows else None,
        "ended_at": _iso(max(w[1] for w in windows)) if windows else None,
        "gpu_hours_lost": round(max(hours), 3) if hours else None,
        "cost_from": costliest,
        "gpu_model": None, "usd_per_gpu_hour": None, "cost_usd": None,
        "advice": all(is_advice(findings[i]) for i in members),
    }


def _iso(t: dt.datetime) -> str:
    return t.astimezone(dt.timezone.utc).isoformat().replace("+00:00", "Z")


def group(findings: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The incidents of ``findings`` (every finding in exactly one), most severe first, then
    in the order of their first finding; ids ``inc-1``, ``inc-2``, ... in that order."""
    incidents = [_incident(findings, m) for m in _components(findings)]
    incidents.sort(key=lambda inc: (inc["advice"], SEVERITIES.index(inc["severity"]), inc["root"]["finding"]))
    for n, inc in enumerate(incidents, 1):
        inc["id"] = f"inc-{n}"
    return incidents


def counted(incidents: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The incidents that count (in totals, headlines and fleet): all but advice-only ones."""
    return [inc for inc in incidents if not inc.get("advice")]


def members(incident: dict[str, Any]) -> list[int]:
    """Finding indices of an incident, root first."""
    return [incident["root"]["finding"]] + [s["finding"] for s in incident.get("symptoms") or []]


def incidents_of(analysis: dict[str, Any]) -> list[dict[str, Any]]:
    """The analysis' incidents; grouped here when it has none (a saved analysis from before)."""
    found = analysis.get("incidents")
    if isinstance(found, list):
        return found
    findings = [f if isinstance(f, dict) else {} for f in analysis.get("findings") or []]
    return finalize(group(findings), findings)


def finalize(incidents: list[dict[str, Any]], findings: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Drop the internal ``cost_from``; a finding's own ``cost_usd`` (idle-gpu prices each GPU
    model) is the incident's when that finding sets the incident's GPU-hours."""
    for inc in incidents:
        i = inc.pop("cost_from", None)
        details = (findings[i].get("evidence") or [{}])[0] if i is not None else {}
        own = details.get("cost_usd") if isinstance(details, dict) else None
        if isinstance(own, (int, float)) and not isinstance(own, bool):
            inc["cost_usd"] = round(float(own), 2)
    return incidents


_MODEL_SQL = """
SELECT coalesce(
    (SELECT min(product) FROM gpus WHERE list_contains($gpus, gpu_uuid)),
    (SELECT min(gpu_product) FROM nodes WHERE list_contains($nodes, node)),
    (SELECT min(n.gpu_product) FROM ranks r JOIN nodes n ON n.node = r.node WHERE r.namespace || '/' || r.job = $job),
    (SELECT min(product) FROM gpus)
) AS model
"""


def price(con, incidents: list[dict[str, Any]], findings: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Fill ``gpu_model``, ``usd_per_gpu_hour`` and ``cost_usd`` from the bundle (the GPU model
    of the incident's culprits, else its job's, else any) and the registered price table."""
    import duckdb

    from k10s_forensics.engine import execute

    for inc in incidents:
        try:
            model = execute(con, _MODEL_SQL, {"gpus": inc["gpus"], "nodes": inc["nodes"], "job": inc["job"] or ""}).fetchall()[0][0]
            usd = execute(con, "SELECT k10s_price($m)", {"m": model or ""}).fetchall()[0][0]
        except duckdb.Error:  # tables or prices absent: no price, hours still counted
            continue
        inc["gpu_model"] = model
        inc["usd_per_gpu_hour"] = None if usd is None else float(usd)
        if inc["gpu_hours_lost"] is not None and usd is not None:
            inc["cost_usd"] = round(inc["gpu_hours_lost"] * float(usd), 2)
    return finalize(incidents, findings)


__all__ = ["group", "linked", "strength", "members", "incidents_of", "price", "finalize", "SLACK_S", "TIERS"]
