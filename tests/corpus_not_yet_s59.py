"""The corpus' expectations k10s does not meet yet from session 59's blind batches (361-), each with why; part of
tests/corpus_not_yet.NOT_YET (strict xfail: a case that starts passing must leave this list)."""

from __future__ import annotations

#: Expectations of session 59's batches that we do not meet, with why.
NOT_YET_S59: dict[str, str] = {
    # batch 366 (cuda-illegal-memory-access-device-assert-one-rank-or-all-2024-2026): 1 of 3 read right both ways as
    # collected (876bffe2): medicalgpt-23 (untagged `indexSelectLargeIndex` asserts and `device-side assert triggered`,
    # the script's out-of-vocabulary pad id) is a cuda-error warning of no rank
    "mmengine-1557-bf16-sync-buffers-allreduce-nccl-misaligned-address-control":
        "host aiplatform-wlf2-ge11-33 device [0]'s `enqueue.cc:1087 NCCL WARN Cuda failure 'misaligned address'` and the "
        "untagged all_reduce traceback ending `NCCL Error 1: unhandled cuda error` are read, laid out as the 16-GPU job "
        "(8 per node), as rank 0's cuda-error at warning ('the fault is a kernel's, not its GPU's ... confidence "
        "medium'); the failing call is SyncBuffersHook's all_reduce of bf16 buffers that every rank enters alike (NCCL's "
        "bf16 misalignment, pytorch#119345), and the cause is NCCL's (nccl-error), not a rank's CUDA error",
    "vllm-18045-flashinfer-sampler-illegal-instruction-tp-ranks-alike-control":
        "rank 3's `RuntimeError: CUDA error: an illegal instruction was encountered` in `flashinfer_sample` is read as "
        "rank 3's cuda-error at warning ('the paste holds this rank's lines only'); rank 2's own exception print "
        "(`(VllmWorker rank=2 ...) ERROR ... [multiproc_executor.py:470]`, same second, same handler) is not counted as "
        "a second failing rank, and the sampler kernel traps on every TP rank at once (rank 0 too, in the thread)",
    # session 59 leftovers
}
