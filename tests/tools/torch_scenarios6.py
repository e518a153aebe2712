"""The sixth set of recorded runs (held out when recorded): launch styles and faults the first five
lack. Imported by torch_scenarios.py (its ``S`` builds each one); the program: tests/tools/t6_worker.py.

Launch styles (``launcher``):
``perpod``   one process per pod, no launcher (Kubeflow's PyTorchJob v1, a plain ``python train.py``):
             each process gets ``MASTER_ADDR``, ``MASTER_PORT``, ``WORLD_SIZE``, ``RANK`` of its own and
             its output is its own pod's log (``agents`` processes, ``nproc`` 1). ``bad_world``: the
             culprit's ``WORLD_SIZE`` is one less (a misconfigured replica).
``mpirun``   Open MPI's ``mpirun --allow-run-as-root --oversubscribe -np N`` (an MPIJob launcher's
             log): N processes taking their rank from ``OMPI_COMM_WORLD_RANK``, gloo through
             ``MASTER_ADDR``/``MASTER_PORT`` passed with ``-x``; ``opts`` adds ``--tag-output`` /
             ``--timestamp-output``.
``trun``     the ``torchrun`` script with c10d rendezvous and the newer options in ``opts``
             (``--local-addr``, ``--virtual-local-rank``, ``--signals-to-handle``, ``--rdzv-conf``);
             ``elastic``: ``--nnodes 1:N``.
``preempt_sig``: the signal sent to every launcher at ``preempt_s`` (default SIGTERM).
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
TORCHRUN = str(Path(sys.executable).parent / "torchrun")
WORKER = str(HERE / "t6_worker.py")
LAUNCHERS = ("perpod", "mpirun", "trun")
MPI = ["--allow-run-as-root", "--oversubscribe"]
TAG = ["--tag-output"]
FH = {"K10S_FAULTHANDLER": "1"}


def scenarios(S) -> list[dict]:
    pp = {"launcher": "perpod", "nproc": 1, "gap_s": 0.2}
    mpi = {"launcher": "mpirun", "agents": 1, "nproc": 4}
    return [
        # one process per pod (PyTorchJob v1 style): node N's log is rank N's
        S("t6-perpod-4-keyerror-rank2", fault="exception", rank=2, cause="python-exception", agents=4, **pp),
        S("t6-perpod-4-sigkill-rank1", fault="sigkill", rank=1, cause="never-joined", agents=4, **pp),
        S("t6-perpod-4-stall-rank3", fault="stall", rank=3, cause="never-joined", agents=4, **pp),
        S("t6-perpod-3-segfault-faulthandler-rank0", fault="segfault", rank=0, cause="segfault", agents=3, env=FH, **pp),
        {**S("t6-perpod-4-wrong-world-size-rank3", fault="bad-world", rank=3, cause="python-exception", agents=4, **pp),
         "bad_world": True},
        S("t6-perpod-2-recursion-rank1", fault="recursion", rank=1, cause="python-exception", agents=2, **pp),
        S("t6-perpod-3-sigkill-rank0-store", fault="sigkill", rank=0, cause="never-joined", agents=3, **pp),
        # Open MPI mpirun (an MPIJob launcher's log)
        S("t6-mpi-4-sigkill-rank1", fault="sigkill", rank=1, cause="host-oom-kill", **mpi),
        S("t6-mpi-4-segfault-rank2-tag", fault="segfault", rank=2, cause="segfault", opts=TAG, **mpi),
        S("t6-mpi-4-exception-rank3-timestamp", fault="exception", rank=3, cause="python-exception",
          opts=[*TAG, "--timestamp-output"], **mpi),
        S("t6-mpi-4-hang-rank1-tag", fault="hang", rank=1, cause="never-joined", opts=TAG, **mpi),
        S("t6-mpi-4-nan-rank2", fault="nan", rank=2, cause="python-exception", **mpi),
        # torchrun, newer options and new faults
        S("t6-trun-chained-record-rank3", launcher="trun", fault="chained", rank=3, cause="python-exception",
          env={"K10S_RECORD": "1"}, opts=["--local-addr", "127.0.0.1", "--virtual-local-rank", "--tee", "3"]),
        S("t6-trun-fsize-checkpoint-rank1", launcher="trun", fault="fsize", rank=1, cause="python-exception"),
        S("t6-trun-destroy-early-rank2", launcher="trun", fault="destroy-early", rank=2, cause="python-exception",
          opts=["--tee", "3"]),
        S("t6-trun-slow-loader-rank1", launcher="trun", fault="slow-loader", rank=1, cause="never-joined"),
        S("t6-trun-1x3-recursion-rank0", launcher="trun", fault="recursion", rank=0, cause="python-exception", nproc=3,
          agents=1, opts=["--signals-to-handle", "SIGTERM,SIGUSR1"]),
        # controls: no rank may be named
        S("t6-perpod-4-common-mode-valueerror", fault="valueerror", rank=-1, culprits=[], agents=4, **pp),
        S("t6-mpi-4-clean-tag-timestamp", opts=[*TAG, "--timestamp-output"], **mpi),
        S("t6-mpi-4-preempted-sigterm", culprits=[], steps=60, preempt_s=3.0, **mpi),
        S("t6-trun-elastic-node-leaves", launcher="trun", culprits=[], steps=60, kill_node=True,
          opts=["--max-restarts", "1"], env={"K10S_ELASTIC": "1"}),
        {**S("t6-trun-signals-usr1-preempted", launcher="trun", culprits=[], steps=60, preempt_s=3.0,
             opts=["--signals-to-handle", "SIGTERM,SIGUSR1"]), "preempt_sig": "SIGUSR1"},
    ]


def commands(sc: dict, opts: list[str], port: str) -> list[list[str]]:
    """Each node's (pod's) command line, ``env`` first where the pod spec would set the environment."""
    py, n = sys.executable, sc["nproc"]
    if sc["launcher"] == "perpod":
        world = sc["agents"]
        out = []
        for r in range(world):
            size = world - 1 if sc.get("bad_world") and r == sc["rank"] else world
            out.append(["env", "MASTER_ADDR=127.0.0.1", f"MASTER_PORT={port}", f"WORLD_SIZE={size}", f"RANK={r}", py, WORKER])
        return out
    if sc["launcher"] == "mpirun":
        return [[shutil.which("mpirun") or "mpirun", *MPI, "-np", str(n), *opts, "-x", "MASTER_ADDR=127.0.0.1",
                 "-x", f"MASTER_PORT={port}", py, WORKER]]
    nnodes = f"1:{sc['agents']}" if sc["env"].get("K10S_ELASTIC") else str(sc["agents"])
    rdzv = ["--rdzv-backend", "c10d", "--rdzv-endpoint", f"127.0.0.1:{port}", "--rdzv-id", sc["name"],
            "--rdzv-conf", "join_timeout=10,last_call_timeout=1,close_timeout=5"]
    tail = [*opts] if "--max-restarts" in opts else [*opts, "--max-restarts", "0"]
    return [[TORCHRUN, "--nnodes", nnodes, "--nproc-per-node", str(n), *rdzv, "--monitor-interval", "0.5", *tail, WORKER]
            for _ in range(sc["agents"])]


def public(part: str) -> str:
    """A command part as the user would type it."""
    return "t6_worker.py" if part == WORKER else "mpirun" if part.endswith("/mpirun") else part


__all__ = ["LAUNCHERS", "commands", "public", "scenarios"]
