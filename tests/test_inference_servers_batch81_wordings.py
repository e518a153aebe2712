"""Batch 81's inference-server shapes (tests/data/real-incidents, ``"batch": 81``, family ``inference-servers``),
each with its wording variants, as one pasted log through ``k10s import-logs`` (docs/rules.md, "Session 27: batch 81"):

* controls: a lone rank's NCCL watchdog on the first collective (``SeqNum=1``) of a text-generation-inference shard
  group — relayed by the launcher inside one ``--json-output`` record with ``\\n`` escapes (tgi-1559), or as the
  shard's docker-timestamped stderr (tgi-1383): the group never formed on that host, the side that timed out is not
  the one at fault; LMDeploy TurboMind's tensor-parallel weight threads (``Exception in thread Thread-N:``) raising the
  same CUDA error (lmdeploy-420): thread names are no ranks, and every thread failing alike is common mode;
* the contrast, left as it is (corpus_not_yet: TensorRT-LLM-1596): Open MPI's first-nonzero-exit block alone names its
  process (horovod-1421, nccl-tests-294 are culprits so), whatever the thread says of the cause.

The analyses go through tests/bundle_batch.py (every input in one analysis).
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import corpus_log, naming_findings

NOW = dt.datetime(2026, 12, 1, 5, 0, tzinfo=dt.timezone.utc)

JSON = corpus_log("tgi-1559-json-output-driver-545-lone-rank0-watchdog-seqnum1-control")
PLAIN = corpus_log("tgi-1383-two-l40-lone-rank0-watchdog-seqnum1-one-gpu-works-control")
THREADS = corpus_log("lmdeploy-420-turbomind-tp2-both-threads-create-weights-invalid-argument-control")
MPIRUN = corpus_log("TensorRT-LLM-1596-mixtral-tp4-mpirun-first-process-rank1-config-control")


def _json(rank: int) -> str:
    return JSON.replace("[Rank 0]", f"[Rank {rank}]")


def _plain(rank: int) -> str:
    return PLAIN.replace("[Rank 0]", f"[Rank {rank}]")


def _threads(order: str) -> str:
    """TurboMind's weight threads in ``order`` (``"21"``: Thread-2 first), each with the whole traceback and the same
    CUDA error (the paste's Thread-1 block, renamed)."""
    block = THREADS.split("\n\n")[0] + "\n"
    return "\n".join(block.replace("Thread-1", f"Thread-{n}") for n in order)


def _mpirun(rank: int) -> str:
    return MPIRUN.replace("[[57329,1],1]", f"[[57329,1],{rank}]")


BUILD = {"json": _json, "plain": _plain, "threads": _threads, "mpirun": _mpirun}
#: (processes per node, world size) the thread states for each shape (None: not known)
SIZES = {"json": (None, None), "plain": (2, 2), "threads": (2, 2), "mpirun": (4, 4)}

# key: (shape, parameter); the expected (culprit, cause)
CULPRITS = {("mpirun", 1): (1, "python-exception"), ("mpirun", 2): (2, "python-exception")}
CONTROLS = [("json", 0), ("json", 1), ("plain", 0), ("plain", 1), ("threads", "12"), ("threads", "21")]
BATCHED = Batched("inference-servers-batch81", list(CULPRITS) + CONTROLS)


def _make(key: tuple, folder: Path) -> object:
    nproc, world = SIZES[key[0]]
    return pasted(BUILD[key[0]](key[1]), folder, nproc, NOW, world)


@pytest.mark.parametrize("key", BATCHED.params(CONTROLS))
def test_a_lone_first_collective_watchdog_or_threads_failing_alike_name_no_one(tmp_path_factory, key):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, None)


@pytest.mark.parametrize("key", BATCHED.params(CULPRITS))
def test_open_mpis_first_nonzero_exit_block_alone_names_its_process(tmp_path_factory, key):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, *CULPRITS[key])


def test_the_variants_keep_their_shape():
    """The builders move the rank or the thread order, not the wording the tests are about."""
    assert _json(0) == JSON and _plain(0) == PLAIN and _mpirun(1) == MPIRUN
    assert "\\n[E ProcessGroupNCCL.cpp:475] [Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1," in _json(1)
    assert len(_json(1).splitlines()) == 1 and _json(1).startswith('{"timestamp":')
    assert "Z [E ProcessGroupNCCL.cpp:828] [Rank 1] Watchdog caught" in _plain(1)
    swapped = _threads("21")
    assert swapped.index("Exception in thread Thread-2:") < swapped.index("Exception in thread Thread-1:")
    assert swapped.count("RuntimeError: [TM][ERROR] CUDA runtime error: invalid argument") == 2
    assert "  Process name: [[57329,1],2]" in _mpirun(2)
