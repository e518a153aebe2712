"""``k10s fleet``: memory across bundles (index, analyze, report, simulate)."""

from __future__ import annotations

import time

import click

from k10s_forensics.fleet.registry import FLEET_RULES, SETTINGS

ENGINE = click.option("--engine", type=click.Choice(["duckdb", "spark"]), default="duckdb", show_default=True,
                      help="Query engine: in-process DuckDB, or Apache Spark (local[2] unless $K10S_SPARK_MASTER / --spark-master).")
MASTER = click.option("--spark-master", default=None, help="Spark master URL for --engine spark (default local[2]).")


def _settings_options(func):
    func = click.option("--min-incidents", type=click.IntRange(1), default=None,
                        help=f"Incidents (distinct bundles) that make a recurrence [default: {SETTINGS['min_incidents'][0]}].")(func)
    func = click.option("--period-days", type=click.FloatRange(0, min_open=True), default=None,
                        help=f"Period the incidents must fall within [default: {SETTINGS['period_s'][0] / 86400:g}].")(func)
    func = click.option("--min-z", type=float, default=None, help=f"z-score a driver's hang rate must reach [default: {SETTINGS['min_z'][0]:g}].")(func)
    return func


def _settings(min_incidents, period_days, min_z) -> dict:
    return {"min_incidents": min_incidents, "period_s": None if period_days is None else round(period_days * 86400), "min_z": min_z}


@click.group("fleet")
def fleet_group() -> None:
    """Memory across bundles: recurring bad GPUs and nodes, Xid recurrence, driver and cost trends.

    \b
    k10s fleet index sample-bundles/ -o fleet     index bundles (incremental, parallel)
    k10s fleet analyze fleet                      run the fleet rules (DuckDB; --engine spark)
    k10s fleet report fleet -o fleet.html         self-contained HTML report
    k10s fleet compact fleet                      one file per table and partition
    """


@fleet_group.command("index")
@click.argument("sources", nargs=-1, required=True)
@click.option("-o", "--out", "out_dir", required=True, type=click.Path(file_okay=False), help="FLEET folder (created when absent).")
@click.option("--jobs", "-j", type=click.IntRange(1, 64), default=None, help="Bundles analysed in parallel [default: min(4, CPUs)].")
@click.option("--batch-size", type=click.IntRange(1), default=200, show_default=True, help="Bundles per written Parquet batch.")
def index_cmd(sources, out_dir, jobs, batch_size) -> None:
    """Index SOURCES (bundle folders, folders of bundles, archives, globs) into FLEET.

    Bundles already in FLEET (same raw checksums) are skipped. Exit status: 0 when every
    bundle was indexed or skipped, 1 when some could not be read (the rest are indexed),
    2 when no source names a bundle.
    """
    from k10s_forensics.fleet.index import index_fleet

    started = time.perf_counter()
    result = index_fleet(list(sources), out_dir, jobs=jobs, batch_size=batch_size)
    seconds = max(time.perf_counter() - started, 1e-9)
    click.echo(f"indexed {len(result.indexed)} bundle(s) into {out_dir} in {seconds:.1f}s "
               f"({len(result.indexed) / seconds:.1f} bundles/s, {result.raw_bytes / 1e6 / seconds:.1f} MB/s); "
               f"{result.skipped} already indexed; {len(result.failed)} failed")
    if result.rows:
        click.echo("rows: " + ", ".join(f"{t} {n}" for t, n in sorted(result.rows.items())))
    for path, reason in result.failed:
        click.echo(f"k10s: not indexed: {path}: {reason}", err=True)
    if result.failed:
        raise click.exceptions.Exit(1)


@fleet_group.command("compact")
@click.argument("fleet_dir", metavar="FLEET")
def compact_cmd(fleet_dir) -> None:
    """Rewrite FLEET to one file per table and partition (after many incremental index runs).

    Crash-safe: an interrupted compaction is finished or undone by the next index/compact.
    """
    from k10s_forensics.fleet.compact import compact
    from k10s_forensics.fleet.store import FleetStore

    done = compact(FleetStore.open(fleet_dir))
    click.echo(f"compacted {done['partitions']} partition(s): {done['files_before']} files -> {done['files_after']}")


@fleet_group.command("analyze")
@click.argument("fleet_dir", metavar="FLEET")
@ENGINE
@MASTER
@click.option("--format", "fmt", type=click.Choice(["text", "json", "markdown"]), default="text", show_default=True)
@click.option("--rule", "only", multiple=True, type=click.Choice(FLEET_RULES), help="Run only this fleet rule (repeatable).")
@_settings_options
@click.option("--output", "-o", "out_file", type=click.Path(dir_okay=False), default=None, help="Write to FILE instead of stdout.")
@click.option("--html", "html_out", type=click.Path(dir_okay=False), default=None, help="Also write the fleet HTML report to FILE.")
def analyze_cmd(fleet_dir, engine, spark_master, fmt, only, min_incidents, period_days, min_z, out_file, html_out) -> None:
    """Run the fleet rules over FLEET: recurring culprit GPUs/nodes, moved GPUs, Xid recurrence,
    driver hang correlation, failure rate by model x driver, GPU-hours and cost by cause.

    FLEET may be an s3a:// or hdfs:// URI with --engine spark. Exit status 0 when the
    analysis ran, 2 when FLEET is not a fleet or the engine cannot start.
    """
    from k10s_forensics.fleet import render
    from k10s_forensics.fleet.analysis import analyze_fleet

    result = analyze_fleet(fleet_dir, engine=engine, settings=_settings(min_incidents, period_days, min_z),
                           only=set(only) or None, engine_options={"master": spark_master})
    output = {"json": render.to_json, "markdown": render.to_markdown}.get(fmt, render.to_text)(result)
    if out_file:
        with open(out_file, "w", encoding="utf-8") as fh:
            fh.write(output)
    else:
        click.echo(output.rstrip("\n"))
    if html_out:
        from k10s_forensics.fleet.report import write_fleet_report

        write_fleet_report(result, html_out)


@fleet_group.command("report")
@click.argument("fleet_dir", metavar="FLEET")
@click.option("-o", "--out", "out_file", required=True, type=click.Path(dir_okay=False), help="HTML file to write.")
@ENGINE
@MASTER
@_settings_options
@click.option("--bundle-reports/--no-bundle-reports", default=True, show_default=True,
              help="Also write the postmortem report of every bundle a fleet finding names, into <OUT>.bundles/ (linked).")
def report_cmd(fleet_dir, out_file, engine, spark_master, min_incidents, period_days, min_z, bundle_reports) -> None:
    """Write the self-contained fleet HTML report of FLEET, each incident linked to its bundle's report."""
    from k10s_forensics.fleet.analysis import analyze_fleet
    from k10s_forensics.fleet.report import write_fleet_report

    result = analyze_fleet(fleet_dir, engine=engine, settings=_settings(min_incidents, period_days, min_z), engine_options={"master": spark_master})
    written = write_fleet_report(result, out_file, bundle_reports=bundle_reports)
    click.echo(f"wrote {out_file}" + (f" and {written} bundle report(s)" if written else ""))


@fleet_group.command("simulate")
@click.option("-o", "--out", "out_dir", required=True, type=click.Path(file_okay=False), help="Folder to create.")
@click.option("--bundles", "count", type=click.IntRange(1, 1_000_000), default=200, show_default=True)
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--healthy", is_flag=True, help="Plant nothing (no recurrence should be found).")
@click.option("--rows", "rows_only", is_flag=True, help="Write index rows straight into a FLEET folder instead of bundles (fast; for scale).")
def simulate_cmd(out_dir, count, seed, healthy, rows_only) -> None:
    """Generate a fleet with planted recurrences: bundles (default) or index rows (--rows).

    The truth (what the fleet rules must find) is written to <OUT>.truth.json.
    """
    import json

    from k10s_forensics.simulate.fleet import plan_fleet

    plan = plan_fleet(seed, count, planted=not healthy)
    truth = dict(plan.truth)
    if rows_only:
        from k10s_forensics.simulate.fleet_rows import write_rows

        write_rows(plan, out_dir)
    else:
        from k10s_forensics.simulate.fleet_bundles import write_bundles

        write_bundles(plan, out_dir)
        truth["driver-hangs"] = []  # hangs exist only in the row generator
    truth_path = out_dir.rstrip("/") + ".truth.json"
    with open(truth_path, "w", encoding="utf-8") as fh:
        json.dump({"seed": seed, "bundles": count, "mode": "rows" if rows_only else "bundles", "expected": truth}, fh, indent=2)
    click.echo(f"wrote {count} {'bundles as index rows' if rows_only else 'bundles'} to {out_dir}; truth {truth_path}")


COMMANDS = (fleet_group,)
