"""The sixty-first set's training program (tests/tools/torch_scenarios61.py records it): the sixtieth set's (t59_worker.py's
faults, logging conventions and top-level handlers, t56_worker.py's tiny model on gloo on CPU, 10 steps, gloo timeouts of
3 s; any of the set's launchers, ``mp.spawn`` through t60_worker.py's spawner), with two dimensions of its own:

K10S_PHASE        where the drawn fault strikes: ``init`` (just after ``init_process_group``, before the first step),
                  ``train`` (at step K10S_FAULT_STEP, before its forward), ``eval`` (in the validation loop run after that
                  step: the loss over a validation loader, then ``dist.all_gather_object`` and ``all_reduce`` of the
                  metrics), ``checkpoint`` (in the checkpoint save after that step: K10S_CKPT ``rank0``: rank 0 writes
                  while the others wait in ``dist.barrier``; ``shards``: every rank writes its own shard, then the
                  barrier), ``shutdown`` (after the last step, before the closing ``dist.barrier`` and
                  ``destroy_process_group``). Every rank validates and checkpoints after the drawn step and the last.
K10S_LOADER_WORKERS  the ``torch.utils.data.DataLoader``'s ``num_workers`` (0 or 2) over a small in-memory dataset (64
                  training samples of the rank's own, batches of 4; 8 validation samples)

One fault of its own (K10S_FAULT, on K10S_FAULT_RANK): ``loader-sigkill`` / ``loader-sigbus``: one of the rank's
DataLoader workers sends itself SIGKILL / SIGBUS while fetching a batch: under ``train`` the batch the loader asks for
at step K10S_FAULT_STEP (two workers, two batches each ahead: the step's batch + 4), under ``eval`` the validation
loader's first batch after that step; the main process raises torch's ``DataLoader worker (pid N) is killed by signal:
Killed.`` / ``Bus error.`` (the worker's own ``ERROR: Unexpected bus error encountered in worker`` before it).
"""

from __future__ import annotations

import os
import signal
import sys
import tempfile
import time

ENV = os.environ
PHASE = ENV.get("K10S_PHASE", "train")
WORKERS = int(ENV.get("K10S_LOADER_WORKERS", "0"))
CKPT = ENV.get("K10S_CKPT", "rank0")
BATCH, AHEAD = 4, 4  # two workers x prefetch_factor 2
LOADER_SIGNALS = {"loader-sigkill": signal.SIGKILL, "loader-sigbus": signal.SIGBUS}


def _data(split: str, step: int = -1):
    """The rank's in-memory dataset (``split``: train or val; ``step``: the validation's step)."""
    import t56_worker as w
    import torch
    from torch.utils.data import Dataset, get_worker_info

    class Data(Dataset):
        def __len__(self) -> int:
            return 64 if split == "train" else 8

        def __getitem__(self, i: int):
            if w.CULPRIT and w.FAULT in LOADER_SIGNALS and get_worker_info() is not None and (
                    (split == "train" and PHASE == "train" and i // BATCH == w.AT + AHEAD)
                    or (split == "val" and PHASE == "eval" and step == w.AT and i == 0)):
                os.kill(os.getpid(), LOADER_SIGNALS[w.FAULT])
            g = torch.Generator().manual_seed(i * 10 + w.ME + (1000 if split == "val" else 0))
            return torch.randn(8, generator=g), torch.zeros(1)

    return Data()


def _loader(split: str, step: int = -1):
    from torch.utils.data import DataLoader

    # the workers forked, as torchrun's processes fork them on Linux: an ``mp.spawn`` process would spawn them, and
    # the local Dataset class cannot be pickled (session 67, the sixty-fourth set's first mp.spawn draw)
    return DataLoader(_data(split, step), batch_size=BATCH, num_workers=WORKERS,
                      multiprocessing_context="fork" if WORKERS else None)


def _strike(phase: str, step: int) -> None:
    """The drawn fault (and the collective some faults add), where the drawn phase is this one."""
    import t56_worker as w

    if phase == PHASE and (phase in ("init", "shutdown") or step == w.AT):
        w._fault(w.AT)
        w._extra(w.AT)


def _validate(model, step: int) -> None:
    import t56_worker as w
    import torch
    import torch.distributed as dist

    with torch.no_grad():
        losses = [torch.nn.functional.mse_loss(model(x), y).item() for x, y in _loader("val", step)]
    _strike("eval", step)
    metrics = [None] * w.WORLD
    dist.all_gather_object(metrics, {"rank": w.ME, "val_loss": sum(losses) / len(losses)})
    total = torch.tensor([sum(m["val_loss"] for m in metrics)])
    dist.all_reduce(total)
    w.print(f"validation after step {step}/{w.STEPS}: val_loss {total.item() / w.WORLD:.4f}")


def _checkpoint(model, step: int) -> None:
    import t56_worker as w
    import torch
    import torch.distributed as dist

    path = os.path.join(tempfile.gettempdir(), f"k10s-t61-{os.getppid()}-{w.ME}-step{step}.pt")
    if CKPT == "shards" or w.ME == 0:
        torch.save(model.state_dict(), path)
    _strike("checkpoint", step)
    dist.barrier()
    if os.path.exists(path):
        os.remove(path)


def _loop() -> None:
    """t56_worker.py's ``main`` with the phases and the loader (its faults, conventions and handlers unchanged)."""
    import t56_worker as w
    import torch
    import torch.distributed as dist
    from torch.nn.parallel import DistributedDataParallel as DDP

    w.print(f"rank {w.ME}/{w.WORLD} (local {w.LOCAL}, pid {os.getpid()}) starting")
    if w.CULPRIT and w.FAULT == "never-joins":
        time.sleep(w.TIMEOUT_S * 6)
        sys.exit(0)
    w._init()
    mark = ENV.get("K10S_MARK_DIR")
    if mark and w.LOCAL == 0:
        with open(os.path.join(mark, f"group-{ENV.get('GROUP_RANK', '0')}"), "w") as f:
            f.write(ENV.get("K10S_AGENT", ""))
    _strike("init", -1)
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 1))
    ddp = model if w.BY_HAND else DDP(model)
    opt = torch.optim.SGD(ddp.parameters(), lr=0.01)
    for step, (x, y) in enumerate(_loader("train")):
        if step >= w.STEPS:
            break
        _strike("train", step)
        opt.zero_grad()
        loss = torch.nn.functional.mse_loss(ddp(x), y)
        loss.backward()
        if w.BY_HAND:  # DDP's gradient all-reduce, by hand
            for p in model.parameters():
                dist.all_reduce(p.grad)
                p.grad /= w.WORLD
        opt.step()
        w.print(f"rank {w.ME} step {step}/{w.STEPS} loss {loss.item():.4f}")
        if step in (w.AT, w.STEPS - 1):
            _validate(model, step)
            _checkpoint(model, step)
        time.sleep(0.3)
    _strike("shutdown", -1)
    dist.barrier()
    dist.destroy_process_group()
    w.print(f"rank {w.ME} done")


def main() -> None:
    import t56_worker
    import t59_worker  # reads the environment when imported (so do the modules it imports)

    t56_worker.main = _loop  # t59_worker.py's run: its conventions and faults, this loop
    t59_worker.main()


if __name__ == "__main__":
    import t60_worker

    t60_worker.main(target="t61_worker")
