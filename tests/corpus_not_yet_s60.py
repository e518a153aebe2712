"""The corpus' expectations k10s does not meet yet from session 60's blind batches (370-), each with why; part of
tests/corpus_not_yet.NOT_YET (strict xfail: a case that starts passing must leave this list)."""

from __future__ import annotations

#: Expectations of session 60's batches that we do not meet, with why.
NOT_YET_S60: dict[str, str] = {
    # batch 370 (diffusion-video-image-generation-training-multi-gpu-2025-2026): 1 of 3 read right both ways as
    # collected (7472d2c7): LTX-2-57 (one untagged OOM on GPU 0 listing four processes 16746-16749, every rank's text
    # encoder loaded onto GPU 0) a critical cuda-oom of no rank; the two misses:
    "DiffSynth-Studio-411-wan21-t2v-14b-lora-720p-8xh100-rank4-oom":
        "rank 4's lone OOM `rank4]: torch.OutOfMemoryError: CUDA out of memory ... GPU 4 has a total capacity of 94.99 "
        "GiB ...` is read as a critical oom-cascade of no rank ('a rank ... ran out of GPU memory'): the torchrun prefix "
        "lost its opening bracket in the paste (`rank4]:`), so the line is not taken as rank 4's; restored to "
        "`[rank4]:` it names rank 4 (warning, cuda-oom). Truth: rank 4 (its own OOM, the only failure shown; the "
        "maintainer: the trainer's fp32 intermediates raise the memory need)",
    "DiffSynth-Studio-703-wan21-vace-14b-only-vace-trainable-no-grad-fn-rank0-control":
        "rank 0's lone `[rank0]: RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn` "
        "names rank 0 (rank-failure, python-exception, warning, medium: 'the paste holds this rank's lines only'); "
        "autograd raises it when the loss has no path to a trainable parameter, a property of the model and its "
        "trainable-module setting that every data-parallel rank shares (the maintainer: a DiffSynth-Studio bug with "
        "`--trainable_models vace`, fixed in the latest version); no rank is at fault",
    # session 60 leftovers
}
