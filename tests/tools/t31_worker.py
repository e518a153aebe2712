"""The thirty-first set's training program (tests/tools/torch_scenarios31.py records it), run by ``torchrun`` configured
only from the ``PET_*`` environment a training operator gives its pods: a tiny linear model whose gradients are
all-reduced by hand over gloo (the process group's set-up and the recorder's node mark from t11_worker). One fault at
step K10S_FAULT_STEP on K10S_FAULT_RANK (-1: every rank).

Faults (K10S_FAULT):
keyerror        ``KeyError`` in the rank's batch lookup
sigkill         the rank SIGKILLs itself before its all-reduce
segfault        the rank reads address 0 (``ctypes.string_at(0)``)
never-joins     the rank sleeps 60 s before ``init_process_group`` (a stuck data mount): its peers' set-up times out
hang            the rank sleeps 60 s before its step's all-reduce: its peers time out in the collective (gloo timeout
                K10S_GLOO_TIMEOUT_S)
"""

from __future__ import annotations

import ctypes
import os
import signal
import time

import t11_worker as base
import torch
import torch.distributed as dist

ENV = os.environ
FAULT = ENV.get("K10S_FAULT", "none")
AT_STEP = int(ENV.get("K10S_FAULT_STEP", "3"))
ME = int(ENV.get("RANK", "-2"))
LOCAL = int(ENV.get("LOCAL_RANK", "0"))
HIT = FAULT != "none" and int(ENV.get("K10S_FAULT_RANK", "1")) in (ME, -1)


def _inject() -> None:
    if FAULT == "sigkill":
        os.kill(os.getpid(), signal.SIGKILL)
    elif FAULT == "segfault":
        ctypes.string_at(0)
    elif FAULT == "keyerror":
        {"input_ids": torch.ones(4)}["labels"]
    elif FAULT == "hang":
        time.sleep(60)


def main() -> None:
    world = int(ENV["WORLD_SIZE"])
    print(f"rank {ME}/{world} (local {LOCAL}, pid {os.getpid()}) starting", flush=True)
    if FAULT == "never-joins" and HIT:
        time.sleep(60)
    base._init(ME, world)
    base._mark(LOCAL)
    print(f"rank {ME}/{world} initialised", flush=True)
    torch.manual_seed(0)
    model = torch.nn.Linear(8, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    for step in range(int(ENV.get("K10S_STEPS", "6"))):
        x = torch.randn(4, 8)
        if step == AT_STEP and HIT:
            _inject()
        loss = model(x).pow(2).mean()
        loss.backward()
        for p in model.parameters():
            dist.all_reduce(p.grad)
            p.grad /= world
        opt.step()
        opt.zero_grad()
        print(f"rank {ME} step {step} loss {loss.item():.4f}", flush=True)
        time.sleep(0.3)
    dist.destroy_process_group()
    print(f"rank {ME} done", flush=True)


if __name__ == "__main__":
    main()
