"""``k10s report``: write the self-contained HTML postmortem of a bundle."""

from __future__ import annotations

import json

import click

from k10s_forensics.store.bundle import Bundle


def _load_analysis(path: str) -> dict:
    try:
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise click.BadParameter(f"{path}: not a readable analysis JSON ({exc.__class__.__name__}: {exc})", param_hint="--analysis") from None
    if not isinstance(data, dict) or not isinstance(data.get("findings"), list):
        raise click.BadParameter(f"{path}: not the output of `k10s analyze --format json` (no findings list)", param_hint="--analysis")
    return data


@click.command("report")
@click.argument("bundle_path", metavar="BUNDLE")
@click.option("--output", "-o", "out_path", type=click.Path(dir_okay=False), default="report.html", show_default=True,
              help="HTML file to write.")
@click.option("--analysis", "analysis_file", type=click.Path(dir_okay=False), default=None,
              help="Use this saved `k10s analyze --format json` output instead of running the analysis.")
@click.option("--baseline", "baseline_path", default=None, metavar="BASELINE",
              help="Add 'What changed since the baseline': a bundle of a run that worked, or a fleet index (docs/diff.md).")
@click.option("--threads", type=click.IntRange(1, 1024), default=None,
              help="DuckDB threads (default: $K10S_THREADS, else every core). The page is the same for any number.")
def report_cmd(bundle_path: str, out_path: str, analysis_file: str | None, baseline_path: str | None,
               threads: int | None) -> None:
    """Write a self-contained HTML postmortem of BUNDLE: findings, fleet, per-rank plots,
    timeline, queues and appendix in one file.

    The file embeds plotly.js and everything it shows: it opens from disk on an
    air-gapped laptop and makes no network request. Tables are rebuilt first when
    missing or stale; the analysis runs unless --analysis gives a saved one. The same
    bundle gives the same bytes (set SOURCE_DATE_EPOCH to fix the footer's time too).
    """
    from k10s_forensics.reports import render_report

    analysis = _load_analysis(analysis_file) if analysis_file else None
    bundle = Bundle.open(bundle_path)
    if baseline_path:
        from k10s_forensics.diff import diff, open_baseline
        from k10s_forensics.reports import run_analysis

        baseline = open_baseline(baseline_path, bundle)
        analysis = analysis or run_analysis(bundle, threads=threads)
        analysis["baseline_diff"] = diff(baseline, bundle, baseline_given=baseline_path, bundle_given=bundle_path,
                                         analysis=analysis if "findings" in analysis else None)
    out = render_report(bundle, analysis, out_path, threads=threads)
    size_mb = out.stat().st_size / 1e6
    click.echo(f"wrote {out} ({size_mb:.1f} MB)")


COMMANDS = (report_cmd,)
