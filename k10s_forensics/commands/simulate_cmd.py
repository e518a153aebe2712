"""``k10s simulate``: write a realistic raw bundle of a scenario plus its ground truth."""

from __future__ import annotations

import click

from k10s_forensics.simulate import simulate, truth_path_for
from k10s_forensics.simulate.constants import SCENARIOS


@click.command("simulate")
@click.argument("scenario", type=click.Choice(SCENARIOS))
@click.option("-o", "--out", "out_dir", required=True, type=click.Path(file_okay=False), help="Bundle directory to create.")
@click.option("--seed", default=0, show_default=True, type=int, help="Everything random derives from it.")
@click.option("--nodes", default=4, show_default=True, type=click.IntRange(1, 8192))
@click.option("--gpus-per-node", default=8, show_default=True, type=click.IntRange(1, 16))
@click.option("--minutes", default=10.0, show_default=True, type=click.FloatRange(0.5, 1440), help="Capture window length.")
@click.option("--interval", "interval_s", default=10.0, show_default=True, type=click.FloatRange(1, 600), help="Sampling interval (s).")
@click.option("--nproc-per-node", default=None, type=click.IntRange(1, 16), help="Ranks (= GPUs) per pod; default drawn from the seed.")
@click.option("--variant", "variants", multiple=True, metavar="NAME",
              help="Plant a change on top of the scenario (repeatable; for k10s diff): later, driver-node, nccl-env, "
                   "image-digest, power-cap, fabric, rank-moved, kueue, kueue-quota (docs/simulator.md).")
@click.option("--truth", "truth_path", default=None, type=click.Path(dir_okay=False), help="Truth JSON path (default: <OUT>.truth.json beside the bundle).")
def simulate_cmd(scenario: str, out_dir: str, seed: int, nodes: int, gpus_per_node: int, minutes: float, interval_s: float,
                 nproc_per_node: int | None, variants: tuple[str, ...], truth_path: str | None) -> None:
    """Write a raw-only bundle of SCENARIO (no cluster needed) and its ground truth beside it."""
    truth = simulate(scenario, out_dir, seed=seed, nodes=nodes, gpus_per_node=gpus_per_node, minutes=minutes,
                     interval_s=interval_s, truth_path=truth_path, nproc_per_node=nproc_per_node, variants=variants)
    culprits = "; ".join(f"{e['rule']}/{e['cause']} ranks {e['ranks'] or '-'}" for e in truth["expected"]) or "none (healthy)"
    click.echo(f"wrote {out_dir} ({truth.get('job_kind') or 'no job'} {truth.get('job') or ''}, "
               f"{nodes}x{gpus_per_node} GPUs, {minutes:g} min @ {interval_s:g}s)")
    click.echo(f"truth {truth_path or truth_path_for(out_dir)}: {culprits}")


COMMANDS = (simulate_cmd,)
