"""The eighteenth set of recorded runs (held out when recorded): sizes and positions through the other launchers and
output options. The legacy ``python -m torch.distributed.launch`` at 3 x 2 (static nodes; the culprit on node 2),
``mp.spawn`` with 6 and 8 processes (the culprit the last one), ``torchrun --log-dir --tee 2`` at 2 x 4 (the culprit
node 1's rank 6), ``--redirects 3 --tee 0`` at 3 x 2, ``--local-ranks-filter 0`` hiding the culprit's lines, a static ``--nnodes 3`` whose
node 0 is not the first agent started, a world of 8 whose ranks 3 and 5 (two nodes) fail 1.5 s apart (the agents
polling every 6 s: the later one is not torn down first). Faults: an exception, SIGKILL, SIGSEGV, SIGABRT, a hang
before a collective (gloo timeout), an early exit 0. Controls: every rank's ``KeyError`` alike at 3 x 2, node 1 of a
legacy 3 x 2 lost, a clean 2 x 4 run with ``--log-dir``. Imported by torch_scenarios.py (its ``S`` builds each one); the
program: tests/tools/t18_worker.py (``mp.spawn``: record_launch's ``spawn``, tests/tools/torch_worker.py). Launch
styles: ``t18run`` (torch_scenarios17's ``torchrun``; ``monitor``: the agents' ``--monitor-interval``), ``t18static``
(torch_scenarios17's static one), ``t18legacy`` (``torch.distributed.launch``, ``agents`` static nodes).
"""

from __future__ import annotations

import sys
from pathlib import Path

import torch_scenarios17 as t17

HERE = Path(__file__).resolve().parent
WORKER = str(HERE / "t18_worker.py")
LAUNCHERS = ("t18run", "t18static", "t18legacy")


def scenarios(S) -> list[dict]:
    tr, lg = {"launcher": "t18run"}, {"launcher": "t18legacy"}
    tee = ["--tee", "3"]
    short = {"K10S_GLOO_TIMEOUT_S": "3"}
    return [
        S("t18-legacy-3x2-sigkill-rank4", fault="sigkill", rank=4, cause="host-oom-kill", agents=3, env=short, **lg),
        S("t18-legacy-3x2-exit0-rank5", fault="exit0", rank=5, cause="never-joined", agents=3, env=short, **lg),
        S("t18-spawn-6-segfault-rank5", launcher="spawn", fault="segfault", rank=5, cause="segfault", nproc=6, env=short),
        S("t18-spawn-8-exception-rank7", launcher="spawn", fault="exception", rank=7, cause="python-exception", nproc=8, env=short),
        S("t18-trun-2x4-logdir-tee2-abort-rank6", fault="abort", rank=6, cause="abort", nproc=4, env=short,
          opts=["--log-dir", "{logdir}", "--tee", "2"], **tr),
        S("t18-trun-3x2-redirects3-tee0-keyerror-rank3", fault="keyerror", rank=3, cause="python-exception", agents=3, env=short,
          opts=["--log-dir", "{logdir}", "--redirects", "3", "--tee", "0"], **tr),
        S("t18-trun-2x3-filter0-segfault-rank4", fault="segfault", rank=4, cause="segfault", nproc=3, env=short,
          opts=[*tee, "--local-ranks-filter", "0"], **tr),
        # node 2 is the agent started first (--node-rank 2), then node 0, then node 1
        {**S("t18-static-3x2-node2-first-hang-rank2", fault="hang", rank=2, cause="never-joined", agents=3, env=short,
             launcher="t18static"), "node_ranks": ["2", "0", "1"]},
        # rank 3 (node 0) fails; rank 5 (node 1) 1.5 s later: the truth is the first
        {**S("t18-trun-2x4-keyerror-rank3-then-rank5", fault="keyerror", rank=3, culprits=[3], cause="python-exception", nproc=4,
             env={**short, "K10S_FAULT_RANKS": "3,5", "K10S_FAULT_LAG": "5:1.5"}, **tr), "monitor": "6"},
        # controls: no rank may be named
        S("t18-trun-3x2-common-mode-keyerror", fault="keyerror", rank=-1, culprits=[], agents=3, env=short, **tr),
        {**S("t18-legacy-3x2-node1-lost", culprits=[], kill_node=True, steps=60, agents=3, env=short, **lg), "kill_agent": 1},
        S("t18-trun-2x4-clean-logdir", nproc=4, env=short, opts=["--log-dir", "{logdir}", *tee], **tr),
    ]


def commands(sc: dict, opts: list[str], port: str) -> list[list[str]]:
    """Each node's command line: torch_scenarios17's ``torchrun`` / static one or the legacy launcher, this set's program."""
    if sc["launcher"] == "t18legacy":
        return [["env", f"PYTHONPATH={HERE}", sys.executable, "-m", "torch.distributed.launch", "--nnodes", str(sc["agents"]),
                 "--node-rank", str(i), "--nproc-per-node", str(sc["nproc"]), "--master-addr", "127.0.0.1", "--master-port", port,
                 *opts, WORKER] for i in range(sc["agents"])]
    cmds = t17.commands({**sc, "launcher": "t17run" if sc["launcher"] == "t18run" else "t17static"}, opts, port)
    for cmd in cmds:
        cmd[cmd.index("--monitor-interval") + 1] = sc.get("monitor", "0.5")
    return [[WORKER if p == t17.WORKER else p for p in cmd] for cmd in cmds]


def public(part: str) -> str:
    """A command part as the user would type it."""
    return "t18_worker.py" if part == WORKER else t17.public(part)


__all__ = ["LAUNCHERS", "commands", "public", "scenarios"]
