"""The fiftieth set's training program (tests/tools/torch_scenarios50.py records it): a DDP loop on gloo on CPU, 2 agents
x 2 processes, the same program on every node; what differs is each node's environment, as the scenario gives it in the
node's command line (tests/tools/torch_scenarios50.py's ``commands``), never a fault switch in here:

CUDA_VISIBLE_DEVICES  when set, validated at start: every local rank needs a device of its own among the ids listed
                      (``-1`` hides every device: ``RuntimeError`` on that node's ranks, after ``init_process_group``)
GRAD_ACCUM            micro-batches a step (default 1); above 1 each step's accumulated loss is all-reduced for the log,
                      one more collective a step than a node without it runs (below 1: ``ValueError`` at start)
SCRATCH_DIR           the node's local scratch: at step K10S_FAULT_STEP (default 3) each rank writes its 256 KiB batch
                      cache there (a full file system: ``OSError: [Errno 28] No space left on device``)
PYTHONPATH            at that step the optimizer's fused step comes from ``fused_ops``, imported then (a node whose
                      path lacks it: ``ModuleNotFoundError: No module named 'fused_ops'``)
(the process's limits) at that step each node's local rank 0 reserves an 8 GiB host prefetch buffer (never touched);
                      under a node's ``ulimit -v`` (``prlimit --as``) torch's allocator fails

The model's hidden size is ``HIDDEN`` below: a node given another copy of this program with another size (an older
checkout) builds parameters of other shapes, which DDP's start-up check compares across ranks.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import os
import time

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

HIDDEN = 16
ENV = os.environ
TIMEOUT_S = float(ENV.get("K10S_GLOO_TIMEOUT_S", "3"))
AT = int(ENV.get("K10S_FAULT_STEP", "3"))
STEPS = int(ENV.get("K10S_STEPS", "6"))
ME, LOCAL = int(ENV.get("RANK", "0")), int(ENV.get("LOCAL_RANK", "0"))
NODE = int(ENV.get("GROUP_RANK", "0"))
LOCAL_WORLD = int(ENV.get("LOCAL_WORLD_SIZE", "1"))


def _check_devices() -> None:
    visible = ENV.get("CUDA_VISIBLE_DEVICES")
    if visible is None:
        return
    ids = [d for d in visible.split(",") if d.strip()]
    if "-1" in ids:
        ids = ids[:ids.index("-1")]  # CUDA's rule: the ids before -1 stay visible
    if LOCAL >= len(ids):
        raise RuntimeError(f"local rank {LOCAL} has no device: CUDA_VISIBLE_DEVICES={visible!r} makes {len(ids)} "
                           f"device(s) visible for {LOCAL_WORLD} local ranks")
    print(f"rank {ME}: device {ids[LOCAL]} (CUDA_VISIBLE_DEVICES={visible})", flush=True)


def _write_cache(step: int) -> None:
    scratch = ENV.get("SCRATCH_DIR", "/tmp")
    path = os.path.join(scratch, f"batch-cache-rank{ME}.bin")
    print(f"rank {ME}: step {step} writing batch cache {path}", flush=True)
    with open(path, "wb") as f:
        for _ in range(4):
            f.write(b"\0" * (64 << 10))
            f.flush()
            os.fsync(f.fileno())


def _prefetch_buffer() -> torch.Tensor | None:
    if LOCAL != 0:
        return None
    print(f"rank {ME}: reserving an 8 GiB host prefetch buffer", flush=True)
    return torch.empty(2 << 30, dtype=torch.float32)  # 8 GiB of address space, never touched


def main() -> None:
    world = int(ENV["WORLD_SIZE"])
    accum = int(ENV.get("GRAD_ACCUM", "1"))
    print(f"rank {ME}/{world} (local {LOCAL}, node {NODE}, pid {os.getpid()}) starting: hidden {HIDDEN}, grad_accum "
          f"{accum}, scratch {ENV.get('SCRATCH_DIR', '/tmp')}", flush=True)
    dist.init_process_group("gloo", timeout=dt.timedelta(seconds=TIMEOUT_S))
    mark = ENV.get("K10S_MARK_DIR")
    if mark and LOCAL == 0:
        with open(os.path.join(mark, f"group-{ENV.get('GROUP_RANK', '0')}"), "w") as f:
            f.write(ENV.get("K10S_AGENT", ""))
    if accum < 1:
        raise ValueError(f"GRAD_ACCUM must be at least 1, got {accum}")
    _check_devices()
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(8, HIDDEN), torch.nn.ReLU(), torch.nn.Linear(HIDDEN, 1))
    ddp = DDP(model)
    opt = torch.optim.SGD(ddp.parameters(), lr=0.01)
    fused_step = None
    prefetch = None
    for step in range(STEPS):
        if step == AT:
            _write_cache(step)
            import fused_ops  # the fused optimizer step, from the step after warm-up on

            fused_step = fused_ops.sgd_step
            prefetch = _prefetch_buffer()
        opt.zero_grad()
        total = torch.zeros(1)
        for micro in range(accum):
            x = torch.randn(4, 8, generator=torch.Generator().manual_seed(step * 100 + micro * 10 + ME))
            with ddp.no_sync() if micro < accum - 1 else contextlib.nullcontext():  # one gradient all-reduce a step
                loss = torch.nn.functional.mse_loss(ddp(x), torch.zeros(4, 1)) / accum
                loss.backward()
            total += loss.detach()
        if accum > 1:  # the accumulated loss, averaged over the ranks for the log
            dist.all_reduce(total)
            total /= world
        if fused_step is not None:
            fused_step(ddp.parameters(), lr=0.01)
        else:
            opt.step()
        print(f"rank {ME} step {step} loss {total.item():.4f}", flush=True)
        time.sleep(0.2)
    del prefetch
    dist.barrier()
    dist.destroy_process_group()
    print(f"rank {ME} done", flush=True)


if __name__ == "__main__":
    main()
