"""The thirteenth set's training program (tests/tools/torch_scenarios13.py records it), run by torchrun or the
legacy ``torch.distributed.launch``: a tiny model trained over gloo (the process group's set-up and the recorder's
node mark come from t11_worker). One fault injected on K10S_FAULT_RANK (-1: every rank) at step K10S_FAULT_STEP;
K10S_FAULT_ATTEMPTS limits it to the first N attempts of a restarted job.

The step's shape (K10S_MODE): ``dp`` (gradients all-reduced by hand), ``moe`` (a mixture-of-experts dispatch:
``all_to_all_single`` of the tokens, then the gradient all-reduce), ``mesh`` (``init_device_mesh('cpu', (2, 2))``,
``dp`` x ``tp``: the activations all-reduced in the rank's ``tp`` group, the gradients in its ``dp`` group).

Faults (K10S_FAULT):
hang           the rank sleeps six process-group timeouts before its step's collectives
bad-splits     the rank's token counts (``input_split_sizes``) do not add up to its batch
sigkill        the rank SIGKILLs itself
dtype          the rank all-reduces its gradient as float64 (its peers: float32)
extra-barrier  the rank alone calls ``dist.barrier()`` (its checkpoint block's, meant for every rank) while its
               peers go on to the gradient all-reduce
keyerror       ``KeyError`` in the rank's batch lookup (with K10S_BAR: amid its progress bar)
breakpoint     a ``breakpoint()`` left in the code: the pod's stdin is closed, pdb reads EOF and quits (``BdbQuit``)
broken-pipe    the rank's metrics sink (a child process reading its stdin) has ended: ``BrokenPipeError``
skip-group     every rank creates a metrics group (``dist.new_group``) but the rank, whose flag skips it
loss-nan       the batch holds a NaN: the rank's own check raises ``RuntimeError: Loss is nan``
nan-skipped    (control) the rank's NaN loss is logged and its batch skipped (zero gradients, still
               all-reduced with its peers'); the run ends well
K10S_BAR=1: every rank draws a progress bar on stderr with carriage returns (as tqdm does), FutureWarnings too.
K10S_ARGPARSE=1: the script's own ``argparse`` (no ``--local-rank``) parses ``sys.argv`` first.
"""

from __future__ import annotations

import argparse
import logging
import os
import signal
import subprocess
import sys
import time
import warnings

import t11_worker as base
import torch
import torch.distributed as dist

ENV = os.environ
KIND = ENV.get("K10S_FAULT", "none")
STEP = int(ENV.get("K10S_FAULT_STEP", "3"))
RANK = int(ENV.get("RANK", "-2"))
ATTEMPTS = int(ENV.get("K10S_FAULT_ATTEMPTS", "99"))
CULPRIT = KIND != "none" and int(ENV.get("K10S_FAULT_RANK", "1")) in (RANK, -1) and base.ATTEMPT < ATTEMPTS
MODE = ENV.get("K10S_MODE", "dp")
LOG = logging.getLogger("train")


def _bar(step: int, steps: int) -> None:
    if ENV.get("K10S_BAR"):
        done = (step + 1) * 20 // steps
        sys.stderr.write(f"\rrank {RANK} epoch 0: {100 * (step + 1) // steps:3d}%|{'#' * done}{' ' * (20 - done)}| "
                         f"{step + 1}/{steps} [00:0{step}<00:0{steps - step}, 3.1it/s]")
        sys.stderr.flush()


def _dispatch(step: int, world: int, x: torch.Tensor) -> torch.Tensor:
    """Tokens to their experts (one expert per rank) and back: the MoE layer's all_to_all_single."""
    splits = [x.shape[0] // world] * world
    if CULPRIT and step == STEP and KIND == "bad-splits":
        splits[-1] += 1  # the router's capacity count is off by one on this rank
    out = torch.empty_like(x)
    dist.all_to_all_single(out, x, output_split_sizes=[x.shape[0] // world] * world, input_split_sizes=splits)
    return out


def _metrics_sink(step: int) -> None:
    sink = subprocess.Popen(["true"], stdin=subprocess.PIPE)  # the log shipper has already ended
    sink.wait()
    sink.stdin.write(f"step={step} rank={RANK} loss=0.25\n".encode() * 512)
    sink.stdin.flush()


def _fault(step: int) -> None:
    if not (CULPRIT and step == STEP):
        return
    if KIND == "hang":
        time.sleep(6 * base.GLOO_TIMEOUT_S)
    elif KIND == "sigkill":
        os.kill(os.getpid(), signal.SIGKILL)
    elif KIND == "keyerror":
        {"input_ids": step}["labels"]
    elif KIND == "breakpoint":
        breakpoint()  # noqa: T100  (left from a debugging session)
    elif KIND == "broken-pipe":
        _metrics_sink(step)
    elif KIND == "extra-barrier":
        print(f"rank {RANK}: checkpoint step-{step} saved", flush=True)
        dist.barrier()


def _reduce(t: torch.Tensor, step: int, group=None) -> None:
    if CULPRIT and step == STEP and KIND == "dtype":
        dist.all_reduce(t.double(), group=group)
    else:
        dist.all_reduce(t, group=group)


def _loss(step: int, model: torch.nn.Module, x: torch.Tensor) -> torch.Tensor | None:
    if KIND in ("loss-nan", "nan-skipped") and CULPRIT and step == STEP:
        x = x * float("nan")
    loss = model(x).pow(2).mean()
    if torch.isfinite(loss):
        return loss
    if KIND == "nan-skipped":
        LOG.warning("rank %d: loss is %s at step %d, skipping the batch", RANK, loss.item(), step)
        return None
    raise RuntimeError(f"Loss is {loss.item()}, stopping training")


def _groups(world: int):
    """(tp group, dp group) of the rank: a 2-D device mesh, or none."""
    if MODE != "mesh":
        return None, None
    from torch.distributed.device_mesh import init_device_mesh

    mesh = init_device_mesh("cpu", (world // 2, 2), mesh_dim_names=("dp", "tp"))
    return mesh.get_group("tp"), mesh.get_group("dp")


def train() -> None:
    if ENV.get("K10S_ARGPARSE"):
        ap = argparse.ArgumentParser(description="train a tiny model")
        ap.add_argument("--epochs", type=int, default=1)
        ap.parse_args()
    world, local = int(ENV["WORLD_SIZE"]), int(ENV.get("LOCAL_RANK", "0"))
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    base._init(RANK, world)
    base._mark(local)
    print(f"rank {RANK}/{world} (local {local}, pid {os.getpid()}, attempt {base.ATTEMPT}) initialised", flush=True)
    metrics = None if KIND == "skip-group" and CULPRIT else dist.new_group(list(range(world))) if KIND == "skip-group" else None
    tp, dp = _groups(world)
    torch.manual_seed(0)
    model, steps = torch.nn.Linear(8, 1), int(ENV.get("K10S_STEPS", "6"))
    for step in range(steps):
        if ENV.get("K10S_BAR") and step == 1:
            warnings.warn("torch.cuda.amp.GradScaler(args...) is deprecated", FutureWarning, stacklevel=1)
        _fault(step)
        x = torch.ones(4 * world, 8) * (step + RANK + 1) / 10
        x = _dispatch(step, world, x) if MODE == "moe" else x
        if tp is not None:
            _reduce(x, step, tp)
        loss = _loss(step, model, x)
        if loss is not None:
            loss.backward()
        with torch.no_grad():
            for p in model.parameters():
                grad = torch.zeros_like(p) if p.grad is None else p.grad  # a skipped batch adds nothing, in step
                _reduce(grad, step, dp)
                p -= 0.01 * grad / world
                p.grad = None
        if metrics is not None:
            dist.all_reduce(loss.detach(), group=metrics)
        _bar(step, steps)
        if not ENV.get("K10S_BAR"):
            print(f"rank {RANK} step {step} loss {0.0 if loss is None else loss.item():.4f}", flush=True)
        time.sleep(0.3)
    if ENV.get("K10S_BAR"):
        sys.stderr.write("\n")
    dist.destroy_process_group()
    print(f"rank {RANK} done", flush=True)


if __name__ == "__main__":
    train()
