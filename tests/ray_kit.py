"""A captured PyTorchJob whose driver's Ray lines sit in the master's pod: shared by tests/test_ray_oom_legacy.py
(session 67: Ray's IPs to pods) and tests/test_ray_task_error_header.py (session 68: the node of the rank Ray's pid
names)."""

from __future__ import annotations

from pathlib import Path

from k10s_forensics.analyze.runner import analyze
from torch_runs_kit import Run, podlog_run


def captured_findings(tmp: Path, driver: list[str], nproc: int = 1, *, version: str, name: str) -> list[dict]:
    """The findings of a captured PyTorchJob of two pods (train-master-0 at 10.1.0.5 on gpu-node-0, train-worker-0 at
    10.1.0.6 on gpu-node-1), ``nproc`` ranks each; the driver's lines in the master's log, the worker's trained on.
    ``version``/``name``: the run's label (the recorded runs' layout, `<version>/<name>`)."""
    names = []
    for i, lines in enumerate([["Starting training"] + driver, ["step 1"]]):
        (tmp / f"node{i}.log").write_text("".join(f"2026-11-28T11:58:{j:02d}.000000Z {line}\n" for j, line in enumerate(lines)))
        names.append(f"node{i}.log")
    truth = {"node_logs": names, "nproc_per_node": nproc, "nodes": 2, "world_size": 2 * nproc}
    return analyze(podlog_run(Run(version, name, tmp, truth), tmp))["findings"]
