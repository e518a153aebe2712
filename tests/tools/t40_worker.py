"""The fortieth set's training program (tests/tools/torch_scenarios40.py records it): a few DDP steps of a tiny model
with gloo on CPU, a DataLoader with two workers, one line per step tagged ``Rank N:`` as a training script prints it.
Run by ``python -m torch.distributed.launch --use-env`` or ``torchrun --standalone`` (RANK etc. from the environment),
or as ``python t40_worker.py --spawn N --master-port P`` (``torch.multiprocessing.spawn(fn, nprocs=N, join=True)``).
One fault from K10S_FAULT on K10S_FAULT_RANK (-1: every rank) at step K10S_FAULT_STEP (default 3):

sigkill        the rank's process is SIGKILLed (the kernel's OOM killer)
keyerror       the rank's batch lacks the key the loop asks for: ``KeyError: 'labels'``
segfault       the rank reads address 0 (``ctypes.string_at(0)``)
abort          the rank calls ``os.abort()``
stall          the rank sleeps before the step's all-reduce, past the gloo timeout of its peers
loader-killed  a DataLoader worker of the rank is SIGKILLed while fetching the step's batch
exit0          the rank leaves its loop early and returns: exit status 0 while its peers wait in the next all-reduce
memoryerror    the rank builds a large numpy buffer under ``RLIMIT_AS``: numpy's ``_ArrayMemoryError``
"""

from __future__ import annotations

import argparse
import ctypes
import datetime as dt
import os
import signal
import sys
import time

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler

ENV = os.environ
TIMEOUT_S = float(ENV.get("K10S_GLOO_TIMEOUT_S", "3"))
FAULT, BAD, AT = ENV.get("K10S_FAULT", "none"), int(ENV.get("K10S_FAULT_RANK", "1")), int(ENV.get("K10S_FAULT_STEP", "3"))
STEPS = int(ENV.get("K10S_STEPS", "6"))
BATCH = 4


class Samples(Dataset):
    """Dict samples; the rank whose loader worker is to die kills it on the fault step's first sample."""

    def __init__(self, n: int, kill_at: int | None) -> None:
        self.n, self.kill_at = n, kill_at

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, i: int) -> dict:
        if i == self.kill_at:
            os.kill(os.getpid(), signal.SIGKILL)
        return {"input": torch.full((8,), float(i % 5)), "labels": torch.tensor([float(i % 3)])}


def _hit(rank: int) -> bool:
    return FAULT != "none" and BAD in (rank, -1)


def _fail(rank: int, step: int) -> None:
    """The fault of a rank at its step (those that happen in the loop, before the step's all-reduce)."""
    if FAULT == "sigkill":
        os.kill(os.getpid(), signal.SIGKILL)
    elif FAULT == "segfault":
        ctypes.string_at(0)
    elif FAULT == "abort":
        os.abort()
    elif FAULT == "stall":
        print(f"Rank {rank}: step {step} waiting for the eval shard", flush=True)
        time.sleep(TIMEOUT_S * 8)
    elif FAULT == "memoryerror":
        import numpy as np
        import resource

        with open("/proc/self/status") as f:
            vm_kib = next(int(line.split()[1]) for line in f if line.startswith("VmSize:"))
        limit = (vm_kib << 10) + (512 << 20)
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        np.zeros((4096, 1024, 1024), dtype=np.float32)  # a 16 GiB feature cache


def train(rank: int, world: int, local: int) -> None:
    dist.init_process_group("gloo", rank=rank, world_size=world, timeout=dt.timedelta(seconds=TIMEOUT_S))
    print(f"Rank {rank}: initialized (world {world}, local rank {local})", flush=True)
    per_rank = BATCH * STEPS
    kill_at = rank + world * BATCH * AT if _hit(rank) and FAULT == "loader-killed" else None
    data = Samples(per_rank * world, kill_at)
    loader = DataLoader(data, batch_size=BATCH, num_workers=2, sampler=DistributedSampler(data, world, rank, shuffle=False))
    model = DDP(torch.nn.Linear(8, 1))
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    for step, batch in enumerate(loader):
        if _hit(rank) and step == AT:
            if FAULT == "exit0":
                print(f"Rank {rank}: no more batches, leaving the loop", flush=True)
                return
            if FAULT == "keyerror":
                batch = {"input": batch["input"]}
            _fail(rank, step)
        loss = torch.nn.functional.mse_loss(model(batch["input"]), batch["labels"])
        opt.zero_grad()
        loss.backward()
        opt.step()
        print(f"Rank {rank}: step {step}/{STEPS} loss {loss.item():.4f}", flush=True)
        time.sleep(0.2)
    dist.destroy_process_group()
    print(f"Rank {rank}: finished", flush=True)


def _spawned(local: int, world: int, port: int) -> None:
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
    train(local, world, local)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--spawn", type=int, default=0, help="processes to start with torch.multiprocessing.spawn")
    ap.add_argument("--master-port", type=int, default=29500)
    args = ap.parse_args()
    if args.spawn:
        import torch.multiprocessing as mp

        mp.spawn(_spawned, args=(args.spawn, args.master_port), nprocs=args.spawn, join=True)
        return
    train(int(ENV["RANK"]), int(ENV["WORLD_SIZE"]), int(ENV["LOCAL_RANK"]))


if __name__ == "__main__":
    sys.exit(main())
