"""A tiny gloo training loop that injects one fault (tests/tools/record_torch.py runs it).

Run by torchrun / torch.distributed.launch (rank from the environment or ``--local-rank``) or
imported by the mp.spawn runner (``spawn_main``). The fault comes from the environment:

K10S_FAULT       none | sigkill | segfault | exception | abort | sigbus | never-joins |
                 monitored-barrier | op-mismatch | size-mismatch | hang | exit0
K10S_FAULT_RANK  the global rank that misbehaves (default 1)
K10S_FAULT_STEP  the step at which it does (default 3)
K10S_STEPS       steps in all (default 6)
K10S_MARK_DIR    where local rank 0 notes which agent got which node (not part of any log)
"""

from __future__ import annotations

import ctypes
import datetime as dt
import os
import signal
import sys
import time

import torch
import torch.distributed as dist

GLOO_TIMEOUT_S = float(os.environ.get("K10S_GLOO_TIMEOUT_S", "6"))


def _fault(kind: str, rank: int, step: int) -> None:
    """Misbehave as ``kind`` says (collectives that differ are run by the caller)."""
    if kind == "sigkill":
        os.kill(os.getpid(), signal.SIGKILL)
    elif kind == "segfault":
        ctypes.string_at(0)
    elif kind == "exception":
        batch = {"input_ids": torch.ones(4)}
        print(f"rank {rank}: loading step {step} batch", flush=True)
        _ = batch["labels"]
    elif kind == "abort":
        os.abort()
    elif kind == "sigbus":
        os.kill(os.getpid(), signal.SIGBUS)
    elif kind == "hang":
        time.sleep(3600)
    elif kind == "exit0":
        sys.exit(0)


def _step(rank: int, world: int, step: int, kind: str, culprit: bool) -> None:
    t = torch.ones(8) * (rank + 1)
    if culprit and kind == "op-mismatch":
        dist.broadcast(t, src=0)
    elif culprit and kind == "size-mismatch":
        dist.all_reduce(torch.ones(5))
    elif kind == "monitored-barrier":
        if culprit:
            time.sleep(GLOO_TIMEOUT_S * 4)
        dist.monitored_barrier(timeout=dt.timedelta(seconds=GLOO_TIMEOUT_S / 2))
    else:
        dist.all_reduce(t)
        assert t[0].item() == world * (world + 1) / 2


def train(rank: int, world: int, local_rank: int, init_method: str = "env://") -> None:
    kind = os.environ.get("K10S_FAULT", "none")
    bad_rank = int(os.environ.get("K10S_FAULT_RANK", "1"))
    bad_step = int(os.environ.get("K10S_FAULT_STEP", "3"))
    steps = int(os.environ.get("K10S_STEPS", "6"))
    culprit = rank == bad_rank and kind != "none"
    if culprit and kind == "never-joins":
        time.sleep(GLOO_TIMEOUT_S * 6)
        sys.exit(0)
    dist.init_process_group("gloo", init_method=init_method, rank=rank, world_size=world,
                            timeout=dt.timedelta(seconds=GLOO_TIMEOUT_S))
    mark = os.environ.get("K10S_MARK_DIR")
    if mark and local_rank == 0:
        with open(os.path.join(mark, f"group-{os.environ.get('GROUP_RANK', '0')}"), "w") as f:
            f.write(os.environ.get("K10S_AGENT", ""))
    print(f"rank {rank}/{world} (local {local_rank}) initialised", flush=True)
    for step in range(steps):
        if culprit and step == bad_step:
            _fault(kind, rank, step)
        _step(rank, world, step, kind, culprit and step == bad_step)
        if rank == 0:
            print(f"step {step} loss {1.0 / (step + 1):.4f}", flush=True)
        time.sleep(0.3)
    dist.destroy_process_group()
    print(f"rank {rank} done", flush=True)


def spawn_main(local_rank: int, world: int, port: int) -> None:
    """mp.spawn's entry: one node, global rank = local rank."""
    train(local_rank, world, local_rank, init_method=f"tcp://127.0.0.1:{port}")


def main() -> None:
    for arg in sys.argv[1:]:
        if arg.startswith(("--local-rank=", "--local_rank=")):
            os.environ.setdefault("LOCAL_RANK", arg.split("=", 1)[1])
    train(int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"]), int(os.environ.get("LOCAL_RANK", "0")))


if __name__ == "__main__":
    main()
