"""The fleet report's figures (plotly), cluster text escaped for plotly's renderer."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from k10s_forensics.reports.common import Plot, figure_json, plot_text


def cost_plot(rows: list[dict[str, Any]]) -> Plot:
    """Stacked bars: cost lost per month, one trace per rule:cause."""
    import plotly.graph_objects as go

    months = sorted({r["incident_month"] for r in rows})
    by_cause: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    for r in rows:
        by_cause[f"{r['rule']}:{r['cause']}"][r["incident_month"]] += r.get("cost_usd") or 0.0
    fig = go.Figure([go.Bar(name=plot_text(cause), x=months, y=[round(v.get(m, 0.0), 2) for m in months])
                     for cause, v in sorted(by_cause.items())])
    fig.update_layout(barmode="stack", margin=dict(l=50, r=10, t=10, b=40), yaxis_title="USD lost", legend=dict(orientation="h"))
    return Plot("plot-cost", "Cost lost per month by cause", figure_json(fig), "Sum of cost_usd of findings that count lost GPU-hours.", 360)


def rate_plot(rows: list[dict[str, Any]]) -> Plot:
    """Hang and failure rate per model x driver, with the counts in the hover."""
    import plotly.graph_objects as go

    labels = [plot_text(f"{r['product']} / {r['driver_version']}") for r in rows]
    hover = [plot_text(f"{r['failed_bundles']} failed, {r['hung_bundles']} hung of {r['bundles']} bundles") for r in rows]
    fig = go.Figure([go.Bar(name="failure rate", x=labels, y=[r["failure_rate"] for r in rows], hovertext=hover),
                     go.Bar(name="hang rate", x=labels, y=[r["hang_rate"] for r in rows], hovertext=hover)])
    fig.update_layout(barmode="group", margin=dict(l=50, r=10, t=10, b=120), yaxis=dict(title="share of bundles", range=[0, 1]),
                      legend=dict(orientation="h"))
    return Plot("plot-rates", "Failure and hang rate by GPU model and driver", figure_json(fig), "Hover for the counts behind each rate.", 380)


__all__ = ["cost_plot", "rate_plot"]
