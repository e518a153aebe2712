"""The twenty-sixth set of recorded runs (held out when recorded): a ``torch.distributed.pipelining`` job (one
``PipelineStage`` per rank, ``ScheduleGPipe``) whose stage on rank 2 raises in its forward, torchrun's
``TORCHELASTIC_LOG_LINE_PREFIX_TEMPLATE='[${rank}]:'`` (the GLOBAL rank in a tee prefix shaped like the empty-role ``[N]:`` of
local ranks) with rank 3's ``KeyError``, rank 1 ended by SIGTRAP, rank 3's environment pointing it at a stale store
port (its ``init_process_group`` cannot connect; its peers wait for its gloo address), one node's ``GLOO_SOCKET_IFNAME``
naming an interface it lacks (both its ranks fail in gloo's device set-up; the truth: the global ranks the worker marks);
controls: every rank pointed at the stale store port, a clean pipelining run under the ``[${rank}]:`` prefix.
Imported by torch_scenarios.py (its ``S`` builds each one); the program: tests/tools/t26_worker.py. Launch style:
``t26run`` (torch_scenarios17's ``torchrun``, this set's program; ``node_env``: more environment for one node's
command, by start order, as torch_scenarios19's).
"""

from __future__ import annotations

from pathlib import Path

import torch_scenarios17 as t17

HERE = Path(__file__).resolve().parent
WORKER = str(HERE / "t26_worker.py")
LAUNCHERS = ("t26run",)


def scenarios(S) -> list[dict]:
    tr = {"launcher": "t26run"}
    short = {"K10S_GLOO_TIMEOUT_S": "3"}
    pipe = {**short, "K10S_PIPE": "1"}
    rank_prefix = {"TORCHELASTIC_LOG_LINE_PREFIX_TEMPLATE": "[${rank}]:"}  # torchrun has no flag for it: the environment
    tee = ["--tee", "3"]
    mine = {"culprits_from_marks": True}  # the truth: the global ranks of the node given the bad interface
    return [
        # rank 2's pipeline stage raises in its forward; rank 3 waits for its activations, ranks 0-1 for its gradients
        S("t26-trun-2x2-pipelining-stage-raise-rank2", fault="pipe-raise", rank=2, cause="python-exception", env=pipe,
          opts=["--tee", "3"], **tr),
        # the tee prefix holds the global rank: rank 3 (node 1's local rank 1) raises KeyError
        S("t26-trun-2x2-rank-prefix-keyerror-rank3", fault="keyerror", rank=3, cause="python-exception",
          env={**short, **rank_prefix}, opts=tee, **tr),
        S("t26-trun-2x2-sigtrap-rank1", fault="sigtrap", rank=1, cause="sigtrap", env=short, **tr),
        # rank 3 alone is given a stale MASTER_PORT; its peers' store wait for its key times out first and the agents
        # SIGTERM it while it still retries its connection (2.14.1: its DistNetworkError printed as the SIGTERM came): it
        # never joined (first written python-exception, set to never-joined from the recordings after they were scored)
        S("t26-trun-2x2-stale-store-port-rank3", fault="store-port", rank=3, cause="never-joined", env=short, **tr),
        # the second agent's node has GLOO_SOCKET_IFNAME set to an interface it lacks: both its ranks fail at set-up
        {**S("t26-trun-2x2-gloo-ifname-one-node", fault="none", rank=-1, culprits=[-1], cause="python-exception", env=short,
             **tr), "node_env": {1: ["GLOO_SOCKET_IFNAME=ens9f0"]}, **mine},
        # controls: no rank may be named
        S("t26-trun-2x2-common-mode-stale-store-port", fault="store-port", rank=-1, culprits=[], env=short, **tr),
        S("t26-trun-2x2-pipelining-clean-rank-prefix", culprits=[], env={**pipe, **rank_prefix}, opts=tee, **tr),
    ]


def commands(sc: dict, opts: list[str], port: str) -> list[list[str]]:
    """Each node's command line: the seventeenth set's ``torchrun`` with this set's program (``node_env`` after ``env``)."""
    cmds = [[WORKER if p == t17.WORKER else p for p in cmd] for cmd in t17.commands({**sc, "launcher": "t17run"}, opts, port)]
    for node, extra in sc.get("node_env", {}).items():
        cmds[node][1:1] = extra
    return cmds


def public(part: str) -> str:
    """A command part as the user would type it."""
    return "t26_worker.py" if part == WORKER else part


__all__ = ["LAUNCHERS", "commands", "public", "scenarios"]
