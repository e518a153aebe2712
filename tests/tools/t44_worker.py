"""The forty-fourth set's training program (tests/tools/torch_scenarios44.py records it): a DDP loop on gloo on CPU that,
after its step K10S_FAULT_STEP (default 3), runs the collectives users call beyond DDP's gradients: a broadcast of the
run's config from rank 0 (``broadcast_object_list``), a gather of each rank's metrics to rank 0 (``gather_object``), a
ring exchange of boundary tensors (``isend``/``irecv``), a scatter of the next shard's seeds from rank 0, a sharded
checkpoint (``torch.distributed.checkpoint.save``), rank 0's evaluation before a barrier. ``logging`` records name the
rank. One fault from K10S_FAULT on K10S_FAULT_RANK (-1: every rank):

bcast-unpicklable  rank 0's config holds a lambda (a hook): pickling it fails on rank 0, the others wait in the broadcast
gather-unpicklable the rank's metrics hold a generator: ``TypeError: cannot pickle 'generator' object`` on that rank
send-wrong-peer    the rank sends its boundary to rank+2 instead of rank+1: rank+1's receive never completes
scatter-short      rank 0 (the source) scatters a list one tensor short: the scatter fails on rank 0
dcp-save-blocked   the rank's checkpoint file name is taken by a directory: its write fails, DCP reports that rank
eval-slow          rank 0 evaluates longer than the others' barrier timeout while they wait
dcp-load-missing   (every rank, a control) resuming from a checkpoint folder that does not exist
"""

from __future__ import annotations

import datetime as dt
import logging
import os
import tempfile
import time

import torch
import torch.distributed as dist
import torch.distributed.checkpoint as dcp
from torch.nn.parallel import DistributedDataParallel as DDP

ENV = os.environ
LOG = logging.getLogger("trainer")
TIMEOUT_S = float(ENV.get("K10S_GLOO_TIMEOUT_S", "3"))
FAULT, BAD, AT = ENV.get("K10S_FAULT", "none"), int(ENV.get("K10S_FAULT_RANK", "1")), int(ENV.get("K10S_FAULT_STEP", "3"))
STEPS = int(ENV.get("K10S_STEPS", "6"))


def _hit(rank: int, fault: str) -> bool:
    return FAULT == fault and (BAD == rank or BAD == -1)


def _sync_config(rank: int) -> None:
    cfg = [{"lr": 0.01, "warmup": 2}]
    if rank == 0 and _hit(rank, "bcast-unpicklable"):
        cfg[0]["on_step"] = lambda step: step % 2
    dist.broadcast_object_list(cfg, src=0)


def _gather_metrics(rank: int, world: int, loss: float) -> None:
    metrics = {"loss": loss, "rank": rank}
    if _hit(rank, "gather-unpicklable"):
        metrics["samples"] = (i for i in range(4))
    out = [None] * world if rank == 0 else None
    dist.gather_object(metrics, out, dst=0)
    if rank == 0:
        LOG.info("mean loss %.4f", sum(m["loss"] for m in out) / world)


def _ring(rank: int, world: int) -> None:
    peer = (rank + 2) % world if _hit(rank, "send-wrong-peer") else (rank + 1) % world
    edge, got = torch.full((4,), float(rank)), torch.zeros(4)
    reqs = [dist.isend(edge, peer), dist.irecv(got, (rank - 1) % world)]
    for req in reqs:
        req.wait()


def _scatter_seeds(rank: int, world: int) -> None:
    seed = torch.zeros(1, dtype=torch.int64)
    parts = None
    if rank == 0:
        parts = [torch.tensor([100 + r]) for r in range(world - 1 if _hit(rank, "scatter-short") else world)]
    dist.scatter(seed, parts, src=0)


def _checkpoint(model: torch.nn.Module, rank: int, run_dir: str, step: int) -> None:
    path = os.path.join(run_dir, f"ckpt-{step}")
    if _hit(rank, "dcp-save-blocked"):
        os.makedirs(os.path.join(path, f"__{rank}_0.distcp"), exist_ok=True)
    dcp.save({"model": model.state_dict()}, checkpoint_id=path)
    LOG.info("saved checkpoint %s", path.replace(run_dir, "/ckpt/run-9"))


def _evaluate(rank: int) -> None:
    if rank == 0:
        LOG.info("evaluating on the held-out set")
        time.sleep(TIMEOUT_S * 2 if _hit(rank, "eval-slow") else 0.1)
    dist.barrier()


def main() -> None:
    rank, world = int(ENV["RANK"]), int(ENV["WORLD_SIZE"])
    logging.basicConfig(level=logging.INFO, format=f"%(asctime)s %(levelname)s [RANK {rank}] %(name)s - %(message)s")
    dist.init_process_group("gloo", timeout=dt.timedelta(seconds=TIMEOUT_S))
    run_dir = os.path.join(ENV.get("K10S_MARK_DIR") or tempfile.mkdtemp(prefix="k10s-t44-"), "run")  # the job's own folder
    os.makedirs(run_dir, exist_ok=True)
    torch.manual_seed(rank)
    model = torch.nn.Linear(8, 1)
    if _hit(rank, "dcp-load-missing"):
        state = {"model": model.state_dict()}
        dcp.load(state, checkpoint_id=os.path.join(run_dir, "ckpt-resume"))
    ddp = DDP(model)
    opt = torch.optim.SGD(ddp.parameters(), lr=0.01)
    for step in range(STEPS):
        x, y = torch.randn(4, 8), torch.randn(4, 1)
        loss = torch.nn.functional.mse_loss(ddp(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        LOG.info("step %d/%d loss %.4f", step, STEPS, loss.item())
        if step == AT:
            _sync_config(rank)
            _gather_metrics(rank, world, loss.item())
            _ring(rank, world)
            _scatter_seeds(rank, world)
            _checkpoint(model, rank, run_dir, step)
            _evaluate(rank)
        time.sleep(0.2)
    dist.barrier()
    LOG.info("training done")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
