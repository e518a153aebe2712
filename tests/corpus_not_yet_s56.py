"""The corpus' expectations k10s does not meet yet from session 56's blind batches (327-), each with why; part of
tests/corpus_not_yet.NOT_YET (strict xfail: a case that starts passing must leave this list)."""

from __future__ import annotations

#: Expectations of session 56's batches that we do not meet, with why.
NOT_YET_S56: dict[str, str] = {
    # batch 327 (newest-threads-2026-nov-dec): 3 of 4 read right both ways as collected (867908e4)
    "megatron-bridge-2355-gb200-deepseek-ckpt-save-rank93-crc32-segfault": "the log is five lines under Slurm's "
    "` 93:` task label: tvm_ffi's fault-handler banner `!!!!!!! Segfault encountered !!!!!!!` and its native frames "
    "(`crc32_16bytes` -> `mz_crc32` -> `mz_zip_writer_add_mem_ex_v2` -> `PyTorchStreamWriter::writeRecord`), read as "
    "nothing: the banner is no failure wording k10s knows (the label itself is read: `93: Fatal Python error: "
    'Segmentation fault` names rank 93, segfault), and the `File "<unknown>", line 0, in ...` frames are not a '
    "traceback's; that task 93 is the one that died in Megatron's forked checkpoint writer is the thread and 2026's "
    "fork->spawn fixes elsewhere (NeMo-RL #2070/#2084), not a line k10s reads",
    # batch 331 (vllm-sglang-rollout-in-rl-training-2026): 3 of 4 read right both ways as collected (287db5a7): the
    # three controls (miles#687, ms-swift#6866, verl#6677) name no one
    "ms-swift-7933-rollout-server-enginecore-dp1-died": "vLLM V1's engine-client notice `ERROR ... "
    "[core_client.py:564] Engine core proc EngineCore_DP1 died unexpectedly, shutting down client.` and then ms-swift's "
    "rollout worker's `[ERROR:swift] Method execution failed: infer` traceback (cut before its exception line) read as "
    "nothing at all, not even an info finding: k10s reads vLLM's executor wording `Worker proc VllmWorker-N died "
    "unexpectedly` (that worker's rank) but not the client's `Engine core proc EngineCore_DP<N> died unexpectedly`, so "
    "data-parallel engine 1 is not named (rank-dead); that DP1 is the one engine that died, and the swift traceback only "
    "its consequence, is vLLM's own notice (the thread, an open question, gives no cause)",
    # batch 332 (jax-tf-paddle-multiworker-gpu-2025-2026): 3 of 4 controls read right both ways as collected (88730269)
    "xla-18214-maxtext-multigpu-invalid-opaque-object-size-regression-control": "the log is one MaxText process's "
    "traceback through `train_loop` / `p_train_step` ending `RuntimeError: Invalid opaque object size`, with no rank tag; "
    "laid out as the thread's one process (world size 1) it reads as rank 0's own failure (python-exception, warning; "
    "pasted with no layout it is a failure of no rank): that the crash is an XLA regression (openxla/xla PR#18052) "
    "every multi-GPU MaxText run hits alike is the issue's title and account, not a log line",
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
