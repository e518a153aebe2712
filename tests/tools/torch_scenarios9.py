"""The ninth set of recorded runs (held out when recorded): torchrun's output and entry options the
first eight lack (``TORCHELASTIC_LOG_LINE_PREFIX_TEMPLATE``, ``--role``, ``-m``, ``--no-python``,
``--nproc-per-node auto``, ``--shutdown-timeout``), short process-group timeouts with a rank slow,
stopped or spinning, resource limits (EMFILE, ENOSPC on a small tmpfs), autograd's anomaly mode, a
DataLoader worker's exception, a thread's exception, ``sys.exit("…")``, and controls (the same gloo or
DeviceMesh error on every rank, noise after a clean finish, NCCL-looking warnings). Imported by
torch_scenarios.py (its ``S`` builds each one); the program: tests/tools/t9_worker.py.

Launch styles: ``t9run`` (the ``torchrun`` script, c10d rendezvous, ``agents`` x ``nproc``; a
scenario's ``entry`` picks ``-m t9_worker`` or ``--no-python t9_worker.sh``), ``t9mrun`` (``python -m
torch.distributed.run --nproc-per-node auto``), ``t9mpi`` (Open MPI's ``mpirun -np 4``).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
BIN = Path(sys.executable).parent
WORKER = str(HERE / "t9_worker.py")
SCRIPT = str(HERE / "t9_worker.sh")
LAUNCHERS = ("t9run", "t9mrun", "t9mpi")
CPUS = os.cpu_count() or 2
_MOUNTS: list[tuple[str, bool]] = []  # (checkpoint folder, whether a tmpfs is mounted on it)


def scenarios(S) -> list[dict]:
    tr = {"launcher": "t9run"}
    tee = ["--tee", "3"]
    role = ["--role", "trainer"]
    short = {"K10S_GLOO_TIMEOUT_S": "3"}
    return [
        S("t9-trun-prefix-template-keyerror-rank2", fault="keyerror", rank=2, cause="python-exception", opts=[*role, *tee],
          env={"TORCHELASTIC_LOG_LINE_PREFIX_TEMPLATE": "[${role_name}${rank}|${local_rank}]:"}, **tr),
        S("t9-trun-prefix-local-only-keyerror-rank3", fault="keyerror", rank=3, cause="python-exception", opts=tee,
          env={"TORCHELASTIC_LOG_LINE_PREFIX_TEMPLATE": "${role_name}-${local_rank}> "}, **tr),
        {**S("t9-trun-module-assert-rank1", fault="assert", rank=1, cause="python-exception", opts=role, **tr), "entry": "module"},
        {**S("t9-trun-no-python-sigkill-rank3", fault="sigkill", rank=3, cause="host-oom-kill", opts=tee, **tr), "entry": "script"},
        S("t9-mrun-auto-segfault-node1", launcher="t9mrun", fault="segfault", rank=CPUS, cause="segfault", nproc=CPUS),
        S("t9-trun-slow-rank3-short-timeout", fault="slow", rank=3, cause="never-joined", env=short, **tr),
        S("t9-trun-sigstop-rank1", fault="sigstop", rank=1, cause="never-joined", env=short, opts=["--shutdown-timeout", "5"], **tr),
        S("t9-trun-py-hang-rank2", fault="py-hang", rank=2, cause="never-joined", env=short, opts=tee, **tr),
        S("t9-trun-emfile-rank2", fault="emfile", rank=2, cause="python-exception",
          opts=["--log-dir", "{logdir}", "--duplicate-stderr-filters", "Error"], **tr),
        {**S("t9-trun-enospc-checkpoint-rank0", fault="enospc", rank=0, cause="python-exception", **tr), "tmpfs": True},
        S("t9-trun-anomaly-nan-rank3", fault="anomaly", rank=3, cause="python-exception", opts=tee, **tr),
        S("t9-trun-loader-exception-rank1", fault="loader-exception", rank=1, cause="python-exception", **tr),
        S("t9-trun-thread-exception-rank2", fault="thread-exception", rank=2, cause="python-exception", env=short, **tr),
        S("t9-trun-sys-exit-msg-rank1", fault="sys-exit-msg", rank=1, cause="exit-1", opts=tee, **tr),
        S("t9-mpi-4-anomaly-rank1", launcher="t9mpi", fault="anomaly", rank=1, cause="python-exception", nproc=4, agents=1),
        S("t9-mpi-4-sigstop-rank2", launcher="t9mpi", fault="sigstop", rank=2, cause="never-joined", nproc=4, agents=1, env=short),
        # controls: no rank may be named
        S("t9-trun-common-mode-band-float", fault="band-float", rank=-1, culprits=[], opts=tee, **tr),
        S("t9-trun-common-mode-mesh-cuda", fault="mesh-cuda", rank=-1, culprits=[], **tr),
        S("t9-trun-clean-atexit-noise-rank1", fault="atexit-noise", rank=1, culprits=[], opts=tee, **tr),
        S("t9-trun-clean-nccl-warning-rank0", fault="nccl-warning", rank=0, culprits=[], **tr),
    ]


def _ckpt_dir(sc: dict) -> str:
    """The checkpoint folder: a 256 KiB tmpfs for the ENOSPC run (needs root), else a plain temporary folder."""
    path = tempfile.mkdtemp(prefix="k10s-ckpt-")
    if sc.get("tmpfs"):
        subprocess.run(["mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", path], check=True)
    _MOUNTS.append((path, bool(sc.get("tmpfs"))))
    return path


def commands(sc: dict, opts: list[str], port: str) -> list[list[str]]:
    """Each node's command line (``env`` first where the scenario sets variables on the launcher)."""
    n, nodes = str(sc["nproc"]), sc["agents"]
    env = ["env", f"K10S_CKPT_DIR={_ckpt_dir(sc)}", f"K10S_PYTHON={sys.executable}", f"PYTHONPATH={HERE}"]
    if sc["launcher"] == "t9mpi":
        return [[*env, shutil.which("mpirun") or "mpirun", "--allow-run-as-root", "--oversubscribe", "-np", n, *opts,
                 "-x", "MASTER_ADDR=127.0.0.1", "-x", f"MASTER_PORT={port}", sys.executable, WORKER]]
    tail = [*opts] if "--max-restarts" in opts else [*opts, "--max-restarts", "0"]
    rdzv = ["--rdzv-backend", "c10d", "--rdzv-endpoint", f"127.0.0.1:{port}", "--rdzv-id", sc["name"], "--rdzv-conf", "join_timeout=10"]
    entry = {"module": ["-m", "t9_worker"], "script": ["--no-python", SCRIPT]}.get(sc.get("entry", ""), [WORKER])
    if sc["launcher"] == "t9mrun":
        launcher, nproc = [sys.executable, "-m", "torch.distributed.run"], "auto"
    else:
        launcher, nproc = [str(BIN / "torchrun")], n
    return [[*env, *launcher, "--nnodes", str(nodes), "--nproc-per-node", nproc, *rdzv, "--monitor-interval", "0.5", *tail, *entry]
            for _ in range(nodes)]


def cleanup() -> None:
    while _MOUNTS:
        path, mounted = _MOUNTS.pop()
        if mounted:
            subprocess.run(["umount", path], check=False)
        shutil.rmtree(path, ignore_errors=True)


def public(part: str) -> str:
    """A command part as the user would type it."""
    if part == WORKER:
        return "t9_worker.py"
    if part == SCRIPT:
        return "t9_worker.sh"
    if part.startswith("K10S_CKPT_DIR="):
        return "K10S_CKPT_DIR=/ckpt"
    if part.startswith("K10S_PYTHON="):
        return "K10S_PYTHON=python"
    if part.startswith("PYTHONPATH="):
        return "PYTHONPATH=."
    return Path(part).name if part.endswith(("/torchrun", "/mpirun")) else part


__all__ = ["LAUNCHERS", "cleanup", "commands", "public", "scenarios"]
