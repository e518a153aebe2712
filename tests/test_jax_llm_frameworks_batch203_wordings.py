"""Multi-host / multi-GPU training with JAX frameworks (real incidents batch 203): their wordings, pinned as read.
Held controls: one process's two pmap replicas failing alike at the first all-reduce with ``ncclGroupEnd() failed:
unhandled cuda error`` (jax-ml/jax#15628; also with four replicas), pjit's ``Execution of replica 0 failed`` /
``ncclCommInitRank ... unhandled cuda error`` wrapped and space-padded (jax-ml/jax#10461, a CUDA toolkit/driver
mismatch; also unwrapped on one line each), the Levanter author's ``srun -N2`` jax.distributed start-up with NCCL
TRACE before a hang (jax-ml/jax#13559), the middle of Orbax's async-save traceback to ``barrier_sync_fn(`` with no
process in it (AI-Hypercomputer/maxtext#1434), Orbax's OCDBT ``Configuration mismatch on uuid`` before srun's
``task 1: Exited with exit code 1`` in a world of two CPU tasks (JaxionProject/jaxion#1: the unsupported set-up
shared by both), two device threads of one process each reporting ``Execution of replica 0 failed ... ncclAllReduce
... invalid argument`` (google/flax#4942) and ``unable to create StreamExecutor for CUDA:1 ... invalid device
ordinal`` under ``--gpus-per-task`` (jax-ml/jax#23452) name no one. Contrast: the Orbax traceback ending in the
coordination service's barrier time-out that lists the one task that never arrived names that task (never-joined).
No rule changed for the batch (all seven met as collected). Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 2, 12, 0, tzinfo=dt.timezone.utc)


PMAP = corpus_lines("jax-15628-")
PJIT = corpus_lines("jax-10461-")
SRUN_HANG = corpus_lines("jax-13559-")
ORBAX = corpus_lines("maxtext-1434-")
OCDBT = corpus_lines("jaxion-1-")
NNX = corpus_lines("flax-4942-")
ORDINAL = corpus_lines("jax-23452-")


def _replica(n: int) -> str:
    """jax-15628's failure line for replica ``n``."""
    return PMAP[0].replace("replica 1 failed", f"replica {n} failed")


#: jax-10461's wrapped entries joined back into one line each (trailing padding dropped)
PJIT_ONE_LINE = [PJIT[0] + PJIT[1].rstrip(), PJIT[2] + PJIT[3].rstrip()]
BARRIER = [
    "jaxlib.xla_extension.XlaRuntimeError: DEADLINE_EXCEEDED: Barrier timed out. Barrier_id: "
    "async_save_checkpoint_3. Timed out task names:",
    "/job:jax_worker/replica:0/task:5",
]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # jax-15628's shape: one process's replicas fail alike at the first all-reduce
    "pmap-replicas-1-0-as-pasted": (PMAP, None, None, None, None),
    "pmap-replicas-1-0-one-process": (PMAP, 1, 1, None, None),
    "pmap-four-replicas": ([_replica(3), _replica(2)] + PMAP, 1, 1, None, None),
    # jax-10461's shape: replica 0 repeatedly, wrapped and padded, or on one line
    "pjit-replica0-wrapped-as-pasted": (PJIT, None, None, None, None),
    "pjit-replica0-one-line": (PJIT_ONE_LINE, 1, 1, None, None),
    # jax-13559's shape: srun -N2 start-up with NCCL TRACE, then a hang
    "srun-two-nodes-startup-as-pasted": (SRUN_HANG, None, None, None, None),
    "srun-two-nodes-startup-layout-1x2": (SRUN_HANG, 1, 2, None, None),
    # maxtext-1434's shape: the middle of Orbax's async-save traceback, no process named
    "orbax-async-save-frames-as-pasted": (ORBAX, None, None, None, None),
    "orbax-async-save-frames-layout-8x4": (ORBAX, 8, 32, None, None),
    # jaxion-1's shape: the OCDBT uuid mismatch and srun's task-1 exit, two CPU tasks
    "ocdbt-uuid-task1-exit-layout-1x2": (OCDBT, 1, 2, None, None),
    # flax-4942's shape: two device threads of one process, both `replica 0`
    "nnx-two-threads-replica0-as-pasted": (NNX, None, None, None, None),
    "nnx-two-threads-replica0-one-process": (NNX, 1, 1, None, None),
    # jax-23452's shape: CUDA:1 invalid ordinal under --gpus-per-task
    "gpus-per-task-cuda1-as-pasted": (ORDINAL, None, None, None, None),
    "gpus-per-task-cuda1-layout-2": (ORDINAL, 2, 2, None, None),
    # contrast: the Orbax traceback ending in the barrier time-out that lists the one absent task
    "orbax-barrier-lists-task5-contrast": (ORBAX + BARRIER, 8, 32, 5, "never-joined"),
}
BATCHED = Batched("b203", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_jax_llm_frameworks_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])
