"""The thirty-fourth set's training program (tests/tools/torch_scenarios34.py records it): failures confined to a process
group smaller than the world, on CPU with gloo, 2 agents x 2 processes (world 4). One fault at step K10S_FAULT_STEP on
K10S_FAULT_RANK (-1: every rank); the process group's set-up and the recorder's node mark come from t11_worker.

Plans (K10S_T34_PLAN):
1f1b         ``torch.distributed.pipelining``: one ``PipelineStage`` per rank (a linear layer), ``Schedule1F1B`` with
             K10S_T34_MB microbatches (4)
interleaved  ``ScheduleInterleaved1F1B``, two stages per rank (stages r and r + 4 of 8 on rank r)
groups       ``dist.new_group`` pairs {0, 1} and {2, 3}: each step the gradients are all-reduced in the rank's pair
             (with K10S_T34_MBAR, a ``monitored_barrier(group=pair)`` after it), the loss over every rank
ring         a ring of point-to-point ``batch_isend_irecv`` (send to r + 1, receive from r - 1), the loss over every rank
all          (controls) each step: the interleaved schedule, the pairs, the ring

Faults (K10S_FAULT):
stuck          the rank's stage is stuck in its own forward (a 60 s compute loop) at the fault step
shape          the rank's first stage is built 20 units wide where the pipeline's width is 16
sigkill        the rank is SIGKILLed in its stage's forward at the fault step
stuck-barrier  the rank is stuck in its own compute (60 s) before its pair's monitored barrier
skip           the rank leaves its pair's all-reduce out at the fault step (and goes on to the next collective)
wrong-peer     the rank sends to r + 2 instead of r + 1 at the fault step
"""

from __future__ import annotations

import datetime as dt
import os
import signal
import time

import t11_worker as base
import torch
import torch.distributed as dist
from torch import nn
from t31_worker import AT_STEP, ENV, FAULT, HIT, LOCAL, ME

PLAN = ENV.get("K10S_T34_PLAN", "1f1b")
MB = int(ENV.get("K10S_T34_MB", "4"))
WIDTH = 16
TIMEOUT = dt.timedelta(seconds=float(ENV.get("K10S_GLOO_TIMEOUT_S", "3")))


def _stuck() -> None:
    end = time.time() + 60
    while time.time() < end:
        torch.randn(64, 64) @ torch.randn(64, 64)


class Block(nn.Module):
    """A stage's module: a linear layer and its activation (``step``: the loop's step, set by the loop)."""

    def __init__(self, out: int = WIDTH) -> None:
        super().__init__()
        self.proj, self.step, self.hit = nn.Linear(WIDTH, out), 0, False

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.hit and self.step == AT_STEP:
            self.hit = False  # once, not per microbatch
            if FAULT == "stuck":
                _stuck()
            elif FAULT == "sigkill":
                os.kill(os.getpid(), signal.SIGKILL)
        return torch.relu(self.proj(x))


class Pipe:
    """The pipeline: this rank's stages and the schedule."""

    def __init__(self, interleaved: bool, world: int) -> None:
        from torch.distributed.pipelining import PipelineStage, Schedule1F1B, ScheduleInterleaved1F1B

        ids = [ME, ME + world] if interleaved else [ME]
        n = world * len(ids)
        torch.manual_seed(ME)
        wide = HIT and FAULT == "shape"
        self.blocks = [Block(20 if wide and k == 0 else WIDTH) for k in range(len(ids))]
        for b in self.blocks:
            b.hit = HIT and FAULT in ("stuck", "sigkill")
        stages = [PipelineStage(b, stage_index=i, num_stages=n, device=torch.device("cpu")) for b, i in zip(self.blocks, ids)]
        loss = lambda out, target: nn.functional.mse_loss(out, target)  # noqa: E731
        if interleaved:
            self.schedule = ScheduleInterleaved1F1B(stages, n_microbatches=MB, loss_fn=loss)
        else:
            self.schedule = Schedule1F1B(stages[0], n_microbatches=MB, loss_fn=loss)
        self.opt = torch.optim.SGD([p for b in self.blocks for p in b.parameters()], lr=0.01)
        self.world = world

    def step(self, n: int) -> str:
        torch.manual_seed(n)
        x, target = torch.randn(2 * MB, WIDTH), torch.randn(2 * MB, WIDTH)
        losses: list = []
        for b in self.blocks:
            b.step = n
        if ME == 0:
            self.schedule.step(x)
        elif ME == self.world - 1:
            self.schedule.step(target=target, losses=losses)
        else:
            self.schedule.step()
        self.opt.step()
        self.opt.zero_grad()
        return f" pipeline loss {sum(float(v) for v in losses) / len(losses):.4f}" if losses else " pipeline"


class Groups:
    """The pairs {0, 1} and {2, 3} (every rank creates both, as ``new_group`` asks) and a model per rank."""

    def __init__(self, world: int) -> None:
        pairs = [dist.new_group([0, 1]), dist.new_group([2, 3])]
        self.pair = pairs[ME // 2]
        torch.manual_seed(0)
        self.model = nn.Linear(WIDTH, 1)
        self.opt = torch.optim.SGD(self.model.parameters(), lr=0.01)

    def step(self, n: int) -> str:
        loss = self.model(torch.randn(4, WIDTH)).pow(2).mean()
        loss.backward()
        if not (n == AT_STEP and HIT and FAULT == "skip"):
            for p in self.model.parameters():
                dist.all_reduce(p.grad, group=self.pair)
                p.grad /= 2
        if n == AT_STEP and HIT and FAULT == "stuck-barrier":
            _stuck()
        if ENV.get("K10S_T34_MBAR"):
            dist.monitored_barrier(group=self.pair, timeout=TIMEOUT)
        self.opt.step()
        self.opt.zero_grad()
        total = loss.detach().clone()
        dist.all_reduce(total)
        return f" group loss {float(total) / 4:.4f}"


def _ring(n: int, world: int) -> str:
    """Send a tensor to the next rank, receive one from the previous (``batch_isend_irecv``), then a loss over all."""
    out, buf = torch.full((8,), float(ME + n)), torch.empty(8)
    to = (ME + (2 if n == AT_STEP and HIT and FAULT == "wrong-peer" else 1)) % world
    ops = [dist.P2POp(dist.isend, out, to), dist.P2POp(dist.irecv, buf, (ME - 1) % world)]
    for work in dist.batch_isend_irecv(ops):
        work.wait()
    total = buf.sum().reshape(1)
    dist.all_reduce(total)
    return f" ring sum {float(total):.1f}"


def main() -> None:
    world = int(ENV["WORLD_SIZE"])
    print(f"rank {ME}/{world} (local {LOCAL}, pid {os.getpid()}) starting, plan {PLAN}", flush=True)
    base._init(ME, world)
    base._mark(LOCAL)
    pipe = Pipe(PLAN != "1f1b", world) if PLAN in ("1f1b", "interleaved", "all") else None
    groups = Groups(world) if PLAN in ("groups", "all") else None
    for n in range(int(ENV.get("K10S_STEPS", "6"))):
        line = f"rank {ME} step {n}"
        if pipe:
            line += pipe.step(n)
        if groups:
            line += groups.step(n)
        if PLAN in ("ring", "all"):
            line += _ring(n, world)
        print(line, flush=True)
        time.sleep(0.2)
    dist.destroy_process_group()
    print(f"rank {ME} done", flush=True)


if __name__ == "__main__":
    main()
