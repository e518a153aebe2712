"""The seventh set's training program (tests/tools/torch_scenarios7.py records it): a tiny DDP model
(two Linear layers, gloo, SGD) trained for K10S_STEPS steps, one fault injected. Run by torchrun,
torchx's ``dist.ddp`` (torchrun underneath) or MPICH's ``mpiexec`` (Hydra: the rank from
``PMI_RANK``/``PMI_SIZE``, the local rank from ``MPI_LOCALRANKID``).

Faults (K10S_FAULT; K10S_FAULT_RANK, or several ranks in K10S_FAULT_RANKS, comma-separated):
sigkill, segfault, exception, exit0   torch_worker.py's
ddp-shape      the rank's model has a wider first layer (DDP's parameter-shape check across ranks)
ddp-unused     at the fault step the rank skips its second layer (unused parameters without
               ``find_unused_parameters``: DDP raises on the rank's next forward)
compile        the rank runs a ``torch.compile(fullgraph=True)`` function with data-dependent control flow
cgroup-oom     the rank joins a memory cgroup (v1) limited just above its usage, then loads a shard
               into memory: the kernel's OOM killer SIGKILLs it
stuck          the rank waits forever for a file that never appears (K10S_MONITORED=1: every rank
               runs ``monitored_barrier(wait_all_ranks=True)`` before each step)
dataset-missing  every rank's DataLoader worker fails to open the same shard (FileNotFoundError)

Output (environment): K10S_JSONLOG=1 ``logging`` with a JSON formatter, a failure logged with
``logger.exception`` then ``sys.exit(1)``; K10S_TQDM=1 a tqdm bar per node (local rank 0, on stderr);
K10S_BUFFERED=1 prints not flushed (run without PYTHONUNBUFFERED and not under torchrun, which starts
workers with ``python -u``: stdout to a pipe is block-buffered, lost when the process is killed);
K10S_WARN=1 the usual warnings of a CPU run (deprecated ``torch.cuda.amp.GradScaler``, the LR scheduler
stepped first, a tensor copied with ``torch.tensor``, a UserWarning of the data module).
"""

from __future__ import annotations

import datetime as dt
import json
import logging
import os
import sys
import time
import warnings

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

import torch_worker as tw

GLOO_TIMEOUT_S = tw.GLOO_TIMEOUT_S
LOG = logging.getLogger("trainer")
ENV = os.environ


class JsonFormatter(logging.Formatter):
    """One JSON object a line, as structured-logging setups write them."""

    def format(self, record: logging.LogRecord) -> str:
        doc = {"ts": dt.datetime.fromtimestamp(record.created, dt.timezone.utc).isoformat(timespec="milliseconds"),
               "level": record.levelname, "logger": record.name, "rank": int(ENV.get("RANK", "-1")), "msg": record.getMessage()}
        if record.exc_info:
            doc["exc_info"] = self.formatException(record.exc_info)
        return json.dumps(doc)


def say(msg: str) -> None:
    if ENV.get("K10S_JSONLOG") == "1":
        LOG.info(msg)
    else:
        print(msg, flush=ENV.get("K10S_BUFFERED") != "1")


class Net(torch.nn.Module):
    def __init__(self, wide: bool):
        super().__init__()
        self.a = torch.nn.Linear(8, 6 if wide else 4)
        self.b = torch.nn.Linear(6 if wide else 4, 1)

    def forward(self, x: torch.Tensor, skip_b: bool = False) -> torch.Tensor:
        h = torch.relu(self.a(x))
        return h.sum(dim=1, keepdim=True) if skip_b else self.b(h)


class Shards(torch.utils.data.Dataset):
    def __init__(self, missing: bool):
        self.missing = missing

    def __len__(self) -> int:
        return 64

    def __getitem__(self, i: int):
        if self.missing and i >= 8:
            with open("/data/train/shard-00001-of-00004.arrow", "rb") as f:
                f.read(16)
        return torch.ones(8) * (i % 5)


def _clip_metric(t: torch.Tensor) -> torch.Tensor:
    if t.sum() > 0:  # data-dependent control flow: fullgraph cannot trace it
        return t.clamp(max=1.0)
    return t


def _cgroup_oom(rank: int) -> None:
    """Join a memory cgroup limited 64 MiB above this process's usage, then allocate 1 GiB."""
    group = f"/sys/fs/cgroup/memory/k10s-t7-{os.getpid()}"
    os.makedirs(group, exist_ok=True)
    with open("/proc/self/status") as f:
        rss_kb = next(int(line.split()[1]) for line in f if line.startswith("VmRSS:"))
    with open(f"{group}/memory.limit_in_bytes", "w") as f:
        f.write(str((rss_kb + 64 * 1024) * 1024))
    with open(f"{group}/cgroup.procs", "w") as f:
        f.write(str(os.getpid()))
    say(f"rank {rank}: loading shard 3 into memory")
    chunks = [bytearray(32 << 20) for _ in range(32)]
    say(f"rank {rank}: loaded {len(chunks)} chunks")


def _fault(kind: str, rank: int, step: int) -> None:
    if kind == "compile":
        say(f"rank {rank}: computing the clipped metric")
        torch.compile(_clip_metric, fullgraph=True, backend="eager")(torch.ones(4) * step)
    elif kind == "cgroup-oom":
        _cgroup_oom(rank)
    elif kind == "stuck":
        while not os.path.exists("/tmp/k10s-t7-never-written"):
            time.sleep(0.05)
    elif kind not in ("ddp-shape", "ddp-unused", "dataset-missing"):
        tw._fault(kind, rank, step)


def _warnings() -> None:
    torch.cuda.amp.GradScaler()
    torch.tensor(torch.ones(2))
    warnings.warn("the data module found no validation split; using 5% of train", UserWarning)  # noqa: B028 (the recordings show this warning as it was raised)


def _culprits() -> set[int]:
    if ENV.get("K10S_FAULT_RANKS"):
        return {int(r) for r in ENV["K10S_FAULT_RANKS"].split(",")}
    return {int(ENV.get("K10S_FAULT_RANK", "1"))}


def train(rank: int, world: int, local_rank: int) -> None:
    kind = ENV.get("K10S_FAULT", "none")
    culprits = _culprits()
    culprit = kind != "none" and (rank in culprits or -1 in culprits)
    bad_step, steps = int(ENV.get("K10S_FAULT_STEP", "3")), int(ENV.get("K10S_STEPS", "6"))
    dist.init_process_group("gloo", rank=rank, world_size=world, timeout=dt.timedelta(seconds=GLOO_TIMEOUT_S))
    mark = ENV.get("K10S_MARK_DIR")
    if mark and local_rank == 0:
        with open(os.path.join(mark, f"group-{ENV.get('GROUP_RANK', '0')}"), "w") as f:
            f.write(ENV.get("K10S_AGENT", ""))
    say(f"rank {rank}/{world} (local {local_rank}, pid {os.getpid()}) initialised")
    torch.manual_seed(0)
    model = DDP(Net(wide=culprit and kind == "ddp-shape"))
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=2)
    if ENV.get("K10S_WARN") == "1":
        sched.step()
        _warnings()
    loader = torch.utils.data.DataLoader(Shards(kind == "dataset-missing"), batch_size=4, num_workers=1 if kind == "dataset-missing" else 0)
    batches = iter(loader)
    bar = None
    if ENV.get("K10S_TQDM") == "1" and local_rank == 0:
        from tqdm import tqdm
        bar = tqdm(total=steps, desc=f"node {ENV.get('GROUP_RANK', '0')} train", file=sys.stderr, mininterval=0)
    for step in range(steps):
        if culprit and step == bad_step:
            _fault(kind, rank, step)
        if ENV.get("K10S_MONITORED") == "1":
            dist.monitored_barrier(timeout=dt.timedelta(seconds=GLOO_TIMEOUT_S / 2), wait_all_ranks=True)
        x = next(batches)
        loss = model(x, skip_b=culprit and kind == "ddp-unused" and step == bad_step).pow(2).mean()
        loss.backward()
        opt.step()
        opt.zero_grad()
        if rank == 0:
            say(f"step {step} loss {loss.item():.4f}")
        if bar is not None:
            bar.update(1)
            bar.set_postfix(loss=f"{loss.item():.4f}")
        time.sleep(0.3)
    if bar is not None:
        bar.close()
    dist.destroy_process_group()
    say(f"rank {rank} done")


def _rank_env() -> None:
    if "PMI_RANK" in ENV and "RANK" not in ENV:  # MPICH's Hydra
        ENV["RANK"], ENV["WORLD_SIZE"] = ENV["PMI_RANK"], ENV["PMI_SIZE"]
        ENV["LOCAL_RANK"] = ENV.get("MPI_LOCALRANKID", "0")


def main() -> None:
    _rank_env()
    if ENV.get("K10S_JSONLOG") == "1":
        handler = logging.StreamHandler(sys.stdout)
        handler.setFormatter(JsonFormatter())
        logging.basicConfig(level=logging.INFO, handlers=[handler])
    try:
        train(int(ENV["RANK"]), int(ENV["WORLD_SIZE"]), int(ENV.get("LOCAL_RANK", "0")))
    except Exception:
        if ENV.get("K10S_JSONLOG") != "1":
            raise
        LOG.exception("training failed")
        sys.exit(1)


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    main()
