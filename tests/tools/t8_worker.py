"""The eighth set's training program (tests/tools/torch_scenarios8.py records it): a tiny model whose
gradients are all-reduced by hand over gloo, K10S_STEPS steps, one fault injected on K10S_FAULT_RANK
(-1: every rank) at step K10S_FAULT_STEP. Run by torchrun.

Faults (K10S_FAULT):
dcp-missing-shard  every rank saves a ``torch.distributed.checkpoint`` of its own tensor; the rank's
                   shard file is then lost and every rank loads the checkpoint (DCP gathers the
                   rank's read error and raises it on every rank)
unpicklable        ``all_gather_object`` of the step's metrics; the rank's holds a lambda
loader-deadlock    the rank's DataLoader worker deadlocks on a ``threading.Lock`` in its collate
                   (taken twice); the loader's ``timeout`` expires
save-recursion     the rank ``torch.save``s a deeply nested list (RecursionError while pickling)
segv-threads       ``faulthandler.enable(all_threads=True)``, two helper threads, then SIGSEGV to itself
sigxcpu            RLIMIT_CPU of 1 s, then a busy loop: the kernel sends SIGXCPU
bad-env            the rank's ``K10S_VISIBLE_DEVICES`` is malformed ("0,1,gpu2"): its own setup raises
                   before ``init_process_group``
config-missing     every rank opens the same missing config file at the step (FileNotFoundError)

Output (environment): K10S_PYLOG=1 ``logging`` to stderr at WARNING, ``%(asctime)s [%(process)d]
%(levelname)s %(name)s: %(message)s`` (no rank in the line), a failure logged with
``logger.exception`` then ``sys.exit(1)``; K10S_NOISE=1 the program prints NCCL_DEBUG=INFO-like
lines and warnings that read like failures (a clean run's noise).
"""

from __future__ import annotations

import datetime as dt
import faulthandler
import logging
import os
import resource
import signal
import sys
import threading
import time

import torch
import torch.distributed as dist

GLOO_TIMEOUT_S = float(os.environ.get("K10S_GLOO_TIMEOUT_S", "6"))
ENV = os.environ
LOG = logging.getLogger("trainer")


def say(msg: str) -> None:
    if ENV.get("K10S_PYLOG") == "1":
        LOG.warning(msg)
    else:
        print(msg, flush=True)


class Items(torch.utils.data.Dataset):
    def __len__(self) -> int:
        return 64

    def __getitem__(self, i: int):
        return torch.ones(8) * (i % 5)


_LOCK = threading.Lock()


def _locked_collate(batch):
    with _LOCK:
        with _LOCK:  # a nested helper takes the same (non-reentrant) lock: never returns
            return torch.stack(batch)


def _dcp_missing_shard(rank: int, culprit: bool) -> None:
    import torch.distributed.checkpoint as dcp

    ckpt = os.path.join(ENV.get("K10S_MARK_DIR", "/tmp"), "ckpt-step")
    dcp.save({f"layer{rank}.weight": torch.ones(4) * rank}, checkpoint_id=ckpt)
    dist.barrier()
    if culprit:
        for name in sorted(os.listdir(ckpt)):
            if name.startswith(f"__{rank}_") and name.endswith(".distcp"):
                os.remove(os.path.join(ckpt, name))
    dist.barrier()
    state = {f"layer{rank}.weight": torch.zeros(4)}
    say(f"rank {rank}: resuming from {ckpt}")
    dcp.load(state, checkpoint_id=ckpt)


def _busy_cpu() -> None:
    resource.setrlimit(resource.RLIMIT_CPU, (1, 5))
    x = 0
    while True:
        x = (x * 31 + 7) % 1000003


def _segv_threads() -> None:
    faulthandler.enable(all_threads=True)
    stop = threading.Event()
    for name in ("prefetch", "metrics"):
        threading.Thread(target=stop.wait, name=name, daemon=True).start()
    time.sleep(0.2)
    os.kill(os.getpid(), signal.SIGSEGV)


def _fault(kind: str, rank: int, step: int, culprit: bool) -> None:
    if kind == "dcp-missing-shard":
        _dcp_missing_shard(rank, culprit)
    elif kind == "config-missing" and culprit:
        with open("/etc/trainer/run-config.yaml") as f:
            f.read()
    elif not culprit:
        return
    elif kind == "save-recursion":
        nested: list = []
        for _ in range(100000):
            nested = [nested]
        torch.save({"history": nested}, os.path.join(ENV.get("K10S_MARK_DIR", "/tmp"), f"state-{rank}.pt"))
    elif kind == "segv-threads":
        _segv_threads()
    elif kind == "sigxcpu":
        _busy_cpu()


def _gather_metrics(rank: int, loss: float, bad: bool) -> None:
    metrics = {"rank": rank, "loss": loss, "scale": (lambda v: v * 2) if bad else 2.0}
    out = [None] * dist.get_world_size()
    dist.all_gather_object(out, metrics)


def _noise(rank: int) -> None:
    host = "trainer-node-0"
    print(f"{host}:{os.getpid()}:{os.getpid()} [{rank}] NCCL INFO Bootstrap : Using eth0:10.0.0.{rank + 2}<0>", flush=True)
    print(f"{host}:{os.getpid()}:{os.getpid()} [{rank}] NCCL INFO NET/Plugin: No plugin found (libnccl-net.so), using internal implementation",
          flush=True)
    print(f"{host}:{os.getpid()}:{os.getpid()} [{rank}] NCCL INFO cudaDriverVersion 12040 failed to find CUDA library, falling back",
          flush=True)
    print(f"[W socket.cpp:697] [c10d] The client socket has failed to connect to [trainer-node-0]:29500 (errno: 111 - Connection "
          f"refused). retrying (rank {rank})", flush=True)


def _check_devices() -> list[int]:
    return [int(d) for d in ENV.get("K10S_VISIBLE_DEVICES", "0").split(",")]


def train(rank: int, world: int, local_rank: int) -> None:
    kind = ENV.get("K10S_FAULT", "none")
    target = int(ENV.get("K10S_FAULT_RANK", "1"))
    culprit = kind != "none" and target in (rank, -1)
    bad_step, steps = int(ENV.get("K10S_FAULT_STEP", "3")), int(ENV.get("K10S_STEPS", "6"))
    if culprit and kind == "bad-env":
        ENV["K10S_VISIBLE_DEVICES"] = "0,1,gpu2"
    devices = _check_devices()
    dist.init_process_group("gloo", rank=rank, world_size=world, timeout=dt.timedelta(seconds=GLOO_TIMEOUT_S))
    mark = ENV.get("K10S_MARK_DIR")
    if mark and local_rank == 0:
        with open(os.path.join(mark, f"group-{ENV.get('GROUP_RANK', '0')}"), "w") as f:
            f.write(ENV.get("K10S_AGENT", ""))
    say(f"rank {rank}/{world} (local {local_rank}, pid {os.getpid()}, devices {devices}) initialised")
    if ENV.get("K10S_NOISE") == "1":
        _noise(rank)
    torch.manual_seed(0)
    model = torch.nn.Linear(8, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    deadlock = culprit and kind == "loader-deadlock"
    loader = torch.utils.data.DataLoader(Items(), batch_size=4, num_workers=1 if deadlock else 0, timeout=3 if deadlock else 0,
                                         collate_fn=_locked_collate if deadlock else None)
    batches = iter(loader) if not deadlock else None
    for step in range(steps):
        if step == bad_step:
            _fault(kind, rank, step, culprit)
            if deadlock:
                batches = iter(loader)
        x = next(batches) if batches is not None else torch.ones(4, 8)
        loss = model(x).pow(2).mean()
        loss.backward()
        for p in model.parameters():
            dist.all_reduce(p.grad)
            p.grad /= world
        opt.step()
        opt.zero_grad()
        if kind == "unpicklable" and step == bad_step:
            _gather_metrics(rank, loss.item(), culprit)
        if rank == 0:
            say(f"step {step} loss {loss.item():.4f}")
        time.sleep(0.3)
    dist.destroy_process_group()
    say(f"rank {rank} done")


def main() -> None:
    if ENV.get("K10S_PYLOG") == "1":
        logging.basicConfig(level=logging.WARNING, stream=sys.stderr,
                            format="%(asctime)s [%(process)d] %(levelname)s %(name)s: %(message)s")
    try:
        train(int(ENV["RANK"]), int(ENV["WORLD_SIZE"]), int(ENV.get("LOCAL_RANK", "0")))
    except Exception:
        if ENV.get("K10S_PYLOG") != "1":
            raise
        LOG.exception("training failed")
        sys.exit(1)


if __name__ == "__main__":
    main()
