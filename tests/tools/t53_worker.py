"""The fifty-third set's training program (tests/tools/torch_scenarios53.py records it): a DDP loop on gloo on CPU, the
same program on every rank, each rank reading its own data shard. K10S_FAULT names the numerical fault, K10S_FAULT_RANK
the rank whose shard holds the bad sample (K10S_FAULT_STEP: its step, default 3); ``every`` faults are every rank's:

assert      the shard's sample at the step is NaN; the rank checks its loss before backward
            (``assert torch.isfinite(loss), ...``): ``AssertionError``
fpe         the same, the check as Lightning/fairseq word it: ``FloatingPointError: loss is nan at step N``
anomaly     the same, under ``torch.autograd.detect_anomaly()`` (every rank's): the rank's backward raises
            ``RuntimeError: Function 'MseLossBackward0' returned nan values in its 0th output.`` before any all-reduce
scaler      the shard's samples are huge from the step on (the loss overflows to inf); the rank's own loss-scaler check
            (before backward) skips the step, halving its scale, and gives up after 3 skipped steps (``RuntimeError``)
zerodiv     the rank's batch at the step is empty: its mean over the batch divides by a zero count
            (``ZeroDivisionError: float division by zero``)
lr-high     every rank: the learning-rate schedule jumps to 1e30 at the step; the weights (the same on every rank after
            the all-reduce) overflow, and at the next step every rank's loss check raises
            ``FloatingPointError: loss is inf at step N`` alike
spread      the rank's sample is NaN, no check before backward: DDP's all-reduce carries its NaN gradients to every rank
            and every rank's ``clip_grad_norm_(..., error_if_nonfinite=True)`` raises alike (nothing of the bad rank's
            own precedes)
spread-shown  the same, each rank printing its loss before backward (the bad rank's ``loss nan`` line precedes)
warn-skip   every rank's sample at the step is NaN: every rank prints ``WARNING: loss is nan, skipping step`` and skips
            it (no collective skipped unevenly); the job completes

Each step does a few small matrix products (a little CPU work) and prints the step's loss and wall time.
"""

from __future__ import annotations

import datetime as dt
import os
import time

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

ENV = os.environ
TIMEOUT_S = float(ENV.get("K10S_GLOO_TIMEOUT_S", "3"))
FAULT = ENV.get("K10S_FAULT", "none")
BAD = int(ENV.get("K10S_FAULT_RANK", "-1"))
AT = int(ENV.get("K10S_FAULT_STEP", "3"))
STEPS = int(ENV.get("K10S_STEPS", "8"))
ME, LOCAL = int(ENV.get("RANK", "0")), int(ENV.get("LOCAL_RANK", "0"))
NODE = int(ENV.get("GROUP_RANK", "0"))


def _batch(step: int) -> tuple[torch.Tensor, torch.Tensor]:
    """The rank's shard's batch at ``step`` (the bad sample where the fault puts it)."""
    g = torch.Generator().manual_seed(step * 100 + ME)
    x, y = torch.randn(4, 8, generator=g), torch.zeros(4, 1)
    mine = ME == BAD or FAULT == "warn-skip"
    if mine and step == AT and FAULT in ("assert", "fpe", "anomaly", "spread", "spread-shown", "warn-skip"):
        x[2, 5] = float("nan")
    if mine and step >= AT and FAULT == "scaler":
        x = x * 3e38
    if mine and step == AT and FAULT == "zerodiv":
        x, y = x[:0], y[:0]
    return x, y


def _work() -> None:
    a = torch.randn(256, 256, generator=torch.Generator().manual_seed(ME))
    for _ in range(40):  # about 20 ms of one CPU
        a = torch.tanh(a @ a / 256)


def main() -> None:
    world = int(ENV["WORLD_SIZE"])
    print(f"rank {ME}/{world} (local {LOCAL}, node {NODE}, pid {os.getpid()}) starting", flush=True)
    dist.init_process_group("gloo", timeout=dt.timedelta(seconds=TIMEOUT_S))
    mark = ENV.get("K10S_MARK_DIR")
    if mark and LOCAL == 0:
        with open(os.path.join(mark, f"group-{ENV.get('GROUP_RANK', '0')}"), "w") as f:
            f.write(ENV.get("K10S_AGENT", ""))
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 1))
    ddp = DDP(model)
    opt = torch.optim.SGD(ddp.parameters(), lr=0.01)
    scale, skipped = 65536.0, 0
    if FAULT == "anomaly":
        torch.autograd.set_detect_anomaly(True)
        print(f"rank {ME}: anomaly detection on", flush=True)
    for step in range(STEPS):
        t0 = time.time()
        _work()
        opt.zero_grad()
        x, y = _batch(step)
        if len(x) == 0 or FAULT == "zerodiv":
            out = ddp(x)
            total = ((out - y) ** 2).sum().item()
            count = len(x)
            mean = total / count
            loss = ((out - y) ** 2).sum() / count
            print(f"rank {ME} step {step} batch {count} samples, mean {mean:.4f}", flush=True)
        else:
            loss = torch.nn.functional.mse_loss(ddp(x), y)
        if FAULT in ("assert",):
            assert torch.isfinite(loss), f"loss is {loss.item()} at step {step}"
        if FAULT in ("fpe", "lr-high"):
            if not torch.isfinite(loss):
                raise FloatingPointError(f"loss is {loss.item()} at step {step}")
        if FAULT == "scaler" and not torch.isfinite(loss * scale):
            skipped += 1
            scale /= 2
            print(f"rank {ME}: gradient overflow at step {step}, skipping step, reducing loss scale to {scale}",
                  flush=True)
            if skipped >= 3:
                raise RuntimeError(f"loss scale still overflowing after {skipped} skipped steps (scale {scale}): "
                                   "giving up")
            time.sleep(0.2)
            continue
        if FAULT == "warn-skip" and not torch.isfinite(loss):
            print(f"rank {ME}: WARNING: loss is nan, skipping step {step}", flush=True)
            time.sleep(0.2)
            continue
        if FAULT == "spread-shown":
            print(f"rank {ME} step {step} loss {loss.item():.4f}", flush=True)
        loss.backward()
        if FAULT in ("spread", "spread-shown"):
            torch.nn.utils.clip_grad_norm_(ddp.parameters(), 1.0, error_if_nonfinite=True)
        if FAULT == "lr-high" and step == AT:
            for group in opt.param_groups:
                group["lr"] = 1e30
            print(f"rank {ME}: step {step} lr {opt.param_groups[0]['lr']:g} (warmup peak)", flush=True)
        opt.step()
        if FAULT == "lr-high" and step == AT:
            for group in opt.param_groups:
                group["lr"] = 0.01
        print(f"rank {ME} step {step} loss {loss.item():.4f} ({time.time() - t0:.2f}s)", flush=True)
        time.sleep(0.2)
    dist.barrier()
    dist.destroy_process_group()
    print(f"rank {ME} done", flush=True)


if __name__ == "__main__":
    main()
