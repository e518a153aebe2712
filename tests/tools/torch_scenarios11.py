"""The eleventh set of recorded runs (held out when recorded): launch styles, output shapes and faults the first
ten lack. torch's programmatic launcher (``elastic_launch``, a function entrypoint, ``start_method`` ``spawn`` /
``forkserver``: a worker's traceback lives only in the error file the failure report quotes); the agent hosting
the c10d rendezvous store killed with its workers; an elastic ``--nnodes 1:3`` job that loses a node and re-forms
smaller; per-call timeouts (``work.wait(timeout=…)``); ``DefaultCPUAllocator`` under ``RLIMIT_AS``;
``faulthandler.dump_traceback_later`` stacks of waiting ranks; a rank's buffered lines lost at SIGKILL
(``PYTHONUNBUFFERED`` unset under ``elastic_launch``); C++ frames under ``TORCH_SHOW_CPP_STACKTRACES=1``; an exception whose handler's
``dist.barrier()`` fails too; ``logging`` formatters putting time, host and rank before every line, or glog's
``E1129 …]`` shape; warnings turned into errors; ``torch._C._LinAlgError``; controls. Imported by
torch_scenarios.py (its ``S`` builds each one); the program: tests/tools/t11_worker.py. Launch styles: ``t11run``
(the ``torchrun`` script, c10d rendezvous, ``agents`` x ``nproc``), ``t11launch`` (``python t11_worker.py
--launch METHOD …`` per node).
"""

from __future__ import annotations

import sys
from pathlib import Path

import torch_scenarios10 as t10

HERE = Path(__file__).resolve().parent
BIN = Path(sys.executable).parent
WORKER = str(HERE / "t11_worker.py")
LAUNCHERS = ("t11run", "t11launch")


def scenarios(S) -> list[dict]:
    tr, el = {"launcher": "t11run"}, {"launcher": "t11launch"}
    tee = ["--tee", "3"]
    short = {"K10S_GLOO_TIMEOUT_S": "3"}

    def env(**kw) -> dict:
        return {**short, **kw}

    return [
        S("t11-elaunch-forkserver-keyerror-rank1", fault="keyerror", rank=1, cause="python-exception", env=env(K10S_METHOD="forkserver"), **el),
        S("t11-elaunch-spawn-sigkill-rank2", fault="sigkill", rank=2, cause="host-oom-kill", env=env(K10S_METHOD="spawn"), **el),
        S("t11-trun-wait-timeout-lag-rank3", fault="wait-lag", rank=3, cause="never-joined", env=env(), **tr),
        S("t11-trun-bad-alloc-rlimit-rank1", fault="bad-alloc", rank=1, cause="host-oom", env=env(), opts=tee, **tr),
        S("t11-trun-dump-later-hang-rank2", fault="dump-hang", rank=2, cause="never-joined", env=env(), **tr),
        S("t11-elaunch-spawn-buffered-sigkill-rank1", fault="sigkill", rank=1, cause="host-oom-kill",
          env=env(K10S_METHOD="spawn", PYTHONUNBUFFERED=None), **el),  # torchrun's scripts run ``python -u``; a function does not
        S("t11-trun-cpp-stacktrace-matmul-rank2", fault="cpp-matmul", rank=2, cause="python-exception",
          env=env(TORCH_SHOW_CPP_STACKTRACES="1"), opts=tee, **tr),
        S("t11-trun-handler-barrier-fails-rank2", fault="handler-barrier", rank=2, cause="python-exception", env=env(), **tr),
        S("t11-trun-logfmt-every-line-rank3", fault="keyerror", rank=3, cause="python-exception", env=env(K10S_LOG="lines"), **tr),
        S("t11-trun-logfmt-glog-rank1", fault="keyerror", rank=1, cause="python-exception", env=env(K10S_LOG="glog"), opts=tee, **tr),
        S("t11-trun-warnings-as-errors-rank1", fault="warn-error", rank=1, cause="python-exception", env=env(), **tr),
        S("t11-trun-linalg-error-rank3", fault="linalg", rank=3, cause="python-exception", env=env(), opts=tee, **tr),
        # controls: no rank may be named
        {**S("t11-trun-store-host-node-killed", culprits=[], kill_node=True, steps=60, env=env(), **tr), "kill_agent": 0},
        {**S("t11-trun-elastic-1to3-node-leaves", culprits=[], kill_node=True, steps=14, agents=3, gap_s=0.5, env=env(),
             opts=["--max-restarts", "3"], **tr), "kill_agent": 2, "nnodes": "1:3", "rdzv_conf": "join_timeout=15,last_call_timeout=4"},
        S("t11-trun-common-mode-bad-alloc", fault="bad-alloc", rank=-1, culprits=[], env=env(), **tr),
        S("t11-trun-clean-watchdog-dump-rank1", fault="slow-dump", rank=1, culprits=[], env=env(), opts=tee, **tr),
        S("t11-trun-clean-glog-errors-rank0", fault="glog-noise", rank=0, culprits=[], env=env(K10S_LOG="glog"), **tr),
    ]


def commands(sc: dict, opts: list[str], port: str) -> list[list[str]]:
    """Each node's command line (``env`` first: the worker's own settings)."""
    env = ["env", f"PYTHONPATH={HERE}"]
    if sc["launcher"] == "t11launch":
        return [[*env, sys.executable, WORKER, "--launch", sc["env"]["K10S_METHOD"], str(sc["agents"]), str(sc["nproc"]),
                 f"127.0.0.1:{port}", sc["name"]] for _ in range(sc["agents"])]
    tail = [*opts] if "--max-restarts" in opts else [*opts, "--max-restarts", "0"]
    rdzv = ["--rdzv-backend", "c10d", "--rdzv-endpoint", f"127.0.0.1:{port}", "--rdzv-id", sc["name"],
            "--rdzv-conf", sc.get("rdzv_conf", "join_timeout=10")]
    return [[*env, str(BIN / "torchrun"), "--nnodes", sc.get("nnodes", str(sc["agents"])), "--nproc-per-node", str(sc["nproc"]),
             *rdzv, "--monitor-interval", "0.5", *tail, WORKER] for _ in range(sc["agents"])]


def public(part: str) -> str:
    """A command part as the user would type it (the tenth set's reading, this set's worker)."""
    return "t11_worker.py" if part == WORKER else t10.public(part)


__all__ = ["LAUNCHERS", "commands", "public", "scenarios"]
