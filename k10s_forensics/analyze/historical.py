"""Historical evidence: say in a finding when its pods or GPU metrics came from Prometheus history."""

from __future__ import annotations

from typing import Any

import duckdb


def say_historical(con: duckdb.DuckDBPyConnection, findings: list[dict[str, Any]]) -> None:
    """Tell in a finding's summary (and ``historical``) when its evidence came from Prometheus history:
    pods deleted before capture (rebuilt from kube-state-metrics) or GPU metrics from before it."""
    try:
        gone = {r[0] for r in con.execute("SELECT namespace || '/' || pod FROM pods WHERE evidence = 'prometheus'").fetchall()}
        gpus = {r[0] for r in con.execute("SELECT DISTINCT gpu_uuid FROM gpu_samples WHERE source = 'prometheus-query'").fetchall()}
    except duckdb.Error:  # tables from before the evidence column: nothing to say
        return
    for f in findings:
        notes = []
        deleted = sorted(set(f["pods"]) & gone)
        if deleted:
            notes.append(f"pod{'s' if len(deleted) > 1 else ''} {', '.join(deleted[:3])}{' ...' if len(deleted) > 3 else ''} "
                         "deleted before capture, rebuilt from kube-state-metrics history")
        if set(f["gpus"]) & gpus:
            notes.append("GPU metrics from Prometheus history")
        if notes:
            f["historical"] = "; ".join(notes)
            f["summary"] = (f["summary"] + " " if f["summary"] else "") + f"Historical evidence: {f['historical']}."


__all__ = ["say_historical"]
