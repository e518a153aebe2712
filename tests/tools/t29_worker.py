"""The twenty-ninth set's training program (tests/tools/torch_scenarios29.py records it), run by ``torchrun``: a tiny
linear model whose gradients are all-reduced by hand over gloo (the process group's set-up and the recorder's node mark
from t11_worker). One fault at step K10S_FAULT_STEP on K10S_FAULT_RANK (-1: every rank; K10S_FAULT_RANKS, comma-separated:
several ranks).

Faults (K10S_FAULT):
sigkill         the rank SIGKILLs itself before its all-reduce
segfault        the rank reads address 0 (``ctypes.string_at(0)``)
keyerror        ``KeyError`` in the rank's batch lookup
barrier-stall   every rank calls ``dist.monitored_barrier(timeout=K10S_GLOO_TIMEOUT_S, wait_all_ranks=True)`` at the
                step; the faulty ranks sleep 60 s before it (a stalled data shard): rank 0 reports every rank that did
                not arrive
async-isdir     every rank saves its model with ``torch.distributed.checkpoint.async_save`` into K10S_CKPT_DIR at the
                step and waits for the future one step later; on the faulty rank the file DCP writes
                (``__<rank>_0.distcp``) is already a directory (left by an earlier job): its background write fails
taskgroup       ``main`` is wrapped in ``torch.distributed.elastic.multiprocessing.errors.record``; the rank's shard
                prefetch runs two ``asyncio`` tasks in a ``TaskGroup`` that both fail (a refused connection, a missing
                file): an ``ExceptionGroup`` with two sub-exceptions leaves ``main``
noise           (no fault) every rank logs warnings that look like failures and recovers
"""

from __future__ import annotations

import asyncio
import ctypes
import datetime as dt
import logging
import os
import signal
import time

import t11_worker as base
import torch
import torch.distributed as dist
from torch.distributed.elastic.multiprocessing.errors import record

ENV = os.environ
FAULT = ENV.get("K10S_FAULT", "none")
AT_STEP = int(ENV.get("K10S_FAULT_STEP", "3"))
ME = int(ENV.get("RANK", "-2"))
LOCAL = int(ENV.get("LOCAL_RANK", "0"))
WHO = {int(r) for r in (ENV.get("K10S_FAULT_RANKS") or ENV.get("K10S_FAULT_RANK", "1")).split(",")}
HIT = FAULT not in ("none", "noise") and bool(WHO & {ME, -1})
GLOO_TIMEOUT_S = float(ENV.get("K10S_GLOO_TIMEOUT_S", "3"))
log = logging.getLogger("train")


async def _fetch(url: str) -> bytes:
    await asyncio.sleep(0.01)
    if url.startswith("http"):
        raise ConnectionRefusedError(111, f"Connect call failed ('10.0.0.7', 8080) for {url}")
    with open(url, "rb") as f:
        return f.read()


async def _prefetch(step: int) -> None:
    async with asyncio.TaskGroup() as tg:
        tg.create_task(_fetch(f"http://10.0.0.7:8080/shards/{step:05d}.tar"))
        tg.create_task(_fetch(f"/workspace/cache/shards/{step:05d}.idx"))


def _inject(step: int) -> None:
    if FAULT == "sigkill":
        os.kill(os.getpid(), signal.SIGKILL)
    elif FAULT == "segfault":
        ctypes.string_at(0)
    elif FAULT == "keyerror":
        {"input_ids": torch.ones(4)}["labels"]
    elif FAULT == "barrier-stall":
        time.sleep(60)
    elif FAULT == "taskgroup":
        asyncio.run(_prefetch(step))
    elif FAULT == "async-isdir":
        os.makedirs(os.path.join(ENV["K10S_CKPT_DIR"], f"step-{step:06d}", f"__{ME}_0.distcp"), exist_ok=True)


def _noise(step: int) -> None:
    if FAULT == "noise" and step == AT_STEP:
        log.warning("rank %d: loss scale overflow at step %d, skipping update (retrying with scale 32768)", ME, step)
        log.warning("rank %d: NCCL_ASYNC_ERROR_HANDLING is deprecated; error handling now uses TORCH_NCCL_ASYNC_ERROR_HANDLING", ME)


@record
def main() -> None:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    world = int(ENV["WORLD_SIZE"])
    base._init(ME, world)
    base._mark(LOCAL)
    print(f"rank {ME}/{world} (local {LOCAL}, pid {os.getpid()}) initialised", flush=True)
    torch.manual_seed(0)
    model = torch.nn.Linear(8, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    pending = None
    ckpt_group = dist.new_group(backend="gloo") if FAULT == "async-isdir" else None  # DCP's own group: the saves run in a thread
    for step in range(int(ENV.get("K10S_STEPS", "6"))):
        x = torch.randn(4, 8)
        if step == AT_STEP and HIT:
            _inject(step)
        _noise(step)
        if FAULT == "barrier-stall" and step == AT_STEP:
            dist.monitored_barrier(timeout=dt.timedelta(seconds=GLOO_TIMEOUT_S), wait_all_ranks=True)
        loss = model(x).pow(2).mean()
        loss.backward()
        for p in model.parameters():
            dist.all_reduce(p.grad)
            p.grad /= world
        opt.step()
        opt.zero_grad()
        print(f"rank {ME} step {step} loss {loss.item():.4f}", flush=True)
        if pending is not None:
            pending.result()
            print(f"rank {ME} checkpoint of step {step - 1} written", flush=True)
            pending = None
        if FAULT == "async-isdir" and step == AT_STEP:
            import torch.distributed.checkpoint as dcp

            path = os.path.join(ENV["K10S_CKPT_DIR"], f"step-{step:06d}")
            print(f"rank {ME} async checkpoint to {path}", flush=True)
            pending = dcp.async_save({"model": model.state_dict()}, checkpoint_id=path, process_group=ckpt_group)
        time.sleep(0.3)
    dist.destroy_process_group()
    print(f"rank {ME} done", flush=True)


if __name__ == "__main__":
    main()
