"""The fifty-second set's training program (tests/tools/torch_scenarios52.py records it): a DDP loop on gloo on CPU, the
same program on every rank, with no fault switch in here: whatever goes wrong is what an earlier job or attempt left on
the host (the recorder's own stand-ins for a stale process, a half-written checkpoint, a previous job's files):

CKPT_DIR     the resume folder: before its first step every rank loads ``last.pt`` there (one checkpoint for all), or
             else its own ``rank<rank>.pt`` if there is one (a sharded checkpoint); a fresh start when neither is there
SCRATCH_DIR  the node-local scratch (``node<node>/`` below it, the node by its GROUP_RANK): at step K10S_FAULT_STEP
             (default 3) each rank writes its cache ``rank<rank>.cache`` there (a cache another user owns is refused:
             ``PermissionError``); the node's local rank 0 then takes the node's ``loader.lock`` (an exclusive ``flock``)
             and opens the node's loader port, SIDE_PORTS' ``node``-th (bound on 127.0.0.1 until the program ends)

Each step does a few small matrix products (a little CPU work) and prints the step's loss and wall time.
"""

from __future__ import annotations

import datetime as dt
import errno
import fcntl
import os
import socket
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
_KEEP: list = []


def _resume(model: torch.nn.Module) -> None:
    folder = ENV.get("CKPT_DIR", "/tmp")
    for name in ("last.pt", f"rank{ME}.pt"):
        path = os.path.join(folder, name)
        if os.path.exists(path):
            print(f"rank {ME}: resuming from {path} ({os.path.getsize(path)} bytes)", flush=True)
            model.load_state_dict(torch.load(path, weights_only=True))
            print(f"rank {ME}: resumed", flush=True)
            return
    print(f"rank {ME}: no checkpoint in {folder}: a fresh start", flush=True)


def _scratch(step: int) -> None:
    folder = os.path.join(ENV.get("SCRATCH_DIR", "/tmp"), f"node{NODE}")
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, f"rank{ME}.cache")
    print(f"rank {ME}: step {step} writing its cache {path}", flush=True)
    if os.path.exists(path):
        st = os.stat(path)
        if st.st_uid != os.getuid():
            print(f"rank {ME}: {path} is owned by uid {st.st_uid} (mode {st.st_mode & 0o777:o}), not {os.getuid()}",
                  flush=True)
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), path)
    with open(path, "wb") as f:
        f.write(b"\0" * (64 << 10))
    if LOCAL != 0:
        return
    lock_path = os.path.join(folder, "loader.lock")
    print(f"rank {ME}: step {step} taking node {NODE}'s loader lock {lock_path}", flush=True)
    lock = open(lock_path, "w")
    fcntl.flock(lock.fileno(), fcntl.LOCK_EX)
    _KEEP.append(lock)
    port = int(ENV.get("SIDE_PORTS", "0,0").split(",")[NODE])
    print(f"rank {ME}: step {step} opening node {NODE}'s loader port 127.0.0.1:{port}", flush=True)
    s = socket.socket()
    s.bind(("127.0.0.1", port))
    s.listen()
    _KEEP.append(s)


def _work() -> None:
    a = torch.randn(256, 256, generator=torch.Generator().manual_seed(ME))
    for _ in range(40):  # about 20 ms of one CPU
        a = torch.tanh(a @ a / 256)


def main() -> None:
    world = int(ENV["WORLD_SIZE"])
    print(f"rank {ME}/{world} (local {LOCAL}, node {NODE}, pid {os.getpid()}) starting: ckpt {ENV.get('CKPT_DIR')}",
          flush=True)
    dist.init_process_group("gloo", timeout=dt.timedelta(seconds=TIMEOUT_S))
    mark = ENV.get("K10S_MARK_DIR")
    if mark and LOCAL == 0:
        with open(os.path.join(mark, f"group-{ENV.get('GROUP_RANK', '0')}"), "w") as f:
            f.write(ENV.get("K10S_AGENT", ""))
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 1))
    _resume(model)
    ddp = DDP(model)
    opt = torch.optim.SGD(ddp.parameters(), lr=0.01)
    for step in range(STEPS):
        t0 = time.time()
        if step == AT:
            _scratch(step)
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
