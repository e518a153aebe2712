"""The corpus' expectations k10s does not meet yet from session 34's blind batches (162-), each with why; part of
tests/corpus_not_yet.NOT_YET (strict xfail: a case that starts passing must leave this list)."""

from __future__ import annotations

#: Expectations of session 34's batches that we do not meet, with why.
NOT_YET_S34: dict[str, str] = {
    # batch 162
    # batch 163
    # batch 164
    # batch 165
    # batch 166
    "ray-13483-tune-lightning-ddp-hangs-init-rank1-never-joined": (
        "the paste is four lines of rank 0 (Lightning's banner and `initializing ddp: GLOBAL_RANK: 0, MEMBER: 1/2`) and "
        "then nothing: no timeout, no error, no second rank. The thread says Tune cannot start Lightning's second script, so "
        "rank 1 never joined; the log alone cannot tell a hang at init from a paste that stops there, or from a job whose "
        "other ranks print elsewhere (Lightning's init line is printed by every rank, and pastes often hold rank 0's only). "
        "Naming the members a `MEMBER: k/N` line leaves unseen would name rank 1..N-1 of every such paste"
    ),
    # batch 167
    # batch 168
    # batch 169
    # session 34 leftovers
}
