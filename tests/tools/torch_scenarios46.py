"""The forty-sixth set of recorded runs (held out when recorded, the truths written before any recording): today's
distributed APIs on CPU with gloo (tests/tools/t46_worker.py): FSDP2's ``fully_shard`` over a 1-D mesh of every rank, a
2-D ``init_device_mesh`` (dp x tp) with ``distribute_tensor`` and ``redistribute``, ``torch.distributed.checkpoint``
(``dcp.save``/``dcp.load``, ``async_save`` in the clean run) and ``dist.new_subgroups``, under plain ``torchrun`` (c10d
rendezvous on 127.0.0.1, 2 agents x 2 processes, gloo timeouts of 3 s, the sub-meshes' and subgroups' too), torchrun's
output options varied. Culprits: rank 1's ``KeyError`` in its forward under fully_shard, rank 3 SIGKILLed in layer
``up``'s forward as its peers all-gather layer ``down``'s shards, rank 2's segfault in its forward under fully_shard
(``--redirects 3``), rank 2's ``MemoryError`` in its forward, rank 0 hung before a DTensor redistribute, rank 3's fresh
model 20 wide where the checkpoint holds 16 (DCP's ``CheckpointException`` on every rank, naming rank 3), rank 1
raising before its subgroup's all-reduce. Controls: every rank's config asking for a (3, 2) mesh of 4 ranks, every
rank's fresh model 20 wide on load, a clean run with async_save and the deprecated ``dcp.load_state_dict``'s
FutureWarning. ``victims``: the ranks that fail or wait because of the culprit.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import torch_scenarios41 as t41

HERE = Path(__file__).resolve().parent
WORKER = str(HERE / "t46_worker.py")
LAUNCHERS = ("t46run",)
_DIRS: list[str] = []


def _others(*culprits: int, world: int = 4) -> list[int]:
    return [r for r in range(world) if r not in culprits]


def scenarios(S) -> list[dict]:
    def T(name: str, plan: str, victims: list[int], ckpt: bool = False, **kw) -> dict:
        env = {"K10S_GLOO_TIMEOUT_S": "3", "K10S_T46_PLAN": plan, **kw.pop("env", {})}
        return {**S(name, launcher="t46run", env=env, nproc=2, **kw), "victims": victims, "ckpt": ckpt, "limit_s": 120}

    redirects = ["--redirects", "3", "--log-dir", "{logdir}"]
    return [
        # FSDP2: rank 1's batch lacks `features` (a collate renamed it): KeyError in its forward; torchrun's defaults
        T("t46-trun-2x2-fsdp2-keyerror-rank1", "fsdp2", _others(1), fault="keyerror", rank=1, cause="python-exception"),
        # FSDP2: rank 3 SIGKILLed (the kernel's OOM killer) after layer up's forward, its peers all-gathering down's
        # shards; --tee 3
        T("t46-trun-2x2-fsdp2-sigkill-allgather-rank3-tee", "fsdp2", _others(3), fault="sigkill", rank=3,
          cause="host-oom-kill", opts=["--tee", "3"]),
        # FSDP2: rank 2 reads address 0 in its forward (no faulthandler); --redirects 3 --log-dir: the consoles hold
        # only the agents' tables
        T("t46-trun-2x2-fsdp2-segfault-rank2-redirects", "fsdp2", _others(2), fault="segfault", rank=2, cause="segfault",
          opts=redirects),
        # FSDP2: rank 2's forward asks for a 1 PiB buffer: MemoryError; --tee 3
        T("t46-trun-2x2-fsdp2-memoryerror-rank2-tee", "fsdp2", _others(2), fault="memoryerror", rank=2, cause="host-oom",
          opts=["--tee", "3"]),
        # 2-D mesh: rank 0 sleeps twice the gloo timeout before its redistribute; its peers time out in the all-gathers;
        # --tee 3
        T("t46-trun-2x2-dtensor-hang-redistribute-rank0-tee", "dtensor", _others(0), fault="hang", rank=0,
          cause="never-joined", opts=["--tee", "3"]),
        # DCP: rank 3's fresh model 20 wide before the load: its local plan's ValueError, gathered by DCP into a
        # CheckpointException raised on every rank (`ranks:dict_keys([3])`); torchrun's defaults
        T("t46-trun-2x2-dcp-load-shape-rank3", "dcp", _others(3), fault="dcp-shape", rank=3, cause="python-exception",
          ckpt=True),
        # new_subgroups ({0, 1}, {2, 3}): rank 1 raises ValueError before its subgroup's all-reduce; only local rank 1's
        # lines shown (--tee 3 --local-ranks-filter 1: ranks 1 and 3)
        T("t46-trun-2x2-subgroup-raise-rank1-filter1", "subgroups", _others(1), fault="sub-raise", rank=1,
          cause="python-exception", opts=["--tee", "3", "--local-ranks-filter", "1"]),
        # controls: no rank may be named
        # every rank's config asks for a (3, 2) mesh of 4 ranks: init_device_mesh's RuntimeError on each
        T("t46-trun-2x2-wrong-mesh-every-rank", "dtensor", [], fault="wrong-mesh", rank=-1, culprits=[]),
        # every rank's fresh model 20 wide on load: DCP's CheckpointException naming every rank; --tee 3
        T("t46-trun-2x2-dcp-load-shape-every-rank-tee", "dcp", [], fault="dcp-shape", rank=-1, culprits=[], ckpt=True,
          opts=["--tee", "3"]),
        # a clean run: FSDP2, async_save, the deprecated dcp.load_state_dict's FutureWarning on every rank, a 2-D
        # mesh's redistribute and new_subgroups; --tee 3
        T("t46-trun-2x2-clean-async-dcp-warnings-tee", "clean", [], culprits=[], ckpt=True, opts=["--tee", "3"]),
    ]


def commands(sc: dict, opts: list[str], port: str) -> list[list[str]]:
    """Each node's command line: plain ``torchrun`` running t46_worker.py (a fresh checkpoint folder where the scenario
    has one, given after ``env``)."""
    cmds = t41.plain_torchrun(sc, opts, port, WORKER)
    if sc.get("ckpt"):
        ckpt = tempfile.mkdtemp(prefix="k10s-t46-ckpt-")
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
    return "train.py" if part == WORKER else part
