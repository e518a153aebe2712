"""The thirty-second set's training program (tests/tools/torch_scenarios32.py records it): a tiny linear model whose
gradients are flattened into one bucket and all-reduced by hand over gloo, with PyTorch's flight recorder on
(``TORCH_FR_BUFFER_SIZE``). gloo has no watchdog that dumps the recorder, so the program dumps it as users do for a
gloo job: ``torch._C._distributed_c10d._dump_fr_trace()`` written to ``$TORCH_FR_DUMP_TEMP_FILE<rank>`` when a
collective fails and when training ends. One fault at step K10S_FAULT_STEP on K10S_FAULT_RANK (-1: every rank).

Faults (K10S_FAULT):
skip        the rank skips its step's all-reduce (a rank-local ``continue``): it runs one collective ahead of its peers
            and ends training while they wait in their last all-reduce
other-op    the rank calls ``broadcast`` from rank 0 where its peers call ``all_reduce``
size        the rank all-reduces a bucket one element longer than its peers'
compute     the rank is stuck in its own compute (a 60 s loop) before its step's all-reduce
sigkill     the rank SIGKILLs itself in the middle of its step (after its forward)
p2p-cycle   every rank receives from the next rank before sending (a ring of recv): every rank times out alike
"""

from __future__ import annotations

import os
import signal
import time

import t11_worker as base
import torch
import torch._C._distributed_c10d as c10d
import torch.distributed as dist
# the same fault knobs (K10S_FAULT, K10S_FAULT_STEP, K10S_FAULT_RANK) as set 31's worker
from t31_worker import AT_STEP, ENV, FAULT, HIT, LOCAL, ME


def dump_flight_recorder() -> None:
    path = ENV.get("TORCH_FR_DUMP_TEMP_FILE", "/tmp/nccl_trace_rank_") + str(ME)
    with open(path, "wb") as f:
        f.write(c10d._dump_fr_trace())
    print(f"rank {ME}: flight recorder dumped to {os.path.basename(path)}", flush=True)


def _sync(bucket: torch.Tensor, world: int) -> None:
    if HIT and FAULT == "other-op":
        dist.broadcast(bucket, src=0)
    elif HIT and FAULT == "size":
        dist.all_reduce(torch.cat([bucket, torch.zeros(1)]))
    elif FAULT == "p2p-cycle" and HIT:
        dist.recv(bucket, src=(ME + 1) % world)
        dist.send(bucket, dst=(ME - 1) % world)
    else:
        dist.all_reduce(bucket)


def step(model, opt, world: int, n: int) -> None:
    loss = model(torch.randn(4, 8)).pow(2).mean()
    if n == AT_STEP and HIT and FAULT == "sigkill":
        os.kill(os.getpid(), signal.SIGKILL)
    loss.backward()
    if n == AT_STEP and HIT and FAULT == "compute":
        end = time.time() + 60
        while time.time() < end:
            torch.randn(64, 64) @ torch.randn(64, 64)
    grads = [p.grad for p in model.parameters()]
    bucket = torch.cat([g.flatten() for g in grads])
    if not (n == AT_STEP and HIT and FAULT == "skip"):
        if n == AT_STEP:
            _sync(bucket, world)
        else:
            dist.all_reduce(bucket)
    offset = 0
    for g in grads:
        g.copy_(bucket[offset:offset + g.numel()].view_as(g) / world)
        offset += g.numel()
    opt.step()
    opt.zero_grad()
    print(f"rank {ME} step {n} loss {loss.item():.4f}", flush=True)


def main() -> None:
    world = int(ENV["WORLD_SIZE"])
    print(f"rank {ME}/{world} (local {LOCAL}, pid {os.getpid()}) starting, TORCH_FR_BUFFER_SIZE={ENV.get('TORCH_FR_BUFFER_SIZE')}",
          flush=True)
    base._init(ME, world)
    base._mark(LOCAL)
    torch.manual_seed(0)
    model = torch.nn.Linear(8, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    try:
        for n in range(int(ENV.get("K10S_STEPS", "6"))):
            step(model, opt, world, n)
            time.sleep(0.3)
    except Exception:
        dump_flight_recorder()
        raise
    dump_flight_recorder()
    dist.destroy_process_group()
    print(f"rank {ME} done", flush=True)


if __name__ == "__main__":
    main()
