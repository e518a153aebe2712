"""``k10s diff``: what changed between the baseline run(s) and a bundle."""

from __future__ import annotations

import click

from k10s_forensics.store.bundle import Bundle


@click.command("diff")
@click.argument("baseline_path", metavar="BASELINE")
@click.argument("bundle_path", metavar="BUNDLE")
@click.option("--format", "fmt", type=click.Choice(["text", "json", "markdown"]), default="text", show_default=True)
@click.option("--last", type=click.IntRange(1, 100), default=5, show_default=True,
              help="With a fleet index as BASELINE: how many of the job's last healthy runs.")
@click.option("--job", default=None, help="With a fleet index: the job (namespace/name) whose runs form the baseline.")
@click.option("--no-findings", is_flag=True, help="Do not run the bundle's analysis to find the culprits (faster).")
@click.option("--analysis", "analysis_file", type=click.Path(dir_okay=False), default=None,
              help="Take the culprits from this saved `k10s analyze --format json` of BUNDLE instead of analysing it again.")
@click.option("--limit", type=click.IntRange(1, 100000), default=50, show_default=True, help="Changes listed in text output.")
def diff_cmd(baseline_path: str, bundle_path: str, fmt: str, last: int, job: str | None, no_findings: bool,
             analysis_file: str | None, limit: int) -> None:
    """What changed between BASELINE (a bundle of a run that worked, or a fleet index: the
    job's last healthy runs) and BUNDLE: GPUs, nodes, the job's spec and environment,
    Kueue, placement and behaviour, ranked by suspicion (changes on the culprit's node,
    GPU or rank first). Unchanged things are counted, not listed; secrets are never shown.
    """
    from k10s_forensics.diff import diff, open_baseline
    from k10s_forensics.diff import render

    from k10s_forensics.commands.report_cmd import _load_analysis

    analysis = _load_analysis(analysis_file) if analysis_file else None
    bundle = Bundle.open(bundle_path)
    baseline = open_baseline(baseline_path, bundle, last, job)
    result = diff(baseline, bundle, baseline_given=baseline_path, bundle_given=bundle_path, use_findings=not no_findings,
                  analysis=analysis)
    out = {"json": render.to_json, "markdown": render.to_markdown}.get(fmt)
    click.echo(out(result) if out else render.to_text(result, limit), nl=False)


COMMANDS = (diff_cmd,)
