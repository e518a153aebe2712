"""The thirty-eighth set's training program (tests/tools/torch_scenarios38.py records it): the issue's own fault list
under plain ``torchrun`` with its default options, 2 agents x 4 processes, gloo on CPU. torch_worker.py's loop (an
all-reduce per step, rank 0's loss line) and its faults (K10S_FAULT on K10S_FAULT_RANK at K10S_FAULT_STEP), with one
more:

config-error  (every rank, a control) the same ``ValueError`` from the run's configuration, before init_process_group
"""

from __future__ import annotations

import os

import torch_worker


def _config() -> dict:
    """The run's settings as a new user's script checks them."""
    cfg = {"global_batch_size": 32, "micro_batch_size": 3 if os.environ.get("K10S_FAULT") == "config-error" else 4}
    world = int(os.environ.get("WORLD_SIZE", "1"))
    if cfg["global_batch_size"] % (cfg["micro_batch_size"] * world):
        raise ValueError(f"global_batch_size ({cfg['global_batch_size']}) must be divisible by micro_batch_size "
                         f"({cfg['micro_batch_size']}) x world size ({world})")
    return cfg


if __name__ == "__main__":
    print(f"rank {os.environ.get('RANK')}: config {_config()}", flush=True)
    torch_worker.main()
