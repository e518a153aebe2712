"""The fortieth set of recorded runs (held out when recorded, the truths written before any recording): launchers other
than multi-node torchrun, as users still run them, around one program (tests/tools/t40_worker.py: a few DDP steps of a
tiny model, gloo timeouts of 3 s, a DataLoader with two workers, ``Rank N:`` lines). The legacy ``python -m
torch.distributed.launch --use-env`` on two static nodes of 2 (its deprecation FutureWarning printed);
``torch.multiprocessing.spawn(fn, nprocs=4, join=True)`` on one node (one pod); ``torchrun --standalone
--nproc-per-node 4`` (one pod). ``victims``: the ranks that fail or wait because of the culprit (truth.json's
``victim_ranks``). A rank that sleeps before the all-reduce its peers time out in never entered it: ``never-joined``
(docs/rules.md, "never-joined or lagging-rank"); so is a rank that returned early with exit status 0 (it never entered
the next all-reduce; the thirteenth set's early ``exit 0`` reads alike).
"""

from __future__ import annotations

import sys
from pathlib import Path

import torch_scenarios11 as t11

HERE = Path(__file__).resolve().parent
WORKER = str(HERE / "t40_worker.py")
LAUNCHERS = ("t40legacy", "t40spawn", "t40standalone")


def _others(*culprits: int, world: int = 4) -> list[int]:
    return [r for r in range(world) if r not in culprits]


def scenarios(S) -> list[dict]:
    def T(name: str, launcher: str, victims: list[int], **kw) -> dict:
        env = {"K10S_GLOO_TIMEOUT_S": "3", **kw.pop("env", {})}
        agents, nproc = (2, 2) if launcher == "t40legacy" else (1, 4)
        return {**S(name, launcher=launcher, env=env, nproc=nproc, agents=agents, **kw), "victims": victims,
                "limit_s": 180}

    return [
        # the legacy launcher, two static nodes of 2 (node 0: ranks 0-1, node 1: ranks 2-3)
        T("t40-legacy-2x2-sigkill-rank3", "t40legacy", _others(3), fault="sigkill", rank=3, cause="host-oom-kill"),
        T("t40-legacy-2x2-keyerror-rank1", "t40legacy", _others(1), fault="keyerror", rank=1, cause="python-exception"),
        T("t40-legacy-2x2-segfault-rank2", "t40legacy", _others(2), fault="segfault", rank=2, cause="segfault"),
        T("t40-legacy-2x2-clean", "t40legacy", [], culprits=[]),
        # torch.multiprocessing.spawn, one node of 4 (mp.spawn stops the others once one process fails)
        T("t40-spawn-1x4-sigkill-rank2", "t40spawn", _others(2), fault="sigkill", rank=2, cause="host-oom-kill"),
        T("t40-spawn-1x4-keyerror-rank3", "t40spawn", _others(3), fault="keyerror", rank=3, cause="python-exception"),
        T("t40-spawn-1x4-abort-rank1", "t40spawn", _others(1), fault="abort", rank=1, cause="abort"),
        # rank 2 sleeps before step 3's all-reduce; ranks 0, 1 and 3 time out in it after 3 s
        T("t40-spawn-1x4-stall-rank2", "t40spawn", _others(2), fault="stall", rank=2, cause="never-joined"),
        T("t40-spawn-1x4-clean", "t40spawn", [], culprits=[]),
        # torchrun --standalone, one node of 4
        # a DataLoader worker of rank 1 is SIGKILLed (the OOM killer's usual victim): rank 1's loader raises
        T("t40-standalone-1x4-loader-killed-rank1", "t40standalone", _others(1), fault="loader-killed", rank=1,
          cause="host-oom-kill"),
        # rank 3 returns early with exit status 0: ranks 0-2 lose it in the next all-reduce
        T("t40-standalone-1x4-exit0-rank3", "t40standalone", _others(3), fault="exit0", rank=3, cause="never-joined"),
        # rank 2 builds a 16 GiB numpy buffer under RLIMIT_AS: numpy's _ArrayMemoryError
        T("t40-standalone-1x4-memoryerror-rank2", "t40standalone", _others(2), fault="memoryerror", rank=2,
          cause="host-oom"),
        # a control: every rank's batch lacks the key alike (KeyError on ranks 0-3)
        T("t40-standalone-1x4-keyerror-every-rank", "t40standalone", [], fault="keyerror", rank=-1, culprits=[]),
    ]


def commands(sc: dict, opts: list[str], port: str) -> list[list[str]]:
    """Each node's command line for the scenario's launcher."""
    n = str(sc["nproc"])
    if sc["launcher"] == "t40spawn":
        return [[sys.executable, WORKER, "--spawn", n, "--master-port", port]]
    if sc["launcher"] == "t40standalone":
        return [[str(t11.BIN / "torchrun"), "--standalone", "--nproc-per-node", n, *opts, WORKER]]
    return [[sys.executable, "-m", "torch.distributed.launch", "--use-env", "--nnodes", "2", "--node-rank", str(i),
             "--nproc-per-node", n, "--master-addr", "127.0.0.1", "--master-port", port, *opts, WORKER] for i in (0, 1)]


def public(part: str) -> str:
    """A command part as the user would type it."""
    return "train.py" if part == WORKER else part
