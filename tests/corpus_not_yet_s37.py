"""The corpus' expectations k10s does not meet yet from session 37's blind batches (216-), each with why; part of
tests/corpus_not_yet.NOT_YET (strict xfail: a case that starts passing must leave this list)."""

from __future__ import annotations

#: Expectations of session 37's batches that we do not meet, with why.
NOT_YET_S37: dict[str, str] = {
    # batch 216
    # batch 217
    # batch 218
    # batch 219
    "gsplat-845-mcmc-4gpus-packed-rank0-watchdog-illegal-memory-access-control": (
        "rank 0's watchdog `CUDA error: an illegal memory access was encountered` is the only error in the excerpt, the "
        "shape of a lone rank's own fault (TRELLIS.2-90, causal-conv1d-67, vllm-7161 are culprits so; torchtitan-810 and "
        "flux-40 are this same control shape, left so): that gsplat's packed rasterisation with more than two GPUs hits "
        "every rank (#910: 'across all ranks simultaneously') is the thread's knowledge, not a log line"
    ),
    "nerfplusplus-49-ddp-train-nerf-spawn-process1-tensorboardx-eoferror-parent-traceback-cut": (
        "spawn's `Process 1 terminated with the following error` is only in the issue's title; the excerpt is a "
        "tensorboardX writer thread's EOFError and the parent's traceback cut at `join=True)`, naming no process or "
        "rank, so `python-exception` with no rank (what k10s says) is all the log can show"
    ),
    # batch 220
    # batch 221
    # batch 222
    # batch 223
    # session 37 leftovers
}
