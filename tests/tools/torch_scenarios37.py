"""The thirty-seventh set of recorded runs (held out when recorded): layouts beyond 2 x 2, where local rank, global
rank, node rank and agent order differ, on CPU with gloo. Each node is ``torchrun`` (torch_scenarios11's command: c10d
rendezvous on 127.0.0.1, ``K10S_GLOO_TIMEOUT_S=5``) running tests/tools/t37_worker.py as real training scripts run it
(``logging.basicConfig`` records, the rank's own start line, a tiny model whose gradients are all-reduced by hand):
4 agents x 2 processes with global rank 5 (local rank 1 of node 2) raising ``KeyError``; 2 x 4 with rank 6 (local 2 of
node 1) SIGKILLed; 3 x 2 (odd world 6) with the last rank's segfault; 2 x 2 where the pod named node1 is started first and
so gets group rank 0 (c10d orders the agents by arrival: its file holds ranks 0-1) while its local rank 1 raises; one
agent x 8 whose ``--local-ranks-filter 0,1,2,3`` hides the failing rank 6; rank 7 of 4 x 2 sleeping in its step while
the others' gloo timeouts fire. Controls: every rank of 4 x 2 raising the same configuration ``ValueError``; a clean
3 x 2 run with each rank's own warnings. Imported by torch_scenarios.py (its ``S`` builds each one); ``victims`` the ranks
that fail or wait because of the culprit (truth.json's ``victim_ranks``); ``pod_of_agent`` each node file's agent by
start order (the swapped pods: node0.log is the second agent's, node1.log the first's).
"""

from __future__ import annotations

from pathlib import Path

import torch_scenarios11 as t11

HERE = Path(__file__).resolve().parent
WORKER = str(HERE / "t37_worker.py")
LAUNCHERS = ("t37run",)


def _others(world: int, *culprits: int) -> list[int]:
    return [r for r in range(world) if r not in culprits]


def scenarios(S) -> list[dict]:
    def T(name: str, victims: list[int], **kw) -> dict:
        env = {"K10S_GLOO_TIMEOUT_S": "5", **kw.pop("env", {})}
        extra = {k: kw.pop(k) for k in ("pod_of_agent",) if k in kw}
        return {**S(name, launcher="t37run", env=env, steps=5, step=2, gap_s=0.5, **kw), "victims": victims,
                "limit_s": 150, **extra}

    return [
        # (a) 4 agents x 2: global rank 5 (node 2, local rank 1) raises KeyError in its batch lookup at step 2; every
        # other rank waits in the step's all-reduce (node logs of all four agents)
        T("t37-trun-4x2-keyerror-rank5", _others(8, 5), fault="keyerror", rank=5, cause="python-exception", agents=4),
        # (b) 2 agents x 4: rank 6 (node 1, local rank 2) SIGKILLed (the kernel's OOM killer) before its all-reduce
        T("t37-trun-2x4-sigkill-rank6", _others(8, 6), fault="sigkill", rank=6, cause="host-oom-kill", nproc=4),
        # (c) 3 agents x 2 (odd world 6): the last rank, 5 (node 2, local rank 1), reads address 0
        T("t37-trun-3x2-segfault-rank5", _others(6, 5), fault="segfault", rank=5, cause="segfault", agents=3),
        # (d) 2 x 2, the pod named node1 started first: c10d gives its agent group rank 0, so node1.log holds ranks 0-1
        # and node0.log ranks 2-3; rank 1 (in node1.log, local rank 1) raises KeyError (--tee 3: [defaultN]: tags)
        T("t37-trun-2x2-pods-swapped-keyerror-rank1", _others(4, 1), fault="keyerror", rank=1, cause="python-exception",
          opts=["--tee", "3"], pod_of_agent=[1, 0]),
        # (e) 1 agent x 8, --tee 3 --local-ranks-filter 0,1,2,3: rank 6, not shown, raises KeyError; the agent's
        # failure table still names it
        T("t37-trun-1x8-filter0123-keyerror-rank6", _others(8, 6), fault="keyerror", rank=6, cause="python-exception",
          nproc=8, agents=1, opts=["--tee", "3", "--local-ranks-filter", "0,1,2,3"]),
        # (f) 4 x 2: rank 7 (node 3, local rank 1) sleeps 60 s in its step's compute; the others time out in the
        # all-reduce (gloo 5 s) and node 3's agent SIGTERMs rank 7
        T("t37-trun-4x2-hang-rank7", _others(8, 7), fault="hang", rank=7, cause="never-joined", agents=4),
        # controls: no rank may be named
        # (g) 4 x 2: every rank raises the same ValueError from its model config before training
        T("t37-trun-4x2-same-config-error-every-rank", [], fault="config-error", rank=-1, culprits=[], agents=4),
        # (h) 3 x 2 clean: each rank logs its own WARNING and UserWarning (its shard's size) at step 1 and ends well
        T("t37-trun-3x2-clean-per-rank-warnings", [], fault="warn", rank=-1, culprits=[], agents=3),
    ]


def commands(sc: dict, opts: list[str], port: str) -> list[list[str]]:
    """Each node's command line, in start order: torch_scenarios11's ``torchrun`` with this set's program."""
    cmds = t11.commands({**sc, "launcher": "t11run"}, opts, port)
    return [[WORKER if p == t11.WORKER else p for p in cmd] for cmd in cmds]


def public(part: str) -> str:
    """A command part as the user would type it."""
    return "t37_worker.py" if part == WORKER else part


__all__ = ["LAUNCHERS", "commands", "public", "scenarios"]
