"""The thirty-third set's training program (tests/tools/torch_scenarios33.py records it): PyTorch's newer distributed
APIs as users run them today, on CPU with gloo, 2 agents x 2 processes. Every rank builds a 2-D device mesh
(``init_device_mesh("cpu", (2, 2), mesh_dim_names=("dp", "tp"))``: dp groups {0, 2} and {1, 3}, tp groups {0, 1} and
{2, 3}) and trains a tiny MLP as its plan (K10S_T33_PLAN) says, one fault at step K10S_FAULT_STEP on K10S_FAULT_RANK
(-1: every rank); the process group's set-up and the recorder's node mark come from t11_worker.

Plans (K10S_T33_PLAN):
tp       tensor parallel on the tp sub-mesh (``parallelize_module``: ``up`` column-wise, ``down`` row-wise), the
         gradients' local shards all-reduced on the dp sub-mesh, the loss all-reduced over every rank (the log line)
fsdp2    FSDP2: ``fully_shard`` of each layer and the model over the whole mesh flattened to one dimension
compile  DDP over every rank, the DDP model ``torch.compile``d with the ``aot_eager`` backend (dynamo, AOT autograd and
         DDP's graph splitting; inductor's C++ build of four ranks outlived the recorder's limit on two shared cores)
dcp      the tp plan with a ``torch.distributed.checkpoint`` save at the fault step (every rank)

Faults (K10S_FAULT):
shape        the rank builds its hidden layer 4 units wider (a config read differently): its shards differ in size
stuck        the rank is stuck in its own compute (a 60 s loop) after its backward, before the dp all-reduce
dcp-isdir    the rank's own shard file of the checkpoint (``__<rank>_0.distcp``) already exists as a directory
dcp-sigkill  the rank is SIGKILLed while ``dcp.save`` writes its shard
nonfinite    the rank's batch holds a NaN: the compiled forward's own check raises ``ValueError``
dcp-keys     (every rank) after the save, the model gains a ``head`` layer and loads the checkpoint: keys missing
"""

from __future__ import annotations

import os
import signal
import time

import t11_worker as base
import torch
import torch.distributed as dist
import torch.distributed.checkpoint as dcp
from torch import nn
from torch.distributed.device_mesh import init_device_mesh
from t31_worker import AT_STEP, ENV, FAULT, HIT, LOCAL, ME

PLAN = ENV.get("K10S_T33_PLAN", "tp")
CKPT = ENV.get("K10S_CKPT_DIR", "/tmp/k10s-t33-ckpt")


class MLP(nn.Module):
    def __init__(self, hidden: int = 16, head: bool = False) -> None:
        super().__init__()
        self.up = nn.Linear(8, hidden)
        self.down = nn.Linear(hidden, 8)
        self.head = nn.Linear(8, 1) if head else None

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if not torch.isfinite(x).all():
            raise ValueError(f"non-finite values in the input batch of shape {tuple(x.shape)}")
        y = self.down(torch.relu(self.up(x)))
        return self.head(y) if self.head is not None else y


def _hidden() -> int:
    return 20 if HIT and FAULT == "shape" else 16


def _batch(mesh, n: int) -> torch.Tensor:
    """The step's batch: one per dp replica (the tp peers share theirs); a NaN in the faulting rank's at the fault step."""
    g = torch.Generator().manual_seed(1000 * n + mesh["dp"].get_local_rank())
    x = torch.randn(4, 8, generator=g)
    if n == AT_STEP and HIT and FAULT == "nonfinite":
        x[1, 3] = float("nan")
    return x


def _tp_model(mesh) -> nn.Module:
    from torch.distributed.tensor.parallel import ColwiseParallel, RowwiseParallel, parallelize_module

    torch.manual_seed(0)
    return parallelize_module(MLP(_hidden()), mesh["tp"], {"up": ColwiseParallel(), "down": RowwiseParallel()})


def _fsdp2_model(mesh) -> nn.Module:
    from torch.distributed.fsdp import fully_shard

    torch.manual_seed(0)
    model = MLP(_hidden())
    flat = mesh._flatten("dp_tp") if hasattr(mesh, "_flatten") else init_device_mesh("cpu", (4,))
    for layer in (model.up, model.down):
        fully_shard(layer, mesh=flat)
    return fully_shard(model, mesh=flat)


def _stuck() -> None:
    print(f"rank {ME}: recomputing activations", flush=True)
    end = time.time() + 60
    while time.time() < end:
        torch.randn(64, 64) @ torch.randn(64, 64)


class _Writer(dcp.FileSystemWriter):
    """The file system writer, its shard write cut by a SIGKILL on the faulting rank (the kernel's OOM killer)."""

    def write_data(self, plan, planner):
        if HIT and FAULT == "dcp-sigkill":
            os.kill(os.getpid(), signal.SIGKILL)
        return super().write_data(plan, planner)


def _checkpoint(model: nn.Module, mesh, n: int) -> None:
    path = os.path.join(CKPT, f"step-{n:06d}")
    if HIT and FAULT == "dcp-isdir":  # an earlier job's leftover, where this rank writes its shard
        os.makedirs(os.path.join(path, f"__{ME}_0.distcp"), exist_ok=True)
    print(f"rank {ME}: saving checkpoint step {n} to {os.path.basename(path)}", flush=True)
    dcp.save({"model": model.state_dict(), "step": n}, storage_writer=_Writer(path))
    print(f"rank {ME}: checkpoint step {n} saved", flush=True)
    if FAULT == "dcp-keys" or (FAULT == "none" and PLAN == "dcp"):
        from torch.distributed.tensor.parallel import ColwiseParallel, RowwiseParallel, parallelize_module

        fresh = parallelize_module(MLP(16, head=FAULT == "dcp-keys"), mesh["tp"], {"up": ColwiseParallel(),
                                                                                  "down": RowwiseParallel()})
        state = {"model": fresh.state_dict(), "step": 0}
        print(f"rank {ME}: resuming from {os.path.basename(path)}", flush=True)
        dcp.load(state, checkpoint_id=path)
        print(f"rank {ME}: resumed at step {state['step']}", flush=True)


def _step(model, opt, mesh, n: int) -> float:
    loss = model(_batch(mesh, n)).pow(2).mean()
    loss.backward()
    if n == AT_STEP and HIT and FAULT == "stuck":
        _stuck()
    if PLAN in ("tp", "dcp"):  # the dp replicas average their gradient shards on the dp sub-mesh
        dp = mesh["dp"].get_group()
        for p in model.parameters():
            local = p.grad.to_local() if hasattr(p.grad, "to_local") else p.grad
            dist.all_reduce(local, group=dp)
            local.div_(2)
    opt.step()
    opt.zero_grad()
    total = loss.detach().clone()
    if hasattr(total, "full_tensor"):
        total = total.full_tensor()
    dist.all_reduce(total)  # every rank: the loss the log shows
    return float(total) / dist.get_world_size()


def main() -> None:
    world = int(ENV["WORLD_SIZE"])
    print(f"rank {ME}/{world} (local {LOCAL}, pid {os.getpid()}) starting, plan {PLAN}", flush=True)
    base._init(ME, world)
    base._mark(LOCAL)
    mesh = init_device_mesh("cpu", (2, 2), mesh_dim_names=("dp", "tp"))
    print(f"rank {ME}: mesh {mesh} dp rank {mesh['dp'].get_local_rank()} tp rank {mesh['tp'].get_local_rank()}",
          flush=True)
    if PLAN == "fsdp2":
        model = _fsdp2_model(mesh)
    elif PLAN == "compile":
        from torch.nn.parallel import DistributedDataParallel as DDP

        torch.manual_seed(0)
        model = torch.compile(DDP(MLP(_hidden())), backend="aot_eager")
    else:
        model = _tp_model(mesh)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    for n in range(int(ENV.get("K10S_STEPS", "6"))):
        loss = _step(model, opt, mesh, n)
        print(f"rank {ME} step {n} loss {loss:.4f}", flush=True)
        if PLAN == "dcp" and n == AT_STEP:
            _checkpoint(model, mesh, n)
        time.sleep(0.2)
    dist.destroy_process_group()
    print(f"rank {ME} done", flush=True)


if __name__ == "__main__":
    main()
