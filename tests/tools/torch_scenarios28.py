"""The twenty-eighth set of recorded runs (held out when recorded): HETEROGENEOUS local world sizes (one agent
``--nproc-per-node 2``, the other ``3``: the second node's ranks start at 2, so ``node × nproc + local`` is wrong
with either node's count), under c10d and under a static rendezvous whose ``--node-rank 1`` agent starts first; a rank
SIGKILLed in the middle of a large all-reduce (its peers' gloo ``Connection reset by peer`` / ``closed by peer``); rank 0's
checkpoint refused by a root-owned folder (``torch.save``: ``Permission denied``) while its peers go on to the next
all-reduce; a rank's ``os._exit(0)`` mid-loop under ``--redirects 3 --tee 3 --local-ranks-filter 0 --log-dir`` (the
console shows only each node's local rank 0, not the culprit); two start-up controls where every agent or every worker
fails alike (``--nproc-per-node gpu`` on a machine without GPUs: the agents' own ``ValueError`` before any worker runs;
an entry script missing on every node: every worker's ``can't open file``, exit status 2).
Imported by torch_scenarios.py (its ``S`` builds each one); the program: tests/tools/t28_worker.py. Launch styles:
``t28run`` (torch_scenarios11's ``torchrun``, this set's program; ``nproc_by_agent`` gives each agent, in start order,
its own ``--nproc-per-node``; ``nproc_arg`` replaces every agent's; ``missing_script`` runs a script that is not there),
``t28static`` (torch_scenarios16's static command with ``node_ranks``, this set's program, ``nproc_by_agent`` as above).
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import torch_scenarios11 as t11
import torch_scenarios12 as t12
import torch_scenarios16 as t16

HERE = Path(__file__).resolve().parent
WORKER = str(HERE / "t28_worker.py")
MISSING = str(HERE.parents[1] / "train.py")  # the repository root's train.py: not there (reads /workspace/train.py)
LAUNCHERS = ("t28run", "t28static")
_DIRS: list[str] = []


def scenarios(S) -> list[dict]:
    tr, st = {"launcher": "t28run"}, {"launcher": "t28static"}
    short = {"K10S_GLOO_TIMEOUT_S": "3"}

    def at(where: str) -> dict:
        return {**short, "K10S_FAULT_AT": where}

    return [
        # node of 2 beside a node of 3 (c10d): the second agent's local rank 1 (global 3 when it is node 1) raises KeyError
        {**S("t28-trun-hetero-2p3-tee-keyerror-rank3", fault="keyerror", rank=-2, cause="python-exception", env=at("agent1:1"),
             opts=["--tee", "3"], **tr), "nproc_by_agent": [2, 3], "culprits_from_marks": True},
        # the same layout: the second agent's local rank 2 (global 4 when it is node 1) SIGKILLed; no tee
        {**S("t28-trun-hetero-2p3-sigkill-rank4", fault="sigkill", rank=-2, cause="host-oom-kill", env=at("agent1:2"), **tr),
         "nproc_by_agent": [2, 3], "culprits_from_marks": True},
        # static: the first started agent is --node-rank 1 with 3 processes (ranks 2-4), the second --node-rank 0 with 2;
        # the first started agent's local rank 1 (global 3) segfaults
        {**S("t28-static-hetero-node1-first-segfault-rank3", fault="segfault", rank=-2, cause="segfault", env=at("agent0:1"),
             opts=["--rdzv-conf", "timeout=10"], **st), "node_ranks": ["1", "0"], "nproc_by_agent": [3, 2],
         "culprits_from_marks": True},
        # rank 1 SIGKILLed 0.05 s into a 64 MiB all-reduce: ranks 0, 2, 3 are mid-collective (gloo's reset / closed)
        S("t28-trun-2x2-sigkill-midcollective-rank1", fault="sigkill-mid", rank=1, cause="host-oom-kill", env=short,
          opts=["--tee", "3"], **tr),
        # rank 0's torch.save into a root-owned folder as uid 65534: Permission denied; its peers wait in the next all-reduce
        S("t28-trun-2x2-save-denied-rank0", fault="save-denied", rank=0, cause="python-exception", env=short, **tr),
        # rank 1 leaves with os._exit(0) at step 3; the console shows only local rank 0 of each node, the rest in --log-dir
        S("t28-trun-2x2-redirects-filter0-exit0-rank1", fault="exit0", rank=1, cause="never-joined", env=short,
          opts=["--redirects", "3", "--tee", "3", "--local-ranks-filter", "0", "--log-dir", "{logdir}"], **tr),
        # controls: no rank may be named
        {**S("t28-trun-2x2-common-mode-nproc-gpu", culprits=[], env=short, **tr), "nproc_arg": "gpu"},
        {**S("t28-trun-2x2-common-mode-script-missing", culprits=[], env=short, **tr), "missing_script": True},
    ]


def _ckpt_dir() -> str:
    path = tempfile.mkdtemp(prefix="k10s-ckpt-")
    Path(path).chmod(0o755)  # root's: the workers run as uid 65534
    _DIRS.append(path)
    return path


def commands(sc: dict, opts: list[str], port: str) -> list[list[str]]:
    """Each node's command line, in start order."""
    if sc["launcher"] == "t28static":
        cmds = t16.commands({**sc, "launcher": "t16static"}, opts, port)
    else:
        cmds = t11.commands({**sc, "launcher": "t11run"}, opts, port)
    script = MISSING if sc.get("missing_script") else WORKER
    cmds = [[script if p in (t11.WORKER, t12.WORKER, t16.WORKER) else p for p in cmd] for cmd in cmds]
    for i, cmd in enumerate(cmds):
        k = cmd.index("--nproc-per-node") + 1
        if sc.get("nproc_by_agent"):
            cmd[k] = str(sc["nproc_by_agent"][i])
        if sc.get("nproc_arg"):
            cmd[k] = sc["nproc_arg"]
        if sc["fault"] == "save-denied":
            cmd.insert(1, f"K10S_CKPT_DIR={_ckpt_dir()}")
    return cmds


def cleanup() -> None:
    while _DIRS:
        shutil.rmtree(_DIRS.pop(), ignore_errors=True)


def public(part: str) -> str:
    """A command part as the user would type it."""
    if part == WORKER:
        return "t28_worker.py"
    if part == MISSING:
        return "train.py"
    return part


__all__ = ["LAUNCHERS", "cleanup", "commands", "public", "scenarios"]
