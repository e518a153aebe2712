"""The tenth set of recorded runs (held out when recorded): parallelism styles the first nine lack
(hand-written pipeline stages over ``dist.send``/``dist.recv``, ``dist.new_group`` subgroups,
DDP's ``no_sync()`` accumulation, ``parallelize_module`` tensor parallel on a gloo CPU mesh), faults of the program's own tools (an evaluation subprocess,
``RLIMIT_NPROC`` when starting DataLoader workers, a truncated or ``weights_only``-refused
checkpoint, a custom autograd ``backward``, a ``UnicodeDecodeError``), a restart whose culprit
changes (rank 1 leaves with exit status 0, then rank 3 raises), non-UTF-8 bytes and a 70 KiB line
around a failure, and controls. Imported by torch_scenarios.py (its ``S`` builds each one); the
program: tests/tools/t10_worker.py. Launch style ``t10run``: the ``torchrun`` script, c10d
rendezvous, ``agents`` x ``nproc`` (two agents x 2 unless a scenario says otherwise).
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
BIN = Path(sys.executable).parent
WORKER = str(HERE / "t10_worker.py")
LAUNCHERS = ("t10run",)


def scenarios(S) -> list[dict]:
    tr = {"launcher": "t10run"}
    tee = ["--tee", "3"]
    short = {"K10S_GLOO_TIMEOUT_S": "3"}

    def style(name: str, **env) -> dict:
        return {**short, "K10S_STYLE": name, **env}

    return [
        S("t10-trun-pipe-stage-raise-rank2", fault="raise", rank=2, cause="python-exception", env=style("pipe"), opts=tee, **tr),
        S("t10-trun-pipe-stage-sigkill-rank1", fault="sigkill", rank=1, cause="host-oom-kill", env=style("pipe"), **tr),
        S("t10-trun-subgroup-keyerror-rank3", fault="keyerror", rank=3, cause="python-exception", env=style("groups"), **tr),
        S("t10-trun-ddp-no-sync-hang-rank1", fault="accum-hang", rank=1, cause="never-joined", env=style("ddp"), opts=tee, **tr),
        S("t10-trun-tp-shape-rank1", fault="shape", rank=1, cause="python-exception", env=style("tp"), **tr),
        S("t10-trun-eval-subprocess-rank1", fault="eval-subprocess", rank=1, cause="python-exception", opts=tee, **tr),
        S("t10-trun-nproc-loader-rank2", fault="nproc", rank=2, cause="python-exception", **tr),
        S("t10-trun-truncated-ckpt-rank0", fault="truncated-ckpt", rank=0, cause="python-exception",
          opts=["--redirects", "3", "--tee", "2", "--log-dir", "{logdir}"], **tr),
        S("t10-trun-weights-only-rank3", fault="weights-only", rank=3, cause="python-exception", opts=tee, **tr),
        S("t10-trun-autograd-fn-backward-rank3", fault="autograd-fn", rank=3, cause="python-exception", **tr),
        S("t10-trun-unicode-decode-rank2", fault="unicode", rank=2, cause="python-exception", opts=tee, **tr),
        S("t10-trun-restart-exit0-then-keyerror-rank3", fault="exit0", rank=3, cause="python-exception",
          env={"K10S_FAULT": "exit0,keyerror", "K10S_FAULT_RANK": "1,3"}, opts=["--max-restarts", "1"], **tr),
        S("t10-trun-longline-keyerror-rank1", fault="longline", rank=1, cause="python-exception", **tr),
        S("t10-trun-1x4-pipe-raise-rank3", fault="raise", rank=3, cause="python-exception", env=style("pipe"), nproc=4, agents=1,
          opts=tee, **tr),
        S("t10-trun-subgroup-sigkill-rank0", fault="sigkill", rank=0, cause="host-oom-kill", env=style("groups"), opts=tee, **tr),
        # controls: no rank may be named
        S("t10-trun-common-mode-hparam-assert", fault="hparam-assert", rank=-1, culprits=[], opts=tee, **tr),
        S("t10-trun-common-mode-eval-subprocess", fault="eval-common", rank=-1, culprits=[], **tr),
        S("t10-trun-clean-handled-traceback-rank1", fault="handled-noise", rank=1, culprits=[], opts=tee, **tr),
        S("t10-trun-clean-longline-nonutf8-rank0", fault="longline-clean", rank=0, culprits=[], **tr),
    ]


def commands(sc: dict, opts: list[str], port: str) -> list[list[str]]:
    """Each node's command line (``env`` first: the worker's own settings)."""
    env = ["env", f"PYTHONPATH={HERE}"]
    tail = [*opts] if "--max-restarts" in opts else [*opts, "--max-restarts", "0"]
    rdzv = ["--rdzv-backend", "c10d", "--rdzv-endpoint", f"127.0.0.1:{port}", "--rdzv-id", sc["name"], "--rdzv-conf", "join_timeout=10"]
    return [[*env, str(BIN / "torchrun"), "--nnodes", str(sc["agents"]), "--nproc-per-node", str(sc["nproc"]), *rdzv,
             "--monitor-interval", "0.5", *tail, WORKER] for _ in range(sc["agents"])]


def public(part: str) -> str:
    """A command part as the user would type it."""
    if part == WORKER:
        return "t10_worker.py"
    if part.startswith("PYTHONPATH="):
        return "PYTHONPATH=."
    return Path(part).name if part.endswith("/torchrun") else part


__all__ = ["LAUNCHERS", "commands", "public", "scenarios"]
