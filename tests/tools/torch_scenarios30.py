"""The thirtieth set of recorded runs (held out when recorded): today's wrapper launchers at layouts and with plugins and
flags the fourth, fifth and nineteenth sets lack. ``accelerate launch --multi_gpu`` as two machines (``--num_machines 2
--machine_rank i --main_process_ip``) with a segfault on node 1; ``accelerate launch --use_deepspeed`` on CPU (accelerate
falls back to MULTI_CPU there) with one rank SIGKILLed; DeepSpeed's runner with a ``--hostfile`` of ``localhost slots=4``
and ``--include localhost:1,2,3`` / ``--exclude localhost:3``, ``--no_ssh --node_rank 0`` (a hostfile makes it check ssh
to each host first, even localhost: a pod has no sshd), ``--no_local_rank`` (a rank's KeyError; a rank that never
joins); Lightning's ``Trainer(strategy="ddp", accelerator="cpu", num_nodes=2)`` under torchrun (its TorchElastic
environment: a KeyError on node 1) and under its own launcher (a segfault in the child it started for local rank 1); Ray
Train's ``TorchTrainer`` with ``ScalingConfig(num_workers=4)`` (a worker raising, a worker SIGKILLed).
Controls: ``accelerate launch --use_fsdp`` on two CPU-only machines (every rank's FSDP plugin raises that no device is
available), a clean Lightning run under torchrun with a UserWarning on every rank.
Imported by torch_scenarios.py (its ``S`` builds each one); the program: tests/tools/t30_worker.py. Launch styles:
``t30accel`` (torch_scenarios4's ``accelerate launch``; ``plugin`` replaces ``--multi_gpu``), ``t30ds`` (DeepSpeed's
runner on a localhost hostfile; ``select``: its --include/--exclude), ``t30lightning`` (Lightning's own launcher,
torch_scenarios4's), ``t30ltrun`` (torchrun running the Lightning program), ``t30ray`` (torch_scenarios5's Ray driver).
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import torch_scenarios4 as t4
import torch_scenarios5 as t5

HERE = Path(__file__).resolve().parent
WORKER = str(HERE / "t30_worker.py")
LAUNCHERS = ("t30accel", "t30ds", "t30lightning", "t30ltrun", "t30ray")
_HOSTFILE = "k10s-t30-hostfile-"
_MADE: list[Path] = []  # this process's hostfiles (another recorder may be running beside it)


def scenarios(S) -> list[dict]:
    short = {"K10S_GLOO_TIMEOUT_S": "3"}
    ds = {**short, **t4.DS}
    slow = {"K10S_GLOO_TIMEOUT_S": "60"}  # Lightning starts its local ranks by running the program again (a loaded machine)
    return [
        S("t30-accel-2x2-machine-rank-segfault-rank3", launcher="t30accel", fault="segfault", rank=3, cause="segfault",
          env=short),
        {**S("t30-accel-deepspeed-1x3-sigkill-rank1", launcher="t30accel", fault="sigkill", rank=1, cause="host-oom-kill",
             nproc=3, agents=1, env=ds), "plugin": "--use_deepspeed"},
        {**S("t30-ds-hostfile-include-keyerror-rank2", launcher="t30ds", fault="exception", rank=2, cause="python-exception",
             nproc=3, agents=1, env=ds), "select": ["--include", "localhost:1,2,3"]},
        {**S("t30-ds-hostfile-exclude-never-joins-rank1", launcher="t30ds", fault="never-joins", rank=1, cause="never-joined",
             nproc=3, agents=1, env=ds), "select": ["--exclude", "localhost:3"]},
        S("t30-lightning-trun-2x2-keyerror-rank2", launcher="t30ltrun", fault="exception", rank=2, cause="python-exception",
          env=slow),
        S("t30-lightning-own-2x2-segfault-rank1", launcher="t30lightning", fault="segfault", rank=1, cause="segfault", env=slow),
        # a local Ray takes a minute to start its 4 workers on this machine's 2 loaded cores: 300 s, not 90
        {**S("t30-ray-4w-keyerror-rank3", launcher="t30ray", fault="exception", rank=3, cause="python-exception", nproc=4,
             agents=1), "limit_s": 300},
        {**S("t30-ray-4w-sigkill-rank2", launcher="t30ray", fault="sigkill", rank=2, cause="host-oom-kill", nproc=4,
             agents=1), "limit_s": 300},
        # controls: no rank may be named
        {**S("t30-accel-fsdp-2x2-common-mode-no-device", launcher="t30accel", culprits=[], env=short), "plugin": "--use_fsdp"},
        S("t30-lightning-trun-2x2-clean-warnings", launcher="t30ltrun", culprits=[], env={**slow, "K10S_WARN": "1"}),
    ]


def commands(sc: dict, opts: list[str], port: str) -> list[list[str]]:
    """Each node's command line, in start order."""
    n, nodes, py = sc["nproc"], sc["agents"], sys.executable
    if sc["launcher"] == "t30ray":
        return [[WORKER if p == t5.WORKER else p for p in cmd] for cmd in t5.commands({**sc, "launcher": "ray"}, opts, port)]
    if sc["launcher"] == "t30ds":
        hostfile = Path(tempfile.gettempdir()) / f"{_HOSTFILE}{port}"
        hostfile.write_text("localhost slots=4\n", encoding="utf-8")
        _MADE.append(hostfile)
        return [[str(t4.BIN / "deepspeed"), "--hostfile", str(hostfile), *sc["select"], "--no_ssh", "--node_rank", "0", "--no_local_rank",
                 "--master_addr",
                 "127.0.0.1", "--master_port", port, WORKER, "deepspeed"]]
    if sc["launcher"] == "t30ltrun":
        rdzv = ["--rdzv-backend", "c10d", "--rdzv-endpoint", f"127.0.0.1:{port}", "--rdzv-id", sc["name"], "--rdzv-conf",
                "join_timeout=8", "--monitor-interval", "0.5", "--max-restarts", "0"]
        return [["env", f"K10S_NODES={nodes}", f"K10S_NPROC={n}", py, "-m", "torch.distributed.run", "--nnodes", str(nodes),
                 "--nproc-per-node", str(n), *rdzv, *opts, WORKER, "lightning"] for _ in range(nodes)]
    style = "lightning" if sc["launcher"] == "t30lightning" else "accelerate"
    cmds = [[WORKER if p == t4.WORKER else p for p in cmd] for cmd in t4.commands({**sc, "launcher": style}, port)]
    if sc.get("plugin"):
        cmds = [[sc["plugin"] if p == "--multi_gpu" else p for p in cmd] for cmd in cmds]
    return cmds


def public(part: str) -> str:
    """A command part as the user would type it."""
    if part == WORKER:
        return "t30_worker.py"
    return "hostfile" if Path(part).name.startswith(_HOSTFILE) else part


def cleanup() -> None:
    while _MADE:
        _MADE.pop().unlink(missing_ok=True)


__all__ = ["LAUNCHERS", "cleanup", "commands", "public", "scenarios"]
