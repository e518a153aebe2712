"""The forty-eighth set's training program (tests/tools/torch_scenarios48.py records it): a DDP loop on gloo on CPU, 2
agents x 2 processes, that checkpoints at step K10S_FAULT_STEP (default 3) into K10S_CKPT_DIR (one folder every node
sees, as a shared volume) and verifies the checkpoint by loading it back, then trains on. Each rank's state: the model's
(replicated) and a per-rank shard of its own (``shard_<rank>``, the rank's optimizer or data-loader state). One fault
from K10S_FAULT on K10S_FAULT_RANK (-1: every rank):

dcp-fsize       the rank's ``RLIMIT_FSIZE`` is 1 KiB when it joins ``dcp.save``: its write of its ``.distcp`` file
                fails with EFBIG (Python ignores SIGXFSZ; torch's zip writer reports it as ``[enforce fail at
                inline_container.cc:...] . unexpected pos``), gathered by DCP into a ``CheckpointException`` on every rank
dcp-async-ro    the rank's checkpoint writer runs as the volume's user (effective uid 65534) under ``dcp.async_save``:
                the folder is root's, its file's open raises ``PermissionError: [Errno 13]``; ``.result()`` raises
dcp-stall       the rank's storage writer stalls four times the gloo timeout in ``write_data`` (a hung NFS write); the
                peers wait in the save's gather and time out
save-nodir      ``torch.save`` of the per-rank shard into the rank's own folder, which is missing on this rank (its
                mount absent): ``RuntimeError: Parent directory ... does not exist.``; the peers wait in the barrier
load-trunc      the per-rank shards saved with ``torch.save``; the rank's file is cut to a tenth (a torn write) before the
                verify: ``torch.load``'s ``PytorchStreamReader failed reading zip archive``; the peers wait in the barrier
dcp-load-trunc  the DCP checkpoint's ``__<rank>_0.distcp`` of the rank cut to a third before ``dcp.load``: its read
                fails, gathered by DCP into a ``CheckpointException`` on every rank
rename-stale    (every rank, a control) every rank renames ``tmp-checkpoint-N`` to ``checkpoint-N`` (only rank 0
                should), where a stale ``checkpoint-N`` from an earlier attempt is left: ``OSError: [Errno 39]
                Directory not empty`` on every rank
prune-race      (every rank, a control) every rank prunes the oldest checkpoint ``checkpoint-1`` with
                ``shutil.rmtree``: the first succeeds, the rest raise ``FileNotFoundError``; the winner waits in the
                next all-reduce and times out
resume-missing  (every rank, a control) ``--resume`` names a checkpoint folder that does not exist: ``torch.load``'s
                ``FileNotFoundError`` on every rank at start
clean           (a control) ``dcp.save``, ``dcp.async_save``, per-rank ``torch.save`` shards, each loaded back
"""

from __future__ import annotations

import datetime as dt
import os
import resource
import shutil
import time

import torch
import torch.distributed as dist
import torch.distributed.checkpoint as dcp
from torch.nn.parallel import DistributedDataParallel as DDP

ENV = os.environ
TIMEOUT_S = float(ENV.get("K10S_GLOO_TIMEOUT_S", "3"))
FAULT, AT = ENV.get("K10S_FAULT", "none"), int(ENV.get("K10S_FAULT_STEP", "3"))
STEPS = int(ENV.get("K10S_STEPS", "6"))
ME, LOCAL = int(ENV.get("RANK", "0")), int(ENV.get("LOCAL_RANK", "0"))
HIT = FAULT != "none" and int(ENV.get("K10S_FAULT_RANK", "1")) in (ME, -1)
CKPT = ENV.get("K10S_CKPT_DIR", "/tmp/k10s-t48-ckpt")
MODE = ENV.get("K10S_T48_MODE", "dcp")  # dcp, async, shard, rename, prune, resume, clean


def _hit(fault: str) -> bool:
    return HIT and FAULT == fault


class StallingWriter(dcp.FileSystemWriter):
    """The storage writer; on the stalling rank its write waits on a hung volume."""

    def write_data(self, plan, planner):
        if _hit("dcp-stall"):
            print(f"rank {ME}: writing {len(plan.items)} items to {os.path.basename(str(self.path))}", flush=True)
            time.sleep(TIMEOUT_S * 4)
        return super().write_data(plan, planner)


def _state(model: torch.nn.Module) -> dict:
    torch.manual_seed(100 + ME)
    return {"model": model.state_dict(), f"shard_{ME}": torch.randn(4096)}


def _dcp_save(model: torch.nn.Module, step: int, asynchronous: bool = False) -> str:
    path = os.path.join(CKPT, f"step-{step:04d}")
    print(f"rank {ME}: saving checkpoint step {step} ({'async' if asynchronous else 'sync'})", flush=True)
    if _hit("dcp-fsize"):
        resource.setrlimit(resource.RLIMIT_FSIZE, (1024, resource.RLIM_INFINITY))
    if _hit("dcp-async-ro"):
        os.seteuid(65534)  # the checkpoint writer runs as the volume's user; the folder is root's
    if asynchronous:
        dcp.async_save(_state(model), checkpoint_id=path).result()
    else:
        dcp.save(_state(model), storage_writer=StallingWriter(path))
    print(f"rank {ME}: checkpoint step {step} saved", flush=True)
    return path


def _dcp_load(model: torch.nn.Module, path: str) -> None:
    dist.barrier()
    if _hit("dcp-load-trunc"):
        part = os.path.join(path, f"__{ME}_0.distcp")
        os.truncate(part, os.path.getsize(part) // 3)
    print(f"rank {ME}: verifying checkpoint {os.path.basename(path)}", flush=True)
    state = _state(model)
    dcp.load(state, checkpoint_id=path)
    model.load_state_dict(state["model"])
    print(f"rank {ME}: checkpoint {os.path.basename(path)} verified", flush=True)


def _shard_save(model: torch.nn.Module, step: int) -> None:
    folder = os.path.join(CKPT, f"step-{step:04d}-shards", f"rank-{ME}")
    if not _hit("save-nodir"):  # the rank's mount is missing: its folder is not there
        os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, "optim.pt")
    print(f"rank {ME}: saving shard {path}", flush=True)
    torch.save(_state(model), path)
    dist.barrier()
    if _hit("load-trunc"):
        with open(path, "r+b") as f:
            f.truncate(os.path.getsize(path) // 10)
    print(f"rank {ME}: verifying shard {path}", flush=True)
    torch.load(path)
    dist.barrier()
    print(f"rank {ME}: shard step {step} verified", flush=True)


def _rename(step: int) -> None:
    tmp, final = os.path.join(CKPT, f"tmp-checkpoint-{step}"), os.path.join(CKPT, f"checkpoint-{step}")
    if ME == 0:
        os.makedirs(tmp, exist_ok=True)
        os.makedirs(final, exist_ok=True)  # a stale checkpoint-N of an earlier attempt, not cleaned
        open(os.path.join(final, "trainer_state.json"), "w").close()
    dist.barrier()
    torch.save({f"shard_{ME}": torch.zeros(8)}, os.path.join(tmp, f"rank-{ME}.pt"))
    dist.barrier()
    print(f"rank {ME}: moving {tmp} to {final}", flush=True)
    os.rename(tmp, final)


def _prune(step: int) -> None:
    old = os.path.join(CKPT, "checkpoint-1")
    if ME == 0:
        os.makedirs(old, exist_ok=True)
        for i in range(4):
            torch.save({"x": torch.zeros(8)}, os.path.join(old, f"rank-{i}.pt"))
    dist.barrier()
    time.sleep(0.2 * ME)
    print(f"rank {ME}: deleting older checkpoint [{old}] due to save_total_limit", flush=True)
    shutil.rmtree(old)


def main() -> None:
    world = int(ENV["WORLD_SIZE"])
    print(f"rank {ME}/{world} (local {LOCAL}, pid {os.getpid()}) starting, checkpoints in {CKPT}", flush=True)
    dist.init_process_group("gloo", timeout=dt.timedelta(seconds=TIMEOUT_S))
    mark = ENV.get("K10S_MARK_DIR")
    if mark and LOCAL == 0:
        with open(os.path.join(mark, f"group-{ENV.get('GROUP_RANK', '0')}"), "w") as f:
            f.write(ENV.get("K10S_AGENT", ""))
    torch.manual_seed(0)
    ddp = DDP(torch.nn.Linear(8, 1))
    opt = torch.optim.SGD(ddp.parameters(), lr=0.01)
    if MODE == "resume":
        path = os.path.join(CKPT, "checkpoint-9", f"rank-{ME}.pt")
        print(f"rank {ME}: resuming from {path}", flush=True)
        ddp.module.load_state_dict(torch.load(path)["model"])
    for step in range(STEPS):
        g = torch.Generator().manual_seed(step * 10 + ME)
        x, y = torch.randn(4, 8, generator=g), torch.randn(4, 1, generator=g)
        loss = torch.nn.functional.mse_loss(ddp(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        print(f"rank {ME} step {step} loss {loss.item():.4f}", flush=True)
        if step == AT:
            if MODE in ("dcp", "async", "clean"):
                path = _dcp_save(ddp.module, step, asynchronous=MODE == "async")
                _dcp_load(ddp.module, path)
            if MODE == "clean":
                _dcp_load(ddp.module, _dcp_save(ddp.module, step + 100, asynchronous=True))
            if MODE in ("shard", "clean"):
                _shard_save(ddp.module, step)
            if MODE == "rename":
                _rename(step)
            if MODE == "prune":
                _prune(step)
        time.sleep(0.2)
    dist.barrier()
    dist.destroy_process_group()
    print(f"rank {ME} done", flush=True)


if __name__ == "__main__":
    main()
