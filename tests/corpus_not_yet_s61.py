"""The corpus' expectations k10s does not meet yet from session 61's blind batches (381-), each with why; part of
tests/corpus_not_yet.NOT_YET (strict xfail: a case that starts passing must leave this list)."""

from __future__ import annotations

#: Expectations of session 61's batches that we do not meet, with why.
NOT_YET_S61: dict[str, str] = {
    # batch 383 (slurm-srun-sbatch-multinode-training-job-logs-2024-2026): 1 of 2 read right both ways as collected
    # (2d978491), only 2 usable threads found: accelerate-3206 (rank 6's lone `ValueError: Error in finalize: another
    # evaluation module instance is already using the local cache file` on a two-node MareNostrum srun job, then rank
    # 0's watchdog line) names rank 6, right; the miss:
    "pytorch-lightning-20438-rocm-two-gpus-per-node-rank7-invalid-device-pointer-control":
        "rank 7's four tagged lines (`DistBackendError: NCCL error ... unhandled cuda error, NCCL version 2.17.1`, "
        "`Cuda failure 'invalid device pointer'`) are read as rank 7 hitting a CUDA error and the job torn down "
        "(rank-failure, warning, cuda-error, medium); the thread settles it as a layout/stack fault: the sbatch job "
        "(4 nodes x 2 tasks) trains with one GPU per node and fails with two, and another user fixed the same error by "
        "changing the torch version, so every node-local RCCL pair fails alike and rank 7 is only the quoted copy",
    # session 61 leftovers
}
