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
    # batch 146
    "jax-22740-host0-clique-rendezvous-waits-host1-never-ran-pmap": (
        "one line from host0: XLA's rendezvous `initialize clique for rank 6; clique=devices=[0..15]` has waited for "
        "its own local threads ('Expected 8 threads to join'); it names neither a process nor a missing device. That "
        "process 1 never ran the pmap is only in the issue's two posted scripts; `rank 6` is the waiting device "
        "(a victim), so naming anyone from the log would be a guess"
    ),
    "marin-8534-restore-barrier-175-tasks-wait-task12-still-reading": (
        "the paste is the author's hand-written timeline (`175 tasks at the barrier, task 12 still reading`), not "
        "any program's output: no launcher, JAX or orchestrator prints this wording, so reading it would be a rule "
        "for one author's prose; the barrier itself (`sync_global_devices`, a device all-gather) logs nothing while "
        "it waits"
    ),
    # session 32 leftovers
}
