"""``k10s view``: the terminal views over a bundle, or live against a cluster."""

from __future__ import annotations

import os
import sys

import click

from k10s_forensics.commands.capture_cmds import _duration, _size


@click.command("view")
@click.argument("bundle_path", metavar="[BUNDLE]", required=False)
@click.option("--live", is_flag=True, help="Capture live (read-only rounds every --interval) instead of opening BUNDLE.")
@click.option("--job", "jobs", multiple=True, metavar="[KIND/]NS/NAME", help="Live: a training job to follow (repeatable).")
@click.option("-n", "--namespace", "namespaces", multiple=True, metavar="NS", help="Live: namespace to capture (repeatable).")
@click.option("-A", "--all-namespaces", is_flag=True, help="Live: capture every namespace.")
@click.option("--context", help="Live: kubeconfig context to use.")
@click.option("--kubeconfig", type=click.Path(dir_okay=False), help="Live: kubeconfig file (else $KUBECONFIG, ~/.kube/config).")
@click.option("--interval", default="30s", show_default=True, callback=_duration, help="Live: time between capture rounds.")
@click.option("--keep", default="30m", show_default=True, callback=_duration, help="Live: how much history the rolling window keeps.")
@click.option("--disk-cap", default="2Gi", show_default=True, callback=_size, help="Live: most disk the rolling window may use.")
@click.option("--timeout", default="15s", show_default=True, callback=_duration, help="Live: per-call timeout.")
@click.option("--live-dir", type=click.Path(file_okay=False), default=None,
              help="Live: where the rolling window is kept [default: a temporary folder].")
@click.option("--save-dir", type=click.Path(file_okay=False), default=".", show_default=True,
              help="Live: where `s` saves the window as a bundle.")
@click.option("--report", "report_path", type=click.Path(dir_okay=False), default="k10s-report.html", show_default=True,
              help="Where `r` writes the HTML report.")
@click.option("--no-browser", is_flag=True, help="`r` writes the report without opening a browser.")
@click.option("--baseline", "baseline_path", default=None, metavar="BASELINE",
              help="A bundle of a run that worked, or a fleet index: `d` on a node or job row shows what changed (docs/diff.md).")
def view_cmd(bundle_path, live, jobs, namespaces, all_namespaces, context, kubeconfig, interval, keep, disk_cap, timeout,
             live_dir, save_dir, report_path, no_browser, baseline_path) -> None:
    """Fleet, jobs-by-rank and queue views in the terminal, with `y` = why? on any row.

    \b
    Opens on Fleet. Keys: :fleet :jobs :queue :findings :events :logs, / filter,
    < > ! sort, Enter drill down, Esc back, y diagnose, r report, ? help, q quit.
    \b
    Examples:
      k10s view sample-bundles/oom-crashloop
      k10s view incident.tar.gz
      k10s view --live --job team-a/llama-ft --interval 15s --keep 30m
    """
    if live == bool(bundle_path):
        raise click.UsageError("give a BUNDLE, or --live (not both)")
    from k10s_forensics.view.app import K10sApp

    options = dict(report_path=report_path, open_browser=not no_browser, save_dir=save_dir)
    if live:
        from k10s_forensics.capture import load_connection
        from k10s_forensics.view.live import LiveSession

        if interval <= 0 or keep <= 0:
            raise click.BadParameter("must be more than 0", param_hint="--interval/--keep")
        connection = load_connection(kubeconfig, context)
        session = LiveSession(connection, namespaces=namespaces, all_namespaces=all_namespaces, jobs=jobs, interval_s=interval,
                              keep_s=keep, disk_cap_bytes=disk_cap, timeout_s=timeout, root=live_dir)
        K10sApp(None, live=session, **options).run()
        finish_live(session)
        return
    from k10s_forensics.view.data import ViewData

    data = ViewData.open(bundle_path)
    if baseline_path:
        from k10s_forensics.diff import diff, open_baseline

        click.echo(f"comparing with the baseline {baseline_path} ...", err=True)
        data.baseline_diff = diff(open_baseline(baseline_path, data.bundle), data.bundle, baseline_given=baseline_path,
                                  bundle_given=bundle_path)
    try:
        K10sApp(data, **options).run()
    finally:
        data.close()


def finish_live(session) -> None:
    """Stop the live session. If a round is still running (inside DuckDB or pyarrow), end the process
    now: at interpreter exit Python unwinds such a daemon thread through DuckDB's C++ frames, which
    aborts the whole process (SIGABRT, "FATAL: exception not rethrown") after the user quit."""
    if session.stop():
        return
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


COMMANDS = (view_cmd,)
