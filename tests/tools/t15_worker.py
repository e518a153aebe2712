"""The fifteenth set's training program (tests/tools/torch_scenarios15.py records it), run by ``torchrun``: the
fourteenth set's loop (tests/tools/t14_worker.py: a tiny linear model, gradients all-reduced by hand over gloo) with
this set's faults in its step, or (K10S_FAULT=rpc-*) a parameter-server loop over ``torch.distributed.rpc``. One fault
on K10S_FAULT_RANK (-1: every rank) at step K10S_FAULT_STEP.

Faults (K10S_FAULT):
task-group      the rank loads its shards with ``asyncio.TaskGroup``; two loads fail: an ``ExceptionGroup``
group-handled   (control) the same group caught, its traceback printed and the shards read from a cache; the
                rank's SIGUSR1 (a checkpoint request) handled by a handler; the run ends well
bare-assert     ``assert`` without a message on the batch's size: a bare ``AssertionError``
sigusr1         the rank gets SIGUSR1 with no handler (a batch system's notice sent to the wrong process)
sigpipe         the rank pipes its metrics into ``head -c 64`` with SIGPIPE's default action: SIGPIPE ends it
hook-logged     the script's ``sys.excepthook`` logs one line (no traceback); the rank's batch lookup raises ``KeyError``
names-ranks     the rank's vocabulary check raises a ``ValueError`` that names rank 0 and itself
state-dict      the rank resumes from a checkpoint of the wrong width: ``load_state_dict``'s size mismatch
rpc-sigkill     every rank joins ``torch.distributed.rpc``; rank 0 calls each other rank's scorer each step; the
                rank SIGKILLs itself inside its scorer
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import subprocess
import sys
import time
import traceback

import t11_worker as base
import t14_worker as t14
import torch

ENV = os.environ
FAULT, AT_STEP, ME, HIT = t14.FAULT, t14.AT_STEP, t14.ME, t14.HIT
GLOO_TIMEOUT_S = float(ENV.get("K10S_GLOO_TIMEOUT_S", "3"))


async def _load(shard: int) -> int:
    await asyncio.sleep(0.01 * shard)
    if shard == 1:
        raise FileNotFoundError(2, "No such file or directory", f"/data/shards/train-{ME:02d}-{shard:03d}.bin")
    if shard == 3:
        raise ValueError(f"shard {shard}: bad header (magic b'\\x00\\x00' != b'TKNS')")
    return 4096


async def _shards() -> int:
    async with asyncio.TaskGroup() as group:
        tasks = [group.create_task(_load(shard)) for shard in range(4)]
    return sum(t.result() for t in tasks)


def _on_usr1(signum, frame) -> None:
    print(f"rank {ME}: SIGUSR1 received: checkpoint requested, saving after this step", flush=True)


def _metrics_pipe(step: int) -> None:
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # as a CLI tool's ``signal(SIGPIPE, SIG_DFL)`` leaves it
    sink = subprocess.Popen(["head", "-c", "64"], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL)
    for _ in range(2000):
        sink.stdin.write(f"step={step} rank={ME} loss=0.5 tokens=4096\n".encode() * 64)
        sink.stdin.flush()
        time.sleep(0.001)


def _log_uncaught(kind, value, tb) -> None:
    logging.getLogger("train").error("uncaught %s: %s", kind.__name__, value)


def _inject(step: int, model: torch.nn.Module) -> None:
    """This set's fault in the fourteenth set's step (its ``_inject``)."""
    if FAULT == "task-group":
        asyncio.run(_shards())
    elif FAULT == "group-handled":
        try:
            asyncio.run(_shards())
        except Exception:  # the TaskGroup's ExceptionGroup (recorded as ``except* (FileNotFoundError, ValueError)``)
            traceback.print_exc()
            print(f"rank {ME}: 2 of 4 shards failed to load, read from the local cache instead", flush=True)
        os.kill(os.getpid(), signal.SIGUSR1)
    elif FAULT == "bare-assert":
        batch = torch.zeros(4, 8)
        assert batch.shape[0] == 8
    elif FAULT == "sigusr1":
        os.kill(os.getpid(), signal.SIGUSR1)
        time.sleep(1)
    elif FAULT == "sigpipe":
        _metrics_pipe(step)
    elif FAULT == "hook-logged":
        batch = {"input_ids": torch.zeros(4, 8)}
        batch["labels"]  # noqa: B018
    elif FAULT == "names-ranks":
        raise ValueError(f"expected the same vocabulary on every rank: rank 0 has 32000 tokens, rank {ME} has 32001")
    elif FAULT == "state-dict":
        model.load_state_dict({"weight": torch.zeros(2, 8), "bias": torch.zeros(2)})


def _score(step: int, rank: int) -> float:
    """A worker's scorer, called by rank 0 over RPC."""
    if HIT and step == AT_STEP and rank == ME:
        os.kill(os.getpid(), signal.SIGKILL)
    return float(step + rank)


def _rpc_main() -> None:
    from torch.distributed import rpc

    world, local = int(ENV["WORLD_SIZE"]), int(ENV.get("LOCAL_RANK", "0"))
    base._mark(local)
    opts = rpc.TensorPipeRpcBackendOptions(rpc_timeout=GLOO_TIMEOUT_S, init_method="env://")
    rpc.init_rpc(f"worker{ME}", rank=ME, world_size=world, rpc_backend_options=opts)
    print(f"rank {ME}/{world} (local {local}, pid {os.getpid()}) joined rpc", flush=True)
    if ME == 0:
        for step in range(int(ENV.get("K10S_STEPS", "6"))):
            scores = [rpc.rpc_sync(f"worker{r}", _score, args=(step, r)) for r in range(1, world)]
            print(f"rank 0 step {step} scores {scores}", flush=True)
            time.sleep(0.3)
    rpc.shutdown()
    print(f"rank {ME} done", flush=True)


def main() -> None:
    if FAULT.startswith("rpc-"):
        return _rpc_main()
    if HIT and FAULT == "hook-logged":
        logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
        sys.excepthook = _log_uncaught
    if HIT and FAULT == "group-handled":
        signal.signal(signal.SIGUSR1, _on_usr1)
    t14._inject = _inject
    t14.main()


if __name__ == "__main__":
    main()
