"""The twenty-seventh set's training program (tests/tools/torch_scenarios27.py records it), run by ``torchrun``, by
``torch.distributed.run.main`` from a wrapper, or by ``elastic_launch`` with a script entrypoint (tests/tools/t27_launch.py):
a tiny linear model whose gradients are all-reduced by hand over gloo (the process group's set-up and the recorder's
node mark from t11_worker). One fault on K10S_FAULT_RANK (-1: every rank) at step K10S_FAULT_STEP.

Faults (K10S_FAULT):
keyerror        ``KeyError`` in the rank's batch lookup
segfault        the rank reads address 0 (``ctypes.string_at(0)``)
late-keyerror   ``KeyError`` as ``keyerror``, only in a restarted attempt (``TORCHELASTIC_RESTART_COUNT`` > 0): after an
                elastic job re-formed without a lost node
log-exit        the rank's shard is missing (``FileNotFoundError``); its ``except`` logs it with ``logging.exception`` to
                STDOUT (a ``StreamHandler(sys.stdout)``, no rank in the format) and calls ``sys.exit(1)``: no traceback on
                stderr
exit-hang       the rank starts a non-daemon metrics thread that never ends and skips ``destroy_process_group``: its
                training ends like its peers', then the interpreter waits for the thread at exit, for ever
dist-breakpoint every rank calls ``torch.distributed.breakpoint(rank=K10S_FAULT_RANK)`` (left in by mistake): that rank
                enters pdb on a closed stdin, the others wait in its barrier
index-error     the rank's batch holds a token id past the embedding's vocabulary: ``IndexError: index out of range in
                self`` (every rank: the same global batch)
"""

from __future__ import annotations

import ctypes
import logging
import os
import sys
import threading
import time

import t11_worker as base
import torch
import torch.distributed as dist

ENV = os.environ
FAULT = ENV.get("K10S_FAULT", "none")
AT_STEP = int(ENV.get("K10S_FAULT_STEP", "3"))
ATTEMPT = int(ENV.get("TORCHELASTIC_RESTART_COUNT", "0"))
ME = int(ENV.get("RANK", "-2"))
WHO = int(ENV.get("K10S_FAULT_RANK", "1"))
HIT = FAULT != "none" and WHO in (ME, -1) and (FAULT != "late-keyerror" or ATTEMPT > 0)
LOG = logging.getLogger("train")
VOCAB = 50257


def _metrics_flusher() -> None:
    while True:
        time.sleep(0.5)


def _inject(step: int, emb: torch.nn.Embedding) -> None:
    if FAULT in ("keyerror", "late-keyerror"):
        {"input_ids": torch.ones(4)}["labels"]
    elif FAULT == "segfault":
        ctypes.string_at(0)
    elif FAULT == "log-exit":
        try:
            with open(f"/data/shards/train-{ME:05d}-of-00004.bin", "rb") as f:
                f.read()
        except OSError:
            LOG.exception("could not read the training shard at step %d", step)
            logging.shutdown()
            sys.exit(1)
    elif FAULT == "index-error":
        emb(torch.tensor([[17, 4211, VOCAB, 9]]))


def main() -> None:
    world, local = int(ENV["WORLD_SIZE"]), int(ENV.get("LOCAL_RANK", "0"))
    if FAULT == "log-exit":
        handler = logging.StreamHandler(sys.stdout)
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
        logging.basicConfig(level=logging.INFO, handlers=[handler])
    base._init(ME, world)
    base._mark(local)
    print(f"rank {ME}/{world} (local {local}, pid {os.getpid()}) initialised (attempt {ATTEMPT})", flush=True)
    if FAULT == "exit-hang" and HIT:
        threading.Thread(target=_metrics_flusher, name="metrics-flusher").start()
    torch.manual_seed(0)
    emb, model = torch.nn.Embedding(VOCAB, 8), torch.nn.Linear(8, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    for step in range(int(ENV.get("K10S_STEPS", "6"))):
        x = emb(torch.tensor([[1, 2, 3, 4]])).detach().squeeze(0) * (step % 5)
        if step == AT_STEP and HIT:
            _inject(step, emb)
        if step == AT_STEP and FAULT == "dist-breakpoint":
            dist.breakpoint(rank=WHO)
        loss = model(x).pow(2).mean()
        loss.backward()
        for p in model.parameters():
            dist.all_reduce(p.grad)
            p.grad /= world
        opt.step()
        opt.zero_grad()
        print(f"rank {ME} step {step} loss {loss.item():.4f}", flush=True)
        time.sleep(0.3)
    if not (FAULT == "exit-hang" and HIT):
        dist.destroy_process_group()
    print(f"rank {ME} done", flush=True)


if __name__ == "__main__":
    main()
