"""The thirtieth set's training program (tests/tools/torch_scenarios30.py records it): the fourth set's wrapper
loops (tests/tools/wrapper_worker.py) with the nineteenth set's faults (tests/tools/t19_worker.py) and the fifth
set's Ray Train driver (tests/tools/t5_worker.py). ``python t30_worker.py <style>``:

accelerate  run by ``accelerate launch`` (``--multi_gpu``, ``--use_fsdp`` or ``--use_deepspeed``; one per node with
            ``--machine_rank``): ``Accelerator(cpu=True)`` on gloo
deepspeed   DeepSpeed's runner (``--hostfile`` of localhost slots, ``--include``/``--exclude``, ``--no_local_rank``)
lightning   Lightning's ``Trainer(strategy="ddp", accelerator="cpu", num_nodes=2)``: started by torchrun (its
            TorchElastic environment) or by Lightning's own launcher (``python t30_worker.py lightning`` per node)
ray         the driver of a Ray Train ``TorchTrainer`` (``ScalingConfig(num_workers=K10S_NPROC)``) on a local Ray;
            the fault runs in a Ray worker (torch_worker.py's faults there: the loop is pickled by reference)

One fault on K10S_FAULT_RANK (-1: every rank) at step K10S_FAULT_STEP, as in the sets it reuses.
"""

from __future__ import annotations

import os
import sys

import t5_worker as t5
import t19_worker as t19
import torch_worker as tw
import wrapper_worker as ww

ENV = os.environ


def main() -> None:
    tw._fault = t19._fault
    style = next((a for a in sys.argv[1:] if not a.startswith("--")), "accelerate")
    if style == "ray":
        t5.main()
        return
    if style == "deepspeed":  # its ranks mark their node (its loop does not)
        local, size = int(ENV.get("LOCAL_RANK", "0")), int(ENV.get("LOCAL_SIZE", ENV.get("LOCAL_WORLD_SIZE", "1")))
        ww._mark((int(ENV.get("RANK", "0")) - local) // max(1, size), local)
    ww.main()


if __name__ == "__main__":
    main()
