"""The thirty-sixth set's training program (tests/tools/torch_scenarios36.py records it): confounders, where the culprit
is not the first or the loudest error in the log, on CPU with gloo, 2 agents x 2 processes (world 4). A tiny linear
model whose gradients and loss are all-reduced by hand; the lines a real training script prints (``logging`` as
``basicConfig`` sets it up, warnings, tracebacks it prints and goes on). One fault at step K10S_FAULT_STEP on
K10S_FAULT_RANK (-1: every rank); the rank in K10S_T36_NOISY (if any) prints a library's error chatter and goes on. The
process group's set-up and the recorder's node mark come from t11_worker.

Faults (K10S_FAULT):
ckpt-keyerror  the rank's batch lookup raises ``KeyError``; its handler saves an emergency checkpoint for a few seconds
               (K10S_T36_SAVE_S, SIGTERM deferred while it writes) before it re-raises: its peers time out first
indexerror     the rank indexes past its dataset's end (``IndexError``) after another rank's recovered chatter
chained        the rank cannot open its data shard: ``raise RuntimeError(...) from e``; every rank's all-reduce handler
               logs and calls ``dist.barrier()`` before re-raising ("During handling of the above exception")
loss-nan       the rank's batch holds a NaN; the script raises ``ValueError`` on its non-finite loss
sigkill        the rank is SIGKILLed (the kernel's OOM killer) just after the noisy rank printed a recovered traceback
same-error     (every rank, a control) logs the same ERROR line (no eval set: evaluation skipped) and ends well
same-raise     (every rank, a control) the same ``ValueError`` from an empty dataset's sampler; node 1's ranks a few
               seconds after node 0's (their shared mount answers later)
"""

from __future__ import annotations

import io
import logging
import os
import signal
import time
import traceback
import warnings

import t11_worker as base
import torch
import torch.distributed as dist
from t31_worker import AT_STEP, ENV, FAULT, HIT, LOCAL, ME

NOISY = int(ENV.get("K10S_T36_NOISY", "-9"))
SAVE_S = float(ENV.get("K10S_T36_SAVE_S", "6"))
LOG = logging.getLogger("trainer")


def _chatter(n: int, retry_s: float = 0.2) -> None:
    """What a healthy rank's libraries print on a bad day: a retried HTTP push, an ERROR record, a UserWarning, a
    traceback printed by a retry loop that then succeeds."""
    if n == 1:
        logging.getLogger("urllib3.connectionpool").warning(
            "Retrying (Retry(total=2, connect=None, read=None, redirect=None, status=None)) after connection broken by "
            "'NewConnectionError('<urllib3.connection.HTTPConnection object at 0x7f3a2c1d5e50>: Failed to establish a new "
            "connection: [Errno 111] Connection refused')': /metrics/job/train")
        logging.getLogger("metrics").error("Failed to push metrics to http://pushgateway:9091: [Errno 111] Connection refused")
        warnings.warn("metrics endpoint unavailable; buffering 12 points locally", UserWarning, stacklevel=1)
    for attempt in (1, 2):
        try:
            if attempt == 1:
                raise ConnectionRefusedError(111, "Connection refused")
            print(f"metrics push succeeded after {attempt - 1} retry", flush=True)
            return
        except ConnectionRefusedError:
            traceback.print_exc()
            print(f"retrying metrics push in {retry_s:.1f}s ({attempt}/3)", flush=True)
            time.sleep(retry_s)


def _emergency_save(model: torch.nn.Module, n: int) -> None:
    """Write an emergency checkpoint before stopping (SIGTERM deferred until it is written)."""
    prev = signal.signal(signal.SIGTERM, lambda *_: print(f"rank {ME}: SIGTERM received while writing the emergency "
                                                          "checkpoint, finishing it first", flush=True))
    LOG.warning("rank %d: step %d failed, saving emergency checkpoint to /checkpoints/emergency-step%d-rank%d.pt", ME,
                n, n, ME)
    buf = io.BytesIO()
    torch.save({"model": model.state_dict(), "step": n}, buf)
    time.sleep(SAVE_S)  # the write to a slow shared volume
    LOG.warning("rank %d: emergency checkpoint written (%d bytes)", ME, buf.tell())
    signal.signal(signal.SIGTERM, prev)


def _batch(model: torch.nn.Module, n: int) -> torch.Tensor:
    hit = n == AT_STEP and HIT
    x = torch.randn(4, 8)
    if hit and FAULT == "ckpt-keyerror":
        try:
            return {"input_ids": x}["labels"]
        except KeyError:
            _emergency_save(model, n)
            raise
    if hit and FAULT == "indexerror":
        data = torch.randn(4096, 8)
        return data[torch.arange(4093, 4097)]
    if hit and FAULT == "chained":
        path = f"/data/train/shard-{ME:05d}-of-00004.bin"
        try:
            with open(path, "rb") as f:
                return torch.frombuffer(bytearray(f.read(128)), dtype=torch.float32).reshape(4, 8)
        except OSError as e:
            raise RuntimeError(f"rank {ME}: cannot read training shard {path} at step {n}") from e
    if hit and FAULT == "loss-nan":
        x[2, 5] = float("nan")
    if n == AT_STEP and FAULT == "same-raise":
        time.sleep(3.0 * int(ENV.get("GROUP_RANK", "0")))  # node 1's mount answers later
        from torch.utils.data import DataLoader

        iter(DataLoader(torch.empty(0, 8), batch_size=4, shuffle=True))
    return x


def _reduce(t: torch.Tensor, n: int) -> None:
    try:
        dist.all_reduce(t)
    except Exception:
        if FAULT != "chained":
            raise
        LOG.error("rank %d: all-reduce failed at step %d; synchronising ranks before shutdown", ME, n)
        dist.barrier()
        raise


def main() -> None:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s - %(name)s - %(levelname)s - %(message)s")
    world = int(ENV["WORLD_SIZE"])
    print(f"rank {ME}/{world} (local {LOCAL}, pid {os.getpid()}) starting", flush=True)
    base._init(ME, world)
    base._mark(LOCAL)
    torch.manual_seed(0)
    model = torch.nn.Linear(8, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    for n in range(int(ENV.get("K10S_STEPS", "6"))):
        if ME == NOISY and n in (1, 2, AT_STEP):
            _chatter(n, retry_s=0.5 if n == AT_STEP else 0.2)
        if n == AT_STEP and HIT and FAULT == "sigkill":
            time.sleep(0.2)
            os.kill(os.getpid(), signal.SIGKILL)
        loss = model(_batch(model, n)).pow(2).mean()
        if not torch.isfinite(loss):
            raise ValueError(f"Loss is NaN at step {n} (rank {ME}), stopping training")
        loss.backward()
        for p in model.parameters():
            _reduce(p.grad, n)
            p.grad /= world
        opt.step()
        opt.zero_grad()
        total = loss.detach().reshape(1)
        _reduce(total, n)
        print(f"rank {ME} step {n} loss {float(total) / world:.4f}", flush=True)
        if n == 2 and FAULT == "same-error":
            LOG.error("evaluation dataset 'validation' not found under /data/eval; skipping evaluation")
        time.sleep(0.3)
    dist.destroy_process_group()
    print(f"rank {ME} done", flush=True)


if __name__ == "__main__":
    main()
