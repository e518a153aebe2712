"""The nineteenth set of recorded runs (held out when recorded): the wrapper launchers at new sizes and positions, and
fault wordings no earlier set has. ``accelerate launch`` at 1 x 4 and DeepSpeed's runner (DS_ACCELERATOR=cpu) at 1 x 4
with the culprit the last rank, DeepSpeed's ``--hostfile --no_ssh --node_rank`` per node at 2 x 2 (its pdsh runner
needs ssh to each host: not here), Lightning's own launcher at 2 x 2 with the culprit on node 1, ``torchrun
--standalone`` at 1 x 8 with the culprit rank 7, ``PYTHONWARNINGS=error::UserWarning`` in one node's environment (the
truth: the global ranks the fault landed on, which the worker marks). An elastic ``--nnodes 1:3`` job whose third agent
joins late was recorded twice in each version and dropped: the scale-up re-rendezvous never completed (the agents'
``DistStoreError: wait timeout after 60000ms``), so the fault in the world of 6 never ran. Faults: a
``ZeroDivisionError`` in a metric, ``os.abort()`` after a ``logging.critical`` line, a failed ``torch._check``, a
``UserWarning`` raised as an error.
Controls: every rank's ``ZeroDivisionError`` alike (accelerate 1 x 4), DeepSpeed's runner SIGINTed as Ctrl-C at a
terminal does (its whole process group, 20 s into training), a clean ``--standalone`` 1 x 8 run warning
on every rank. Imported by torch_scenarios.py (its ``S`` builds each one); the program: tests/tools/t19_worker.py.
Launch styles: ``t19accel``, ``t19ds``, ``t19lightning`` (torch_scenarios4's wrappers, this set's program),
``t19standalone`` (torch_scenarios3's), ``t19run`` (torch_scenarios17's ``torchrun``; ``node_env``:
more environment for one node's command, by start order).
"""

from __future__ import annotations

from pathlib import Path

import torch_scenarios3 as t3
import torch_scenarios4 as t4
import torch_scenarios17 as t17

HERE = Path(__file__).resolve().parent
WORKER = str(HERE / "t19_worker.py")
LAUNCHERS = ("t19accel", "t19ds", "t19lightning", "t19standalone", "t19run")
_WRAPPED = {"t19accel": "accelerate", "t19ds": "deepspeed", "t19lightning": "lightning"}


def scenarios(S) -> list[dict]:
    short = {"K10S_GLOO_TIMEOUT_S": "3"}
    ds = {**short, **t4.DS}
    mine = {"culprits_from_marks": True}  # the truth: the global rank(s) the fault landed on, as the worker marks them
    return [
        S("t19-accel-1x4-zerodiv-rank3", launcher="t19accel", fault="zerodiv", rank=3, cause="python-exception", nproc=4,
          agents=1, env=short),
        S("t19-ds-1x4-crit-abort-rank3", launcher="t19ds", fault="crit-abort", rank=3, cause="abort", nproc=4, agents=1, env=ds),
        S("t19-ds-hostfile-2x2-zerodiv-rank2", launcher="t19ds", fault="zerodiv", rank=2, cause="python-exception", env=ds),
        # Lightning starts its other local rank by running the script again: its store waits 60 s for it (a loaded machine)
        S("t19-lightning-2x2-check-rank3", launcher="t19lightning", fault="check", rank=3, cause="python-exception",
          env={"K10S_GLOO_TIMEOUT_S": "60"}),
        S("t19-standalone-1x8-crit-abort-rank7", launcher="t19standalone", fault="crit-abort", rank=7, cause="abort", nproc=8,
          agents=1, env=short),
        # the second agent's node runs with warnings as errors: its two ranks raise the UserWarning every rank warns
        {**S("t19-trun-2x2-warn-error-one-node", launcher="t19run", fault="warn", rank=-1, culprits=[-1], cause="python-exception",
             env=short), "node_env": {1: ["PYTHONWARNINGS=error::UserWarning"]}, **mine},
        S("t19-trun-2x2-check-rank1-tee", launcher="t19run", fault="check", rank=1, cause="python-exception", env=short,
          opts=["--tee", "3"]),
        # controls: no rank may be named
        S("t19-accel-1x4-common-mode-zerodiv", launcher="t19accel", fault="zerodiv", rank=-1, culprits=[], nproc=4, agents=1,
          env=short),
        {**S("t19-ds-1x4-sigint-launcher", launcher="t19ds", culprits=[], nproc=4, agents=1, steps=200, preempt_s=20.0, env=ds),
         "preempt_sig": "SIGINT", "preempt_group": True},
        S("t19-standalone-1x8-clean-warnings", launcher="t19standalone", fault="warn", rank=-1, culprits=[], nproc=8, agents=1,
          env=short),
    ]


def commands(sc: dict, opts: list[str], port: str) -> list[list[str]]:
    """Each node's command line: a fourth-set wrapper, a third-set ``torchrun`` or a seventeenth-set one, this set's program."""
    if sc["launcher"] in _WRAPPED:
        cmds = t4.commands({**sc, "launcher": _WRAPPED[sc["launcher"]]}, port)
        return [[WORKER if p == t4.WORKER else p for p in cmd] for cmd in cmds]
    if sc["launcher"] == "t19standalone":
        return t3.commands({**sc, "launcher": sc["launcher"][3:]}, opts, port, WORKER)
    cmds = [[WORKER if p == t17.WORKER else p for p in cmd] for cmd in t17.commands({**sc, "launcher": "t17run"}, opts, port)]
    for node, extra in sc.get("node_env", {}).items():
        cmds[node][1:1] = extra  # after ``env``
    return cmds


def public(part: str) -> str:
    """A command part as the user would type it."""
    return "t19_worker.py" if part == WORKER else part


__all__ = ["LAUNCHERS", "commands", "public", "scenarios"]
