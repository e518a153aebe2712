"""The ninth set's training program (tests/tools/torch_scenarios9.py records it): a tiny model whose
gradients are all-reduced by hand over gloo, K10S_STEPS steps, one fault injected on K10S_FAULT_RANK
(-1: every rank) at step K10S_FAULT_STEP. Run by torchrun (``RANK``), ``torchrun -m`` (as a module),
``torchrun --no-python`` through tests/tools/t9_worker.sh, or Open MPI's mpirun (``OMPI_COMM_WORLD_RANK``).

Faults (K10S_FAULT):
keyerror          ``KeyError`` in the rank's batch lookup
assert            a plain ``assert`` on the gradient norm fails
sigkill           the rank SIGKILLs itself (under t9_worker.sh: bash reports ``Killed``, exit 137)
segfault          ``ctypes.string_at(0)``
slow              the rank, alive, sleeps 3 process-group timeouts before the step's all-reduce
sigstop           the rank SIGSTOPs itself before the step's all-reduce (stopped: no exit, no line)
py-hang           the rank spins in a Python loop before the step's all-reduce
emfile            RLIMIT_NOFILE of 64, the rank opens shard files without closing them (EMFILE)
enospc            rank 0 saves a checkpoint into K10S_CKPT_DIR (a 256 KiB tmpfs): no space left
anomaly           ``torch.autograd.detect_anomaly()``: a sqrt of a negative value, NaN in backward
loader-exception  the rank's DataLoader worker raises ``ValueError`` on a bad sample
thread-exception  the rank's prefetch thread raises; the main thread waits on its queue forever
sys-exit-msg      ``sys.exit("ERROR: …")``: the message on stderr, exit status 1, no traceback
band-float        every rank all-reduces a float tensor with ``ReduceOp.BAND`` (gloo refuses: the same error everywhere)
mesh-cuda         every rank calls ``init_device_mesh("cuda", …)`` on a machine without CUDA
atexit-noise      a clean run; the rank's atexit callback and an object's ``__del__`` raise at exit
nccl-warning      a clean run; rank 0 logs NCCL-looking warnings (harmless)
"""

from __future__ import annotations

import atexit
import ctypes
import datetime as dt
import logging
import os
import queue
import resource
import signal
import sys
import threading
import time

import torch
import torch.distributed as dist

GLOO_TIMEOUT_S = float(os.environ.get("K10S_GLOO_TIMEOUT_S", "5"))
ENV = os.environ
LOG = logging.getLogger("trainer")


class Samples(torch.utils.data.Dataset):
    def __init__(self, bad: int | None):
        self.bad = bad

    def __len__(self) -> int:
        return 64

    def __getitem__(self, i: int):
        if self.bad is not None and i >= self.bad:
            raise ValueError(f"sample {i}: expected 8 features, got 7")
        return torch.ones(8) * (i % 5)


class _Handle:
    def __del__(self):
        raise RuntimeError("metrics handle already closed")


def _flush_metrics() -> None:
    raise ConnectionError("metrics sink at 127.0.0.1:9125 unreachable")


def _open_shards(rank: int) -> None:
    resource.setrlimit(resource.RLIMIT_NOFILE, (64, 64))
    base = os.path.join(ENV.get("K10S_MARK_DIR", "/tmp"), f"shards-{rank}")
    os.makedirs(base, exist_ok=True)
    handles = []
    for i in range(1000):
        handles.append(open(os.path.join(base, f"shard-{i:05d}.bin"), "wb"))


def _save_checkpoint(step: int, model: torch.nn.Module) -> None:
    path = os.path.join(ENV["K10S_CKPT_DIR"], f"step-{step}.pt")
    torch.save({"model": model.state_dict(), "buffer": torch.zeros(1 << 18)}, path)


def _anomaly(model: torch.nn.Module, x: torch.Tensor) -> None:
    with torch.autograd.detect_anomaly():
        out = model(x)
        loss = torch.sqrt(out - 1e6).mean()
        loss.backward()


def _thread_exception() -> None:
    batches: queue.Queue = queue.Queue()

    def prefetch() -> None:
        shard = {"train-00000": 1}
        batches.put(shard["train-00007"])

    threading.Thread(target=prefetch, name="prefetch", daemon=True).start()
    batches.get()  # never arrives


def _stall(kind: str) -> None:
    if kind == "slow":
        time.sleep(GLOO_TIMEOUT_S * 3)
    elif kind == "sigstop":
        os.kill(os.getpid(), signal.SIGSTOP)
    elif kind == "py-hang":
        x = 0
        while True:
            x = (x * 31 + 7) % 1000003


def _fault(kind: str, rank: int, step: int, model: torch.nn.Module, x: torch.Tensor) -> None:
    if kind == "keyerror":
        {"input_ids": x}["labels"]
    elif kind == "assert":
        norm = float(sum(p.grad.norm() for p in model.parameters() if p.grad is not None)) * 1e5 + 1e4
        assert norm < 1e3, f"gradient norm {norm:.1f} exceeds the clip threshold"
    elif kind == "sigkill":
        os.kill(os.getpid(), signal.SIGKILL)
    elif kind == "segfault":
        ctypes.string_at(0)
    elif kind in ("slow", "sigstop", "py-hang"):
        _stall(kind)
    elif kind == "emfile":
        _open_shards(rank)
    elif kind == "enospc":
        _save_checkpoint(step, model)
    elif kind == "anomaly":
        _anomaly(model, x)
    elif kind == "thread-exception":
        _thread_exception()
    elif kind == "sys-exit-msg":
        sys.exit(f"ERROR: shard index 7 out of range for 4 shards (rank {rank})")


def _common(kind: str, world: int) -> None:
    if kind == "band-float":
        dist.all_reduce(torch.ones(2), op=dist.ReduceOp.BAND)
    elif kind == "mesh-cuda":
        from torch.distributed.device_mesh import init_device_mesh

        init_device_mesh("cuda", (world,))


def _noise(rank: int) -> None:
    if ENV.get("K10S_FAULT") == "nccl-warning" and rank == 0:
        logging.basicConfig(format="%(asctime)s %(levelname)s %(name)s: %(message)s")
        LOG.warning("NCCL_ASYNC_ERROR_HANDLING is deprecated; use TORCH_NCCL_ASYNC_ERROR_HANDLING instead")
        LOG.warning("NCCL_IB_DISABLE=1 set: NCCL error handling falls back to sockets (NCCL WARN expected on CPU-only nodes)")
        print("[rank0]:[W ProcessGroupNCCL.cpp:4715] Warning: NCCL backend not used (gloo): ncclCommAbort and "
              "NCCL watchdog timeouts do not apply to this run", file=sys.stderr, flush=True)


def _rank() -> tuple[int, int, int]:
    if "OMPI_COMM_WORLD_RANK" in ENV:
        return int(ENV["OMPI_COMM_WORLD_RANK"]), int(ENV["OMPI_COMM_WORLD_SIZE"]), int(ENV.get("OMPI_COMM_WORLD_LOCAL_RANK", "0"))
    return int(ENV["RANK"]), int(ENV["WORLD_SIZE"]), int(ENV.get("LOCAL_RANK", "0"))


def train(rank: int, world: int, local_rank: int) -> None:
    kind = ENV.get("K10S_FAULT", "none")
    target = int(ENV.get("K10S_FAULT_RANK", "1"))
    culprit = kind != "none" and target in (rank, -1)
    bad_step, steps = int(ENV.get("K10S_FAULT_STEP", "3")), int(ENV.get("K10S_STEPS", "6"))
    dist.init_process_group("gloo", rank=rank, world_size=world, timeout=dt.timedelta(seconds=GLOO_TIMEOUT_S))
    mark = ENV.get("K10S_MARK_DIR")
    if mark and local_rank == 0:
        with open(os.path.join(mark, f"group-{ENV.get('GROUP_RANK', '0')}"), "w") as f:
            f.write(ENV.get("K10S_AGENT", ""))
    print(f"rank {rank}/{world} (local {local_rank}, pid {os.getpid()}) initialised", flush=True)
    _noise(rank)
    if culprit and kind == "atexit-noise":
        atexit.register(_flush_metrics)
        _keep = _Handle()  # noqa: F841  (its __del__ raises at exit)
    torch.manual_seed(0)
    model = torch.nn.Linear(8, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    loader = torch.utils.data.DataLoader(Samples(20 if culprit and kind == "loader-exception" else None), batch_size=4,
                                         num_workers=1 if kind == "loader-exception" else 0)
    batches = iter(loader)
    for step in range(steps):
        x = next(batches)
        if step == bad_step and culprit:
            _fault(kind, rank, step, model, x)
            _common(kind, world)
        loss = model(x).pow(2).mean()
        loss.backward()
        for p in model.parameters():
            dist.all_reduce(p.grad)
            p.grad /= world
        opt.step()
        opt.zero_grad()
        if rank == 0:
            print(f"step {step} loss {loss.item():.4f}", flush=True)
        time.sleep(0.3)
    dist.destroy_process_group()
    print(f"rank {rank} done", flush=True)


def main() -> None:
    train(*_rank())


if __name__ == "__main__":
    main()
