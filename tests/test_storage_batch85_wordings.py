"""Batch 85's checkpoint and storage shapes (tests/data/real-incidents, ``"batch": 85``, family ``storage``), each with
its wording variants, as one pasted log through ``k10s import-logs`` (docs/rules.md, "Session 27: batch 85"):

* controls: one waiter's watchdog after a checkpoint save line (ace-851; a DeepSpeed ``commit`` line then a lone
  ``_ALLGATHER_BASE`` timeout, OneBit-8; pdsh's ``node04:`` prefix, qlora-pipe-19) names no one, whichever rank waits;
  torch.distributed.checkpoint's ``CheckpointException ranks:dict_keys([0, 1, …, 7])`` naming every rank, re-logged
  by SimpleTuner's logger behind rank 0's prefix with its records glued (SimpleTuner-1880); a lone rank's traceback through ``os.makedirs(…, exist_ok=True)`` or pathlib's
  ``mkdir(parents=True, exist_ok=True)`` — cut before its exception (Automodel-3686) or ending in ``FileExistsError``
  (lingua, Megatron-Bridge's wording) — is a race every rank runs on shared storage;
* culprits, the contrast: the same ``FileExistsError`` under a creation without ``exist_ok`` (a directory that
  exists: the rank's own, as batch 31's quantum-hydra), and DCP's exception naming the printing rank alone.

The analyses go through tests/bundle_batch.py (every input in one analysis).
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import corpus_log, naming_findings

NOW = dt.datetime(2026, 12, 1, 7, 0, tzinfo=dt.timezone.utc)

ACE = corpus_log("ace-851-rank7-watchdog-after-rank0-save-line-unsettled-control")
GLUED = corpus_log("SimpleTuner-1880-dcp-checkpointexception-all-eight-ranks-rank0-prefix-control")
MAKEDIRS = corpus_log("Automodel-3686-lone-rank8-makedirs-race-virtiofs-control")
ONEBIT = corpus_log("OneBit-8-deepspeed-commit-then-lone-rank6-allgather-watchdog-control")
PDSH = corpus_log("qlora-pipe-19-pdsh-node04-rank7-watchdog-at-best-loss-save-control")

#: a rank's traceback through a directory creation (lingua's and Megatron-Bridge's wordings), then its exception
MKDIR = ("[rank{r}]: Traceback (most recent call last):\n"
         "[rank{r}]:   File \"/work/lingua/profiling.py\", line 113, in maybe_run_profiler\n"
         "[rank{r}]:     {call}\n"
         "[rank{r}]:   File \"{lib}\", line 225, in {fn}\n"
         "[rank{r}]: {error}: [Errno {errno}] {words}: '/lustre/runs/mamba/profiling'\n")
CALLS = {"makedirs": ("os.makedirs(trace_dir, exist_ok=True)", "<frozen os>", "makedirs"),
         "pathlib": ("root.mkdir(parents=True, exist_ok=True)", "/usr/lib/python3.12/pathlib.py", "mkdir"),
         "plain": ("os.makedirs(trace_dir)", "<frozen os>", "makedirs")}
#: DCP's gathered error as torchrun's prefix shows it, printed by rank ``printer``
DCP = ("[rank{p}]: torch.distributed.checkpoint.api.CheckpointException: CheckpointException ranks:dict_keys([{ranks}])\n"
       "[rank{p}]: Traceback (most recent call last): (RANK {first})\n")


def _ace(rank: int) -> str:
    return ACE.replace("[rank7]:", f"[rank{rank}]:").replace("[Rank 7]", f"[Rank {rank}]")


def _onebit(rank: int) -> str:
    return ONEBIT.replace("[rank6]:", f"[rank{rank}]:").replace("[Rank 6]", f"[Rank {rank}]")


def _pdsh(rank: int) -> str:
    return PDSH.replace("[Rank 7]", f"[Rank {rank}]")


def _makedirs(rank: int) -> str:
    """Automodel-3686's cut traceback, rank 8's moved to ``rank``."""
    return MAKEDIRS.replace("[rank8]:", f"[rank{rank}]:")


def _makedirs_full(rank: int) -> str:
    """The same traceback with the exception line the excerpt window cut."""
    return _makedirs(rank) + f"[rank{rank}]: FileExistsError: [Errno 17] File exists: '/mnt/ckpt/epoch_0_step_297/model'\n"


def _mkdir(kind: str, rank: int, error: str = "FileExistsError") -> str:
    call, lib, fn = CALLS[kind]
    errno, words = (17, "File exists") if error == "FileExistsError" else (2, "No such file or directory")
    return MKDIR.format(r=rank, call=call, lib=lib, fn=fn, error=error, errno=errno, words=words)


def _dcp(printer: int, ranks: tuple[int, ...]) -> str:
    return DCP.format(p=printer, ranks=", ".join(map(str, ranks)), first=ranks[0])


BUILD = {"ace": _ace, "onebit": _onebit, "pdsh": _pdsh, "makedirs": _makedirs, "makedirs_full": _makedirs_full,
         "glued": lambda _: GLUED, "exist_ok": lambda r: _mkdir("makedirs", r), "pathlib": lambda r: _mkdir("pathlib", r),
         "pathlib_parent": lambda r: _mkdir("pathlib", r, "FileNotFoundError"), "no_exist_ok": lambda r: _mkdir("plain", r),
         "dcp_own": lambda p: _dcp(p, (p,))}
#: (processes per node, world size) for each shape (None: not known)
SIZES = {"ace": (None, None), "onebit": (8, 8), "pdsh": (None, 12), "makedirs": (None, None), "makedirs_full": (None, None),
         "glued": (None, 8), "exist_ok": (8, 16), "pathlib": (4, 8), "pathlib_parent": (4, 8), "no_exist_ok": (8, 16),
         "dcp_own": (4, 4)}

# key: (shape, rank or printing rank); the expected (culprit, cause)
CULPRITS = {("no_exist_ok", 7): (7, "python-exception"), ("no_exist_ok", 0): (0, "python-exception"),
            ("dcp_own", 2): (2, "python-exception")}
CONTROLS = [("ace", 7), ("ace", 0), ("ace", 3), ("onebit", 6), ("onebit", 0), ("pdsh", 7), ("pdsh", 0),
            ("glued", 0),
            ("makedirs", 8), ("makedirs", 0), ("makedirs_full", 8), ("makedirs_full", 0), ("exist_ok", 7),
            ("exist_ok", 0), ("pathlib", 3), ("pathlib_parent", 3)]
BATCHED = Batched("storage-batch85", list(CULPRITS) + CONTROLS)


def _make(key: tuple, folder: Path) -> object:
    nproc, world = SIZES[key[0]]
    return pasted(BUILD[key[0]](key[1]), folder, nproc, NOW, world)


@pytest.mark.parametrize("key", BATCHED.params(CULPRITS))
def test_a_rank_s_own_storage_failure_is_named(tmp_path_factory, key):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, *CULPRITS[key])


@pytest.mark.parametrize("key", BATCHED.params(CONTROLS))
def test_a_waiter_a_gathered_report_or_a_shared_race_names_no_one(tmp_path_factory, key):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, None)


def test_the_variants_keep_their_shape():
    """The builders move the rank, not the wording the tests are about."""
    assert _ace(7) == ACE and _onebit(6) == ONEBIT and _pdsh(7) == PDSH and _makedirs(8) == MAKEDIRS
    assert "[rank0]:[E218 10:48:25.033625188 ProcessGroupNCCL.cpp:632] [Rank 0] Watchdog" in _ace(0)
    assert "node04: [E ProcessGroupNCCL.cpp:474] [Rank 0] Watchdog" in _pdsh(0)
    assert _makedirs_full(0).splitlines()[-2] == "[rank0]:   File \"<frozen os>\", line 225, in makedirs"
    assert "[rank3]:     root.mkdir(parents=True, exist_ok=True)" in _mkdir("pathlib", 3)
    assert "exist_ok" not in _mkdir("plain", 7) and "FileExistsError: [Errno 17] File exists:" in _mkdir("plain", 7)
    assert "ranks:dict_keys([2])" in _dcp(2, (2,)) and _dcp(2, (2,)).startswith("[rank2]: ")


def test_the_parser_marks_a_raced_directory_creation_only():
    """The mark queries/_incident.sql reads: an ``exist_ok=True`` creation's FileExistsError, not a plain one's."""
    from parser_kit import body_events

    raced = [e for e in body_events(_mkdir("makedirs", 7).splitlines(), NOW) if e["kind"] == "python_exception"]
    plain = [e for e in body_events(_mkdir("plain", 7).splitlines(), NOW) if e["kind"] == "python_exception"]
    assert [e["error_message"][:40] for e in raced] == ["directory another process created at onc"]
    assert [e["error_message"] for e in plain] == ["[Errno 17] File exists: '/lustre/runs/mamba/profiling'"]
