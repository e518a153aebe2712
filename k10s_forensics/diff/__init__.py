"""``k10s diff``: what changed between the runs that worked (the baseline) and this bundle.

``diff(baseline, bundle)`` attaches both sides in one DuckDB (``attach``), runs the facet
SQL (``facets``: GPUs, nodes, the job, Kueue, placement, behaviour), takes the culprits
from the bundle's own findings (``k10s analyze``) and ranks the changes by suspicion
(``rank``). The baseline is one or more bundles, or the last healthy runs of the same job
in a fleet index (``fleet_base``). See docs/diff.md.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

from k10s_forensics.store.bundle import Bundle

FORMAT = "k10s-diff"
FORMAT_VERSION = 1


def _culprits(bundle: Bundle, con, analysis: dict[str, Any] | None) -> tuple[dict[str, set], list[dict]]:
    """Nodes, GPU keys and ranks named by the bundle's warning/critical findings."""
    if analysis is None:
        from k10s_forensics.analyze.runner import analyze

        analysis = analyze(bundle)
    findings = [f for f in analysis.get("findings") or [] if f.get("severity") in ("critical", "warning")]
    uuids = {g for f in findings for g in f.get("gpus") or []}
    keys = {row[0]: row[1] for row in con.execute("SELECT gpu_uuid, gpu_key FROM d_gpu_key WHERE side = 'cur'").fetchall()}
    nodes = {row[0]: row[1] for row in con.execute("SELECT node, node_key FROM d_node_key WHERE side = 'cur'").fetchall()}
    culprits = {
        "nodes": {nodes.get(n, n) for f in findings for n in f.get("nodes") or []},
        "gpus": {keys.get(g, g) for g in uuids},
        "ranks": {int(r) for f in findings for r in f.get("ranks") or []},
    }
    named = [{"rule": f["rule"], "severity": f["severity"], "title": f["title"], "ranks": f.get("ranks") or [],
              "nodes": f.get("nodes") or [], "gpus": f.get("gpus") or [], "confidence": f.get("confidence"),
              **({"node_unknown": f["node_unknown"]} if f.get("node_unknown") else {})} for f in findings]
    culprits["node_unknown"] = {f["node_unknown"] for f in named if f.get("node_unknown")}
    return culprits, named


def diff(baseline: Sequence[Bundle], bundle: Bundle, *, baseline_given: str, bundle_given: str,
         use_findings: bool = True, threads: int | None = None, analysis: dict[str, Any] | None = None) -> dict[str, Any]:
    """The JSON-ready diff of ``bundle`` against ``baseline`` (one or more bundles).

    The culprits come from ``analysis`` (the bundle's ``k10s analyze`` result) when given,
    else the analysis runs here; ``use_findings=False`` skips them (no culprit tier).
    """
    from k10s_forensics.diff import attach, facets, rank

    con = attach.connect(baseline, bundle, threads)
    try:
        rows = facets.compare(con, len(baseline))
        culprits, findings = (_culprits(bundle, con, analysis) if use_findings else
                              ({"nodes": set(), "gpus": set(), "ranks": set(), "node_unknown": set()}, []))
    finally:
        con.close()
    changes = rank.rank_changes(rows, culprits)
    from k10s_forensics.diff.render import change_line, where

    for g in changes:
        g["where"], g["line"] = where(g), change_line(g)
    return {
        "format": FORMAT, "format_version": FORMAT_VERSION,
        "baseline": {"given": baseline_given, "runs": len(baseline),
                     "windows": [b.manifest.get("window") for b in baseline]},
        "bundle": {"given": bundle_given, "window": bundle.manifest.get("window")},
        "culprits": {"findings": findings, "nodes": sorted(culprits["nodes"]), "gpus": sorted(culprits["gpus"]),
                     "ranks": sorted(culprits["ranks"]),
                     # why a culprit's node is not known (analyze.node_unknown), when a finding names ranks on no node
                     **({"node_unknown": " / ".join(sorted(culprits["node_unknown"]))} if culprits["node_unknown"] else {})},
        "changes": changes,
        "unchanged": rank.unchanged_counts(rows),
    }


def open_baseline(path: str, bundle: Bundle, last: int = 5, job: str | None = None) -> list[Bundle]:
    """The baseline bundles: ``path`` itself, or the last healthy runs of the job in a fleet index."""
    if (Path(path) / "_fleet.json").is_file():
        from k10s_forensics.diff.fleet_base import healthy_runs

        return healthy_runs(Path(path), bundle, last, job)
    return [Bundle.open(path)]


__all__ = ["diff", "open_baseline", "FORMAT", "FORMAT_VERSION"]
