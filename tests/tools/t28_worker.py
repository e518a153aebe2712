"""The twenty-eighth set's training program (tests/tools/torch_scenarios28.py records it), run by ``torchrun``: a tiny
linear model whose gradients are all-reduced by hand over gloo (the process group's set-up and the recorder's node mark
from t11_worker). One fault at step K10S_FAULT_STEP on K10S_FAULT_RANK (-1: every rank) or, with K10S_FAULT_AT
``agent<N>:<local rank>``, on that local rank of the N-th started agent (its global rank depends on the node rank the
rendezvous gives that agent: the rank marks ``fault-<global rank>`` in K10S_MARK_DIR, the recorder's truth).

Faults (K10S_FAULT):
keyerror        ``KeyError`` in the rank's batch lookup
segfault        the rank reads address 0 (``ctypes.string_at(0)``)
sigkill         the rank SIGKILLs itself before its all-reduce
sigkill-mid     every rank all-reduces a 16 M-element buffer from this step on; the rank is SIGKILLed (a timer thread)
                0.05 s into it: its peers are mid-collective
save-denied     only rank 0 checkpoints (``torch.save`` into K10S_CKPT_DIR, a root-owned folder, as uid 65534: the
                effective uid dropped just before; the program's imports are done as root): ``Permission denied``; its
                peers go on to the next all-reduce
exit0           the rank leaves with ``os._exit(0)`` at the step, without a word
"""

from __future__ import annotations

import ctypes
import os
import signal
import threading
import time

import t11_worker as base
import torch
import torch.distributed as dist

ENV = os.environ
FAULT = ENV.get("K10S_FAULT", "none")
AT_STEP = int(ENV.get("K10S_FAULT_STEP", "3"))
ME = int(ENV.get("RANK", "-2"))
LOCAL = int(ENV.get("LOCAL_RANK", "0"))
WHO = int(ENV.get("K10S_FAULT_RANK", "1"))
AT = ENV.get("K10S_FAULT_AT", "")
if AT:
    HIT = FAULT != "none" and AT == f"{ENV.get('K10S_AGENT', '')}:{LOCAL}"
else:
    HIT = FAULT != "none" and WHO in (ME, -1)


def _mark_fault() -> None:
    mark = ENV.get("K10S_MARK_DIR")
    if mark:
        with open(os.path.join(mark, f"fault-{ME}"), "w") as f:
            f.write(str(os.getpid()))


def _inject(step: int, model: torch.nn.Module) -> None:
    if FAULT == "keyerror":
        {"input_ids": torch.ones(4)}["labels"]
    elif FAULT == "segfault":
        ctypes.string_at(0)
    elif FAULT == "sigkill":
        os.kill(os.getpid(), signal.SIGKILL)
    elif FAULT == "sigkill-mid":
        threading.Timer(0.05, os.kill, (os.getpid(), signal.SIGKILL)).start()
    elif FAULT == "exit0":
        os._exit(0)


def main() -> None:
    world = int(ENV["WORLD_SIZE"])
    base._init(ME, world)
    base._mark(LOCAL)
    print(f"rank {ME}/{world} (local {LOCAL}, pid {os.getpid()}) initialised", flush=True)
    if HIT:
        _mark_fault()
    torch.manual_seed(0)
    model = torch.nn.Linear(8, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    for step in range(int(ENV.get("K10S_STEPS", "6"))):
        x = torch.randn(4, 8)
        if step == AT_STEP and HIT:
            _inject(step, model)
        loss = model(x).pow(2).mean()
        loss.backward()
        for p in model.parameters():
            dist.all_reduce(p.grad)
            p.grad /= world
        if FAULT == "sigkill-mid" and step >= AT_STEP:
            dist.all_reduce(torch.ones(16 * 1024 * 1024))
        opt.step()
        opt.zero_grad()
        print(f"rank {ME} step {step} loss {loss.item():.4f}", flush=True)
        if FAULT == "save-denied" and ME == 0 and step == AT_STEP:
            path = os.path.join(ENV["K10S_CKPT_DIR"], f"step-{step:06d}.pt")
            print(f"rank 0 saving checkpoint to {path}", flush=True)
            os.seteuid(65534)  # the checkpoint writer runs as the volume's user; the folder is root's
            torch.save({"step": step, "model": model.state_dict(), "optim": opt.state_dict()}, path)
        time.sleep(0.3)
    dist.destroy_process_group()
    print(f"rank {ME} done", flush=True)


if __name__ == "__main__":
    main()
