"""The seventeenth set of recorded runs (held out when recorded), in two halves. Sizes and positions: the core faults
(an exception, SIGKILL, a segfault, an abort, a hang before a collective, a rank that never joins, an early exit 0) at
layouts and positions no earlier set has (2 x 4 with the culprit on rank 7 or 5, 4 agents x 1, 3 x 3 with the culprit
on node 2's middle rank, 1 x 6 with the culprit on rank 0, two culprits on two nodes at once, a static node rank that
is not its agent's start order). New faults: a ``DTensor`` whose shard is the wrong size on one rank (gloo, a 1-D CPU
mesh), a ``persistent_workers`` DataLoader worker raising on one rank, ``torch.cuda`` on this CPU machine on one rank.
Controls: every rank's ``cuda`` alike, every rank's ``KeyError`` alike (4 x 1), a clean 2 x 4 run with a handled
``cuda`` error's traceback printed, node 2 of 3 x 3 lost. Imported by torch_scenarios.py (its ``S`` builds each one); the
program: tests/tools/t17_worker.py. Launch styles: ``t17run`` (the ``torchrun`` script, c10d rendezvous:
torch_scenarios11's command with this set's program), ``t17static`` (torch_scenarios16's static command, each node's
``--node-rank`` from ``node_ranks`` in the agents' start order).
"""

from __future__ import annotations

from pathlib import Path

import torch_scenarios11 as t11
import torch_scenarios16 as t16

HERE = Path(__file__).resolve().parent
WORKER = str(HERE / "t17_worker.py")
LAUNCHERS = ("t17run", "t17static")


def scenarios(S) -> list[dict]:
    tr = {"launcher": "t17run"}
    tee = ["--tee", "3"]
    short = {"K10S_GLOO_TIMEOUT_S": "3"}
    return [
        # sizes and positions
        S("t17-trun-2x4-segfault-rank7", fault="segfault", rank=7, cause="segfault", nproc=4, env=short, opts=tee, **tr),
        S("t17-trun-2x4-exit0-rank5", fault="exit0", rank=5, cause="never-joined", nproc=4, env=short, **tr),
        S("t17-trun-4x1-sigkill-rank2", fault="sigkill", rank=2, cause="host-oom-kill", nproc=1, agents=4, gap_s=0.5, env=short, **tr),
        S("t17-trun-3x3-abort-rank7", fault="abort", rank=7, cause="abort", nproc=3, agents=3, env=short, opts=tee, **tr),
        S("t17-trun-1x6-hang-rank0", fault="hang", rank=0, cause="never-joined", nproc=6, agents=1, env=short, **tr),
        S("t17-trun-3x2-keyerror-rank1-rank4", fault="keyerror", rank=-2, culprits=[1, 4], cause="python-exception", agents=3,
          env={**short, "K10S_FAULT_RANKS": "1,4"}, **tr),
        # node 1 is the agent started first (--node-rank 1), node 0 the second
        {**S("t17-static-node1-first-never-joins-rank2", fault="never-joins", rank=2, cause="never-joined", env=short,
             opts=["--rdzv-conf", "timeout=10"], launcher="t17static"), "node_ranks": ["1", "0"]},
        # new faults
        S("t17-trun-dtensor-shard-rows-rank2", fault="dtensor", rank=2, cause="collective-mismatch", env=short, **tr),
        S("t17-trun-persistent-loader-rank1", fault="loader", rank=1, cause="python-exception", env=short, opts=tee, **tr),
        S("t17-trun-cuda-one-rank3", fault="cuda", rank=3, cause="python-exception", env=short, **tr),
        # controls: no rank may be named
        S("t17-trun-common-mode-cuda", fault="cuda", rank=-1, culprits=[], env=short, **tr),
        S("t17-trun-4x1-common-mode-keyerror", fault="keyerror", rank=-1, culprits=[], nproc=1, agents=4, gap_s=0.5, env=short, **tr),
        S("t17-trun-2x4-clean-handled-cuda-rank5", fault="cuda-handled", rank=5, culprits=[], nproc=4, env=short, opts=tee, **tr),
        {**S("t17-trun-3x3-node2-lost", culprits=[], kill_node=True, steps=60, nproc=3, agents=3, env=short, **tr), "kill_agent": 2},
    ]


def commands(sc: dict, opts: list[str], port: str) -> list[list[str]]:
    """Each node's command line: torch_scenarios11's ``torchrun`` or torch_scenarios16's static one, this set's program."""
    if sc["launcher"] == "t17run":
        cmds = t11.commands(sc, opts, port)
    else:
        cmds = t16.commands({**sc, "launcher": "t16static"}, opts, port)
    return [[WORKER if p in (t11.WORKER, t16.WORKER) else p for p in cmd] for cmd in cmds]


def public(part: str) -> str:
    """A command part as the user would type it."""
    return "t17_worker.py" if part == WORKER else t16.public(part)


__all__ = ["LAUNCHERS", "commands", "public", "scenarios"]
