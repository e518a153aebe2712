"""The corpus' expectations k10s does not meet yet from session 32's blind batches (139-), each with why; part of
tests/corpus_not_yet.NOT_YET (strict xfail: a case that starts passing must leave this list)."""

from __future__ import annotations

#: Expectations of session 32's batches that we do not meet, with why.
NOT_YET_S32: dict[str, str] = {
    # batch 139
    # batch 140
    "torchtitan-61-fsdp-sp-compile-seven-sigterm-local-rank0-exit1-control":
        "the log is torchrun's agent alone: seven `Sending process N closing signal SIGTERM` lines, then `failed "
        "(exitcode: 1) local_rank: 0`, with no worker output; that the failure is a compile bug of FSDP + SP + "
        "`--compile` every rank runs is the maintainer's title, not the log. The agent's lone exit 1 after SIGTERMs is "
        "the corpus's culprit shape (torchtitan-1434, OLMo-706: the one worker that raised), so not naming it would "
        "lose those culprits",
    "pytorch-118984-ddp-dynamic-checkpoint-submod0-compile-local-rank0-exit1-control":
        "the worker's exception line is above the excerpt: the log shows native frames, DDPOptimizer's `While "
        "executing %submod_0` and Dynamo's suppress_errors hint, then the agent's `failed (exitcode: 1) local_rank: 0`. "
        "A torch.compile failure is not common mode in general (a rank can trace a graph the others do not: rank-"
        "dependent code, data-dependent shapes; nanoGPT-545's rank 1 fails in compile as its own culprit), and that "
        "this one is a 2.2.0 regression every rank hits is the thread's, not the log's",
    # batch 141
    # batch 142
    # batch 143
    # batch 144
    # session 32 leftovers
}
