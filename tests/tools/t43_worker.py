"""The forty-third set's training program (tests/tools/torch_scenarios43.py records it): a DDP training loop with the
bugs users' own loops have, on gloo on CPU: a sharded dataset (each rank its own shard, as a webdataset or a
pre-sharded parquet set gives it), a two-branch model, a checkpoint to resume from, ``logging`` records with the rank.
One fault from K10S_FAULT on K10S_FAULT_RANK (-1: every rank, -2: every rank but 0) at step K10S_FAULT_STEP (default 3):

short-shard     the rank's shard holds K10S_FAULT_STEP batches: it leaves its loop and waits in the final
                ``dist.barrier()`` while the others wait in the next step's gradient all-reduce
anomaly-nan     ``torch.autograd.set_detect_anomaly(True)``; the rank's loss goes through ``sqrt`` of a negative value:
                autograd's ``Function 'SqrtBackward0' returned nan values in its 0th output``
unused-branch   the rank's batch skips the model's second branch (DDP without ``find_unused_parameters``): DDP's
                ``Expected to have finished reduction in the prior iteration`` on its next forward
extra-collective the rank all-reduces a metric the others never reduce (a ``if rank == N`` logging block)
corrupt-resume  the rank's checkpoint shard is truncated: ``torch.load`` fails on resume
bad-scheduler   (every rank, a control) the scheduler's config holds a key the optimizer lacks: ``KeyError``
load-race       (every rank but 0, a control) rank 0 writes the shared vocabulary, the others read it before the barrier
"""

from __future__ import annotations

import datetime as dt
import logging
import os
import tempfile
import time

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

ENV = os.environ
LOG = logging.getLogger("trainer")
TIMEOUT_S = float(ENV.get("K10S_GLOO_TIMEOUT_S", "3"))
FAULT, BAD, AT = ENV.get("K10S_FAULT", "none"), int(ENV.get("K10S_FAULT_RANK", "1")), int(ENV.get("K10S_FAULT_STEP", "3"))
STEPS = int(ENV.get("K10S_STEPS", "6"))


class TwoBranch(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.a, self.b = torch.nn.Linear(8, 4), torch.nn.Linear(4, 1)

    def forward(self, x: torch.Tensor, use_b: bool = True) -> torch.Tensor:
        h = self.a(x)
        return self.b(h) if use_b else h.sum(dim=1, keepdim=True)


def _hit(rank: int) -> bool:
    return FAULT != "none" and (BAD == rank or BAD == -1 or (BAD == -2 and rank != 0))


def _resume(model: torch.nn.Module, rank: int, run_dir: str) -> None:
    """Each rank's checkpoint shard written then read back (the rank's own file truncated by ``corrupt-resume``)."""
    path = os.path.join(run_dir, f"ckpt-rank{rank}.pt")
    torch.save(model.state_dict(), path)
    if _hit(rank) and FAULT == "corrupt-resume":
        with open(path, "r+b") as f:
            f.truncate(os.path.getsize(path) // 2)
    LOG.info("resuming from %s", path.replace(run_dir, "/ckpt/run-17"))
    model.load_state_dict(torch.load(path))


def _vocab(rank: int, run_dir: str) -> None:
    path = os.path.join(run_dir, "vocab.json")
    if rank == 0:
        time.sleep(0.5)
        with open(path, "w") as f:
            f.write('{"<pad>": 0}')
    elif _hit(rank) and FAULT == "load-race":
        with open(path) as f:
            f.read()
    dist.barrier()


def main() -> None:
    rank, world = int(ENV["RANK"]), int(ENV["WORLD_SIZE"])
    logging.basicConfig(level=logging.INFO, format=f"%(asctime)s %(levelname)s [RANK {rank}] %(name)s - %(message)s")
    dist.init_process_group("gloo", timeout=dt.timedelta(seconds=TIMEOUT_S))
    run_dir = os.path.join(ENV.get("K10S_MARK_DIR") or tempfile.mkdtemp(prefix="k10s-t43-"), "run")  # the job's own folder
    os.makedirs(run_dir, exist_ok=True)
    torch.manual_seed(rank)
    model = TwoBranch()
    _vocab(rank, run_dir)
    _resume(model, rank, run_dir)
    ddp = DDP(model)
    opt = torch.optim.SGD(ddp.parameters(), lr=0.01)
    sched = {"name": "cosine", "warmup_steps": 2}
    if _hit(rank) and FAULT == "bad-scheduler":
        sched["base_lr_key"] = "initial_lr"
    if "base_lr_key" in sched:
        LOG.info("scheduler warmup from %s", opt.param_groups[0][sched["base_lr_key"]])
    if _hit(rank) and FAULT == "anomaly-nan":
        torch.autograd.set_detect_anomaly(True)
    batches = AT if _hit(rank) and FAULT == "short-shard" else STEPS
    LOG.info("shard of %d batches, world %d", batches, world)
    for step in range(batches):
        x, y = torch.randn(4, 8), torch.randn(4, 1)
        out = ddp(x, use_b=not (_hit(rank) and FAULT == "unused-branch" and step == AT))
        loss = torch.nn.functional.mse_loss(out, y)
        if _hit(rank) and FAULT == "anomaly-nan" and step == AT:
            loss = torch.sqrt(loss - loss.detach() - 1.0) + loss
        opt.zero_grad()
        loss.backward()
        opt.step()
        if _hit(rank) and FAULT == "extra-collective" and step == AT:
            metric = torch.tensor([loss.item(), 1.0, 2.0])
            dist.all_reduce(metric)
        LOG.info("step %d/%d loss %.4f", step, STEPS, loss.item())
        time.sleep(0.2)
    dist.barrier()
    LOG.info("training done")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
