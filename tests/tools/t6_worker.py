"""The sixth set's training program (tests/tools/torch_scenarios6.py records it): torch_worker.py's
gloo loop and faults, run one process per pod (``RANK``/``WORLD_SIZE``/``MASTER_ADDR``/``MASTER_PORT``
set for each process, as Kubeflow's PyTorchJob v1 sets them, no launcher), under Open MPI's
``mpirun`` (the rank from ``OMPI_COMM_WORLD_RANK``/``OMPI_COMM_WORLD_SIZE``) or under torchrun.

Faults added to torch_worker.py's (K10S_FAULT):
fsize          the rank writes a checkpoint past its RLIMIT_FSIZE (Python ignores SIGXFSZ: the write
               fails with EFBIG)
recursion      a RecursionError
destroy-early  the rank calls ``dist.destroy_process_group()`` in the loop, then goes on
nan            the rank's NaN check raises (its loss is NaN)
slow-loader    the rank's DataLoader worker takes longer than the process group's timeout for a batch
chained        ``raise RuntimeError(...) from FileNotFoundError`` (a nested exception chain)
stall          the rank sleeps three process-group timeouts, then goes on
"""

from __future__ import annotations

import os
import resource
import sys
import tempfile
import time

import torch
import torch.distributed as dist

import torch_worker as tw

_ORIGINAL_FAULT = tw._fault


class _SlowData(torch.utils.data.Dataset):
    """A dataset whose loader worker takes 2.5 process-group timeouts for one batch."""

    def __len__(self) -> int:
        return 8

    def __getitem__(self, i: int):
        time.sleep(tw.GLOO_TIMEOUT_S * 2.5)
        return torch.ones(4) * i


def _deeper(n: int) -> int:
    return _deeper(n + 1) + 1


def _fault(kind: str, rank: int, step: int) -> None:
    if kind == "fsize":
        path = os.path.join(tempfile.gettempdir(), f"k10s-t6-ckpt-step{step}-rank{rank}.pt")
        resource.setrlimit(resource.RLIMIT_FSIZE, (1 << 20, resource.RLIM_INFINITY))
        tw.say(f"rank {rank}: saving checkpoint to {path}")
        torch.save({"weights": torch.zeros(1 << 20)}, path)
    elif kind == "recursion":
        tw.say(f"rank {rank}: building the schedule")
        _deeper(0)
    elif kind == "destroy-early":
        tw.say(f"rank {rank}: evaluation done, cleaning up")
        dist.destroy_process_group()
    elif kind == "nan":
        loss = torch.tensor(float("nan"))
        if torch.isnan(loss):
            raise RuntimeError(f"Loss is NaN at step {step} (rank {rank}); stopping")
    elif kind == "slow-loader":
        for batch in torch.utils.data.DataLoader(_SlowData(), batch_size=1, num_workers=1):
            tw.say(f"rank {rank}: batch {int(batch[0][0])}")
            break
    elif kind == "chained":
        try:
            open("/ckpt/latest/model.pt", "rb")
        except FileNotFoundError as err:
            raise RuntimeError(f"rank {rank}: could not resume from checkpoint /ckpt/latest") from err
    elif kind == "stall":
        time.sleep(tw.GLOO_TIMEOUT_S * 3)
    else:
        _ORIGINAL_FAULT(kind, rank, step)


def _rank_env() -> None:
    """The rank from Open MPI's variables; one process per pod: its node is its rank."""
    env = os.environ
    if "OMPI_COMM_WORLD_RANK" in env:
        env["RANK"] = env["OMPI_COMM_WORLD_RANK"]
        env["WORLD_SIZE"] = env["OMPI_COMM_WORLD_SIZE"]
        env["LOCAL_RANK"] = env.get("OMPI_COMM_WORLD_LOCAL_RANK", "0")
    elif "TORCHELASTIC_RUN_ID" not in env:
        env.setdefault("GROUP_RANK", env.get("RANK", "0"))  # only for the recorder's node order


def main() -> None:
    _rank_env()
    tw._fault = _fault
    tw.main()


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    main()
