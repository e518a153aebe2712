"""The fourteenth set's training program (tests/tools/torch_scenarios14.py records it), run by ``torchrun``: a tiny
linear model whose gradients are all-reduced by hand over gloo (the process group's set-up and the recorder's node
mark come from t11_worker). One fault on K10S_FAULT_RANK (-1: every rank) at step K10S_FAULT_STEP.

Faults (K10S_FAULT):
timer-hang      each step runs in a file-timer scope (``torch.distributed.elastic.timer.expires(after=2)``, the
                agent's ``TORCHELASTIC_TIMER_FILE``); the rank sleeps in it until the agent's watchdog reaps it
dev-full        the rank's metrics file is on a full disk (``/dev/full``): ``OSError: [Errno 28]``
sigint          the rank gets SIGINT (as ``kill -INT`` sends it): ``KeyboardInterrupt``
pool-error      the rank's shard preprocessing (``multiprocessing.Pool.map``) meets a bad record in a pool task
pool-handled    (control) the same failure caught: its traceback printed, the shard done in-process; the run ends well
clip-nonfinite  the rank's gradients are infinite; ``clip_grad_norm_(error_if_nonfinite=True)`` raises
alarm           the rank arms ``signal.alarm(1)`` (a data-fetch guard never cancelled): SIGALRM ends it
load-cuda       the rank resumes a checkpoint with ``map_location='cuda:0'`` on a machine without CUDA
send-self       (K10S_RING) each step's activations go round a ring; the rank's next hop is itself
gather-size     the rank's ``all_gather_into_tensor`` output is one row too long
ddp-device-ids  the rank wraps its CPU model in DDP with ``device_ids=[local rank]``
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import time
import traceback
from contextlib import nullcontext

import t11_worker as base
import torch
import torch.distributed as dist

ENV = os.environ
FAULT = ENV.get("K10S_FAULT", "none")
AT_STEP = int(ENV.get("K10S_FAULT_STEP", "3"))
ME = int(ENV.get("RANK", "-2"))
HIT = FAULT != "none" and int(ENV.get("K10S_FAULT_RANK", "1")) in (ME, -1)


def _tokenize(record: str) -> int:
    if record.startswith("\x00"):
        raise ValueError(f"shard record {record!r} is not valid JSON: Expecting value: line 1 column 1 (char 0)")
    return len(record)


def _shards(bad: bool) -> int:
    records = [f'{{"text": "sample {i}"}}' for i in range(8)]
    if bad:
        records[5] = "\x00\x00garbage"
    with multiprocessing.get_context("fork").Pool(2) as pool:
        return sum(pool.map(_tokenize, records))


def _checkpoint() -> dict:
    path = os.path.join(ENV.get("K10S_MARK_DIR", "/tmp"), f"resume-{ME}.pt")
    torch.save({"step": 2, "w": torch.zeros(1, 8)}, path)
    return torch.load(path, map_location="cuda:0")


def _inject(step: int, model: torch.nn.Module) -> None:
    """The fault before the step's collectives (those in the collectives themselves: ``_exchange``, ``_gather``)."""
    if FAULT == "timer-hang":
        time.sleep(60)
    elif FAULT == "dev-full":
        with open("/dev/full", "w") as metrics:
            metrics.write(f"step={step} rank={ME} loss=0.5 tokens=4096\n" * 2048)
            metrics.flush()
    elif FAULT == "sigint":
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(1)
    elif FAULT == "pool-error":
        _shards(bad=True)
    elif FAULT == "pool-handled":
        try:
            _shards(bad=True)
        except ValueError:
            traceback.print_exc()
            print(f"rank {ME}: shard preprocessing failed in the pool, redone in-process (bad record skipped)", flush=True)
    elif FAULT == "alarm":
        signal.alarm(1)
    elif FAULT == "load-cuda":
        _checkpoint()
    elif FAULT == "clip-nonfinite":
        for p in model.parameters():
            p.grad = torch.full_like(p, float("inf"))
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0, error_if_nonfinite=True)


def _exchange(step: int, world: int, x: torch.Tensor) -> torch.Tensor:
    """The activations one hop round the ring (K10S_RING)."""
    nxt = ME if HIT and step == AT_STEP and FAULT == "send-self" else (ME + 1) % world
    got = torch.empty_like(x)
    req = dist.isend(x, dst=nxt)
    dist.recv(got, src=(ME - 1) % world)
    req.wait()
    return got


def _gather(step: int, world: int, loss: torch.Tensor) -> None:
    rows = world + 1 if HIT and step == AT_STEP and FAULT == "gather-size" else world
    dist.all_gather_into_tensor(torch.empty(rows), loss.detach().reshape(1))


def _scope():
    if not ENV.get("TORCHELASTIC_TIMER_FILE"):
        return nullcontext()
    from torch.distributed.elastic import timer

    return timer.expires(after=2, scope="train_step")


def main() -> None:
    world, local = int(ENV["WORLD_SIZE"]), int(ENV.get("LOCAL_RANK", "0"))
    base._init(ME, world)
    base._mark(local)
    if ENV.get("TORCHELASTIC_TIMER_FILE"):
        from torch.distributed.elastic import timer

        timer.configure(timer.FileTimerClient(ENV["TORCHELASTIC_TIMER_FILE"]))
    print(f"rank {ME}/{world} (local {local}, pid {os.getpid()}) initialised", flush=True)
    torch.manual_seed(0)
    model = torch.nn.Linear(8, 1)
    if FAULT == "ddp-device-ids" and HIT:
        model = torch.nn.parallel.DistributedDataParallel(model, device_ids=[local])
    for step in range(int(ENV.get("K10S_STEPS", "6"))):
        x = torch.full((4, 8), (step + ME + 1) / 10)
        x = _exchange(step, world, x) if ENV.get("K10S_RING") else x
        with _scope():  # the rank's own work (the collectives wait on peers: outside the timer)
            if HIT and step == AT_STEP:
                _inject(step, model)
            loss = model(x).pow(2).mean()
            loss.backward()
        _gather(step, world, loss)
        with torch.no_grad():
            for p in model.parameters():
                dist.all_reduce(p.grad)
                p -= 0.01 * p.grad / world
                p.grad = None
        print(f"rank {ME} step {step} loss {loss.item():.4f}", flush=True)
        time.sleep(0.3)
    dist.destroy_process_group()
    print(f"rank {ME} done", flush=True)


if __name__ == "__main__":
    main()
