"""The fifty-sixth set's training program (tests/tools/torch_scenarios56.py records it): a tiny DDP model on gloo on CPU
(10 steps, gloo timeouts of 3 s), the same program on every rank; one fault, drawn by the set, on one rank at one step.

Faults (K10S_FAULT, on global rank K10S_FAULT_RANK, at step K10S_FAULT_STEP; K10S_FAULT_ATTEMPTS=1: on torchrun's first
attempt only, the later attempts run clean):

sigkill            the rank SIGKILLs itself (``os.kill``; the kernel's OOM killer's shape), no word
segfault           the rank reads address 0 (``ctypes.string_at(0)``): SIGSEGV
raise              the rank raises ``RuntimeError`` with a plain message (not caught)
abort              the rank calls ``os.abort()``: SIGABRT, no word
sigbus             the rank sends itself SIGBUS
never-joins        the rank sleeps 18 s (6 gloo timeouts) before ``init_process_group``, then exits 0: the others' init
                   times out waiting for it
monitored-barrier  every rank calls ``dist.monitored_barrier`` (timeout 1.5 s) at the step; the rank reaches it 12 s late
op-mismatch        at the step every rank runs one more collective: the rank ``all_gather``s where the others
                   ``all_reduce`` (read under ``TORCH_DISTRIBUTED_DEBUG=DETAIL``)
size-mismatch      at the step the rank all-reduces 5 elements where the others all-reduce 8 (under DETAIL)
node-kill          the rank SIGKILLs its agent's process group and every process under its agent (its node's torchrun
                   and all its node's workers, itself last): the whole node is lost, as when its pod dies
config             every rank raises the same ``ValueError`` (a configuration check) at the step (common-mode)
none               nothing: the job completes

K10S_ROUNDS=1 (the ``--max-restarts 1`` runs): each rendezvous round's gloo keys under a prefix of their own (see
``_init``). Under ``TORCH_DISTRIBUTED_DEBUG=DETAIL`` the gradients are all-reduced by hand, not by DDP (``BY_HAND``).
"""

from __future__ import annotations

import ctypes
import datetime as dt
import os
import signal
import sys
import time

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

ENV = os.environ
TIMEOUT_S = float(ENV.get("K10S_GLOO_TIMEOUT_S", "3"))
FAULT = ENV.get("K10S_FAULT", "none")
BAD = int(ENV.get("K10S_FAULT_RANK", "-1"))
AT = int(ENV.get("K10S_FAULT_STEP", "3"))
STEPS = int(ENV.get("K10S_STEPS", "10"))
ME, LOCAL, WORLD = int(ENV.get("RANK", "0")), int(ENV.get("LOCAL_RANK", "0")), int(ENV.get("WORLD_SIZE", "1"))
RESTART = int(ENV.get("TORCHELASTIC_RESTART_COUNT", "0"))
ARMED = FAULT != "none" and (ENV.get("K10S_FAULT_ATTEMPTS") != "1" or RESTART == 0)
CULPRIT = ARMED and ME == BAD
#: Under TORCH_DISTRIBUTED_DEBUG=DETAIL, DDP's constructor segfaults on every rank on gloo on CPU (torch 2.13.0 and
#: 2.14.1 alike: ``_ddp_init_helper``'s ``logger.set_construction_data_and_log`` over the DETAIL wrapper process group,
#: before any step): there the gradients are all-reduced by hand after each backward, as DDP would.
BY_HAND = ENV.get("TORCH_DISTRIBUTED_DEBUG") == "DETAIL"


def _descendants(pid: int) -> list[int]:
    """Every process under ``pid`` (from /proc), children first."""
    kids: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            kids.setdefault(ppid, []).append(int(entry))
    out, todo = [], [pid]
    while todo:
        for kid in kids.get(todo.pop(), []):
            out.append(kid)
            todo.append(kid)
    return out


def _kill_node() -> None:
    """SIGKILL this rank's agent's process group and every process under the agent, this rank last."""
    agent = os.getppid()
    others = [p for p in _descendants(agent) if p != os.getpid()]
    try:
        os.killpg(os.getpgid(agent), signal.SIGKILL)
    except OSError:
        pass
    for pid in others:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    os.kill(os.getpid(), signal.SIGKILL)


def _fault(step: int) -> None:
    if FAULT == "config" and ARMED and step == AT:
        raise ValueError(f"config: optimizer.lr_schedule 'cosine_restarts' needs optimizer.warmup_steps > 0 (got 0) "
                         f"at step {step}")
    if not CULPRIT or step != AT:
        return
    if FAULT == "sigkill":
        os.kill(os.getpid(), signal.SIGKILL)
    elif FAULT == "segfault":
        ctypes.string_at(0)
    elif FAULT == "raise":
        raise RuntimeError(f"bad batch at step {step}: sample 17 has no tokens")
    elif FAULT == "abort":
        os.abort()
    elif FAULT == "sigbus":
        os.kill(os.getpid(), signal.SIGBUS)
    elif FAULT == "node-kill":
        _kill_node()


def _extra(step: int) -> None:
    """The collectives some faults add at their step (every rank runs one)."""
    if not ARMED or step != AT:
        return
    if FAULT == "monitored-barrier":
        if CULPRIT:
            time.sleep(TIMEOUT_S * 4)
        dist.monitored_barrier(timeout=dt.timedelta(seconds=TIMEOUT_S / 2))
    elif FAULT == "op-mismatch":
        t = torch.ones(8) * (ME + 1)
        if CULPRIT:
            dist.all_gather([torch.zeros(8) for _ in range(WORLD)], t)
        else:
            dist.all_reduce(t)
    elif FAULT == "size-mismatch":
        dist.all_reduce(torch.ones(5) if CULPRIT else torch.ones(8))


def _init() -> None:
    timeout = dt.timedelta(seconds=TIMEOUT_S)
    if ENV.get("K10S_ROUNDS") == "1":  # under --max-restarts: the agent store outlives a round and keeps the last
        # round's gloo addresses, and each agent counts its restarts its own way (one restarted for its failure, one
        # for the other's waiting), so each rendezvous round's keys go under a prefix of their own, counted in the store
        store = dist.TCPStore(ENV["MASTER_ADDR"], int(ENV["MASTER_PORT"]), WORLD, False, timeout=timeout)
        round_ = (store.add("k10s-joins", 1) - 1) // WORLD
        dist.init_process_group("gloo", store=dist.PrefixStore(f"round{round_}", store), rank=ME, world_size=WORLD,
                                timeout=timeout)
    else:
        dist.init_process_group("gloo", timeout=timeout)


def main() -> None:
    print(f"rank {ME}/{WORLD} (local {LOCAL}, pid {os.getpid()}) starting", flush=True)
    if CULPRIT and FAULT == "never-joins":
        time.sleep(TIMEOUT_S * 6)
        sys.exit(0)
    _init()
    mark = ENV.get("K10S_MARK_DIR")
    if mark and LOCAL == 0:
        with open(os.path.join(mark, f"group-{ENV.get('GROUP_RANK', '0')}"), "w") as f:
            f.write(ENV.get("K10S_AGENT", ""))
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 1))
    ddp = model if BY_HAND else DDP(model)
    opt = torch.optim.SGD(ddp.parameters(), lr=0.01)
    for step in range(STEPS):
        _fault(step)
        _extra(step)
        opt.zero_grad()
        g = torch.Generator().manual_seed(step * 100 + ME)
        loss = torch.nn.functional.mse_loss(ddp(torch.randn(4, 8, generator=g)), torch.zeros(4, 1))
        loss.backward()
        if BY_HAND:  # DDP's gradient all-reduce, by hand
            for p in model.parameters():
                dist.all_reduce(p.grad)
                p.grad /= WORLD
        opt.step()
        print(f"rank {ME} step {step}/{STEPS} loss {loss.item():.4f}", flush=True)
        time.sleep(0.3)
    dist.destroy_process_group()
    print(f"rank {ME} done", flush=True)


if __name__ == "__main__":
    main()
