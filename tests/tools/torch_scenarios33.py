"""The thirty-third set of recorded runs (held out when recorded): PyTorch's newer distributed APIs as users run them
today, on CPU with gloo. Each node is ``torchrun`` (torch_scenarios11's command: c10d rendezvous, 2 agents x 2
processes, ``K10S_GLOO_TIMEOUT_S=3``) running tests/tools/t33_worker.py: a 2-D ``DeviceMesh`` (dp x tp), tensor
parallel (``parallelize_module``), FSDP2 (``fully_shard``), ``torch.compile`` under DDP, and
``torch.distributed.checkpoint``. Imported by torch_scenarios.py (its ``S`` builds each one); ``plan`` is the program's
plan (K10S_T33_PLAN), ``ckpt`` gives the ranks a fresh checkpoint folder, ``victims`` the ranks that fail or wait
because of the culprit (kept in truth.json as ``victim_ranks``).
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import torch_scenarios11 as t11

HERE = Path(__file__).resolve().parent
WORKER = str(HERE / "t33_worker.py")
LAUNCHERS = ("t33run",)
_DIRS: list[str] = []


def scenarios(S) -> list[dict]:
    def T(name: str, plan: str, victims: list[int], ckpt: bool = False, **kw) -> dict:
        env = {"K10S_GLOO_TIMEOUT_S": "3", "K10S_T33_PLAN": plan, **kw.pop("env", {})}
        return {**S(name, launcher="t33run", env=env, **kw), "victims": victims, "ckpt": ckpt, "limit_s": 150}

    return [
        # FSDP2 over the flattened mesh, rank 2's hidden layer 4 units wider: its shards' sizes differ from its peers'
        T("t33-trun-2x2-fsdp2-shape-rank2", "fsdp2", [0, 1, 3], fault="shape", rank=2, cause="collective-mismatch"),
        # rank 3 stuck in compute after its backward: its dp peer rank 1 waits in the dp sub-mesh all-reduce, ranks 0
        # and 2 (the other dp group, done) then wait in the next global all-reduce
        T("t33-trun-2x2-mesh-dp-hang-rank3", "tp", [0, 1, 2], fault="stuck", rank=3, cause="never-joined"),
        # rank 1's DCP shard file already exists as a directory: its write fails, every rank's save raises
        T("t33-trun-2x2-dcp-save-isdir-rank1", "dcp", [0, 2, 3], ckpt=True, fault="dcp-isdir", rank=1,
          cause="python-exception"),
        # rank 3 SIGKILLed while dcp.save writes its shard (the kernel's OOM killer)
        T("t33-trun-2x2-dcp-save-sigkill-rank3", "dcp", [0, 1, 2], ckpt=True, fault="dcp-sigkill", rank=3,
          cause="host-oom-kill"),
        # rank 2's batch holds a NaN: the compiled DDP model's forward check raises ValueError on rank 2 only
        T("t33-trun-2x2-compile-ddp-raise-rank2", "compile", [0, 1, 3], fault="nonfinite", rank=2,
          cause="python-exception"),
        # controls: no rank may be named
        # every rank's dcp.load into a model with a layer the checkpoint lacks: every rank fails alike (missing keys)
        T("t33-trun-2x2-dcp-load-keys-every-rank", "dcp", [], ckpt=True, fault="dcp-keys", rank=-1, culprits=[]),
        # a clean run: the mesh, tensor parallel, a DCP save and load at step 3
        T("t33-trun-2x2-clean-tp-dcp", "dcp", [], ckpt=True, culprits=[]),
    ]


def commands(sc: dict, opts: list[str], port: str) -> list[list[str]]:
    """Each node's command line, in start order (``env`` first: the checkpoint folder where the scenario has one)."""
    cmds = t11.commands({**sc, "launcher": "t11run"}, opts, port)
    cmds = [[WORKER if p == t11.WORKER else p for p in cmd] for cmd in cmds]
    if sc.get("ckpt"):
        ckpt = tempfile.mkdtemp(prefix="k10s-t33-ckpt-")
        _DIRS.append(ckpt)
        for cmd in cmds:
            cmd.insert(1, f"K10S_CKPT_DIR={ckpt}")
    return cmds


def cleanup() -> None:
    while _DIRS:
        shutil.rmtree(_DIRS.pop(), ignore_errors=True)


def public(part: str) -> str:
    """A command part as the user would type it."""
    if part.startswith("K10S_CKPT_DIR="):
        return "K10S_CKPT_DIR=/ckpt"
    return "t33_worker.py" if part == WORKER else part


__all__ = ["LAUNCHERS", "cleanup", "commands", "public", "scenarios"]
