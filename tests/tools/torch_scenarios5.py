"""The fifth set of recorded runs (held out when recorded): launchers the first four lack.
Imported by torch_scenarios.py (its ``S`` builds each one); the programs: tests/tools/t5_worker.py
(HF Trainer, FSDP2, DCP, Ray Train) and tests/tools/torch_worker.py (plain loops).

Launch styles (``launcher``): ``pet`` (Kubeflow Trainer v2's torch runtime: a bare ``torchrun
train.py`` configured only by PET_NNODES, PET_NPROC_PER_NODE, PET_NODE_RANK, PET_MASTER_ADDR,
PET_MASTER_PORT, as the TrainJob's pods get them; static rendezvous), ``hf`` / ``fsdp`` / ``dcp``
(``torchrun`` with c10d rendezvous running t5_worker.py's HF Trainer, FSDP2 loop, FSDP2 + DCP save),
``ray`` (the driver of a Ray Train ``TorchTrainer`` on a local Ray: its output is the job's log,
the workers' lines forwarded with Ray's ``(RayTrainWorker pid=…)`` prefix), ``moving`` (torchrun
``--max-restarts 2``: the failing rank differs in each attempt, K10S_FAULT_RANKS by restart).
``preempt_node``: only that node's agent gets the SIGTERM (one pod evicted).
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
TORCHRUN = str(Path(sys.executable).parent / "torchrun")
WORKER = str(HERE / "t5_worker.py")
PLAIN = str(HERE / "torch_worker.py")
LAUNCHERS = ("pet", "hf", "fsdp", "dcp", "ray", "moving")
INFO = {"LOGLEVEL": "INFO"}
_IMMUTABLE: list[Path] = []


def scenarios(S) -> list[dict]:
    return [
        S("t5-pet-2x2-keyerror-node1", launcher="pet", fault="exception", rank=3, cause="python-exception"),
        S("t5-pet-2x2-sigkill-rank2", launcher="pet", fault="sigkill", rank=2, cause="host-oom-kill", env=INFO),
        S("t5-ray-exception-rank1", launcher="ray", fault="exception", rank=1, cause="python-exception", agents=1),
        S("t5-ray-3w-sigkill-rank1", launcher="ray", fault="sigkill", rank=1, cause="host-oom-kill", nproc=3, agents=1),
        S("t5-ray-3w-hang-rank2", launcher="ray", fault="hang", rank=2, cause="never-joined", nproc=3, agents=1),
        S("t5-hf-computeloss-keyerror-rank1", launcher="hf", fault="exception", rank=1, cause="python-exception", agents=1,
          step=2),
        S("t5-fsdp-2x2-forward-raise-rank1", launcher="fsdp", fault="exception", rank=1, cause="python-exception",
          opts=["--tee", "3"]),
        S("t5-dcp-2x2-permission-rank3", launcher="dcp", fault="dcp-permission", rank=3, cause="python-exception", step=2),
        S("t5-restarts2-moving-culprit", launcher="moving", fault="exception", rank=2, cause="python-exception", nproc=4, agents=1,
          opts=["--max-restarts", "2", "--tee", "3"], env={"K10S_FAULT_RANKS": "1,3,2", "K10S_GLOO_TIMEOUT_S": "30"}),
        S("t5-fsdp-1x2-segfault-logdir", launcher="fsdp", fault="segfault", rank=0, cause="segfault", agents=1,
          opts=["--redirects", "3", "--tee", "3", "--log-dir", "{logdir}"]),
        # controls: no rank may be named
        S("t5-pet-2x2-clean-loglevel", launcher="pet", env=INFO),
        S("t5-ray-clean", launcher="ray", agents=1),
        S("t5-hf-clean-warnings", launcher="hf", agents=1, env={"K10S_WARN": "1"}, opts=["--tee", "3"]),
        {**S("t5-evicted-node1-sigterm", culprits=[], steps=60, preempt_s=3.0, env=INFO), "preempt_node": 1},
    ]


def commands(sc: dict, opts: list[str], port: str) -> list[list[str]]:
    """Each node's command line (``env`` first where a job spec would set the environment)."""
    n, nodes, py = sc["nproc"], sc["agents"], sys.executable
    out = tempfile.mkdtemp(prefix="k10s-t5-out-")
    if sc["launcher"] == "ray":
        return [["env", f"K10S_NPROC={n}", f"K10S_OUT_DIR={out}", f"PYTHONPATH={HERE}", py, WORKER, "ray"]]
    if sc["launcher"] == "pet":
        return [["env", f"PET_NNODES={nodes}", f"PET_NPROC_PER_NODE={n}", f"PET_NODE_RANK={i}", "PET_MASTER_ADDR=127.0.0.1",
                 f"PET_MASTER_PORT={port}", TORCHRUN, *opts, PLAIN] for i in range(nodes)]
    pre = ["env", f"K10S_OUT_DIR={out}"]
    if sc["launcher"] == "dcp":
        pre.append(f"K10S_CKPT_DIR={_ckpt_dir(sc['rank'])}")
    program = [PLAIN] if sc["launcher"] == "moving" else [WORKER, sc["launcher"]]
    rdzv = ["--rdzv-backend", "c10d", "--rdzv-endpoint", f"127.0.0.1:{port}", "--rdzv-id", sc["name"], "--rdzv-conf", "join_timeout=8"]
    tail = [*opts] if "--max-restarts" in opts else [*opts, "--max-restarts", "0"]
    return [[*pre, TORCHRUN, "--nnodes", str(nodes), "--nproc-per-node", str(n), *rdzv, "--monitor-interval", "0.5", *tail, *program]
            for _ in range(nodes)]


def _ckpt_dir(rank: int) -> str:
    """A checkpoint folder where the culprit's DCP file was left immutable (even root's write fails: EPERM)."""
    folder = Path(tempfile.mkdtemp(prefix="k10s-ckpt-"))
    stale = folder / f"__{rank}_0.distcp"
    stale.touch()
    subprocess.run(["chattr", "+i", str(stale)], check=True)
    _IMMUTABLE.append(stale)
    return str(folder)


def cleanup() -> None:
    while _IMMUTABLE:
        subprocess.run(["chattr", "-i", str(_IMMUTABLE.pop())], check=False)


def public(part: str) -> str:
    """A command part as the user would type it."""
    part = part.replace(WORKER, "t5_worker.py")
    if part == f"PYTHONPATH={HERE}":
        return "PYTHONPATH=."
    for key in ("K10S_OUT_DIR=", "K10S_CKPT_DIR="):
        if part.startswith(key):
            return key + ("/ckpt" if "CKPT" in key else "/output")
    return part


__all__ = ["LAUNCHERS", "cleanup", "commands", "public", "scenarios"]
