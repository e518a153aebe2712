"""The fourth set of recorded runs (held out when recorded): the wrappers users really put around
torchrun. Imported by torch_scenarios.py (its ``S`` builds each one); the worker is
tests/tools/wrapper_worker.py (torch_worker.py's faults inside each wrapper's training loop).

Launch styles (``launcher``): ``accelerate`` (``accelerate launch --multi_gpu`` on CPU: its
torchrun underneath; ``agents`` > 1: one ``accelerate launch --num_machines N --machine_rank i
--main_process_ip 127.0.0.1`` per node), ``notebook`` (accelerate's ``notebook_launcher`` called
from a script: torch's elastic launch in-process), ``lightning`` (PyTorch Lightning's own DDP
launcher: ``python train.py`` per node, which starts its other local ranks itself; NODE_RANK,
MASTER_ADDR and MASTER_PORT from the environment, as a user's job spec sets them), ``deepspeed`` (DeepSpeed's
runner with DS_ACCELERATOR=cpu: ``--num_gpus N`` (``--include localhost:0,1`` is refused on CPU: one "device"), or per node
``--hostfile --no_ssh --node_rank i``, its ``launch.py`` underneath).
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

BIN = Path(sys.executable).parent
WORKER = str(Path(__file__).resolve().parent / "wrapper_worker.py")
LAUNCHERS = ("accelerate", "notebook", "lightning", "deepspeed")
DS = {"DS_ACCELERATOR": "cpu"}


def scenarios(S) -> list[dict]:
    return [
        S("t4-accel-exception", launcher="accelerate", fault="exception", rank=1, cause="python-exception", agents=1),
        S("t4-accel-2node-sigkill-node1", launcher="accelerate", fault="sigkill", rank=3, cause="host-oom-kill"),
        S("t4-accel-2node-hang-node1", launcher="accelerate", fault="hang", rank=2, cause="never-joined"),
        S("t4-accel-1x3-segfault", launcher="accelerate", fault="segfault", rank=2, cause="segfault", nproc=3, agents=1),
        S("t4-accel-memoryerror-rank0", launcher="accelerate", fault="memoryerror", rank=0, cause="host-oom", agents=1),
        S("t4-notebook-valueerror", launcher="notebook", fault="valueerror", rank=1, cause="python-exception", agents=1),
        S("t4-lightning-exception", launcher="lightning", fault="exception", rank=1, cause="python-exception", agents=1),
        S("t4-lightning-2node-sigkill", launcher="lightning", fault="sigkill", rank=2, cause="host-oom-kill"),
        S("t4-lightning-never-joins", launcher="lightning", fault="never-joins", rank=1, cause="never-joined", agents=1),
        S("t4-lightning-2node-segfault-node1", launcher="lightning", fault="segfault", rank=3, cause="segfault"),
        S("t4-ds-exception", launcher="deepspeed", fault="exception", rank=1, cause="python-exception", agents=1, env=DS),
        S("t4-ds-segfault-rank0", launcher="deepspeed", fault="segfault", rank=0, cause="segfault", agents=1, env=DS),
        S("t4-ds-2node-sigkill-node1", launcher="deepspeed", fault="sigkill", rank=3, cause="host-oom-kill", env=DS),
        # controls: no rank may be named
        S("t4-ds-clean", launcher="deepspeed", agents=1, env=DS),
        S("t4-accel-2node-clean", launcher="accelerate", env={"K10S_WARN": "1"}),
        S("t4-accel-preempted", launcher="accelerate", culprits=[], steps=60, preempt_s=3.0),
        S("t4-lightning-clean-progress", launcher="lightning", agents=1, env={"K10S_PROGRESS": "1"}),
        S("t4-lightning-common-mode", launcher="lightning", fault="valueerror", rank=-1, culprits=[], agents=1),
    ]


def commands(sc: dict, port: str) -> list[list[str]]:
    """Each node's command line (``env`` sets what a job spec would: the node's rank, the master)."""
    n, nodes = sc["nproc"], sc["agents"]
    if sc["launcher"] == "notebook":
        return [["env", f"MASTER_PORT={port}", f"K10S_NPROC={n}", sys.executable, WORKER, "notebook"]]
    if sc["launcher"] == "deepspeed":
        ds = [str(BIN / "deepspeed"), "--master_addr", "127.0.0.1", "--master_port", port]
        if nodes == 1:
            return [ds + (sc["opts"] or ["--num_gpus", str(n)]) + [WORKER, "deepspeed"]]
        hostfile = Path(tempfile.gettempdir()) / f"k10s-hostfile-{port}"
        hostfile.write_text("".join(f"node-{i} slots={n}\n" for i in range(nodes)), encoding="utf-8")
        return [ds + ["--hostfile", str(hostfile), "--no_ssh", "--node_rank", str(i), WORKER, "deepspeed"] for i in range(nodes)]
    if sc["launcher"] == "lightning":
        return [["env", f"NODE_RANK={i}", "MASTER_ADDR=127.0.0.1", f"MASTER_PORT={port}", f"K10S_NPROC={n}",
                 f"K10S_NODES={nodes}", sys.executable, WORKER, "lightning"] for i in range(nodes)]
    launch = [str(BIN / "accelerate"), "launch", "--multi_gpu", "--num_processes", str(n * nodes), "--main_process_port", port]
    if nodes == 1:
        return [launch + [WORKER, "accelerate"]]
    return [launch + ["--num_machines", str(nodes), "--machine_rank", str(i), "--main_process_ip", "127.0.0.1", WORKER, "accelerate"]
            for i in range(nodes)]
