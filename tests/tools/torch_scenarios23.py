"""The twenty-third set of recorded runs (held out when recorded): an elastic ``--nnodes 1:3`` job whose third agent
joins late (the agents stop their workers and re-form the world of 6; the new world's rank 4 raises; with torch's
default shared rendezvous store the scale-up never re-forms: the new agent waits for the round's master address,
which the first round's rank-0 agent never writes again, so both runs are taken with
``TORCH_DISABLE_SHARE_RDZV_TCP_STORE=1`` and one without, as a control), a ``--max-restarts 1`` job whose second
attempt fails on another rank by another cause (a segfault on rank 0, then a SIGKILL on rank 3), a rank hung while
``--local-ranks-filter 0`` hides it, a ``KeyError`` whose traceback is only in ``--log-dir``'s files
(``--redirects 3 --tee 1``: stdout shown, stderr not), ``torch.multiprocessing.start_processes(join=False)`` with
``fork``; controls: the same late join re-forming and finishing, every FSDP2 rank's ``clip_grad_norm_`` raising alike
after one rank's NaN sample, every ``start_processes`` rank raising the same ``ValueError``. Imported by
torch_scenarios.py (its ``S`` builds each one); the program: tests/tools/t23_worker.py. Launch styles: ``t23run``
(torch_scenarios17's ``torchrun``, this set's program; ``args``: the program's arguments), ``t23procs`` (one
``python t23_worker.py --start-processes METHOD NPROC PORT``).
"""

from __future__ import annotations

import sys
from pathlib import Path

import torch_scenarios17 as t17

HERE = Path(__file__).resolve().parent
WORKER = str(HERE / "t23_worker.py")
LAUNCHERS = ("t23run", "t23procs")


def scenarios(S) -> list[dict]:
    tr, procs = {"launcher": "t23run"}, {"launcher": "t23procs"}
    short = {"K10S_GLOO_TIMEOUT_S": "3"}
    # the late join: 2 agents form 2 x 2 (both within the last call), the third starts ``late_s`` later; the agents
    # stop their workers for the scale-up (no restart counted) and re-form 3 x 2; the group timeout covers the
    # new world's set-up on a loaded machine
    late = {"nnodes": "1:3", "rdzv_conf": "join_timeout=60,last_call_timeout=2", "late_s": 6.0, "gap_s": 0.5}
    unshared = {"K10S_GLOO_TIMEOUT_S": "20", "TORCH_DISABLE_SHARE_RDZV_TCP_STORE": "1"}
    return [
        # the truth: the global rank the fault landed on in the world of 6, as the worker marks it (rank 4)
        {**S("t23-trun-elastic-1to3-late-join-zerodiv-rank4", fault="zerodiv", rank=4, cause="python-exception", agents=3,
             steps=60, env=unshared, **tr), **late, "culprits_from_marks": True},
        # attempt 0: rank 0's segfault, attempt 1: rank 3's SIGKILL (two incidents; the truth, as the tenth and
        # twenty-first sets' moving restarts: the last attempt's culprit, whose failure ended the job)
        S("t23-trun-2x2-restarts1-segfault-rank0-then-sigkill-rank3", fault="sigkill", rank=3, cause="host-oom-kill",
          env={"K10S_GLOO_TIMEOUT_S": "30", "K10S_FAULT_BY_ATTEMPT": "segfault,sigkill", "K10S_FAULT_RANK_BY_ATTEMPT": "0,3"},
          opts=["--max-restarts", "1"], **tr),
        # rank 1 (node 0's local rank 1) hangs before its step's collectives; only local rank 0's lines are shown
        S("t23-trun-2x2-filter0-hang-rank1", fault="hang", rank=1, cause="never-joined", env={"K10S_GLOO_TIMEOUT_S": "5"},
          opts=["--tee", "3", "--local-ranks-filter", "0"], **tr),
        # rank 1's KeyError traceback (stderr) only in the log-dir files: the pod log holds stdout and the agents'
        # reports (first written with no cause beyond rank 1's exit status; set after the as-recorded score to the
        # earlier sets' convention for a hidden exception, torchrun-exception-redirects-logdir's: python-exception)
        S("t23-trun-2x2-logdir-redirects3-tee1-keyerror-rank1", fault="keyerror", rank=1, cause="python-exception", env=short,
          opts=["--redirects", "3", "--tee", "1", "--log-dir", "{logdir}"], **tr),
        S("t23-procs-1x4-fork-nojoin-sigkill-rank2", fault="sigkill", rank=2, cause="host-oom-kill", nproc=4, agents=1,
          env={**short, "K10S_METHOD": "fork"}, **procs),
        # controls: no rank may be named
        {**S("t23-trun-elastic-1to3-late-join-clean", agents=3, steps=60, env=unshared, **tr), **late},
        # torch's default (the shared store): the scale-up round never completes; no worker fails, no rank to name
        {**S("t23-trun-elastic-1to3-late-join-shared-store", agents=3, steps=60, env={"K10S_GLOO_TIMEOUT_S": "20"}, **tr),
         **late},
        {**S("t23-trun-2x2-fsdp2-nan-batch-clip-every-rank", fault="nan-batch", rank=3, culprits=[], env=short, **tr),
         "args": ["fsdp2"]},
        S("t23-procs-1x4-spawn-nojoin-common-mode-valueerror", fault="valueerror", rank=-1, culprits=[], nproc=4, agents=1,
          env={**short, "K10S_METHOD": "spawn"}, **procs),
    ]


def commands(sc: dict, opts: list[str], port: str) -> list[list[str]]:
    """Each node's command line: the seventeenth set's ``torchrun`` with this set's program (and ``args``), or the
    program starting its own processes."""
    if sc["launcher"] == "t23procs":
        return [[sys.executable, WORKER, "--start-processes", sc["env"]["K10S_METHOD"], str(sc["nproc"]), port]]
    cmds = t17.commands({**sc, "launcher": "t17run"}, opts, port)
    return [[p for part in cmd for p in ([WORKER, *sc.get("args", [])] if part == t17.WORKER else [part])] for cmd in cmds]


def public(part: str) -> str:
    """A command part as the user would type it."""
    return "t23_worker.py" if part == WORKER else part


__all__ = ["LAUNCHERS", "commands", "public", "scenarios"]
