"""The corpus' expectations k10s does not meet yet from session 56's blind batches (327-), each with why; part of
tests/corpus_not_yet.NOT_YET (strict xfail: a case that starts passing must leave this list)."""

from __future__ import annotations

#: Expectations of session 56's batches that we do not meet, with why.
NOT_YET_S56: dict[str, str] = {
    # batch 333 (config-and-environment-controls-2026): 3 of 5 controls read right both ways as collected (9f8b4ee7)
    "AgentCPM-GUI-51-rft-rank0-get-batch-samples-typeerror-transformers-version-control": "the log is the tail of "
    "rank 0's `[rank0]:` traceback through transformers' `_inner_training_loop` ending `[rank0]: TypeError: "
    "AsyncRLGRPOTrainer.get_batch_samples() takes 3 positional arguments but 4 were given`, read as rank 0's own "
    "failure (python-exception, warning): the one rank pasted; that it is a transformers-version signature mismatch "
    "every rank hits alike is the maintainer's answer (pin `transformers==4.51.1`), not a log line",
    "LlamaFactory-4035-two-gpu-module-not-found-every-rank-agent-local-rank0-control": "two identical unranked "
    "tracebacks (`launcher.py`, line 1: `ModuleNotFoundError: No module named 'llamafactory'`), one per worker of "
    "`CUDA_VISIBLE_DEVICES=4,6 llamafactory-cli train`, then the agent's `failed (exitcode: 1) local_rank: 0 (pid: "
    "16476)`, read as rank 0's failure (python-exception, warning): the agent names only the first worker it reaped; "
    "that both workers failed alike at import (the package not installed in that environment) is the thread's account "
    "(and the duplicate tracebacks), not a ranked line",
    # session 56 leftovers
}
