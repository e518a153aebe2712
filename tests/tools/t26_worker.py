"""The twenty-sixth set's training program (tests/tools/torch_scenarios26.py records it), run by ``torchrun``: the
twenty-fifth set's program (tests/tools/t25_worker.py: the twenty-second, twenty-first, nineteenth and seventeenth sets'
loop and faults) with this set's faults, or (K10S_PIPE set) a ``torch.distributed.pipelining`` loop: one pipeline
stage per rank (``PipelineStage`` on the CPU, ``ScheduleGPipe`` with two microbatches, gloo point-to-point). One fault
on K10S_FAULT_RANK (-1: every rank) at step K10S_FAULT_STEP.

Faults (K10S_FAULT):
sigtrap     the rank gets SIGTRAP (a breakpoint trap left in native code): it ends by the signal
store-port  the rank's own environment points it at a stale store port (``MASTER_PORT=29500``, where nothing
            listens): its ``init_process_group`` cannot reach the store; its peers wait for its gloo address
pipe-raise  (K10S_PIPE) the rank's pipeline stage raises ``ValueError`` in its forward (the stage wraps it in its
            ``RuntimeError: [Stage N] failed to run forward``); its neighbours wait in their point-to-point receives
A node whose environment sets ``GLOO_SOCKET_IFNAME`` (one node's, an interface it does not have) fails in gloo's
device set-up on each of its ranks; each such rank writes ``fault-<global rank>`` in K10S_MARK_DIR first (the truth).
"""

from __future__ import annotations

import importlib
import os
import signal
import time

ENV = os.environ
MINE = ("sigtrap", "store-port", "pipe-raise")
STALE_PORT = "29500"


def _block(hit: bool, at_step: int):
    """A pipeline stage's module: a linear layer and its activation (the fault: a check on the stage's activations;
    ``step``: the loop's step, set by the loop)."""
    import torch

    class Block(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.proj, self.step = torch.nn.Linear(16, 16), 0

        def forward(self, x):
            if hit and self.step == at_step:
                raise ValueError("non-finite activations after the projection (max abs value inf): check the "
                                 "learning rate and the loss scale")
            return torch.relu(self.proj(x))

    return Block()


def pipe_main(me: int, hit: bool, at_step: int) -> None:
    """One ``PipelineStage`` per rank, ``ScheduleGPipe`` over the world (rank 0 feeds, the last rank computes the loss)."""
    import t11_worker as t11
    import torch
    import torch.distributed as dist
    from torch.distributed.pipelining import PipelineStage, ScheduleGPipe

    world, local = int(ENV["WORLD_SIZE"]), int(ENV.get("LOCAL_RANK", "0"))
    t11._init(me, world)
    print(f"rank {me}/{world} (local {local}, pid {os.getpid()}) initialised: pipeline stage {me} of {world}", flush=True)
    torch.manual_seed(me)
    block = _block(hit, at_step)
    stage = PipelineStage(block, stage_index=me, num_stages=world, device=torch.device("cpu"))
    schedule = ScheduleGPipe(stage, n_microbatches=2, loss_fn=lambda out, target: torch.nn.functional.mse_loss(out, target))
    opt = torch.optim.SGD(block.parameters(), lr=0.01)
    for step in range(int(ENV.get("K10S_STEPS", "6"))):
        torch.manual_seed(step)
        x, target = torch.randn(4, 16), torch.randn(4, 16)
        losses: list = []
        block.step = step
        if me == 0:
            schedule.step(x)
        elif me == world - 1:
            schedule.step(target=target, losses=losses)
        else:
            schedule.step()
        opt.step()
        opt.zero_grad()
        tail = f" loss {sum(float(v) for v in losses) / len(losses):.4f}" if losses else ""
        print(f"rank {me} stage {me} step {step} done{tail}", flush=True)
        time.sleep(0.3)
    dist.destroy_process_group()
    print(f"rank {me} done", flush=True)


def main() -> None:
    t11, t19, t17 = (importlib.import_module(m) for m in ("t11_worker", "t19_worker", "t17_worker"))
    me, local = t17.ME, int(ENV.get("LOCAL_RANK", "0"))
    t11._mark(local)  # the recorder's node mark before the group (this set's faults may stop a rank in its set-up)
    if "GLOO_SOCKET_IFNAME" in ENV:
        t19._mark_fault(me)
    if t17.FAULT == "store-port" and t17.HIT:
        ENV["MASTER_PORT"] = STALE_PORT
    if ENV.get("K10S_PIPE"):
        pipe_main(me, t17.HIT and t17.FAULT == "pipe-raise", t17.AT_STEP)
        return
    t25 = importlib.import_module("t25_worker")
    base_inject = t19._inject

    def _inject(step: int, model) -> None:
        """In the loop's step (the faulting ranks only): this set's fault, else the earlier sets'."""
        if t17.FAULT == "sigtrap":
            os.kill(os.getpid(), signal.SIGTRAP)
            time.sleep(5)
        else:
            base_inject(step, model)

    t19._inject = _inject  # the twenty-fifth set's step falls back on it
    t25.main()


if __name__ == "__main__":
    main()
