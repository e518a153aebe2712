"""The forty-first set's training program (tests/tools/torch_scenarios41.py records it): a small DDP training script
of the kind users write (a JSON-lines dataset read by a DataLoader with workers, DistributedSampler, DDP, AdamW, a
rank-0 checkpoint followed by ``dist.barrier()``, ``logging`` records with the rank, a metrics gather), gloo on CPU.
One fault from K10S_FAULT on K10S_FAULT_RANK at step K10S_FAULT_STEP (default 3):

bad-record     the dataset holds a truncated JSON line where the rank's sampler reads its step's batch: the rank's
               DataLoader worker raises ``JSONDecodeError`` (the other ranks never read that record)
nan-exit       the rank's loss is NaN: it prints ``Loss is nan, stopping training`` and calls ``sys.exit(1)``
               (the DeiT/timm/MAE training loops' check)
ckpt-enospc    the rank (0) writes its checkpoint to a full disk (``/dev/full``): ``torch.save`` fails
ckpt-stall     the rank (0) stalls writing its checkpoint (a hung NFS mount) past the barrier's timeout
pickle-gather  the rank puts a lambda into its metrics for ``all_gather_object``: pickling fails
missing-data   (every rank, a control) the dataset path does not exist
retried-upload (rank 0, a control) a checkpoint upload fails once, logged with its traceback, retried, succeeds
"""

from __future__ import annotations

import datetime as dt
import json
import logging
import os
import sys
import tempfile
import time
import traceback

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler

LOG = logging.getLogger("train")
TIMEOUT_S = float(os.environ.get("K10S_GLOO_TIMEOUT_S", "3"))


class JsonLines(Dataset):
    """Samples of a JSON-lines file, parsed when fetched (in the loader's workers)."""

    def __init__(self, path: str) -> None:
        with open(path) as f:
            self.lines = f.read().splitlines()

    def __len__(self) -> int:
        return len(self.lines)

    def __getitem__(self, i: int):
        rec = json.loads(self.lines[i])
        return torch.tensor(rec["x"], dtype=torch.float32), torch.tensor(rec["y"], dtype=torch.float32)


def _write_dataset(path: str, n: int, bad_at: int | None) -> None:
    with open(path, "w") as f:
        for i in range(n):
            line = json.dumps({"x": [float(i % 7), 1.0, 2.0, 3.0], "y": [float(i % 3)]})
            f.write((line[:17] if i == bad_at else line) + "\n")


def _checkpoint(model, step: int, fault: str, me: bool) -> None:
    path = "/dev/full" if (me and fault == "ckpt-enospc") else os.path.join(tempfile.gettempdir(), f"k10s-t41-{os.getpid()}.pt")
    LOG.info("saving checkpoint for step %d to %s", step, "/mnt/ckpt/step%d.pt" % step)
    if me and fault == "ckpt-stall":
        time.sleep(TIMEOUT_S * 8)
    torch.save(model.state_dict(), path)
    if me and fault == "retried-upload":
        try:
            raise ConnectionResetError(104, "Connection reset by peer")
        except ConnectionResetError:
            LOG.warning("checkpoint upload failed:\n%s", traceback.format_exc().rstrip())
            LOG.warning("retrying checkpoint upload in 1s (1/3)")
            time.sleep(0.5)
            LOG.info("checkpoint upload succeeded after 1 retry")


def main() -> None:
    rank, world, local = (int(os.environ[k]) for k in ("RANK", "WORLD_SIZE", "LOCAL_RANK"))
    logging.basicConfig(level=logging.INFO, format=f"%(asctime)s [rank {rank}] %(levelname)s %(name)s: %(message)s")
    fault, bad, at = os.environ.get("K10S_FAULT", "none"), int(os.environ.get("K10S_FAULT_RANK", "1")), int(os.environ.get("K10S_FAULT_STEP", "3"))
    me = fault != "none" and bad in (rank, -1)
    dist.init_process_group("gloo", timeout=dt.timedelta(seconds=TIMEOUT_S))
    data_dir = "/data/shards-missing" if (me and fault == "missing-data") else tempfile.mkdtemp(prefix="k10s-t41-")
    data_file = os.path.join(data_dir, "train-00000.jsonl")
    if not (me and fault == "missing-data"):  # DistributedSampler (no shuffle) gives rank r the indices r, r + world, ...
        _write_dataset(data_file, 16 * world, bad + world * (at * 4 + 1) if fault == "bad-record" else None)
    dataset = JsonLines(data_file)
    loader = DataLoader(dataset, batch_size=4, num_workers=2, sampler=DistributedSampler(dataset, world, rank, shuffle=False))
    model = DDP(torch.nn.Linear(4, 1))
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    LOG.info("world %d, local rank %d, %d samples", world, local, len(dataset))
    for step, (x, y) in enumerate(loader):
        loss = torch.nn.functional.mse_loss(model(x), y)
        if me and fault == "nan-exit" and step == at:
            loss = loss * float("nan")
        if not torch.isfinite(loss):
            print(f"Loss is {loss.item()}, stopping training", flush=True)
            sys.exit(1)
        opt.zero_grad()
        loss.backward()
        opt.step()
        LOG.info("step %d loss %.4f", step, loss.item())
        if step == at:
            if rank == 0:
                _checkpoint(model, step, fault, me)
            dist.barrier()
            metrics = {"rank": rank, "loss": loss.item()}
            if me and fault == "pickle-gather":
                metrics["scheduler"] = lambda s: 0.9 ** s
            gathered = [None] * world
            dist.all_gather_object(gathered, metrics)
            if rank == 0:
                LOG.info("mean loss %.4f", sum(m["loss"] for m in gathered) / world)
        if step == at + 2:
            break
        time.sleep(0.2)
    dist.destroy_process_group()
    LOG.info("done")


if __name__ == "__main__":
    main()
