"""The twenty-seventh set's launchers written by a user (tests/tools/torch_scenarios27.py records them):

    python t27_launch.py api NNODES NPROC ENDPOINT RUN_ID SCRIPT   # elastic_launch(LaunchConfig(...), sys.executable)
    python t27_launch.py run-main TORCHRUN_ARG...                  # torch.distributed.run.main([...]) in a wrapper

``api``: torch's programmatic launcher with a SCRIPT entrypoint (``python -u SCRIPT`` per worker; the eleventh set's
runs gave it a function): a failure raises ``ChildFailedError`` out of the user's script (its traceback, the failure
table its message). ``run-main``: a training wrapper that builds torchrun's arguments and calls
``torch.distributed.run.main`` itself, catching ``ChildFailedError`` and logging it before its own ``sys.exit(1)``.
"""

from __future__ import annotations

import logging
import sys

LOG = logging.getLogger("launcher")


def api(nnodes: str, nproc: str, endpoint: str, run_id: str, script: str) -> None:
    from torch.distributed.launcher.api import LaunchConfig, elastic_launch

    config = LaunchConfig(min_nodes=int(nnodes), max_nodes=int(nnodes), nproc_per_node=int(nproc), run_id=run_id,
                          rdzv_backend="c10d", rdzv_endpoint=endpoint, rdzv_configs={"join_timeout": 10}, max_restarts=0,
                          monitor_interval=0.5)
    print(f"launching {script} on {nnodes} nodes x {nproc} processes (rendezvous {endpoint})", flush=True)
    results = elastic_launch(config, sys.executable)("-u", script)
    print(f"all {len(results)} local workers finished", flush=True)


def run_main(args: list[str]) -> None:
    from torch.distributed.elastic.multiprocessing.errors import ChildFailedError
    from torch.distributed.run import main as torchrun_main

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    LOG.info("starting torchrun %s", " ".join(args))
    try:
        torchrun_main(args)
    except ChildFailedError as e:
        LOG.error("distributed training failed:\n%s", e)
        sys.exit(1)
    LOG.info("distributed training finished")


if __name__ == "__main__":
    if sys.argv[1] == "api":
        api(*sys.argv[2:7])
    else:
        run_main(sys.argv[2:])
