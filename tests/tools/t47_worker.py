"""The forty-seventh set's training program (tests/tools/torch_scenarios47.py records it): a DDP loop on gloo on CPU, 2
agents x 2 processes, fed by a DataLoader of two workers over a DistributedSampler, carrying the hang and crash
diagnostics users add to their scripts: ``faulthandler.enable()`` (a fatal signal prints every thread's stack), a
per-step watchdog ``faulthandler.dump_traceback_later(K10S_WATCHDOG_S)`` re-armed each step (a step that overruns it
prints every thread's stack, ``Timeout (0:00:02)!``), ``faulthandler.register(SIGUSR1)``, a background metrics thread
(``Thread-1 (_push_metrics)``), an asynchronous checkpoint writer thread, ``atexit`` and ``sys.excepthook`` handlers that
print on every rank and (K10S_SIGTERM_LOG=1) a SIGTERM handler that logs and exits 0 (under
TORCH_DISTRIBUTED_DEBUG=DETAIL the gradients averaged by hand, not by DDP, and a plain barrier each step). One fault
from K10S_FAULT on K10S_FAULT_RANK (-1: every rank) at step K10S_FAULT_STEP (default 3):

hang            the rank sleeps four times the gloo timeout in its data step: its watchdog prints its stacks (the
                peers' watchdogs print theirs in the all-reduce), the peers time out
segfault        the rank reads address 0 in its forward: faulthandler's ``Fatal Python error: Segmentation fault`` and
                every thread's stack (the metrics thread's too)
thread-exit     the rank's metrics thread raises ``ConnectionRefusedError``; the script's ``threading.excepthook``
                prints it (``Exception in thread Thread-1 (_push_metrics):``) and calls ``os._exit(1)``
writer-enospc   the rank's checkpoint writer thread writes to a full disk (/dev/full): its ``OSError`` printed by
                threading's default hook; at the next step the main thread finds no checkpoint and raises
loader-kill     one of the rank's DataLoader workers SIGKILLs itself (as the kernel's OOM killer kills it) on the batch
                the loader prefetches at step 3 (two workers, two batches each ahead): the loader's ``DataLoader worker
                (pid N) is killed by signal: Killed.`` in the rank's main process
barrier-stall   the rank sleeps four times the gloo timeout before the step's ``monitored_barrier(wait_all_ranks=True)``:
                rank 0's ``Ranks N failed to pass monitoredBarrier``
abort           the rank's fused op fails its assertion (a C++ ``Assertion ... failed.`` line) and ``os.abort()``s
excepthook-cfg  (every rank, a control) the config's batch size does not divide: ``ValueError`` through the script's
                ``sys.excepthook`` (``[rank N] FATAL ...``) on every rank
noisy           (a control) rank 1 SIGUSR1s itself (faulthandler's stack dump), rank 2's metrics thread dies once
                (``Exception in thread``), every rank's atexit prints: the run ends well
"""

from __future__ import annotations

import atexit
import datetime as dt
import faulthandler
import os
import signal
import sys
import threading
import time
import traceback

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, Dataset, DistributedSampler

ENV = os.environ
TIMEOUT_S = float(ENV.get("K10S_GLOO_TIMEOUT_S", "3"))
WATCHDOG_S = float(ENV.get("K10S_WATCHDOG_S", "30"))
FAULT, AT = ENV.get("K10S_FAULT", "none"), int(ENV.get("K10S_FAULT_STEP", "3"))
STEPS = int(ENV.get("K10S_STEPS", "6"))
ME, LOCAL = int(ENV.get("RANK", "0")), int(ENV.get("LOCAL_RANK", "0"))
HIT = FAULT != "none" and int(ENV.get("K10S_FAULT_RANK", "1")) in (ME, -1)
BATCH = 4
DETAIL = ENV.get("TORCH_DISTRIBUTED_DEBUG") == "DETAIL"
STATE = {"step": 0, "metrics": 0, "ckpt": None}


def _now(fault: str, step: int) -> bool:
    return HIT and FAULT == fault and step == AT


class Tokens(Dataset):
    """A synthetic dataset: index i's features and target, seeded by i."""

    def __len__(self) -> int:
        return 4 * BATCH * (STEPS + 2)

    def __getitem__(self, i: int):
        if HIT and FAULT == "loader-kill" and i // 4 // BATCH == AT + 4:  # the batch the loader asks for at step AT
            os.kill(os.getpid(), signal.SIGKILL)
        g = torch.Generator().manual_seed(i)
        return torch.randn(8, generator=g), torch.randn(1, generator=g)


class Averaged(torch.nn.Module):
    """DDP's stand-in under TORCH_DISTRIBUTED_DEBUG=DETAIL (DDP's construction segfaults every rank there in 2.13.0, as
    the seventh set's run found): each parameter's gradient all-reduced and averaged after the backward by hand."""

    def __init__(self, module: torch.nn.Module) -> None:
        super().__init__()
        self.module = module
        for p in module.parameters():
            p.register_post_accumulate_grad_hook(self._average)

    @staticmethod
    def _average(p: torch.Tensor) -> None:
        dist.all_reduce(p.grad)
        p.grad /= dist.get_world_size()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.module(x)


def _push_metrics() -> None:
    """Every 0.3 s, the rank's step counter to the metrics endpoint (here: a print every fifth push)."""
    while True:
        time.sleep(0.3)
        step = STATE["step"]
        if (HIT and FAULT == "thread-exit" and step >= AT) or (HIT and FAULT == "noisy" and ME == 2 and step == 2):
            raise ConnectionRefusedError(111, f"metrics endpoint http://metrics.monitoring:9091/push refused (step {step})")
        STATE["metrics"] += 1
        if STATE["metrics"] % 5 == 0:
            print(f"rank {ME}: metrics pushed ({STATE['metrics']} records, step {step})", flush=True)


def _thread_died(args) -> None:
    """The script's threading.excepthook: threading's own report, then the rank ends if the thread was its metrics."""
    threading.__excepthook__(args)
    if FAULT == "thread-exit":
        print(f"rank {ME}: metrics thread died, exiting", file=sys.stderr, flush=True)
        os._exit(1)


def _write_ckpt(path: str, state: dict) -> None:
    target = "/dev/full" if HIT and FAULT == "writer-enospc" else path
    with open(target, "wb") as f:
        torch.save(state, f)
        f.flush()
    print(f"rank {ME}: checkpoint {os.path.basename(path)} written", flush=True)


def _excepthook(kind, value, tb) -> None:
    print(f"[rank {ME}] FATAL {kind.__name__}: {value}", file=sys.stderr, flush=True)
    traceback.print_exception(kind, value, tb)


def _on_sigterm(signum, _frame) -> None:
    print(f"rank {ME}: caught {signal.Signals(signum).name} at step {STATE['step']}, flushing metrics and exiting", flush=True)
    sys.exit(0)


def _step(ddp, opt, batch, step: int) -> float:
    x, y = batch
    if _now("hang", step):
        print(f"rank {ME}: waiting for shard {step} from the object store", flush=True)
        time.sleep(TIMEOUT_S * 4)
    if _now("segfault", step):
        import ctypes
        ctypes.string_at(0)
    if _now("abort", step):
        print("train.py: csrc/fused_adam.cpp:88: void check_chunks(int64_t): Assertion `numel % 8 == 0' failed.",
              file=sys.stderr, flush=True)
        os.abort()
    loss = torch.nn.functional.mse_loss(ddp(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    return loss.item()


def main() -> None:
    world = int(ENV["WORLD_SIZE"])
    print(f"rank {ME}/{world} (local {LOCAL}, pid {os.getpid()}) starting", flush=True)
    faulthandler.enable(all_threads=True)
    faulthandler.register(signal.SIGUSR1, all_threads=True)
    sys.excepthook = _excepthook
    threading.excepthook = _thread_died
    if ENV.get("K10S_SIGTERM_LOG") == "1":
        signal.signal(signal.SIGTERM, _on_sigterm)
    atexit.register(lambda: print(f"rank {ME}: atexit: {STATE['metrics']} metric records flushed", flush=True))
    dist.init_process_group("gloo", timeout=dt.timedelta(seconds=TIMEOUT_S))
    mark = ENV.get("K10S_MARK_DIR")
    if mark and LOCAL == 0:
        with open(os.path.join(mark, f"group-{ENV.get('GROUP_RANK', '0')}"), "w") as f:
            f.write(ENV.get("K10S_AGENT", ""))
    if HIT and FAULT == "excepthook-cfg":
        raise ValueError(f"global batch size 18 is not divisible by world size {world}")
    threading.Thread(target=_push_metrics, daemon=True).start()
    data = Tokens()
    loader = DataLoader(data, batch_size=BATCH, sampler=DistributedSampler(data, shuffle=False), num_workers=2)
    torch.manual_seed(0)
    ddp = Averaged(torch.nn.Linear(8, 1)) if DETAIL else DDP(torch.nn.Linear(8, 1))
    opt = torch.optim.SGD(ddp.parameters(), lr=0.01)
    ckdir = ENV.get("K10S_MARK_DIR") or "/tmp"
    for step, batch in enumerate(loader):
        if step >= STEPS:
            break
        STATE["step"] = step
        faulthandler.dump_traceback_later(WATCHDOG_S, repeat=False)  # the step watchdog
        if STATE["ckpt"] is not None:  # the previous step's asynchronous checkpoint
            writer, path = STATE["ckpt"]
            writer.join()
            if not os.path.exists(path):
                raise RuntimeError(f"async checkpoint {os.path.basename(path)} was not written (its writer thread failed)")
            STATE["ckpt"] = None
        if HIT and FAULT == "noisy" and ME == 1 and step == 2:
            print(f"rank {ME}: SIGUSR1: dumping stacks for the operator", flush=True)
            os.kill(os.getpid(), signal.SIGUSR1)
        loss = _step(ddp, opt, batch, step)
        if _now("barrier-stall", step):
            print(f"rank {ME}: recomputing the evaluation cache", flush=True)
            time.sleep(TIMEOUT_S * 4)
        if DETAIL:  # DETAIL's collective check counts monitored_barrier's sends on rank 0 apart: a false mismatch
            dist.barrier()
        else:
            dist.monitored_barrier(timeout=dt.timedelta(seconds=TIMEOUT_S), wait_all_ranks=True)
        faulthandler.cancel_dump_traceback_later()
        print(f"rank {ME} step {step} loss {loss:.4f}", flush=True)
        if step == AT:
            path = os.path.join(ckdir, f"ckpt-rank{ME}-step{step:04d}.pt")
            writer = threading.Thread(target=_write_ckpt, args=(path, ddp.module.state_dict()))
            writer.start()
            STATE["ckpt"] = (writer, path)
        time.sleep(0.2)
    dist.barrier()
    dist.destroy_process_group()
    print(f"rank {ME} done", flush=True)


if __name__ == "__main__":
    main()
