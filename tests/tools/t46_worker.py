"""The forty-sixth set's training program (tests/tools/torch_scenarios46.py records it): today's distributed APIs on CPU
with gloo, 2 agents x 2 processes, as the plan (K10S_T46_PLAN) says, one fault at step K10S_FAULT_STEP on K10S_FAULT_RANK
(-1: every rank):

fsdp2      FSDP2: ``fully_shard`` of each layer and of the model over a 1-D mesh of every rank; the batch a dict
dtensor    a 2-D ``init_device_mesh`` (dp x tp: dp groups {0, 2} and {1, 3}, tp groups {0, 1} and {2, 3}); each step a
           ``distribute_tensor`` of the activations as ``[Shard(0), Shard(1)]`` redistributed to ``[Replicate(),
           Replicate()]`` (all-gathers on both sub-meshes), the loss all-reduced over every rank
dcp        the fsdp2 plan with a ``torch.distributed.checkpoint`` save at the fault step, then a load into a fresh model
subgroups  DDP-free data parallel: ``dist.new_subgroups(group_size=2)`` ({0, 1} and {2, 3}); each step the loss averaged in
           the rank's subgroup, then over every rank
clean      (a control) fsdp2 with DCP's ``async_save`` at the fault step and a load on resume, a 2-D mesh's DTensor
           redistribute and ``new_subgroups``: no fault; the resume through the deprecated ``dcp.load_state_dict``
           (its ``FutureWarning``), only the APIs' own warnings

Faults (K10S_FAULT):
keyerror      the rank's batch lacks ``features`` (a collate renamed it): ``KeyError: 'features'`` in the forward
sigkill       the rank is SIGKILLed (the kernel's OOM killer) in layer ``up``'s forward, its peers then all-gathering
              layer ``down``'s shards
segfault      the rank reads address 0 in its forward under fully_shard (no faulthandler): SIGSEGV
memoryerror   the rank's forward asks Python for a 1 PiB buffer: ``MemoryError``
hang          the rank sleeps twice the gloo timeout before its redistribute (its peers time out in the all-gathers)
dcp-shape     the rank builds its fresh model's hidden layer 20 wide, not 16, before the load: the size mismatch
sub-raise     the rank raises ``ValueError`` on its subgroup's loss scale, before its subgroup's all-reduce
wrong-mesh    (every rank, a control) the config asks for a (3, 2) mesh of 4 ranks: ``init_device_mesh`` refuses it
"""

from __future__ import annotations

import datetime as dt
import os
import signal
import tempfile
import time

import torch
import torch.distributed as dist
from torch import nn
from torch.distributed.device_mesh import init_device_mesh

ENV = os.environ
PLAN = ENV.get("K10S_T46_PLAN", "fsdp2")
TIMEOUT_S = float(ENV.get("K10S_GLOO_TIMEOUT_S", "3"))
FAULT, AT = ENV.get("K10S_FAULT", "none"), int(ENV.get("K10S_FAULT_STEP", "3"))
STEPS = int(ENV.get("K10S_STEPS", "6"))
ME, LOCAL = int(ENV.get("RANK", "0")), int(ENV.get("LOCAL_RANK", "0"))
HIT = FAULT != "none" and int(ENV.get("K10S_FAULT_RANK", "1")) in (ME, -1)
CKPT = ENV.get("K10S_CKPT_DIR") or tempfile.mkdtemp(prefix="k10s-t46-ckpt-")


def _now(fault: str, step: int) -> bool:
    return HIT and FAULT == fault and step == AT


class MLP(nn.Module):
    def __init__(self, hidden: int = 16) -> None:
        super().__init__()
        self.up = nn.Linear(8, hidden)
        self.down = nn.Linear(hidden, 8)
        self.step = 0

    def forward(self, batch: dict) -> torch.Tensor:
        x = batch["features"]
        if _now("segfault", self.step):
            import ctypes
            ctypes.string_at(0)
        if _now("memoryerror", self.step):
            bytearray(1 << 50)
        return self.down(torch.relu(self.up(x)))


def _batch(step: int) -> dict:
    g = torch.Generator().manual_seed(1000 * step + ME)
    batch = {"features": torch.randn(4, 8, generator=g), "target": torch.randn(4, 8, generator=g)}
    if _now("keyerror", step):
        batch["feats"] = batch.pop("features")
    return batch


def _fsdp2(hidden: int = 16) -> nn.Module:
    from torch.distributed.fsdp import fully_shard

    torch.manual_seed(0)
    model = MLP(hidden)
    if HIT and FAULT == "sigkill":
        def _killed(_mod, _args):
            if model.step == AT:
                os.kill(os.getpid(), signal.SIGKILL)
        model.up.register_forward_hook(lambda m, a, out: _killed(m, a))
    mesh = init_device_mesh("cpu", (dist.get_world_size(),))
    for layer in (model.up, model.down):
        fully_shard(layer, mesh=mesh)
    return fully_shard(model, mesh=mesh)


def _loss(model: nn.Module, step: int) -> torch.Tensor:
    model.step = step
    batch = _batch(step)
    return nn.functional.mse_loss(model(batch), batch["target"])


def _checkpoint(model: nn.Module, step: int, asynchronous: bool = False) -> None:
    import torch.distributed.checkpoint as dcp

    path = os.path.join(CKPT, f"step-{step:06d}")
    print(f"rank {ME}: saving checkpoint step {step} ({'async' if asynchronous else 'sync'})", flush=True)
    if asynchronous:
        dcp.async_save({"model": model.state_dict()}, checkpoint_id=path).result()
    else:
        dcp.save({"model": model.state_dict()}, checkpoint_id=path)
    print(f"rank {ME}: checkpoint step {step} saved", flush=True)
    fresh = _fsdp2(20 if HIT and FAULT == "dcp-shape" else 16)
    state = {"model": fresh.state_dict()}
    print(f"rank {ME}: resuming from step-{step:06d}", flush=True)
    if asynchronous:  # the clean run resumes through the older entry point (its FutureWarning, a warning only)
        dcp.load_state_dict(state, storage_reader=dcp.FileSystemReader(path))
    else:
        dcp.load(state, checkpoint_id=path)
    fresh.load_state_dict(state["model"])
    print(f"rank {ME}: resumed at step {step}", flush=True)


def _redistribute(mesh, step: int) -> float:
    from torch.distributed.tensor import Replicate, Shard, distribute_tensor

    g = torch.Generator().manual_seed(step)
    acts = distribute_tensor(torch.randn(8, 8, generator=g), mesh, [Shard(0), Shard(1)])
    if _now("hang", step):
        print(f"rank {ME}: waiting for the prefetch queue", flush=True)
        time.sleep(TIMEOUT_S * 2)
    full = acts.redistribute(mesh, [Replicate(), Replicate()]).to_local()
    return float(full.pow(2).mean())


def _subgroup_loss(sub, step: int) -> float:
    loss = torch.tensor([0.1 * (step + 1) + 0.01 * ME])
    scale = -1.0 if _now("sub-raise", step) else 1.0
    if scale <= 0:
        raise ValueError(f"subgroup loss scale must be positive, got {scale} (rank {ME}, step {step})")
    dist.all_reduce(loss, group=sub)
    return float(loss) / 2


def main() -> None:
    world = int(ENV["WORLD_SIZE"])
    print(f"rank {ME}/{world} (local {LOCAL}, pid {os.getpid()}) starting, plan {PLAN}", flush=True)
    dist.init_process_group("gloo", timeout=dt.timedelta(seconds=TIMEOUT_S))
    mark = ENV.get("K10S_MARK_DIR")
    if mark and LOCAL == 0:
        with open(os.path.join(mark, f"group-{ENV.get('GROUP_RANK', '0')}"), "w") as f:
            f.write(ENV.get("K10S_AGENT", ""))
    shape = (3, 2) if HIT and FAULT == "wrong-mesh" else (2, 2)
    opts = dist.ProcessGroupGloo._Options()  # the sub-meshes' groups time out as the world's (else 30 min)
    opts._timeout = dt.timedelta(seconds=TIMEOUT_S)
    mesh2d = init_device_mesh("cpu", shape, mesh_dim_names=("dp", "tp"), backend_override={"dp": ("gloo", opts),
                                                                                          "tp": ("gloo", opts)})
    print(f"rank {ME}: mesh dp rank {mesh2d['dp'].get_local_rank()} tp rank {mesh2d['tp'].get_local_rank()}", flush=True)
    sub = dist.new_subgroups(group_size=2, timeout=dt.timedelta(seconds=TIMEOUT_S))[0] if PLAN in ("subgroups", "clean") else None
    model = _fsdp2() if PLAN in ("fsdp2", "dcp", "clean") else None
    opt = torch.optim.SGD(model.parameters(), lr=0.01) if model is not None else None
    for step in range(STEPS):
        total = torch.tensor([0.0])
        if model is not None:
            loss = _loss(model, step)
            loss.backward()
            opt.step()
            opt.zero_grad()
            total += loss.detach()
        if PLAN in ("dtensor", "clean"):
            total += _redistribute(mesh2d, step)
        if sub is not None:
            total += _subgroup_loss(sub, step)
        dist.all_reduce(total)  # every rank: the loss the log shows
        print(f"rank {ME} step {step} loss {float(total) / world:.4f}", flush=True)
        if PLAN in ("dcp", "clean") and step == AT:
            _checkpoint(model, step, asynchronous=PLAN == "clean")
        time.sleep(0.2)
    dist.barrier()
    dist.destroy_process_group()
    print(f"rank {ME} done", flush=True)


if __name__ == "__main__":
    main()
