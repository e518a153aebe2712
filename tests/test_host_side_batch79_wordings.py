"""Batch 79's host-side shapes (tests/data/real-incidents, ``"batch": 79``, family ``host-side``), each with its
wording variants, as one pasted log through ``k10s import-logs`` (docs/rules.md, "Session 26: batch 79"):

* controls: NCCL's shared-memory transport failing on a too-small ``/dev/shm`` (a container's or pod's 64 MB
  default) — ``include/shm.h`` ``Call to posix_fallocate failed : No space left on device`` and ``Error while
  creating shared memory segment …`` — printed by one device only, bare ``[N]`` (nccl-525), behind NCCL's
  ``host:pid:tid [N]`` prefix under the other devices' ring INFO lines (nccl-290), or followed by the script's
  ``NCCL error … unhandled system error`` and its traceback (transformers-11658): the tmpfs every local process
  shares ran out, so whichever device's segment came last fails; none names a rank;
* culprits, the contrast: the launcher's report of one worker's SIGKILL (``failed (exitcode: -9) local_rank: K``)
  after it SIGTERMed the others — while every process loads checkpoint shards (LlamaFactory-886, the first SIGTERM
  glued to a tqdm bar) or at the model save (FastChat-1294, ``<NO_OTHER_FAILURES>``) — names that worker
  ``host-oom-kill``.

The analyses go through tests/bundle_batch.py (every input in one analysis).
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import corpus_log, naming_findings

NOW = dt.datetime(2026, 12, 1, 5, 0, tzinfo=dt.timezone.utc)

LONE = corpus_log("nccl-525-kubeflow-lone-device3-shm-fallocate-control")
RINGS = corpus_log("nccl-290-docker-mpirun-device1-shm-fallocate-control")
POD = corpus_log("transformers-11658-k8s-deepspeed-device0-shm-segment-control")
SHARDS = corpus_log("LlamaFactory-886-accelerate-loading-shards-local-rank1-sigkill")
SAVE = corpus_log("FastChat-1294-model-save-seven-sigterms-local-rank6-sigkill")

#: NCCL 2.12+'s wording of the same failure (misc/shmutils.cc), for the variants
NEW_SHM = ("{host}:{pid}:{tid} [{dev}] misc/shmutils.cc:88 NCCL WARN Error: failed to extend /dev/shm/nccl-WU88OE to "
           "9637892 bytes, error: No space left on device (28)\n"
           "{host}:{pid}:{tid} [{dev}] misc/shmutils.cc:132 NCCL WARN Error while creating shared memory segment "
           "/dev/shm/nccl-WU88OE (size 9637888), error: No space left on device (28)\n"
           "{host}:{pid}:{tid} [{dev}] NCCL INFO transport/shm.cc:551 -> 2\n")


def _lone(dev: int) -> str:
    return LONE.replace("[3]", f"[{dev}]")


def _rings(dev: int) -> str:
    """The four devices' ring lines, then device ``dev``'s failure (its pid and thread from its own ring line)."""
    head, tail = RINGS.split("\n\n")
    pid = {0: "2142:2554", 1: "2143:2561", 2: "2144:2556", 3: "2145:2555"}[dev]
    return head + "\n\n" + tail.replace("2143:2561 [1]", f"{pid} [{dev}]")


def _pod(dev: int) -> str:
    return POD.replace(":97:183 [0]", f":{97 + dev}:183 [{dev}]")


def _new_shm(dev: int) -> str:
    return NEW_SHM.format(host="runner-g4sfw-workflow", pid=202016, tid=202235 + dev, dev=dev)


def _sigterm_pids(text: str) -> list[str]:
    return [line for line in text.splitlines() if "closing signal SIGTERM" in line]


def _shards(local_rank: int) -> str:
    """LlamaFactory-886 with ``local_rank`` the SIGKILLed one of four (pids 265408 + local rank)."""
    lines = SHARDS.splitlines()
    bar = lines[0].split("WARNING:")[0]
    others = [r for r in range(4) if r != local_rank]
    terms = [f"WARNING:torch.distributed.elastic.multiprocessing.api:Sending process {265408 + r} closing signal "
             "SIGTERM" for r in others]
    failed = lines[3].replace("local_rank: 1 (pid: 265409)", f"local_rank: {local_rank} (pid: {265408 + local_rank})")
    return "\n".join([bar + terms[0], *terms[1:], failed, *lines[4:]]) + "\n"


def _save(local_rank: int) -> str:
    """FastChat-1294 with ``local_rank`` the SIGKILLed one of eight (pids 75870 + local rank)."""
    terms = [f"WARNING:torch.distributed.elastic.multiprocessing.api:Sending process {75870 + r} closing signal SIGTERM"
             for r in range(8) if r != local_rank]
    rest = SAVE.splitlines()[7:]
    rest[0] = rest[0].replace("local_rank: 6 (pid: 75876)", f"local_rank: {local_rank} (pid: {75870 + local_rank})")
    return "\n".join(terms + rest) + "\n"


BUILD = {"lone": _lone, "rings": _rings, "pod": _pod, "new_shm": _new_shm, "shards": _shards, "save": _save}
#: (processes per node, world size) the thread states for each shape (None: not known)
SIZES = {"lone": (4, None), "rings": (4, 4), "pod": (2, 2), "new_shm": (4, None), "shards": (4, 4), "save": (8, 8)}

# key: (shape, parameter); the expected (culprit, cause)
CULPRITS = {("shards", 1): (1, "host-oom-kill"), ("shards", 0): (0, "host-oom-kill"),
            ("shards", 3): (3, "host-oom-kill"), ("save", 6): (6, "host-oom-kill"),
            ("save", 0): (0, "host-oom-kill"), ("save", 7): (7, "host-oom-kill")}
CONTROLS = [("lone", 3), ("lone", 0), ("lone", 1), ("rings", 1), ("rings", 0), ("rings", 3),
            ("pod", 0), ("pod", 1), ("new_shm", 0), ("new_shm", 2)]
BATCHED = Batched("host-side-batch79", list(CULPRITS) + CONTROLS)


def _make(key: tuple, folder: Path) -> object:
    nproc, world = SIZES[key[0]]
    return pasted(BUILD[key[0]](key[1]), folder, nproc, NOW, world)


def _id(key: tuple) -> str:
    return "-".join(str(part) for part in key)


@pytest.mark.parametrize("key", BATCHED.params(CULPRITS, _id))
def test_the_worker_the_launcher_reports_sigkilled_is_named(tmp_path_factory, key):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    rank, cause = CULPRITS[key]
    assert named and all(f["ranks"] == [rank] for f in named), [(f["rule"], f["cause"], f["ranks"]) for f in named]
    assert any(f["cause"] == cause for f in named), [(f["rule"], f["cause"]) for f in named]


@pytest.mark.parametrize("key", BATCHED.params(CONTROLS, _id))
def test_one_device_out_of_shared_memory_names_no_one(tmp_path_factory, key):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, None)


def test_the_variants_keep_their_shape():
    """The builders move the failing device or worker, not the wording the tests are about."""
    assert "[0] include/shm.h:28 NCCL WARN Call to posix_fallocate failed" in _lone(0)
    assert "gpu2-ru7:2145:2555 [3] include/shm.h:28 NCCL WARN Call to posix_fallocate" in _rings(3)
    assert _rings(1) == RINGS and _pod(0) == POD and _shards(1) == SHARDS and _save(6) == SAVE
    assert ":98:183 [1] include/shm.h:48 NCCL WARN Error while creating shared memory segment" in _pod(1)
    text = _shards(3)
    assert "local_rank: 3 (pid: 265411)" in text and len(_sigterm_pids(text)) == 3
    assert text.splitlines()[0].startswith("Loading checkpoint shards:") and "265411 closing" not in text
    text = _save(0)
    assert "local_rank: 0 (pid: 75870)" in text and len(_sigterm_pids(text)) == 7 and "<NO_OTHER_FAILURES>" in text
