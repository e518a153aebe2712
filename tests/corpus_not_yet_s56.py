"""The corpus' expectations k10s does not meet yet from session 56's blind batches (327-), each with why; part of
tests/corpus_not_yet.NOT_YET (strict xfail: a case that starts passing must leave this list)."""

from __future__ import annotations

#: Expectations of session 56's batches that we do not meet, with why.
NOT_YET_S56: dict[str, str] = {
    # batch 327 (newest-threads-2026-nov-dec): 3 of 4 read right both ways as collected (867908e4)
    # batch 327: megatron-bridge-2355 read right since session 56 (tvm_ffi's `Segfault encountered` banner names task 93)
    # batch 331 (vllm-sglang-rollout-in-rl-training-2026): 3 of 4 read right both ways as collected (287db5a7): the
    # three controls (miles#687, ms-swift#6866, verl#6677) name no one
    "ms-swift-7933-rollout-server-enginecore-dp1-died": "since session 56 vLLM V1's engine-client notice `Engine core "
    "proc EngineCore_DP1 died unexpectedly, shutting down client.` names data-parallel engine 1 (rank right, as the "
    "executor's `Worker proc VllmWorker-N died unexpectedly` names its worker), with the cause `exit-unknown`: the "
    "notice says it died, not how; the expectation's `rank-dead` (a lost heartbeat) is no line's, and the thread (an "
    "open question) gives no cause",
    # batch 332 (jax-tf-paddle-multiworker-gpu-2025-2026): 3 of 4 controls read right both ways as collected (88730269)
    "xla-18214-maxtext-multigpu-invalid-opaque-object-size-regression-control": "the log is one MaxText process's "
    "traceback through `train_loop` / `p_train_step` ending `RuntimeError: Invalid opaque object size`, with no rank tag; "
    "laid out as the thread's one process (world size 1) it reads as rank 0's own failure (python-exception, warning; "
    "pasted with no layout it is a failure of no rank): that the crash is an XLA regression (openxla/xla PR#18052) "
    "every multi-GPU MaxText run hits alike is the issue's title and account, not a log line",
    # batch 333 (config-and-environment-controls-2026): 3 of 5 controls read right both ways as collected (9f8b4ee7)
    # AgentCPM-GUI-51 read right since session 56 (a signature TypeError is every rank's: common mode)
    "LlamaFactory-4035-two-gpu-module-not-found-every-rank-agent-local-rank0-control": "two identical unranked "
    "tracebacks (`launcher.py`, line 1: `ModuleNotFoundError: No module named 'llamafactory'`), one per worker of "
    "`CUDA_VISIBLE_DEVICES=4,6 llamafactory-cli train`, then the agent's `failed (exitcode: 1) local_rank: 0 (pid: "
    "16476)`, read as rank 0's failure (python-exception, warning): the agent names only the first worker it reaped; "
    "that both workers failed alike at import (the package not installed in that environment) is the thread's account "
    "(and the duplicate tracebacks), not a ranked line",
    # batch 339 (lightning-accelerate-deepspeed-zero-2026): 4 of 4 controls read right both ways as collected (48ed998d):
    # DeepSpeed#6793, SimpleTuner#3099, E5-V#23 and libreyolo#303 name no one
    # session 56 leftovers
}
