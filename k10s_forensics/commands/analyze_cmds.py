"""``k10s analyze`` (name the culprit rank, GPU, node and cause) and ``k10s rules``."""

from __future__ import annotations

import importlib
import sys

import click

from k10s_forensics.analyze import render
from k10s_forensics.analyze.prices import PriceTable
from k10s_forensics.analyze.rules import SEVERITIES, load_rules
from k10s_forensics.analyze.runner import analyze
from k10s_forensics.store.bundle import Bundle
from k10s_forensics.errors import ReportError


def _prices(prices_file: str | None, gpu_hour_price: float | None) -> PriceTable:
    table = PriceTable.default()
    if prices_file:
        table = table.merged(PriceTable.from_file(prices_file))
    if gpu_hour_price is not None:
        table = PriceTable.flat(gpu_hour_price)
    return table


def _write_html(bundle: Bundle, result: dict, out_path: str) -> None:
    try:
        reports = importlib.import_module("k10s_forensics.reports")
        render_report = reports.render_report
    except (ImportError, AttributeError):
        raise ReportError("report not available: this k10s has no HTML report renderer (k10s_forensics.reports.render_report)") from None
    render_report(bundle, result, out_path)


@click.command("analyze")
@click.argument("bundle_path", metavar="BUNDLE")
@click.option("--format", "fmt", type=click.Choice(["text", "json", "markdown"]), default="text", show_default=True, help="Output format.")
@click.option("--rules", "rules_dirs", multiple=True, type=click.Path(file_okay=False), help="Directory of extra rule .sql files (repeatable).")
@click.option("--rule", "only", multiple=True, help="Run only this rule id (repeatable).")
@click.option("--fail-on", type=click.Choice(SEVERITIES), default=None, help="Exit 1 when a finding at or above this severity exists.")
@click.option("--prices", "prices_file", type=click.Path(dir_okay=False), default=None, help="JSON price table {\"default\": USD, \"models\": {\"H100\": USD}}.")
@click.option("--gpu-hour-price", type=float, default=None, help="One price per GPU-hour (USD) for every model.")
@click.option("--html", "html_out", type=click.Path(dir_okay=False), default=None, help="Also write the HTML postmortem report to FILE.")
@click.option("--output", "-o", "out_file", type=click.Path(dir_okay=False), default=None, help="Write the output to FILE instead of stdout.")
@click.option("--threads", type=click.IntRange(1, 1024), default=None,
              help="DuckDB threads (default: $K10S_THREADS, else every core). The output is the same for any number.")
def analyze_cmd(bundle_path, fmt, rules_dirs, only, fail_on, prices_file, gpu_hour_price, html_out, out_file, threads) -> None:
    """Run the rules on BUNDLE and name the culprit rank, GPU, node and cause.

    Works offline on the bundle only (tables are rebuilt first when missing or stale).
    Exit status: 0 when the analysis ran, whatever it found (1 with --fail-on when a
    finding reaches that severity), 2 when the bundle or an input file is unusable.
    """
    prices = _prices(prices_file, gpu_hour_price)
    bundle = Bundle.open(bundle_path)
    known = {r.id for r in load_rules(tuple(rules_dirs))}
    unknown = sorted(set(only) - known)
    if unknown:
        raise click.UsageError(f"unknown rule id(s): {', '.join(unknown)} (see `k10s rules`)")
    result = analyze(bundle, rules_dirs=tuple(rules_dirs), prices=prices, only=set(only) or None, threads=threads)
    text = {"json": render.to_json, "markdown": render.to_markdown}.get(fmt, None)
    output = text(result) if text else render.to_text(result, color=None if out_file is None and sys.stdout.isatty() else False)
    if out_file:
        with open(out_file, "w", encoding="utf-8") as fh:
            fh.write(output if output.endswith("\n") else output + "\n")
    else:
        click.echo(output.rstrip("\n"))
    if html_out:
        _write_html(bundle, result, html_out)
    if fail_on:
        limit = SEVERITIES.index(fail_on)
        if any(SEVERITIES.index(f["severity"]) <= limit for f in result["findings"]):
            raise click.exceptions.Exit(1)


@click.command("rules")
@click.option("--rules", "rules_dirs", multiple=True, type=click.Path(file_okay=False), help="Also list the rules in this directory.")
@click.option("--verbose", "-v", is_flag=True, help="Show required tables and output columns.")
def rules_cmd(rules_dirs, verbose) -> None:
    """List the analysis rules with their descriptions."""
    for rule in load_rules(tuple(rules_dirs)):
        origin = "" if rule.builtin else f"  ({rule.origin})"
        click.echo(f"{rule.id}  [{rule.severity}]  {rule.title}{origin}")
        click.echo(click.wrap_text(rule.description, width=96, initial_indent="    ", subsequent_indent="    "))
        if verbose:
            needs = ", ".join(" or ".join(g) for g in rule.requires)
            click.echo(f"    needs: {needs}" + (f"; uses if present: {', '.join(rule.optional)}" if rule.optional else ""))
            click.echo("    columns: " + ", ".join(c.name for c in rule.columns))
        click.echo()


COMMANDS = (analyze_cmd, rules_cmd)
