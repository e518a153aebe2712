"""The thirty-seventh set's training program (tests/tools/torch_scenarios37.py records it): layouts beyond 2 x 2 on CPU
with gloo. A tiny linear model whose gradients are all-reduced by hand; the lines a real training script prints
(``logging`` as ``basicConfig`` sets it up, each rank's start line with its local rank and node). One fault at step
K10S_FAULT_STEP on K10S_FAULT_RANK (-1: every rank). The process group's set-up and the recorder's node mark come from
t11_worker; before it every rank meets the others on the agent's store with a long timeout (8 processes importing torch
on 2 loaded cores arrive seconds apart), so the group's short gloo timeout (K10S_GLOO_TIMEOUT_S) is the collectives'.

Faults (K10S_FAULT):
keyerror      ``KeyError`` in the rank's batch lookup
sigkill       the rank SIGKILLs itself before its all-reduce (the kernel's OOM killer)
segfault      the rank reads address 0 (``ctypes.string_at(0)``)
hang          the rank sleeps 60 s in its step's compute: its peers time out in the all-reduce
config-error  (every rank, a control) the same ``ValueError`` from the model's configuration before training
warn          (every rank, a control) each rank logs a WARNING and a ``UserWarning`` about its own shard at step 1
"""

from __future__ import annotations

import ctypes
import datetime as dt
import logging
import os
import signal
import time
import warnings

import t11_worker as base
import torch
import torch.distributed as dist

ENV = os.environ
FAULT = ENV.get("K10S_FAULT", "none")
AT_STEP = int(ENV.get("K10S_FAULT_STEP", "2"))
ME = int(ENV.get("RANK", "-2"))
LOCAL = int(ENV.get("LOCAL_RANK", "0"))
NODE = int(ENV.get("GROUP_RANK", "0"))
HIT = FAULT != "none" and int(ENV.get("K10S_FAULT_RANK", "1")) in (ME, -1)
LOG = logging.getLogger("trainer")


def _meet(world: int) -> None:
    """Every rank on the agent's store before the process group is made (a long timeout: slow imports)."""
    store = dist.TCPStore(ENV["MASTER_ADDR"], int(ENV["MASTER_PORT"]), world, False, timeout=dt.timedelta(seconds=120))
    store.add("t37/arrived", 1)
    while store.add("t37/arrived", 0) < world:
        time.sleep(0.1)


def _config(world: int) -> dict:
    cfg = {"hidden_size": 8, "num_attention_heads": 3 if FAULT == "config-error" else 2}
    if cfg["hidden_size"] % cfg["num_attention_heads"]:
        raise ValueError(f"The hidden size ({cfg['hidden_size']}) is not a multiple of the number of attention heads "
                         f"({cfg['num_attention_heads']})")
    return cfg


def _step_fault(n: int, x: torch.Tensor) -> torch.Tensor:
    if not (n == AT_STEP and HIT):
        return x
    if FAULT == "keyerror":
        return {"input_ids": x}["labels"]
    if FAULT == "sigkill":
        os.kill(os.getpid(), signal.SIGKILL)
    if FAULT == "segfault":
        ctypes.string_at(0)
    if FAULT == "hang":
        time.sleep(60)
    return x


def main() -> None:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s - %(name)s - %(levelname)s - %(message)s")
    world = int(ENV["WORLD_SIZE"])
    print(f"rank {ME}/{world} (local {LOCAL}, node {NODE}, pid {os.getpid()}) starting", flush=True)
    _meet(world)
    base._init(ME, world)
    base._mark(LOCAL)
    LOG.info("rank %d: process group ready (world %d)", ME, world)
    torch.manual_seed(0)
    cfg = _config(world)
    model = torch.nn.Linear(cfg["hidden_size"], 1)  # plain SGD by hand (torch.optim's first use costs seconds here)
    for n in range(int(ENV.get("K10S_STEPS", "5"))):
        if n == 1 and FAULT == "warn":
            LOG.warning("rank %d: shard %d has %d samples, fewer than the batch size; padding", ME, ME, 3 + ME)
            warnings.warn(f"rank {ME}: dropping the last incomplete batch of shard {ME}", UserWarning, stacklevel=1)
        x = _step_fault(n, torch.randn(4, cfg["hidden_size"]))
        loss = model(x).pow(2).mean()
        loss.backward()
        for p in model.parameters():
            dist.all_reduce(p.grad)
            p.grad /= world
        with torch.no_grad():
            for p in model.parameters():
                p -= 0.01 * p.grad
                p.grad = None
        total = loss.detach().reshape(1)
        dist.all_reduce(total)
        print(f"rank {ME} step {n} loss {float(total) / world:.4f}", flush=True)
        time.sleep(0.3)
    dist.destroy_process_group()
    print(f"rank {ME} done", flush=True)


if __name__ == "__main__":
    main()
