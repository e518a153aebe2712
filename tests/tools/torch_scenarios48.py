"""The forty-eighth set of recorded runs (held out when recorded, the truths written before any recording): checkpoint
and file I/O faults (tests/tools/t48_worker.py: a DDP loop on gloo on CPU that checkpoints at step 3 into one folder
every node sees and verifies the checkpoint by loading it back, through ``torch.distributed.checkpoint`` (``dcp.save``,
``dcp.async_save``, ``dcp.load``) or per-rank ``torch.save`` shards), under plain ``torchrun`` (c10d rendezvous on
127.0.0.1, 2 agents x 2 processes, gloo timeouts of 3 s), torchrun's output options varied. Culprits: rank 2's
``RLIMIT_FSIZE`` of 1 KiB under ``dcp.save`` (its write fails, Python ignoring SIGXFSZ; DCP gathers it into a
``CheckpointException`` on every rank), rank 3's ``dcp.async_save`` writing as the volume's user into root's folder
(``PermissionError: [Errno 13]``, gathered alike), rank 1's storage writer stalled in ``write_data`` while its peers wait
in the save's gather (``never-joined``), rank 0's ``torch.save`` into its own shard folder, missing (``Parent directory
... does not exist.``), rank 3's shard cut to a tenth before the verify (``PytorchStreamReader failed reading zip
archive``), rank 1's ``__1_0.distcp`` cut to a third before ``dcp.load`` (gathered by DCP). Controls: every rank
renaming ``tmp-checkpoint-3`` onto a stale ``checkpoint-3`` (``OSError: [Errno 39] Directory not empty`` on each), every
rank pruning ``checkpoint-1`` (``FileNotFoundError`` on all but the first, which then waits in the next all-reduce), every
rank resuming from a checkpoint that does not exist (``FileNotFoundError`` on each), a clean run that saves and loads
every way. ``victims``: the ranks that fail or wait because of the culprit.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import torch_scenarios41 as t41

HERE = Path(__file__).resolve().parent
WORKER = str(HERE / "t48_worker.py")
LAUNCHERS = ("t48run",)
_DIRS: list[str] = []


def _others(*culprits: int, world: int = 4) -> list[int]:
    return [r for r in range(world) if r not in culprits]


def scenarios(S) -> list[dict]:
    def T(name: str, mode: str, victims: list[int], **kw) -> dict:
        env = {"K10S_GLOO_TIMEOUT_S": "3", "K10S_T48_MODE": mode, **kw.pop("env", {})}
        return {**S(name, launcher="t48run", env=env, nproc=2, **kw), "victims": victims, "limit_s": 120}

    tee = ["--tee", "3"]
    return [
        # rank 2's RLIMIT_FSIZE is 1 KiB as it joins dcp.save: its write of __2_0.distcp fails (EFBIG; Python ignores
        # SIGXFSZ), DCP gathers it into `CheckpointException ranks:dict_keys([2])` on every rank; torchrun's defaults
        T("t48-trun-2x2-dcp-save-fsize-rank2", "dcp", _others(2), fault="dcp-fsize", rank=2, cause="python-exception"),
        # rank 3's dcp.async_save writes as uid 65534 into root's folder: PermissionError [Errno 13], raised from
        # .result() and gathered by DCP (`ranks:dict_keys([3])`) on every rank; --tee 3
        T("t48-trun-2x2-dcp-async-readonly-rank3-tee", "async", _others(3), fault="dcp-async-ro", rank=3,
          cause="python-exception", opts=tee),
        # rank 1's storage writer stalls 12 s in write_data (a hung volume): its peers wait in the save's gather and
        # time out in gloo (3 s); rank 1 SIGTERMed by its agent; --tee 3
        T("t48-trun-2x2-dcp-save-stall-rank1-tee", "dcp", _others(1), fault="dcp-stall", rank=1, cause="never-joined",
          opts=tee),
        # rank 0's torch.save of its shard into its own folder, missing (its mount absent): `RuntimeError: Parent
        # directory ... does not exist.`, the peers in the barrier after; --redirects 3 --log-dir (the consoles: the
        # agents' tables)
        T("t48-trun-2x2-torch-save-nodir-rank0-redirects", "shard", _others(0), fault="save-nodir", rank=0,
          cause="python-exception", opts=["--redirects", "3", "--log-dir", "{logdir}"]),
        # rank 3's shard cut to a tenth (a torn write) before the verify: torch.load's `PytorchStreamReader failed
        # reading zip archive: failed finding central directory`; the peers in the barrier; --tee 3
        # --local-ranks-filter 1 (ranks 1 and 3 shown)
        T("t48-trun-2x2-load-truncated-rank3-filter1", "shard", _others(3), fault="load-trunc", rank=3,
          cause="python-exception", opts=["--tee", "3", "--local-ranks-filter", "1"]),
        # rank 1's __1_0.distcp cut to a third before dcp.load: its read fails, gathered by DCP into
        # `CheckpointException ranks:dict_keys([1])` on every rank; --tee 3
        T("t48-trun-2x2-dcp-load-truncated-rank1-tee", "dcp", _others(1), fault="dcp-load-trunc", rank=1,
          cause="python-exception", opts=tee),
        # controls: no rank may be named
        # every rank renames tmp-checkpoint-3 to checkpoint-3 (a stale one left by an earlier attempt): `OSError:
        # [Errno 39] Directory not empty` on every rank; --tee 3
        T("t48-trun-2x2-rename-stale-every-rank-tee", "rename", [], fault="rename-stale", rank=-1, culprits=[],
          opts=tee),
        # every rank prunes checkpoint-1 (0.2 s apart by rank): rank 0's rmtree wins, ranks 1-3 raise
        # FileNotFoundError, rank 0 then fails in the next all-reduce; torchrun's defaults
        T("t48-trun-2x2-prune-race-every-rank", "prune", [], fault="prune-race", rank=-1, culprits=[]),
        # every rank resumes from checkpoint-9, which does not exist: FileNotFoundError on every rank at start; --tee 3
        # --local-ranks-filter 0 (ranks 0 and 2 shown)
        T("t48-trun-2x2-resume-missing-every-rank-filter0", "resume", [], fault="resume-missing", rank=-1,
          culprits=[], opts=["--tee", "3", "--local-ranks-filter", "0"]),
        # a clean run: dcp.save and dcp.load, dcp.async_save and dcp.load, per-rank torch.save shards loaded back;
        # --tee 3
        T("t48-trun-2x2-clean-save-load-tee", "clean", [], culprits=[], opts=tee),
    ]


def commands(sc: dict, opts: list[str], port: str) -> list[list[str]]:
    """Each node's command line: plain ``torchrun`` running t48_worker.py, a fresh checkpoint folder (the nodes'
    shared volume) given after ``env``."""
    cmds = t41.plain_torchrun(sc, opts, port, WORKER)
    ckpt = tempfile.mkdtemp(prefix="k10s-t48-ckpt-")
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
