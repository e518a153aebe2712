"""The seventh set of recorded runs (held out when recorded): launch styles, output shapes and faults
the first six lack. Imported by torch_scenarios.py (its ``S`` builds each one); the program:
tests/tools/t7_worker.py (a tiny DDP model on gloo).

Launch styles (``launcher``):
``hydra``    MPICH's ``mpiexec`` (Hydra, Debian's ``mpich``: ``mpiexec.hydra -n N``), the rank from
             ``PMI_RANK``, gloo through ``MASTER_ADDR``/``MASTER_PORT`` given with ``-genv``; ``opts``
             adds e.g. ``-prepend-rank``. One log: the launcher's.
``torchx``   ``torchx run -s local_cwd dist.ddp -j 2x2`` (torchrun underneath, one per replica): one log,
             the torchx client's terminal, each line prefixed by torchx.
``t7run``    the ``torchrun`` script, c10d rendezvous (``agents`` × ``nproc``).
``t7static`` ``torchrun --rdzv-backend static`` with ``--node-rank``, ``--master-addr``/``--master-port``.
``preempt_group``: the signal goes to every process of every node (the agents and their workers).
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
BIN = Path(sys.executable).parent
WORKER = str(HERE / "t7_worker.py")
LAUNCHERS = ("hydra", "torchx", "t7run", "t7static")
DETAIL = {"TORCH_DISTRIBUTED_DEBUG": "DETAIL"}


def scenarios(S) -> list[dict]:
    hy = {"launcher": "hydra", "agents": 1, "nproc": 4}
    tr = {"launcher": "t7run"}
    return [
        # MPICH Hydra (mpiexec)
        S("t7-hydra-4-sigkill-rank2", fault="sigkill", rank=2, cause="host-oom-kill", **hy),
        S("t7-hydra-4-keyerror-rank1-prepend-buffered", fault="exception", rank=1, cause="python-exception",
          opts=["-prepend-rank"], env={"K10S_BUFFERED": "1", "PYTHONUNBUFFERED": None}, **hy),
        S("t7-hydra-3-exit0-early-rank1", fault="exit0", rank=1, cause="never-joined", **{**hy, "nproc": 3}),
        # torchx's local scheduler, 2 replicas x 2 processes (one log: the torchx client's)
        S("t7-torchx-2x2-keyerror-rank3", launcher="torchx", fault="exception", rank=3, cause="python-exception"),
        S("t7-torchx-2x2-sigkill-rank1", launcher="torchx", fault="sigkill", rank=1, cause="host-oom-kill"),
        # torchrun
        S("t7-trun-static-restarts-rank2", launcher="t7static", fault="exception", rank=2, cause="python-exception",
          opts=["--max-restarts", "1"]),
        S("t7-trun-4x1-cgroup-oom-rank3", fault="cgroup-oom", rank=3, cause="host-oom-kill", nproc=1, agents=4,
          gap_s=0.5, **tr),
        S("t7-trun-tqdm-sigkill-rank1", fault="sigkill", rank=1, cause="host-oom-kill", env={"K10S_TQDM": "1"}, **tr),
        S("t7-trun-jsonlog-keyerror-rank2", fault="exception", rank=2, cause="python-exception",
          env={"K10S_JSONLOG": "1"}, **tr),
        S("t7-trun-ddp-shape-mismatch-rank1", fault="ddp-shape", rank=1, cause="collective-mismatch", opts=["--tee", "3"], **tr),
        S("t7-trun-ddp-unused-params-rank1", fault="ddp-unused", rank=1, cause="python-exception", **tr),
        S("t7-trun-compile-fullgraph-rank2", fault="compile", rank=2, cause="python-exception", opts=["--tee", "3"], **tr),
        S("t7-trun-monitored-all-stuck-2-3", fault="stuck", rank=2, culprits=[2, 3], cause="never-joined",
          env={"K10S_MONITORED": "1", "K10S_FAULT_RANKS": "2,3"}, **tr),
        # controls: no rank may be named
        S("t7-hydra-4-clean-warnings", env={"K10S_WARN": "1"}, **hy),
        S("t7-trun-detail-ddp-common-crash", env=DETAIL, **tr),  # DETAIL's wrapper under DDP crashed every rank (2.13.0)
        S("t7-trun-common-mode-dataset", fault="dataset-missing", rank=-1, culprits=[], step=1, **tr),
        {**S("t7-trun-sigterm-all-preempted", culprits=[], steps=60, preempt_s=3.0, **tr), "preempt_group": True},
        {**S("t7-trun-ctrl-c-sigint", culprits=[], steps=60, preempt_s=3.0, opts=["--tee", "3"], **tr),
         "preempt_sig": "SIGINT"},
    ]


def commands(sc: dict, opts: list[str], port: str) -> list[list[str]]:
    """Each node's command line."""
    py, n, nodes = sys.executable, str(sc["nproc"]), sc["agents"]
    if sc["launcher"] == "hydra":
        return [[shutil.which("mpiexec.hydra") or "mpiexec.hydra", "-n", n, *opts, "-genv", "MASTER_ADDR", "127.0.0.1",
                 "-genv", "MASTER_PORT", port, py, WORKER]]
    if sc["launcher"] == "torchx":
        path = f"PATH={BIN}:{os.environ.get('PATH', '')}"  # torchx's replicas run ``torchrun`` from the PATH
        return [["env", path, str(BIN / "torchx"), "run", "-s", "local_cwd", "dist.ddp", "-j", f"{nodes}x{n}", "--rdzv_port", port,
                 "--script", WORKER]]
    torchrun = str(BIN / "torchrun")
    tail = [*opts] if "--max-restarts" in opts else [*opts, "--max-restarts", "0"]
    if sc["launcher"] == "t7static":
        return [[torchrun, "--nnodes", str(nodes), "--node-rank", str(i), "--nproc-per-node", n, "--rdzv-backend", "static",
                 "--master-addr", "127.0.0.1", "--master-port", port, "--monitor-interval", "0.5", *tail, WORKER]
                for i in range(nodes)]
    rdzv = ["--rdzv-backend", "c10d", "--rdzv-endpoint", f"127.0.0.1:{port}", "--rdzv-id", sc["name"], "--rdzv-conf", "join_timeout=10"]
    return [[torchrun, "--nnodes", str(nodes), "--nproc-per-node", n, *rdzv, "--monitor-interval", "0.5", *tail, WORKER]
            for _ in range(nodes)]


def cleanup() -> None:
    """The memory cgroups the cgroup-oom runs made (empty once their process is gone)."""
    root = Path("/sys/fs/cgroup/memory")
    for group in root.glob("k10s-t7-*") if root.is_dir() else []:
        try:
            os.rmdir(group)
        except OSError:
            pass


def public(part: str) -> str:
    """A command part as the user would type it."""
    if part == WORKER:
        return "t7_worker.py"
    if part.startswith("PATH="):
        return "PATH=$VIRTUAL_ENV/bin:$PATH"
    return Path(part).name if part.endswith(("/mpiexec.hydra", "/torchx", "/torchrun")) else part


__all__ = ["LAUNCHERS", "cleanup", "commands", "public", "scenarios"]
