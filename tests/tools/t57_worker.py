"""The fifty-seventh set's training program (tests/tools/torch_scenarios57.py records it): the fifty-sixth set's
(tests/tools/t56_worker.py: a tiny DDP model on gloo on CPU, 10 steps, gloo timeouts of 3 s, one fault from K10S_FAULT
on K10S_FAULT_RANK at K10S_FAULT_STEP; its faults and settings unchanged), run by any of this set's launchers.

Under ``torch.distributed.launch --use-env``, ``torchrun --standalone`` and ``torchrun --rdzv-backend static`` it is
t56_worker.py as is (RANK etc. from the environment). ``python t57_worker.py --spawn N --nnodes M --node-rank K
--master-port P`` is one node's spawner: ``torch.multiprocessing.spawn(fn, nprocs=N, join=True)``, each process's
global rank K x N + its local rank, world M x N, ``env://`` on 127.0.0.1:P (the environment set as a launcher would,
then t56_worker.py's ``main``).
"""

from __future__ import annotations

import argparse
import os


def _spawned(local: int, nproc: int, nnodes: int, node: int, port: int) -> None:
    """One spawned process: the environment a launcher would give it, then the fifty-sixth set's program."""
    os.environ.update(RANK=str(node * nproc + local), LOCAL_RANK=str(local), WORLD_SIZE=str(nnodes * nproc),
                      LOCAL_WORLD_SIZE=str(nproc), GROUP_RANK=str(node), MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
    import t56_worker  # reads the environment when imported

    t56_worker.main()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--spawn", type=int, default=0, help="processes this node starts with torch.multiprocessing.spawn")
    ap.add_argument("--nnodes", type=int, default=1)
    ap.add_argument("--node-rank", type=int, default=0)
    ap.add_argument("--master-port", type=int, default=29500)
    args = ap.parse_args()
    if args.spawn:
        import torch.multiprocessing as mp

        mp.spawn(_spawned, args=(args.spawn, args.nnodes, args.node_rank, args.master_port), nprocs=args.spawn,
                 join=True)
        return
    import t56_worker

    t56_worker.main()


if __name__ == "__main__":
    main()
