"""One incident's work: capture (the existing engine), analyze, report, incident.json.

The first capture starts at once (the hang state is still there) into
``<out>/<id>.partial/bundle``; analyze and report follow; the folder is then renamed to
``<out>/<id>``. The second round, ``second_round_after_s`` after the first trigger, captures
the next incarnation into ``<out>/<id>/next`` (written as ``next.partial``).
"""

from __future__ import annotations

import datetime as dt
import os
import time
from pathlib import Path
from typing import Any, Callable

from k10s_forensics.store.bundle import iso
from k10s_forensics.errors import K10sError
from k10s_forensics.watch.config import WatchConfig
from k10s_forensics.watch.store import INCIDENT_JSON, PARTIAL, write_json

FINDINGS_KEPT = 5


def capture_options(cfg: WatchConfig, *, second: bool = False) -> Any:
    from k10s_forensics.capture import CaptureOptions

    c = cfg.capture
    return CaptureOptions(duration_s=c.duration_s, interval_s=min(c.interval_s, max(c.duration_s, 0.1)),
                          deadline_s=c.deadline_s, prometheus=cfg.prometheus if not second else None,
                          since_s=c.since_s, history_to="now", table_jobs=c.table_jobs, timeout_s=min(30.0, c.deadline_s))


def run_capture(connection: Any, out_dir: Path, job: str, cfg: WatchConfig, *, second: bool = False,
                on_started: Callable[[], None] | None = None) -> dict[str, Any]:
    """Capture ``job`` into ``out_dir``; a summary of the outcome (never raises for a failed capture)."""
    from k10s_forensics.capture import capture

    started = time.time()
    if on_started:
        on_started()
    try:
        result = capture(out_dir, connection=connection, jobs=(job,), options=capture_options(cfg, second=second),
                         progress=None)
        manifest = result.bundle.manifest
        return {"ok": True, "complete": bool(manifest.get("complete")), "seconds": round(time.time() - started, 3),
                "collectors": {c["name"]: c["status"] for c in manifest.get("collectors", [])}}
    except (K10sError, OSError) as exc:
        return {"ok": False, "error": f"{exc.__class__.__name__}: {exc}"[:300], "seconds": round(time.time() - started, 3)}


def analyze_and_report(bundle_dir: Path, report_path: Path) -> dict[str, Any]:
    """Findings (most severe first), the one-line ``y`` text, and the report written."""
    from k10s_forensics.analyze.runner import analyze
    from k10s_forensics.store.bundle import Bundle

    out: dict[str, Any] = {"findings": [], "y": "", "analysis_error": ""}
    try:
        bundle = Bundle.open(bundle_dir)
        result = analyze(bundle, threads=2)
    except (K10sError, OSError) as exc:
        out["analysis_error"] = f"{exc.__class__.__name__}: {exc}"[:300]
        return out
    findings = result.get("findings") or []
    out["findings"] = [{k: f.get(k) for k in ("rule", "severity", "title", "ranks", "pods", "nodes", "cause", "confidence")}
                       for f in findings[:FINDINGS_KEPT]]
    out["findings_total"] = len(findings)
    out["incidents_total"] = len(result.get("incidents") or [])
    out["y"] = one_line(findings, result.get("incidents") or [])
    try:
        from k10s_forensics.reports import render_report

        render_report(bundle, result, report_path)
    except (K10sError, OSError) as exc:
        out["analysis_error"] = f"report: {exc.__class__.__name__}: {exc}"[:300]
    return out


def one_line(findings: list[dict[str, Any]], incidents: list[dict[str, Any]] | None = None) -> str:
    """The incident in one line, as ``y`` on its job row opens: the most severe incident (its root
    cause, culprits, cost and symptoms), else the top finding's title and where."""
    from k10s_forensics.analyze.incidents import counted

    real = counted(incidents or [])  # preventive notes are no incident
    if real:
        from k10s_forensics.analyze.incident_text import one_line as incident_line

        top = real[0]
        more = f" (+{len(real) - 1} more)" if len(real) > 1 else ""
        return f"[{str(top.get('severity', '')).upper()}] {incident_line(top)}{more}"
    if not findings or incidents:
        notes = len(incidents or [])
        return "no finding: nothing the rules recognise in this capture" + (f" ({notes} preventive note{'s' if notes > 1 else ''})" if notes else "")
    top = findings[0]
    where = ", ".join(x for x in (("ranks " + ",".join(map(str, top.get("ranks") or []))) if top.get("ranks") else "",
                                  ", ".join(top.get("nodes") or [])) if x)
    return f"[{str(top.get('severity', '')).upper()}] {top.get('title', '')}" + (f" ({where})" if where else "")


def incident_doc(incident: Any, state: str, extra: dict[str, Any]) -> dict[str, Any]:
    return {"id": incident.id, "job": incident.job, "kind": incident.kind, "state": state,
            "started_at": iso(dt.datetime.fromtimestamp(incident.started_at, dt.timezone.utc)),
            "triggers": [t.as_dict() for t in incident.triggers], **extra}


def run_first(connection: Any, out: Path, incident: Any, cfg: WatchConfig, on_started: Callable[[], None]) -> dict[str, Any]:
    """Capture, analyze, report; the folder renamed from ``.partial`` when done."""
    work = out / (incident.id + PARTIAL)
    work.mkdir(parents=True, exist_ok=False)
    write_json(work / INCIDENT_JSON, incident_doc(incident, "capturing", {}))
    cap = run_capture(connection, work / "bundle", incident.job, cfg, on_started=on_started)
    doc: dict[str, Any] = {"capture": cap}
    if cap.get("ok"):
        doc.update(analyze_and_report(work / "bundle", work / "report.html"))
    state = "captured" if cap.get("ok") else "capture failed"
    write_json(work / INCIDENT_JSON, incident_doc(incident, state, doc))
    final = out / incident.id
    os.replace(work, final)
    return {**doc, "state": state, "path": str(final)}


def run_second(connection: Any, out: Path, incident: Any, cfg: WatchConfig) -> dict[str, Any]:
    """The next incarnation, into ``<id>/next``; incident.json updated."""
    final = out / incident.id
    if not final.is_dir():
        return {"ok": False, "error": "incident folder gone (retention or a failed first capture)"}
    work = final / ("next" + PARTIAL)
    cap = run_capture(connection, work, incident.job, cfg, second=True)
    if cap.get("ok"):
        os.replace(work, final / "next")
    from k10s_forensics.watch.store import read_incident

    doc = read_incident(final)
    doc["second_round"] = cap
    doc["triggers"] = [t.as_dict() for t in incident.triggers]
    write_json(final / INCIDENT_JSON, doc)
    return cap


__all__ = ["analyze_and_report", "capture_options", "one_line", "run_capture", "run_first", "run_second"]
