"""The corpus' expectations k10s does not meet yet from session 32's blind batches (139-), each with why; part of
tests/corpus_not_yet.NOT_YET (strict xfail: a case that starts passing must leave this list)."""

from __future__ import annotations

#: Expectations of session 32's batches that we do not meet, with why.
NOT_YET_S32: dict[str, str] = {
    # batch 139
    # batch 140
    # batch 141
    # batch 142
    # batch 143
    # batch 144
    "self-supervised-speech-recognition-34-fairseq-oom-warning-gpu4-wrapped":
        "the one error is fairseq's recovered-OOM warning on `GPU 4` (split `(G` / `PU 4;` by the paste's wrapping; "
        "read whole it is still the same): the allocator's device index names no rank by design (litgpt-303, "
        "fairseq-869), since CUDA_VISIBLE_DEVICES or one visible device per process makes it no rank's number; that "
        "fairseq's one process per GPU on one machine drives device 4 as rank 4 is the launch's convention, not the log's",
    "CosyVoice-1817-torchrun-root-cause-rank0-flow-spk-embedding-config-control":
        "torchrun's `Root Cause (first observed failure)` names `rank : 0 (local_rank: 0)` `exitcode : 1` with the "
        "worker's traceback into the model's forward, cut before the exception: the corpus reads a lone root-cause "
        "block as that rank's failure (Megatron-Bridge-2974, prime-rl-938); that the error is a speaker-embedding "
        "configuration every rank meets is the title's, and the log holds nothing that tells it from one rank's error",
    # session 32 leftovers
}
