"""The twelfth set's training program (tests/tools/torch_scenarios12.py records it), run by torchrun: a tiny
model whose gradients are all-reduced by hand over gloo (the process group's set-up and the recorder's node
mark come from t11_worker). One fault injected on K10S_FAULT_RANK (-1: every rank) or on the ranks of
K10S_FAULT_RANKS (comma-separated) at step K10S_FAULT_STEP.

Faults (K10S_FAULT):
bcast-unpickle    every rank takes rank 0's schedule object by ``broadcast_object_list``; the rank runs an
                  older build whose ``__main__`` has no ``Schedule`` class: unpickling it fails
ignore-term       the rank raises ``KeyError``; its node-mate (K10S_STUBBORN_RANK) is uploading a
                  checkpoint with SIGTERM ignored for 40 s, past the agent's 30 s wait: SIGKILL follows
teardown-segv     the rank finishes the loop, destroys the process group, then segfaults in its teardown
key-timeout       every rank but 0 waits for rank 0's ``ready-<step>`` key in a user ``TCPStore`` (2 s);
                  the rank waits for a key of the wrong step: ``DistStoreError: wait timeout``
sigkill           the rank SIGKILLs itself
segfault          the rank reads address 0 (``ctypes.string_at(0)``)
os-exit1          ``os._exit(1)``: no traceback, no message
exit0-late        the rank's data runs out: it leaves its loop and returns 0 while its peers go on
gather-dst        the rank calls ``dist.gather`` with a ``gather_list`` though it is not the destination
import-error      the rank's image lacks a plugin module: ``ModuleNotFoundError`` before ``init_process_group``
printed-tb        (control) the rank prints a handled ``KeyError``'s traceback (``traceback.print_exc``) and
                  every rank warns; the run ends well
"""

from __future__ import annotations

import ctypes
import datetime as dt
import os
import signal
import sys
import time
import traceback
import warnings

import t11_worker as base
import torch
import torch.distributed as dist

ENV = os.environ
KIND = ENV.get("K10S_FAULT", "none")
STEP = int(ENV.get("K10S_FAULT_STEP", "3"))
RANK = int(ENV["RANK"])
FAULTY = {int(r) for r in ENV.get("K10S_FAULT_RANKS", ENV.get("K10S_FAULT_RANK", "1")).split(",")}
CULPRIT = KIND != "none" and bool(FAULTY & {RANK, -1})


class Schedule:
    """The learning-rate schedule rank 0 hands to every rank (an object collective)."""

    def __init__(self, lr: float, warmup: int):
        self.lr, self.warmup = lr, warmup


def _take_schedule(step: int) -> float:
    if CULPRIT:  # last week's build: no Schedule in this rank's __main__
        delattr(sys.modules["__main__"], "Schedule")
    box = [Schedule(0.01 / (step + 1), 2) if RANK == 0 else None]
    dist.broadcast_object_list(box, src=0)
    return box[0].lr


def _store() -> dist.Store:
    client = dist.TCPStore(ENV["MASTER_ADDR"], int(ENV["MASTER_PORT"]), is_master=False, timeout=dt.timedelta(seconds=5))
    return dist.PrefixStore("user", client)


def _sync_key(store: dist.Store, step: int) -> None:
    if RANK == 0:
        store.set(f"ready-{step}", "1")
        return
    want = step + 100 if CULPRIT and step == STEP else step  # resumed with the wrong step offset
    store.wait([f"ready-{want}"], dt.timedelta(seconds=2))


def _step_fault(step: int, world: int) -> str | None:
    """The fault of this step; 'stop' ends the rank's loop."""
    if KIND == "ignore-term" and RANK == int(ENV.get("K10S_STUBBORN_RANK", "0")):
        signal.signal(signal.SIGTERM, lambda *_: print(f"rank {RANK}: SIGTERM ignored until the checkpoint upload ends", flush=True))
        print(f"rank {RANK}: uploading checkpoint step-{step}", flush=True)
        time.sleep(40)
    if not CULPRIT:
        return None
    if KIND == "ignore-term":
        {"input_ids": step}["labels"]
    elif KIND == "sigkill":
        os.kill(os.getpid(), signal.SIGKILL)
    elif KIND == "segfault":
        ctypes.string_at(0)
    elif KIND == "os-exit1":
        os._exit(1)
    elif KIND == "exit0-late":
        print(f"rank {RANK}: data exhausted after {step} batches, epoch done", flush=True)
        return "stop"
    elif KIND == "gather-dst":
        t = torch.ones(1)
        dist.gather(t, gather_list=[torch.zeros(1) for _ in range(world)], dst=0)
    return None


def train() -> None:
    world, local = int(ENV["WORLD_SIZE"]), int(ENV.get("LOCAL_RANK", "0"))
    if CULPRIT and KIND == "import-error":
        import t12_sampler_plugin  # noqa: F401  (not in this rank's image)
    base._init(RANK, world)
    base._mark(local)
    print(f"rank {RANK}/{world} (local {local}, pid {os.getpid()}) initialised", flush=True)
    store = _store() if KIND == "key-timeout" else None
    torch.manual_seed(0)
    model = torch.nn.Linear(8, 1)
    for step in range(int(ENV.get("K10S_STEPS", "6"))):
        lr = _take_schedule(step) if KIND == "bcast-unpickle" and step == STEP else 0.01
        if store is not None:
            _sync_key(store, step)
        if step == STEP and _step_fault(step, world) == "stop":
            return
        if KIND == "printed-tb" and step == STEP:
            _noise()
        loss = model(torch.ones(4, 8) * step).pow(2).mean()
        loss.backward()
        with torch.no_grad():
            for p in model.parameters():
                dist.all_reduce(p.grad)
                p -= lr * p.grad / world
                p.grad = None
        print(f"rank {RANK} step {step} loss {loss.item():.4f}", flush=True)
        time.sleep(0.3)
    dist.destroy_process_group()
    print(f"rank {RANK} done", flush=True)
    if CULPRIT and KIND == "teardown-segv":
        ctypes.string_at(0)


def _noise() -> None:
    warnings.warn(f"rank {RANK}: grad norm 1.2e4 above the clip threshold, clipped", UserWarning, stacklevel=1)
    if CULPRIT:
        try:
            {"step": 1}["epoch"]
        except KeyError:
            traceback.print_exc()
            print(f"rank {RANK}: resume state had no 'epoch', starting from 0", flush=True)


if __name__ == "__main__":
    train()
