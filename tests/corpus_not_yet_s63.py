"""The corpus' expectations k10s does not meet yet from session 63's blind batches (393-), each with why; part of
tests/corpus_not_yet.NOT_YET (strict xfail: a case that starts passing must leave this list)."""

from __future__ import annotations

#: Expectations of session 63's batches that we do not meet, with why.
NOT_YET_S63: dict[str, str] = {
    # batch 393 (less-mined-framework-repos-settled-one-rank-2024-2026): 1 of 1 read right both ways as collected
    # (fb3368b6), no NOT_YET, one control, only 1 usable thread found in ~100 searches (the listed repos' settled
    # lone-rank threads are mined already or settle past the excerpt): modded-nanogpt-12 (rank 0's `loss.backward()`
    # traceback head into `call_compiled_backward()`, the OOM past the excerpt, 8 x 45 GB GPUs, fixed by a smaller
    # per-device batch) holds rank 0 as an info python-exception suspect only: see
    # tests/test_less_mined_framework_repos_settled_one_rank_2024_2026_batch393_wordings.py
    # batch 394 (large-jobs-32-to-1024-gpus-one-node-or-rank-failed-2024-2026): 3 of 3 read right both ways as
    # collected (10cf17c1), no NOT_YET, one culprit and two controls: ms-swift-3327 (rank 62's lone `[rank62]:
    # torch.OutOfMemoryError ... GPU 6` of an 8x8 A100 SFT) names rank 62, cuda-oom, warning, medium;
    # bionemo-recipes-814 (srun tasks 0 and 6 in Megatron-core's `num_attention_heads (15) must be a multiple of
    # tensor_model_parallel_size (2)` check) and DeepEP-114 (EP128's untagged combine `Assertion error ...
    # num_max_nvl_chunked_recv_tokens / num_rdma_ranks > ...`, then su14-gpu14's NVSHMEM finalize) are python-exception
    # warnings of no rank: see
    # tests/test_large_jobs_32_to_1024_gpus_one_node_or_rank_failed_2024_2026_batch394_wordings.py
    # batch 395 (non-english-threads-korean-russian-vietnamese-spanish-portuguese-multi-gpu-2024-2026): 2 of 2 read
    # right both ways as collected (b3a07bb1), no NOT_YET, both controls from Korean Tistory posts (only 2 usable threads
    # in ~70 searches): tistory-9566-568 (the author's abbreviated `WorkNCCL(SeqNum=1, OpType=ALLREDUCE)` watchdog paste
    # and `process 1 terminated with signal SIGABRT`, fixed by NCCL_P2P_DISABLE/NCCL_IB_DISABLE) finds nothing;
    # tistory-oreo1226-120 (one untagged `!block->expandable_segment_ INTERNAL ASSERT FAILED` line, allocator config) a
    # python-exception warning of no rank: see
    # tests/test_non_english_threads_korean_russian_vietnamese_spanish_portuguese_multi_gpu_2024_2026_batch395_wordings.py
    # batch 397 (pull-requests-fixing-one-rank-bugs-with-before-logs-2023-2026): 2 of 4 read right both ways as
    # collected (64d1dd19), one control: transformers-37663 (ranks 2 and 3's same `TypeError: 'NoneType' object is not
    # iterable` out of `caching_allocator_warmup`, a library bug every rank hits) a rankless python-exception warning,
    # right; Megatron-LM-1653 (the last rank's bottom-up `[rank15]:   ValueError: Path is not a file: ...
    # latest_checkpointed_iteration.txt` from wandb's `add_file`) names rank 15 (warning, medium), right: see
    # tests/test_pull_requests_fixing_one_rank_bugs_with_before_logs_2023_2026_batch397_wordings.py
    "amd-strix-halo-llm-finetuning-6-fsdp-save-rank1-exited-rank0-sigabrt":
        "no finding at all: the paste is the PR's two bare lines `socketProgress: Connection closed by remote peer` and "
        "`SIGABRT on rank 0` (no `[rankN]:` tag, no ProcessGroupNCCL wording, no agent report), which no rule reads; the "
        "truth is rank 1 (the non-main rank skipped FSDP's collective `save_model()` inside `if is_main:` and exited "
        "cleanly), rank 0 the victim that aborted in `_all_gather_flat_param` with its peer gone: a rank named as "
        "aborting on a peer's closed socket points at the peer, but a two-line paraphrase is thin ground to name one",
    "cascadia-122-packed-pipeline-rank0-stuck-seq1119-rank1-moved-on":
        "no finding at all: cascadia's own trace lines (`rank 1   lock acquired, awaiting plan     seq=1120   <- moved "
        "on`, `rank 0   both frames sent, awaiting tokens seq=1119`, `rank 0   (nothing further)`) carry no error word "
        "and a `rank N` prefix no parser knows; the truth (fix PR #128) is rank 0, which starved its own tokio I/O driver "
        "and never read the reply rank 1 had sent: the rank whose last sequence number is behind its peers' (1119 vs "
        "1120) while all wait is the lagging one",
    # batch 396 (newest-threads-2026-late-nov-dec-any-repo-second-pass): 3 of 3 read right both ways as collected
    # (7765a148), no NOT_YET, three controls (the stored corpus holds next to nothing opened or settled after
    # mid-September 2026; ~100 searches found no settled lone-rank thread in the window, so the newest settled
    # multi-GPU pastes were taken): gpustack-1254 (Error 802, Fabric Manager missing), vllm-52778 (cross-node TP=2
    # custom all-reduce CUDA-IPC handle), huggingface-hub-4128 (one worker's init traceback, Fabric Manager not up) give
    # no finding at all; see tests/test_newest_threads_2026_late_nov_dec_any_repo_second_pass_batch396_wordings.py
    # batch 398 (maintainer-points-at-the-real-error-on-one-rank-2023-2026): 2 of 3 read right both ways as collected
    # (65280b6d), one culprit and two controls (only 3 usable threads in ~90 searches: the corpus' settled one-rank
    # threads are mined already): MoCa-6 (rank 6's lone `[rank6]: IndexError: index 17 is out of bounds for dimension 0
    # with size 17` out of the Qwen2.5-VL processor, a bad MMEB-train sample) names rank 6 (warning, medium), right;
    # OLMo-827 (four untagged `OLMoConfigurationError: Checkpoint for step 0 already exists` lines after rank 0's INFO
    # line, `save_overwrite` not passed on) a rankless python-exception warning, right: see
    # tests/test_maintainer_points_at_the_real_error_on_one_rank_2023_2026_batch398_wordings.py
    "transformers-20988-multinode-checkpoint-rotation-race-rng-state-control":
        "names rank 0 (rank-failure, warning, python-exception, medium: 'the paste holds this rank's lines only') from "
        "one untagged `FileNotFoundError: [Errno 2] No such file or directory: 'rng_state_1.pth'` and the agent's "
        "`failed (exitcode: 1) local_rank: 0 (pid: 7796)`; the truth is a Trainer race every node's main process takes "
        "part in (shared filesystem, `save_on_each_node=False, save_total_limit=1`: 'all the workers are trying to "
        "delete the same files', fixed by the merged PR #20989): the agent's local_rank 0 on an unnamed node of a "
        "multi-node job is not global rank 0, and a lone untagged FileNotFoundError on a checkpoint file during "
        "rotation is a shared-storage race, not one rank's fault",
    # batch 399 (signal-exit-signatures-one-rank-2025-2026): 2 of 3 read right both ways as collected (76365fc2),
    # all three controls (searches by the launcher's exit signatures found the corpus' settled one-rank threads mined
    # already; ~45 searches): ipex-llm-11392 (mpirun's `RANK 1 ... KILLED BY SIGNAL: 6 (Aborted)` box after rank 1's
    # `_optimize_pre` frames, a nightly regression) holds rank 1 as an info python-exception suspect only, right;
    # torch-xpu-ops-2178 (two identical `Segmentation fault from GPU ... aborting.` lines, the driver's `Abort was
    # called`, one SIGTERM) finds nothing, right: see
    # tests/test_signal_exit_signatures_one_rank_2025_2026_batch399_wordings.py
    # ipex-llm-10763 read right since session 64 (rank 1's `[1]` traceback down to the same `qwen.py`, line 369, in
    # `qwen_attention_forward_quantized` as rank 0's `[0] RuntimeError: shape '[1, 1024, 16, 128]' is invalid ...`, its
    # exception line cut by the excerpt: the same error, no single culprit; docs/rules.md, "Session 64: a second rank's
    # traceback down to the same frame"); it named rank 0 (rank-failure, warning, python-exception, medium)
    # session 63 leftovers
}
