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
    # batch 333: LlamaFactory-4035 read right since session 57 (the same uncaught exception printed twice with no rank
    # tag is two processes' alike: common mode, whichever local rank the agent reports)
    # batch 334 (checkpoint-save-rename-races-2024-2026): 4 of 5 controls read right both ways as collected (ae5381f6):
    # transformers-36076, LlamaFactory-6848, FlagEmbedding-704 and LlamaFactory-2010 name no one
    "speechbrain-2397-torchrun-2proc-elastic-table-rank1-delete-checkpoints-race-control": "torchelastic's failure "
    "table body for a 2-process torchrun (`rank : 1 (local_rank: 1)`, `exitcode : 1 (pid: 132514)`) with its recorded "
    "traceback through SpeechBrain's `_save_intra_epoch_ckpt` -> `save_and_keep_only` -> `delete_checkpoints(`, cut "
    "before the exception, reads as rank 1's own failure (python-exception, warning); even with a `FileNotFoundError` "
    "on the `CKPT+...` directory appended it does (only transformers' `tmp-checkpoint-N -> checkpoint-N` rename reads "
    "as every rank's): that both processes save and prune the same checkpoint directory and rank 1 merely lost the "
    "race (a bug fixed on develop) is the author's account and the bug label, not a line",
    # batch 335 (pytorch-repo-distributed-2026-h2): 3 of 4 controls read right both ways as collected (9f49a696)
    "pytorch-14390-mp-spawn-daemonic-dataloader-workers-process5-control": "the parent's `mp.spawn` traceback ending "
    "`-- Process 5 terminated with the following error:` over process 5's traceback into `enumerate(train_loader)` "
    "(cut before its exception line) reads as rank 5's own failure (python-exception, warning): spawn reports only the "
    "first process it reaps; that every spawned process fails alike (spawn's daemonic workers may not start DataLoader "
    "workers, fixed in PR #14391) is the maintainer's issue and fix, not a line",
    # batch 336 (settled-one-rank-culprits-2026-any-repo): 3 of 3 read right both ways as collected (f8151692): the
    # agent's `failed (exitcode: -9) local_rank: 0` names rank 0 (host-oom-kill); the two controls name no one
    # batch 337 (hang-one-rank-stuck-stack-dumps-2025-2026): 2 of 3 read right both ways as collected (0d5f41db): the
    # two controls (nccl#1509 a lone rank's watchdog timeout, nccl#1550 one gdb stack in AllgatherPlugin) name no one
    "nccl-1417-rank0-allreduce-shape-mismatch-seven-ranks-hang": "eight user prints `# Rank N tensor before allreduce: "
    "torch.Size([...]) 1.0` (rank 0's `[409600]`, ranks 1-7 `[32768000]`) and rank 0's lone `after allreduce` print, "
    "with no error, timeout or watchdog line, read as nothing (no finding, pasted or laid out 8/8): that rank 0 entered "
    "the all-reduce with a different size and the other seven hang is the author's construction of the test and a "
    "maintainer's word, not a failure line (with the seven ranks' watchdog timeouts added, rank 0 is named never-joined)",
    # batch 339 (lightning-accelerate-deepspeed-zero-2026): 4 of 4 controls read right both ways as collected (48ed998d):
    # DeepSpeed#6793, SimpleTuner#3099, E5-V#23 and libreyolo#303 name no one
    # session 56 leftovers
}
