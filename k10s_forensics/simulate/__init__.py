"""``k10s simulate``: realistic raw-layer bundles of GPU clusters with planted incidents.

``simulate(scenario, out_dir, ...)`` writes a raw-only bundle to ``out_dir`` and the ground
truth JSON beside it (``<out_dir>.truth.json``, never inside the bundle). Same arguments,
same raw rows: everything is drawn from generators seeded by ``seed`` and times derive from
a seed-based base time, never the wall clock. See docs/simulator.md.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from k10s_forensics.errors import SimulationError
from k10s_forensics.simulate.constants import SCENARIOS

MAX_GPUS = 65536


def truth_path_for(out_dir: str | os.PathLike[str]) -> Path:
    """Default truth file: a sibling of the bundle directory."""
    out = Path(out_dir)
    return out.parent / f"{out.name}.truth.json"


def simulate(
    scenario: str,
    out_dir: str | os.PathLike[str],
    seed: int = 0,
    nodes: int = 4,
    gpus_per_node: int = 8,
    minutes: float = 10,
    interval_s: float = 10,
    truth_path: str | os.PathLike[str] | None = None,
    nproc_per_node: int | None = None,
    variants: tuple[str, ...] | list[str] = (),
) -> dict[str, Any]:
    """Write a simulated bundle and its truth; returns the truth dict.

    Args:
        scenario: one of ``constants.SCENARIOS``.
        out_dir: bundle directory to create (must not hold a bundle).
        seed: everything random derives from it.
        nodes, gpus_per_node: cluster size.
        minutes, interval_s: capture window and sampling interval.
        truth_path: where to write the truth (default ``<out_dir>.truth.json`` beside it).
        nproc_per_node: ranks (= GPUs) per pod; default per seed (usually all GPUs of a node, sometimes 1).
        variants: planted changes on top of the scenario (``simulate.variants``; for ``k10s diff``).

    Raises:
        SimulationError: unknown scenario or impossible sizes.
    """
    from k10s_forensics.simulate.scenarios import SCENARIOS as FUNCS
    from k10s_forensics.simulate.sim import Sim
    from k10s_forensics.simulate.writer import write_bundle

    if scenario not in FUNCS:
        raise SimulationError(f"unknown scenario {scenario!r}; choose one of: {', '.join(SCENARIOS)}")
    if nodes < 1 or gpus_per_node < 1 or nodes * gpus_per_node > MAX_GPUS:
        raise SimulationError(f"need 1 <= nodes x gpus-per-node <= {MAX_GPUS} (got {nodes} x {gpus_per_node})")
    if not (0 < minutes <= 24 * 60) or not (1 <= interval_s <= 600) or interval_s > minutes * 60:
        raise SimulationError("need 0 < minutes <= 1440 and 1 <= interval <= 600 seconds (and interval <= window)")
    if nproc_per_node is not None and (nproc_per_node < 1 or gpus_per_node % nproc_per_node):
        raise SimulationError(f"--nproc-per-node must divide gpus-per-node ({gpus_per_node})")
    out = Path(out_dir)
    truth_file = Path(truth_path) if truth_path else truth_path_for(out)
    if truth_file.resolve().is_relative_to(out.resolve()):
        raise SimulationError("the truth file must be outside the bundle directory")
    if (out / "manifest.json").exists():
        raise SimulationError(f"{out}: a bundle already exists there")
    from k10s_forensics.simulate import variants as var

    planted = tuple(variants)
    var.check(planted)
    sim = Sim(scenario, seed, nodes, gpus_per_node, minutes, interval_s, nproc_per_node)
    var.apply_pre(sim, planted)
    FUNCS[scenario](sim)
    var.apply_post(sim, planted)
    if planted:
        sim.truth["variants"] = list(planted)
    sim.truth["window"] = sim.describe_window()
    sim.truth["cluster"] = {"nodes": nodes, "gpus_per_node": gpus_per_node, "gpu_product": sim.cluster.model["product"],
                            "naming": sim.cluster.naming, "driver": sim.cluster.driver}
    sim.truth.setdefault("job", None)
    write_bundle(sim, out)
    truth_file.parent.mkdir(parents=True, exist_ok=True)
    truth_file.write_text(json.dumps(sim.truth, indent=2) + "\n", encoding="utf-8")
    return sim.truth


__all__ = ["simulate", "truth_path_for", "SCENARIOS"]
