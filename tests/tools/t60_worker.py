"""The sixtieth set's training program (tests/tools/torch_scenarios60.py records it): the fifty-ninth set's
(tests/tools/t59_worker.py: t56_worker.py's tiny model on gloo on CPU, 10 steps, gloo timeouts of 3 s, one fault from
K10S_FAULT on K10S_FAULT_RANK at K10S_FAULT_STEP, its own lines in the drawn logging convention K10S_LOG_STYLE /
K10S_RANK_FORMAT, its top level handling the failure as K10S_HANDLER says; faults, conventions and handlers unchanged),
run by any of this set's launchers (as tests/tools/t57_worker.py runs t56_worker.py).

Under ``torchrun`` (c10d, ``--standalone``, ``--rdzv-backend static``) and ``torch.distributed.launch --use-env`` it is
t59_worker.py as is (RANK etc. from the environment). ``python t60_worker.py --spawn N --nnodes M --node-rank K
--master-port P`` is one node's spawner: ``torch.multiprocessing.spawn(fn, nprocs=N, join=True)``, each process's global
rank K x N + its local rank, world M x N, ``env://`` on 127.0.0.1:P (the environment set as a launcher would, then
t59_worker.py's ``main``). The sixty-first set's program (tests/tools/t61_worker.py) runs through the same
spawner, its own module as ``target``.
"""

from __future__ import annotations

import argparse
import importlib
import os


def _spawned(local: int, nproc: int, nnodes: int, node: int, port: int, target: str = "t59_worker") -> None:
    """One spawned process: the environment a launcher would give it, then the program's ``main`` (``target``'s; the
    fifty-ninth set's by default)."""
    os.environ.update(RANK=str(node * nproc + local), LOCAL_RANK=str(local), WORLD_SIZE=str(nnodes * nproc),
                      LOCAL_WORLD_SIZE=str(nproc), GROUP_RANK=str(node), MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
    importlib.import_module(target).main()  # reads the environment when imported (so does what it imports)


def main(target: str = "t59_worker") -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--spawn", type=int, default=0, help="processes this node starts with torch.multiprocessing.spawn")
    ap.add_argument("--nnodes", type=int, default=1)
    ap.add_argument("--node-rank", type=int, default=0)
    ap.add_argument("--master-port", type=int, default=29500)
    args = ap.parse_args()
    if args.spawn:
        import torch.multiprocessing as mp

        mp.spawn(_spawned, args=(args.spawn, args.nnodes, args.node_rank, args.master_port, target), nprocs=args.spawn,
                 join=True)
        return
    importlib.import_module(target).main()


if __name__ == "__main__":
    main()
