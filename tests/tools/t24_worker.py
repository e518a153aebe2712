"""The twenty-fourth set's training program (tests/tools/torch_scenarios24.py records it), run by ``torchrun``: the
twenty-second set's program (tests/tools/t22_worker.py: the twenty-first, nineteenth and seventeenth sets' loop and
faults) with this set's faults; ``python t24_worker.py ddp``: the seventh set's DDP program (tests/tools/t7_worker.py).
One fault on K10S_FAULT_RANK (-1: every rank) at step K10S_FAULT_STEP.

K10S_FAULT_BY_RANK  ``RANK:FAULT`` pairs (comma-separated): each culprit's own fault (set before the loop's modules read
                    K10S_FAULT; the culprits into K10S_FAULT_RANKS)
K10S_FAULT_LAG      ``RANK:SECONDS`` pairs: that culprit waits so long at the fault step before its fault

Faults (K10S_FAULT):
dcp-corrupt      at the fault step every rank saves a ``torch.distributed.checkpoint`` of its weights into one shared
                 folder; the faulting rank then cuts its own shard file to half its size (a copy cut short), and every
                 rank loads the checkpoint back: the faulting rank's read fails, DCP gathers it and raises
                 ``CheckpointException`` on every rank
compile-backend  at the fault step every rank compiles its metric (``torch.compile``) with a backend that caches each
                 graph's code in a folder; the faulting rank's cache path is not a folder (``/dev/null/…``):
                 ``torch._dynamo.exc.BackendCompilerFailed`` wrapping ``NotADirectoryError``
sigterm-143      every rank handles SIGTERM by printing a line and exiting 143 (``sys.exit(128 + 15)``); at the fault step
                 another process (``kill -TERM``) signals the faulting rank
"""

from __future__ import annotations

import glob
import importlib
import os
import signal
import subprocess
import sys
import time

ENV = os.environ
MINE = ("dcp-corrupt", "compile-backend", "sigterm-143")


def _pairs(key: str) -> dict[int, str]:
    return {int(r): v for r, v in (p.split(":") for p in ENV.get(key, "").split(",") if p)}


def _by_rank() -> None:
    """This rank's fault into K10S_FAULT, the culprits into K10S_FAULT_RANKS."""
    faults = _pairs("K10S_FAULT_BY_RANK")
    if faults:
        ENV["K10S_FAULT_RANKS"] = ",".join(str(r) for r in faults)
        ENV["K10S_FAULT"] = faults.get(int(ENV.get("RANK", "-1")), next(iter(faults.values())))


def _on_sigterm(signum, frame) -> None:
    print(f"rank {ENV.get('RANK', '?')}: caught SIGTERM, shutting down (exit status {128 + signum})", flush=True)
    sys.exit(128 + signum)


def _checkpoint_roundtrip(step: int, hit: bool, me: int) -> None:
    import torch
    import torch.distributed as dist
    import torch.distributed.checkpoint as dcp

    folder = os.path.join(ENV.get("K10S_MARK_DIR", "/tmp"), f"ckpt-step{step}")
    state = {f"layer{me}.weight": torch.full((64, 64), float(me))}
    print(f"rank {me}: saving checkpoint step {step} to {os.path.basename(folder)}", flush=True)
    dcp.save(state, checkpoint_id=folder)
    dist.barrier()
    if hit:  # this rank's shard cut short, as a copy that stopped half way
        for shard in glob.glob(os.path.join(folder, f"__{me}_*.distcp")):
            with open(shard, "r+b") as f:
                f.truncate(os.path.getsize(shard) // 2)
    dist.barrier()
    print(f"rank {me}: resuming from checkpoint step {step}", flush=True)
    target = {f"layer{me}.weight": torch.empty(64, 64)}
    dcp.load(target, checkpoint_id=folder)


def _compile_metric(step: int, hit: bool, me: int) -> None:
    import torch

    cache = "/dev/null/k10s-fuser-cache" if hit else os.path.join(ENV.get("K10S_MARK_DIR", "/tmp"), f"fuser-cache-{me}")

    def fuser(gm, example_inputs):
        os.makedirs(cache, exist_ok=True)
        with open(os.path.join(cache, f"graph-step{step}.py"), "w") as f:
            f.write(gm.code)
        return gm.forward

    def metric(t):
        return (t.clamp(max=1.0) * 2).sum()

    print(f"rank {me}: compiling the step metric", flush=True)
    value = torch.compile(metric, backend=fuser)(torch.ones(4) * step)
    print(f"rank {me}: step {step} metric {float(value):.2f}", flush=True)


def main() -> None:
    args = sys.argv[1:]
    if args[:1] == ["ddp"]:
        importlib.import_module("t7_worker").main()
        return
    _by_rank()
    if ENV.get("K10S_FAULT") == "sigterm-143":
        signal.signal(signal.SIGTERM, _on_sigterm)
    t19, t17, t22 = (importlib.import_module(m) for m in ("t19_worker", "t17_worker", "t22_worker"))
    lag = {r: float(s) for r, s in _pairs("K10S_FAULT_LAG").items()}
    base_inject, base_gather = t19._inject, t17._gather

    def _inject(step: int, model) -> None:
        """In the loop's step (the faulting ranks only): the rank's lag, then this set's fault, else the earlier sets'."""
        time.sleep(lag.get(t17.ME, 0.0))
        if t17.FAULT == "sigterm-143":
            subprocess.Popen(["sh", "-c", f"kill -TERM {os.getpid()}"])
            time.sleep(10)
        elif t17.FAULT not in MINE:
            base_inject(step, model)

    def _gather(step: int, world: int, loss) -> None:
        """The seventeenth set's gather, then (at the fault step, every rank) this set's checkpoint or compiled metric."""
        base_gather(step, world, loss)
        if step == t17.AT_STEP and t17.FAULT == "dcp-corrupt":
            _checkpoint_roundtrip(step, t17.HIT, t17.ME)
        elif step == t17.AT_STEP and t17.FAULT == "compile-backend":
            _compile_metric(step, t17.HIT, t17.ME)

    t19._inject, t17._gather = _inject, _gather  # the twenty-second set's step falls back on them
    t22.main()


if __name__ == "__main__":
    main()
