"""The tenth set's training program (tests/tools/torch_scenarios10.py records it), run by torchrun.
One fault injected on K10S_FAULT_RANK (-1: every rank) at step K10S_FAULT_STEP. Under ``--max-restarts``,
K10S_FAULT and K10S_FAULT_RANK may hold one entry per attempt (comma-separated, by TORCHELASTIC_RESTART_COUNT).

Styles (K10S_STYLE): ``dp`` (a tiny model, gradients all-reduced by hand over gloo), ``pipe`` (hand-written pipeline
stages: activations ``dist.send``/``dist.recv`` rank to rank, gradients back), ``groups`` (two ``dist.new_group``
subgroups, {0, 1} and {2, 3}, each all-reducing on its own, a global all-reduce at the end), ``ddp`` (DDP with
``no_sync()`` gradient accumulation), ``tp`` (``parallelize_module`` tensor parallel, Colwise/Rowwise, gloo CPU mesh).

Faults (K10S_FAULT):
raise             the stage raises ``ValueError`` (pipe: before sending its activation on)
sigkill           the rank SIGKILLs itself
keyerror          ``KeyError`` in the rank's batch lookup
accum-hang        (ddp) the rank's accumulation count is misconfigured: it stays in ``no_sync()`` for hundreds
                  of micro-steps while its peers wait in DDP's all-reduce
shape             (tp) the rank's batch has 7 features, not 8: its local matmul fails, peers wait
eval-subprocess   ``subprocess.run([...], check=True)`` of an evaluation command that exits 3
nproc             the rank drops to an unprivileged user under RLIMIT_NPROC, then starts DataLoader workers:
                  ``BlockingIOError: [Errno 11] Resource temporarily unavailable``
truncated-ckpt    ``torch.load`` of a checkpoint cut in half (``PytorchStreamReader failed reading zip``)
weights-only      ``torch.load`` of a checkpoint holding a class of the program (weights_only refuses it)
autograd-fn       a ``torch.autograd.Function`` whose ``backward`` raises
unicode           the rank's label file holds Latin-1 bytes: ``UnicodeDecodeError``
exit0             the rank returns with exit status 0 mid-run (its peers see its connection close)
longline          the rank prints non-UTF-8 bytes and a 70 KiB line, then ``KeyError``
hparam-assert     every rank: ``assert`` that the global batch divides by the world size (control)
handled-noise     a clean run; the rank logs a handled exception with its traceback and failure-looking counters
                  (``error_count=0``, ``failed: 0``) (control)
longline-clean    a clean run; the rank prints non-UTF-8 bytes and a 70 KiB line (control)
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import logging
import os
import resource
import signal
import subprocess
import sys
import time

import torch
import torch.distributed as dist

ENV = os.environ
GLOO_TIMEOUT_S = float(ENV.get("K10S_GLOO_TIMEOUT_S", "5"))
ATTEMPT = int(ENV.get("TORCHELASTIC_RESTART_COUNT", "0"))
LOG = logging.getLogger("trainer")


def _per_attempt(name: str, default: str) -> str:
    values = ENV.get(name, default).split(",")
    return values[min(ATTEMPT, len(values) - 1)]


KIND = _per_attempt("K10S_FAULT", "none")
TARGET = int(_per_attempt("K10S_FAULT_RANK", "1"))


class RunConfig:
    def __init__(self):
        self.lr, self.warmup = 0.01, 100


class ClampGrad(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x.clamp(-1, 1)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        if grad.shape != x.shape or grad.numel() > 0:
            raise RuntimeError(f"ClampGrad.backward: saved input has {x.numel()} elements but the mask was built for "
                               f"{x.numel() // 2} (stale mask from the previous micro-batch)")
        return grad


class Samples(torch.utils.data.Dataset):
    def __len__(self) -> int:
        return 64

    def __getitem__(self, i: int):
        return torch.ones(8) * (i % 5)


def _checkpoint(kind: str, model: torch.nn.Module) -> None:
    path = os.path.join(ENV.get("K10S_MARK_DIR", "/tmp"), f"ckpt-{kind}.pt")
    if kind == "weights-only":
        torch.save({"model": model.state_dict(), "config": RunConfig()}, path)
        torch.load(path)
        return
    torch.save({"model": model.state_dict(), "buffer": torch.zeros(4096)}, path)
    with open(path, "r+b") as f:
        f.truncate(os.path.getsize(path) // 2)
    torch.load(path, map_location="cpu")


def _nproc_loader() -> None:
    next(iter(torch.utils.data.DataLoader(Samples(), batch_size=4, num_workers=1)))  # the loader's modules imported
    resource.setrlimit(resource.RLIMIT_NPROC, (1, 1))
    os.setgid(65534)
    os.setuid(65534)
    next(iter(torch.utils.data.DataLoader(Samples(), batch_size=4, num_workers=2)))  # fails: no process may start


def _labels(rank: int) -> None:
    path = os.path.join(ENV.get("K10S_MARK_DIR", "/tmp"), f"labels-{rank}.txt")
    with open(path, "wb") as f:
        f.write("cat\ndog\n".encode() + "caf\u00e9 cr\u00e8me\n".encode("latin-1"))
    with open(path, encoding="utf-8") as f:
        f.read().splitlines()


def _noisy_lines(rank: int) -> None:
    sys.stdout.flush()
    sys.stdout.buffer.write(b"batch meta: source=\xff\xfelatin-1 caption 'caf\xe9' (raw bytes)\n")
    sys.stdout.buffer.flush()
    tokens = [(i * 7919) % 50257 for i in range(12000)]
    print("batch tokens: " + json.dumps({"rank": rank, "input_ids": tokens}), flush=True)


def _handled_noise(rank: int) -> None:
    logging.basicConfig(format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    try:
        raise ConnectionError("metrics push to http://127.0.0.1:9091 refused")
    except ConnectionError:
        LOG.exception("metrics push failed (attempt 1/3), will retry; error_count=0 for training")
    print(f"[rank{rank}] eval: failed: 0, errors: 0, error_count=0, nan_count=0, status=ok", flush=True)


def _fault(kind: str, rank: int, model: torch.nn.Module, x: torch.Tensor) -> None:
    if kind == "keyerror":
        {"input_ids": x}["labels"]
    elif kind == "raise":
        raise ValueError(f"stage {rank}: activation has NaN in 3 of {x.numel()} elements")
    elif kind == "sigkill":
        os.kill(os.getpid(), signal.SIGKILL)
    elif kind in ("eval-subprocess", "eval-common"):
        subprocess.run(["sh", "-c", "echo 'eval: metrics file /ckpt/eval/step-3.json not found' >&2; exit 3"], check=True)
    elif kind == "nproc":
        _nproc_loader()
    elif kind in ("truncated-ckpt", "weights-only"):
        _checkpoint(kind, model)
    elif kind == "autograd-fn":
        ClampGrad.apply(model(x)).sum().backward()
    elif kind == "unicode":
        _labels(rank)
    elif kind == "exit0":
        print(f"rank {rank}: early stopping criterion met, leaving the loop", flush=True)
        sys.exit(0)
    elif kind == "longline":
        _noisy_lines(rank)
        {"input_ids": x}["labels"]
    elif kind == "longline-clean":
        _noisy_lines(rank)
    elif kind == "handled-noise":
        _handled_noise(rank)
    elif kind == "hparam-assert":
        batch = 30
        assert batch % dist.get_world_size() == 0, f"global batch {batch} is not divisible by world size {dist.get_world_size()}"


def _mark(local_rank: int) -> None:
    mark = ENV.get("K10S_MARK_DIR")
    if mark and local_rank == 0:
        with open(os.path.join(mark, f"group-{ENV.get('GROUP_RANK', '0')}"), "w") as f:
            f.write(ENV.get("K10S_AGENT", ""))


def _init(rank: int, world: int) -> None:
    timeout = dt.timedelta(seconds=GLOO_TIMEOUT_S)
    if ATTEMPT:  # torch 2.13's agent store keeps the last attempt's gloo addresses: this attempt's keys apart
        store = dist.TCPStore(ENV["MASTER_ADDR"], int(ENV["MASTER_PORT"]), world, False, timeout=timeout)
        dist.init_process_group("gloo", store=dist.PrefixStore(f"attempt{ATTEMPT}", store), rank=rank, world_size=world,
                                timeout=timeout)
    else:
        dist.init_process_group("gloo", rank=rank, world_size=world, timeout=timeout)


def _step_dp(rank, world, step, model, x) -> torch.Tensor:
    loss = model(x).pow(2).mean()
    loss.backward()
    for p in model.parameters():
        dist.all_reduce(p.grad)
        p.grad /= world
    return loss


def _step_pipe(rank, world, step, model, x) -> torch.Tensor:
    act = x if rank == 0 else torch.empty(4, 8)
    if rank:
        dist.recv(act, src=rank - 1)
    act = act.detach().requires_grad_(True)
    out = torch.tanh(model.weight.new_ones(8, 8) * 0.1 @ act.T).T
    if CULPRIT and step == BAD_STEP:
        _fault(KIND, rank, model, x)
    if rank < world - 1:
        dist.send(out.detach().contiguous(), dst=rank + 1)
        grad = torch.empty(out.shape)
        dist.recv(grad, src=rank + 1)
        out.backward(grad)
    else:
        out.pow(2).mean().backward()
    if rank:
        dist.send(act.grad.contiguous(), dst=rank - 1)
    return out.detach().pow(2).mean()


def _step_groups(rank, world, step, model, x) -> torch.Tensor:
    loss = model(x).pow(2).mean()
    loss.backward()
    for p in model.parameters():
        dist.all_reduce(p.grad, group=GROUP)
    return loss


def _step_ddp(rank, world, step, model, x) -> torch.Tensor:
    accum = 240 if CULPRIT and KIND == "accum-hang" and step >= BAD_STEP else 2
    for micro in range(accum):
        ctx = model.no_sync() if micro < accum - 1 else contextlib.nullcontext()
        with ctx:
            loss = model(x).pow(2).mean() / accum
            loss.backward()
        if accum > 2:
            time.sleep(0.05)
    return loss


def _step_tp(rank, world, step, model, x) -> torch.Tensor:
    if CULPRIT and step == BAD_STEP and KIND == "shape":
        x = x[:, :7]
    loss = model(x).pow(2).mean()
    loss.backward()
    return loss


STEPS = {"dp": _step_dp, "pipe": _step_pipe, "groups": _step_groups, "ddp": _step_ddp, "tp": _step_tp}


def _model(style: str, world: int) -> torch.nn.Module:
    torch.manual_seed(0)
    if style == "ddp":
        return torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(8, 1))
    if style == "tp":
        from torch.distributed.device_mesh import init_device_mesh
        from torch.distributed.tensor.parallel import ColwiseParallel, RowwiseParallel, parallelize_module

        mesh = init_device_mesh("cpu", (world,))
        net = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 4))
        return parallelize_module(net, mesh, {"0": ColwiseParallel(), "2": RowwiseParallel()})
    return torch.nn.Linear(8, 1)


def train(rank: int, world: int, local_rank: int) -> None:
    global GROUP
    style = ENV.get("K10S_STYLE", "dp")
    _init(rank, world)
    _mark(local_rank)
    print(f"rank {rank}/{world} (local {local_rank}, pid {os.getpid()}) initialised", flush=True)
    if style == "groups":
        groups = [dist.new_group([0, 1]), dist.new_group([2, 3])]
        GROUP = groups[rank // 2]
    model = _model(style, world)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    batches = iter(torch.utils.data.DataLoader(Samples(), batch_size=4))
    for step in range(int(ENV.get("K10S_STEPS", "6"))):
        x = next(batches)
        if step == BAD_STEP and CULPRIT and style in ("dp", "groups", "ddp"):
            _fault(KIND, rank, model, x)
        loss = STEPS[style](rank, world, step, model, x)
        opt.step()
        opt.zero_grad()
        if rank == 0:
            print(f"step {step} loss {loss.item():.4f}", flush=True)
        time.sleep(0.3)
    if style == "groups":
        dist.all_reduce(torch.ones(1))  # the epoch's global metrics
    dist.destroy_process_group()
    print(f"rank {rank} done", flush=True)


GROUP = None
BAD_STEP = int(ENV.get("K10S_FAULT_STEP", "3"))
RANK = int(ENV["RANK"]) if "RANK" in ENV else -2
CULPRIT = KIND != "none" and TARGET in (RANK, -1)


def main() -> None:
    args = int(ENV["RANK"]), int(ENV["WORLD_SIZE"]), int(ENV.get("LOCAL_RANK", "0"))
    train(*args)


if __name__ == "__main__":
    main()
