"""The twenty-third set's training program (tests/tools/torch_scenarios23.py records it).

Run by ``torchrun`` (``python t23_worker.py``): the twenty-second set's program (tests/tools/t22_worker.py: the
twenty-first, nineteenth and seventeenth sets' loop and faults). Under ``--max-restarts``, K10S_FAULT_BY_ATTEMPT and
K10S_FAULT_RANK_BY_ATTEMPT (comma-separated, by TORCHELASTIC_RESTART_COUNT, the last repeating) say which fault hits
which rank in each attempt (set before the loop's modules read them).

``python t23_worker.py fsdp2``: an FSDP2 (``fully_shard``) loop on CPU with gloo whose optimizer step clips the
gradients (``clip_grad_norm_(error_if_nonfinite=True)``); fault ``nan-batch``: the faulting rank's batch holds a NaN
at the fault step. FSDP2's reduce-scatter averages every rank's gradients, so every rank's gradient shard is NaN and
every rank raises the same ``RuntimeError: The total norm … is non-finite`` (nothing in the logs tells the rank whose
sample was bad).

``python t23_worker.py --start-processes METHOD NPROC PORT``: a script that starts its ranks itself with
``torch.multiprocessing.start_processes(…, join=False, start_method=METHOD)`` and polls ``ProcessContext.join(timeout)``
until they end (the first set's ``torch_worker.spawn_main``, its faults: ``sigkill``, ``valueerror``).
"""

from __future__ import annotations

import os
import sys
import time

ENV = os.environ
ATTEMPT = int(ENV.get("TORCHELASTIC_RESTART_COUNT", "0"))


def _by_attempt() -> None:
    """This attempt's fault and faulting rank into K10S_FAULT / K10S_FAULT_RANK."""
    for key in ("K10S_FAULT", "K10S_FAULT_RANK"):
        by = ENV.get(f"{key}_BY_ATTEMPT")
        if by:
            values = by.split(",")
            ENV[key] = values[min(ATTEMPT, len(values) - 1)]
    ENV.pop("K10S_FAULT_RANK_BY_ATTEMPT", None)  # the twenty-first set's reading would undo a fault-by-attempt rank


def fsdp2_main() -> None:
    import datetime as dt

    import t11_worker as t11
    import torch
    import torch.distributed as dist
    from torch.distributed.fsdp import fully_shard

    kind, bad = ENV.get("K10S_FAULT", "none"), int(ENV.get("K10S_FAULT_RANK", "1"))
    at, steps = int(ENV.get("K10S_FAULT_STEP", "3")), int(ENV.get("K10S_STEPS", "6"))
    dist.init_process_group("gloo", timeout=dt.timedelta(seconds=t11.GLOO_TIMEOUT_S))
    rank, world = dist.get_rank(), dist.get_world_size()
    t11._mark(int(ENV.get("LOCAL_RANK", "0")))
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(), torch.nn.Linear(32, 1))
    for layer in (model[0], model[2]):
        fully_shard(layer)
    fully_shard(model)
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    print(f"rank {rank}/{world}: FSDP2 model sharded over {world} ranks", flush=True)
    for step in range(steps):
        x = torch.full((4, 16), (rank + step + 1) / 10)
        if kind == "nan-batch" and bad in (rank, -1) and step == at:
            x[2, 5] = float("nan")  # a corrupt sample: nothing says so
        loss = model(x).pow(2).mean()
        loss.backward()
        norm = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0, error_if_nonfinite=True)
        opt.step()
        opt.zero_grad()
        print(f"rank {rank} step {step} loss {loss.item():.4f} grad norm {float(norm.full_tensor()):.4f}", flush=True)
        time.sleep(0.3)
    dist.destroy_process_group()
    print(f"rank {rank} done", flush=True)


def start_processes_main(method: str, nproc: int, port: int) -> None:
    import torch.multiprocessing as mp
    import torch_worker as tw

    ctx = mp.start_processes(tw.spawn_main, args=(nproc, port), nprocs=nproc, join=False, start_method=method)
    print(f"started {nproc} training processes ({method}): pids {ctx.pids()}", flush=True)
    while not ctx.join(timeout=2):
        pass
    print("all training processes finished", flush=True)


def main() -> None:
    args = sys.argv[1:]
    if args[:1] == ["--start-processes"]:
        start_processes_main(args[1], int(args[2]), int(args[3]))
        return
    _by_attempt()
    if args[:1] == ["fsdp2"]:
        fsdp2_main()
        return
    import t22_worker

    t22_worker.main()


if __name__ == "__main__":
    main()
