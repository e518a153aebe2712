"""The fifty-first set's training program (tests/tools/torch_scenarios51.py records it): a DDP loop on gloo on CPU, the
same program on every rank, with no fault switch in here: whatever goes wrong comes from outside the process (the
recorder's own stand-ins for an operator, a cgroup, a mount or another job act on it while it runs):

DATA_DIR    the shared data mount: at step K10S_FAULT_STEP (default 3) each rank reads its next shard,
            ``shard-<rank>.bin`` (256 KiB); a short read (the mount gave up) raises ``OSError: [Errno 5]``
CKPT_DIR    at that step rank 0 writes a checkpoint there, under an exclusive ``flock`` of ``ckpt.lock`` (the lock
            every job writing to that folder takes)
STATUS_DIR  each rank's status file, ``rank<rank>``: its pid and the step it is on, rewritten as each step starts (what a
            node's monitoring agent reads)

Each step does a few small matrix products (a little CPU work) and prints the step's loss and wall time.
"""

from __future__ import annotations

import datetime as dt
import errno
import fcntl
import os
import time

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

ENV = os.environ
TIMEOUT_S = float(ENV.get("K10S_GLOO_TIMEOUT_S", "3"))
AT = int(ENV.get("K10S_FAULT_STEP", "3"))
STEPS = int(ENV.get("K10S_STEPS", "8"))
ME, LOCAL = int(ENV.get("RANK", "0")), int(ENV.get("LOCAL_RANK", "0"))
NODE = int(ENV.get("GROUP_RANK", "0"))
SHARD_BYTES = 256 << 10


def _status(step: int) -> None:
    folder = ENV.get("STATUS_DIR")
    if not folder:
        return
    path = os.path.join(folder, f"rank{ME}")
    with open(path + ".tmp", "w") as f:
        f.write(f"{os.getpid()} {step}\n")
    os.replace(path + ".tmp", path)


def _read_shard(step: int) -> int:
    path = os.path.join(ENV.get("DATA_DIR", "/tmp"), f"shard-{ME}.bin")
    print(f"rank {ME}: step {step} reading shard {path}", flush=True)
    t0, got = time.time(), 0
    with open(path, "rb") as f:
        while got < SHARD_BYTES:
            chunk = f.read(SHARD_BYTES - got)
            if not chunk:
                print(f"rank {ME}: short read of {path}: {got} of {SHARD_BYTES} bytes", flush=True)
                raise OSError(errno.EIO, os.strerror(errno.EIO), path)
            got += len(chunk)
    print(f"rank {ME}: read {got} bytes in {time.time() - t0:.2f}s", flush=True)
    return got


def _checkpoint(step: int, model: torch.nn.Module) -> None:
    folder = ENV.get("CKPT_DIR", "/tmp")
    print(f"rank {ME}: step {step} taking the checkpoint lock {os.path.join(folder, 'ckpt.lock')}", flush=True)
    with open(os.path.join(folder, "ckpt.lock"), "w") as lock:
        fcntl.flock(lock.fileno(), fcntl.LOCK_EX)
        torch.save(model.state_dict(), os.path.join(folder, f"step{step}.pt"))
        fcntl.flock(lock.fileno(), fcntl.LOCK_UN)
    print(f"rank {ME}: checkpoint step{step}.pt written", flush=True)


def _work() -> None:
    a = torch.randn(256, 256, generator=torch.Generator().manual_seed(ME))
    for _ in range(40):  # about 20 ms of one CPU
        a = torch.tanh(a @ a / 256)


def main() -> None:
    world = int(ENV["WORLD_SIZE"])
    print(f"rank {ME}/{world} (local {LOCAL}, node {NODE}, pid {os.getpid()}) starting: data {ENV.get('DATA_DIR')}",
          flush=True)
    _status(-1)
    dist.init_process_group("gloo", timeout=dt.timedelta(seconds=TIMEOUT_S))
    mark = ENV.get("K10S_MARK_DIR")
    if mark and LOCAL == 0:
        with open(os.path.join(mark, f"group-{ENV.get('GROUP_RANK', '0')}"), "w") as f:
            f.write(ENV.get("K10S_AGENT", ""))
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 1))
    ddp = DDP(model)
    opt = torch.optim.SGD(ddp.parameters(), lr=0.01)
    for step in range(STEPS):
        t0 = time.time()
        _status(step)
        if step == AT:
            _read_shard(step)
            if ME == 0:
                _checkpoint(step, model)
        _work()
        opt.zero_grad()
        x = torch.randn(4, 8, generator=torch.Generator().manual_seed(step * 100 + ME))
        loss = torch.nn.functional.mse_loss(ddp(x), torch.zeros(4, 1))
        loss.backward()
        opt.step()
        print(f"rank {ME} step {step} loss {loss.item():.4f} ({time.time() - t0:.2f}s)", flush=True)
        time.sleep(0.2)
    dist.barrier()
    dist.destroy_process_group()
    print(f"rank {ME} done", flush=True)


if __name__ == "__main__":
    main()
