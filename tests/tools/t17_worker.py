"""The seventeenth set's training program (tests/tools/torch_scenarios17.py records it), run by ``torchrun``: the
fourteenth set's loop (tests/tools/t14_worker.py: a tiny linear model, gradients all-reduced by hand over gloo) with
this set's faults in its step. One fault on K10S_FAULT_RANK (-1: every rank; K10S_FAULT_RANKS: several, e.g. ``1,4``)
at step K10S_FAULT_STEP.

Faults (K10S_FAULT):
keyerror      ``KeyError`` in the rank's batch lookup
sigkill       the rank SIGKILLs itself
segfault      the rank reads address 0 (``ctypes.string_at(0)``)
abort         ``os.abort()``
hang          the rank sleeps before its step's collectives until it is ended
exit0         the rank leaves mid-run with exit status 0 (``sys.exit(0)``)
never-joins   the rank never calls ``init_process_group`` (it sleeps six process-group timeouts, then exits 0)
dtensor       every rank builds a ``DTensor`` sharded on a 1-D CPU mesh (``DTensor.from_local(..., [Shard(0)])``) and
              gathers it (``full_tensor()``); the rank's local shard has a row too many
loader        the rank's ``persistent_workers=True`` DataLoader worker raises ``ValueError`` on a bad sample in its
              second epoch (the first went well)
cuda          the rank moves its batch to ``cuda`` on this CPU machine (2.13.0's CPU wheel: ``Torch not compiled with
              CUDA enabled``; 2.14.1's CUDA build: ``Found no NVIDIA driver on your system``)
cuda-handled  (control) the same move caught: its traceback printed, the rank stays on the CPU; the run ends well
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
import time
import traceback

import t11_worker as t11
import t14_worker as t14
import torch

ENV = os.environ
FAULT, AT_STEP, ME = t14.FAULT, t14.AT_STEP, t14.ME
_CULPRITS = {int(r) for r in ENV.get("K10S_FAULT_RANKS", ENV.get("K10S_FAULT_RANK", "1")).split(",")}
HIT = FAULT != "none" and bool(_CULPRITS & {ME, -1})
_LOADER: list = []


class _Samples(torch.utils.data.Dataset):
    """Eight samples; from the second epoch on (``epoch`` set in the loader's worker by the first pass) sample 5 is bad."""

    def __len__(self) -> int:
        return 8

    def __getitem__(self, i: int) -> torch.Tensor:
        info = torch.utils.data.get_worker_info()
        seen = getattr(info.dataset, "seen", 0) + 1 if i == 0 else getattr(info.dataset, "seen", 0)
        info.dataset.seen = seen
        if seen > 1 and i == 5:
            raise ValueError(f"sample {i}: token ids out of range (max id 50431 >= vocab size 50257)")
        return torch.full((8,), float(i))


def _loader_epoch() -> None:
    if not _LOADER:
        _LOADER.append(torch.utils.data.DataLoader(_Samples(), batch_size=4, num_workers=1, persistent_workers=True))
    for _ in range(2):
        for batch in _LOADER[0]:
            print(f"rank {ME}: batch of {len(batch)} from the loader", flush=True)


def _to_cuda() -> torch.Tensor:
    return torch.ones(4, 8).to("cuda")


def _inject(step: int, model: torch.nn.Module) -> None:
    """This set's fault in the fourteenth set's step (its ``_inject``)."""
    if FAULT == "keyerror":
        {"input_ids": torch.ones(4)}["labels"]
    elif FAULT == "sigkill":
        os.kill(os.getpid(), signal.SIGKILL)
    elif FAULT == "segfault":
        ctypes.string_at(0)
    elif FAULT == "abort":
        os.abort()
    elif FAULT == "hang":
        time.sleep(3600)
    elif FAULT == "exit0":
        sys.exit(0)
    elif FAULT == "loader":
        _loader_epoch()
    elif FAULT == "cuda":
        _to_cuda()
    elif FAULT == "cuda-handled":
        try:
            _to_cuda()
        except (AssertionError, RuntimeError):
            traceback.print_exc()
            print(f"rank {ME}: no CUDA device, the batch stays on the CPU", flush=True)


_BASE_GATHER = t14._gather


def _gather(step: int, world: int, loss: torch.Tensor) -> None:
    """The fourteenth set's gather, then (``dtensor``, at the fault step, every rank) a sharded DTensor gathered."""
    _BASE_GATHER(step, world, loss)
    if FAULT == "dtensor" and step == AT_STEP:
        from torch.distributed.device_mesh import init_device_mesh
        from torch.distributed.tensor import DTensor, Shard

        mesh = init_device_mesh("cpu", (world,))
        local = torch.full((3 if HIT else 2, 8), float(ME))
        full = DTensor.from_local(local, mesh, [Shard(0)]).full_tensor()
        print(f"rank {ME}: gathered the sharded embedding {tuple(full.shape)}", flush=True)


def main() -> None:
    if FAULT == "never-joins":  # the recorder's node marks (no log line) before the group that never forms
        t11._mark(int(ENV.get("LOCAL_RANK", "0")))
    if FAULT == "never-joins" and HIT:
        time.sleep(6 * t11.GLOO_TIMEOUT_S)
        sys.exit(0)
    t14.HIT, t14._inject, t14._gather = HIT, _inject, _gather
    t14.main()


if __name__ == "__main__":
    main()
