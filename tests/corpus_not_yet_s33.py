"""The corpus' expectations k10s does not meet yet from session 33's blind batches (149-), each with why; part of
tests/corpus_not_yet.NOT_YET (strict xfail: a case that starts passing must leave this list)."""

from __future__ import annotations

#: Expectations of session 33's batches that we do not meet, with why.
NOT_YET_S33: dict[str, str] = {
    # batch 149
    # batch 150
    "mace-1348-patience-rank0-ddp-verify-allgather-collective-mismatch": (
        "no finding: the paste is rank 0's side of torch's collective fingerprint check (`Detected mismatch between "
        "collectives on ranks. Rank 0 is running collective: ... SequenceNumber=633704, OpType=ALLGATHER`) inside DDP's "
        "`_verify_param_shape_across_processes`, cut before `but Rank N is running ...`; the reporting rank is as often "
        "the waiter as the one out of step, and the peer is not in the log. That rank 0 alone left the loop on patience "
        "is the thread's cause and the fix ACEsuit/mace#1216's (mace-1215's shape, NOT_YET for the same reason)"
    ),
    "SevenNet-83-continue-finetune-root-cause-rank0-exit1-control": (
        "torchrun's `Root Cause (first observed failure)` names `rank : 0 (local_rank: 0)` `exitcode : 1` with no error "
        "file and no worker output: the corpus reads a lone root-cause block as that rank's failure (Megatron-Bridge-"
        "2974, prime-rl-938); that the failure is SevenNet's continue-training path every rank runs is the thread's "
        "(title, `bug` label), and the log holds nothing that tells it from one rank's error (CosyVoice-1817's shape)"
    ),
    # batch 151
    # batch 152
    # batch 153
    # batch 154
    # session 33 leftovers
}
