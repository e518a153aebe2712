"""The corpus' expectations k10s does not meet yet from session 58's blind batches (350-), each with why; part of
tests/corpus_not_yet.NOT_YET (strict xfail: a case that starts passing must leave this list)."""

from __future__ import annotations

#: Expectations of session 58's batches that we do not meet, with why.
NOT_YET_S58: dict[str, str] = {
    # batch 352 (desync-debug-and-collective-fingerprint-reports-2024-2026): 1 of 3 read right both ways as collected
    # (cf9aa5fd): Phi3-Vision-Finetune-41 (rank 0's `[rank0]: RuntimeError: Detected mismatch ... Rank 0 ... but Rank 1`,
    # same sequence number and op, shapes differ, two ranks) names no one
    "pytorch-152623-modded-nanogpt-desync-report-rank7-didnt-join-nccl226-nonblocking-hang":
        "the desync report `[7] finished collective #182, but didn't join collective #183` names rank 7 (nccl-hang, "
        "critical, confidence high), the right rank, but as never-joined where the batch wants lagging-rank: the "
        "report's own words (it finished #182, so it joined the job and ran collectives before it stopped) mark a rank "
        "that fell behind mid-run; that the stop was NCCL 2.26's non-blocking-mode hang is the maintainers' PR, not a line",
    "VeOmni-175-qwen25vl-video-image-mix-fsdp2-allgather-shape-rank4-vs-rank7-control":
        "the one untagged fingerprint line `Rank 4 is running ... SequenceNumber=35, OpType=_ALLGATHER_BASE, "
        "TensorShape=[9634624] ... but Rank 7 is running ... SequenceNumber=35, OpType=_ALLGATHER_BASE, "
        "TensorShape=[2464056]` names rank 7 (nccl-hang, critical, collective-mismatch; rank 4 'less likely'): one pair, "
        "same sequence number and op, only the sizes differ, so no odd one out; that mixed video and image-text batches "
        "make the ranks all-gather different FSDP2 units (fixed by dummy vision forwards) is the thread, not a line",
    # session 58 leftovers
}
