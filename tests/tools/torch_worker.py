"""A tiny gloo training loop that injects one fault (tests/tools/record_torch.py runs it).

Run by torchrun / torch.distributed.launch (rank from the environment or ``--local-rank``) or
imported by the mp.spawn runner (``spawn_main``). The fault comes from the environment:

K10S_FAULT       none | sigkill | segfault | exception | abort | sigbus | never-joins |
                 monitored-barrier | op-mismatch | size-mismatch | hang | exit0 |
                 exit3 (sys.exit(3)) | os-exit7 (os._exit(7)) | sigterm-outside (``kill -TERM`` run by the
                 rank on itself) | sigill | sigfpe | dataloader-kill (a DataLoader worker SIGKILLed) |
                 lag (sleeps past the process group's timeout, then goes on) | valueerror |
                 memoryerror (a real allocation past RLIMIT_AS)
K10S_FAULT_RANK  the global rank that misbehaves (default 1; -1: every rank)
K10S_FAULT_RANKS that rank per attempt under ``--max-restarts`` (comma-separated, by
                 TORCHELASTIC_RESTART_COUNT): the failing rank moves between attempts
K10S_COLLECTIVE  all_reduce (default) | barrier (``dist.barrier()`` each step)
K10S_RECORD=1    main wrapped in torch.distributed.elastic's ``@record`` (the error file)
K10S_FAULTHANDLER=1  ``faulthandler.enable()`` first; K10S_LOGGING=1: ``logging`` lines with
                 time and level; K10S_WARN=1: a real UserWarning on every rank
K10S_FAULT_STEP  the step at which it does (default 3)
K10S_STEPS       steps in all (default 6)
K10S_MARK_DIR    where local rank 0 notes which agent got which node (not part of any log)
"""

from __future__ import annotations

import ctypes
import datetime as dt
import faulthandler
import logging
import os
import resource
import signal
import subprocess
import sys
import time

import torch
import torch.distributed as dist

GLOO_TIMEOUT_S = float(os.environ.get("K10S_GLOO_TIMEOUT_S", "6"))
LOG = logging.getLogger("train")


def say(msg: str) -> None:
    """A progress line: print, or a ``logging`` record with time and level (K10S_LOGGING=1)."""
    if os.environ.get("K10S_LOGGING") == "1":
        LOG.info(msg)
    else:
        print(msg, flush=True)


class _Killable(torch.utils.data.Dataset):
    """A dataset whose loader worker is SIGKILLed at item 2 (as the OOM killer would)."""

    def __len__(self) -> int:
        return 64

    def __getitem__(self, i: int):
        if i == 2:
            os.kill(os.getpid(), signal.SIGKILL)
        return torch.ones(4) * i


def _host_memory_error() -> None:
    """Allocate past an address-space limit set just above what the process maps now."""
    with open("/proc/self/status") as f:
        vm_kb = next(int(line.split()[1]) for line in f if line.startswith("VmSize:"))
    limit = (vm_kb + 256 * 1024) * 1024
    resource.setrlimit(resource.RLIMIT_AS, (limit, resource.getrlimit(resource.RLIMIT_AS)[1]))
    buffers = [bytearray(64 << 20) for _ in range(64)]  # 4 GiB: MemoryError
    say(f"allocated {len(buffers)} buffers")


def _fault(kind: str, rank: int, step: int) -> None:
    """Misbehave as ``kind`` says (collectives that differ are run by the caller)."""
    if kind == "sigkill":
        os.kill(os.getpid(), signal.SIGKILL)
    elif kind == "segfault":
        ctypes.string_at(0)
    elif kind == "exception":
        batch = {"input_ids": torch.ones(4)}
        print(f"rank {rank}: loading step {step} batch", flush=True)
        _ = batch["labels"]
    elif kind == "abort":
        os.abort()
    elif kind == "sigbus":
        os.kill(os.getpid(), signal.SIGBUS)
    elif kind == "hang":
        time.sleep(3600)
    elif kind == "exit0":
        sys.exit(0)
    elif kind == "exit3":
        sys.exit(3)
    elif kind == "os-exit7":
        os._exit(7)
    elif kind == "sigterm-outside":
        subprocess.run(["kill", "-TERM", str(os.getpid())], check=False)
        time.sleep(30)
    elif kind in ("sigill", "sigfpe"):
        os.kill(os.getpid(), signal.SIGILL if kind == "sigill" else signal.SIGFPE)
    elif kind == "dataloader-kill":
        for batch in torch.utils.data.DataLoader(_Killable(), batch_size=1, num_workers=1):
            say(f"rank {rank}: batch {int(batch[0][0])}")
    elif kind == "lag":
        say(f"rank {rank}: writing a checkpoint")
        time.sleep(GLOO_TIMEOUT_S * 2.5)
    elif kind == "valueerror":
        raise ValueError(f"expected a config key 'lr_schedule' at step {step}; got none")
    elif kind == "memoryerror":
        _host_memory_error()


def _step(rank: int, world: int, step: int, kind: str, culprit: bool) -> None:
    t = torch.ones(8) * (rank + 1)
    if culprit and kind == "op-mismatch":
        dist.broadcast(t, src=0)
    elif culprit and kind == "size-mismatch":
        dist.all_reduce(torch.ones(5))
    elif kind == "monitored-barrier":
        if culprit:
            time.sleep(GLOO_TIMEOUT_S * 4)
        dist.monitored_barrier(timeout=dt.timedelta(seconds=GLOO_TIMEOUT_S / 2))
    elif os.environ.get("K10S_COLLECTIVE") == "barrier":
        dist.barrier()
    else:
        dist.all_reduce(t)
        assert t[0].item() == world * (world + 1) / 2


def train(rank: int, world: int, local_rank: int, init_method: str = "env://") -> None:
    kind = os.environ.get("K10S_FAULT", "none")
    bad_rank = int(os.environ.get("K10S_FAULT_RANK", "1"))
    if os.environ.get("K10S_FAULT_RANKS"):
        by_attempt = os.environ["K10S_FAULT_RANKS"].split(",")
        bad_rank = int(by_attempt[min(int(os.environ.get("TORCHELASTIC_RESTART_COUNT", "0")), len(by_attempt) - 1)])
    bad_step = int(os.environ.get("K10S_FAULT_STEP", "3"))
    steps = int(os.environ.get("K10S_STEPS", "6"))
    culprit = bad_rank in (rank, -1) and kind != "none"
    if os.environ.get("K10S_WARN") == "1":
        torch.tensor(torch.ones(2))  # UserWarning: To copy construct from a tensor, ...
    if culprit and kind == "never-joins":
        time.sleep(GLOO_TIMEOUT_S * 6)
        sys.exit(0)
    timeout = dt.timedelta(seconds=GLOO_TIMEOUT_S)
    restart = int(os.environ.get("TORCHELASTIC_RESTART_COUNT", "0"))
    if os.environ.get("K10S_FAULT_RANKS") and restart:  # torch 2.13's agent store keeps the last attempt's gloo
        # addresses (the restarted ranks dial the dead ones): this attempt's keys under a prefix of their own
        store = dist.TCPStore(os.environ["MASTER_ADDR"], int(os.environ["MASTER_PORT"]), world, False, timeout=timeout)
        dist.init_process_group("gloo", store=dist.PrefixStore(f"attempt{restart}", store), rank=rank, world_size=world,
                                timeout=timeout)
    else:
        dist.init_process_group("gloo", init_method=init_method, rank=rank, world_size=world, timeout=timeout)
    mark = os.environ.get("K10S_MARK_DIR")
    if mark and local_rank == 0:
        with open(os.path.join(mark, f"group-{os.environ.get('GROUP_RANK', '0')}"), "w") as f:
            f.write(os.environ.get("K10S_AGENT", ""))
    say(f"rank {rank}/{world} (local {local_rank}) initialised")
    for step in range(steps):
        if culprit and step == bad_step:
            _fault(kind, rank, step)
        _step(rank, world, step, kind, culprit and step == bad_step)
        if rank == 0:
            say(f"step {step} loss {1.0 / (step + 1):.4f}")
        time.sleep(0.3)
    dist.destroy_process_group()
    say(f"rank {rank} done")


def spawn_main(local_rank: int, world: int, port: int) -> None:
    """mp.spawn's entry: one node, global rank = local rank."""
    train(local_rank, world, local_rank, init_method=f"tcp://127.0.0.1:{port}")


def main() -> None:
    if os.environ.get("K10S_FAULTHANDLER") == "1":
        faulthandler.enable()
    if os.environ.get("K10S_LOGGING") == "1":
        logging.basicConfig(level=logging.INFO, format=f"%(asctime)s %(levelname)s [rank{os.environ.get('RANK')}] %(name)s: %(message)s")
    if os.environ.get("K10S_RECORD") == "1":
        from torch.distributed.elastic.multiprocessing.errors import record
        return record(_main)()
    _main()


def _main() -> None:
    for arg in sys.argv[1:]:
        if arg.startswith(("--local-rank=", "--local_rank=")):
            os.environ.setdefault("LOCAL_RANK", arg.split("=", 1)[1])
    train(int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"]), int(os.environ.get("LOCAL_RANK", "0")))


if __name__ == "__main__":
    main()
