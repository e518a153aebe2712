"""The corpus' expectations k10s does not meet yet from session 59's blind batches (361-), each with why; part of
tests/corpus_not_yet.NOT_YET (strict xfail: a case that starts passing must leave this list)."""

from __future__ import annotations

#: Expectations of session 59's batches that we do not meet, with why.
NOT_YET_S59: dict[str, str] = {
    # batch 363 (nccl-communicator-setup-errors-gpu-driver-container-2025-2026): 4 of 4 read right both ways as collected
    # (b9b7f219), none NOT_YET (4/4 controls, 0 of 4 named): pytorch#152077's lone device-[0] `Cuda failure 'named symbol
    # not found'` under NCCL 2.14.3+cuda11.8 a rankless cuda-error warning; production-stack#276's pod-shm
    # `Error while creating shared memory segment` a rankless nccl-error warning; vllm#19613's one `ibv_reg_dmabuf_mr
    # failed` WARN and dynamo#1408's device-[0] `/dev/shm ... No space left on device (28)` no finding at all: see
    # tests/test_nccl_communicator_setup_errors_gpu_driver_container_2025_2026_batch363_wordings.py
    # batch 364 (dataloader-worker-killed-shm-bus-error-2024-2026): 3 of 3 read right both ways as collected (cd6c3f5d):
    # none (3/3 controls, 0 of 3 named: codalab-worksheets#3742's unranked `DataLoader worker (pid 52) is killed by
    # signal: Bus error` a warning sigbus of no rank, 3DRS#7's unranked `... killed by signal: Killed.` a warning
    # host-oom-kill of no rank, streaming#493's lone `ERROR: Unexpected bus error encountered in worker.` nothing; a
    # warning sigbus of no rank since session 59's wrapped wordings): see
    # tests/test_dataloader_worker_killed_shm_bus_error_2024_2026_batch364_wordings.py
    # batch 365 (multinode-one-node-fails-deepspeed-accelerate-torchrun-2025-2026): 3 of 3 read right both ways as
    # collected (88f33cbe), no NOT_YET, all three controls, 0 of 3 named: gpt-neox-919 (ML-01 builds the index maps,
    # ML-02's bare traceback header, no finding) and gpt-neox-1127 (five pdsh hosts' interleaved dataset frames, no
    # exception line, no finding); deepspeed-2899 (gpu-q-13's softmax OOM, a critical cuda-oom of no rank): see
    # tests/test_multinode_one_node_fails_deepspeed_accelerate_torchrun_2025_2026_batch365_wordings.py
    # batch 366 (cuda-illegal-memory-access-device-assert-one-rank-or-all-2024-2026): 1 of 3 read right both ways as
    # collected (876bffe2): medicalgpt-23 (untagged `indexSelectLargeIndex` asserts and `device-side assert triggered`,
    # the script's out-of-vocabulary pad id) is a cuda-error warning of no rank
    # batch 366: mmengine-1557 read right since session 59 (NCCL's CUDA failure launching its collective, in a lone
    # paste, is a suspect only)
    # batch 366: vllm-18045 read right since session 72 (docs/rules.md "Session 72: workers raising in the same
    # second": rank 2's record from the same handler in the same second as rank 3's illegal instruction, no single culprit)
    # batch 362 (log-collector-prefixed-pastes-2024-2026): 3 of 3 read right both ways as collected (8835fbcc), no
    # NOT_YET, 0 of 3 controls named: verl-1611 (one Ray `(WorkerDict pid=N)` worker's SGLang illegal memory access,
    # a cuda-error warning of no rank), openrlhf-866 (one `(LLMRayActor pid=N)` actor's `device=1` INTERNAL ASSERT,
    # a python-exception warning of no rank; cuda-error since session 59), llamafactory-6075 (pdsh's host-prefixed
    # launcher spawn line, nothing);
    # see tests/test_log_collector_prefixed_pastes_2024_2026_batch362_wordings.py
    # batch 367 (chinese-japanese-blog-and-qa-pages-multi-gpu-2024-2026): 4 of 4 read right both ways as collected
    # (bb193b96), no NOT_YET, 0 of 4 controls named: csdn-gitblog-151474550 (DeepSpeed's lone `indexSelectLargeIndex ...
    # Assertion `srcIndex < srcSelectDimSize` failed`) and gitcode-blog-ab6ebba8 (Megatron-DeepSpeed TP=1's `CUDA error:
    # device-side assert triggered`), a cuda-error warning of no rank; gitcode-blog-c78323ca (vLLM's `NCCL WARN
    # socketStartConnect ... Software caused connection abort` + `NCCL error: unhandled system error`), an nccl-error
    # warning of no rank; gitcode-blog-a552f72d (one `NCCL WARN NET/IB : Got completion from peer ... with error 12`),
    # nothing: see tests/test_chinese_japanese_blog_and_qa_pages_multi_gpu_2024_2026_batch367_wordings.py
    # batch 368 (committed-job-logs-in-repositories-2023-2026): 1 of 3 read right both ways as collected (feea150c):
    # genetictrading-...-four-ranks-syntaxerror-training-prefix-control (four `[TRAINING] `-prefixed SyntaxError tracebacks,
    # Root Cause rank 0) a python-exception warning of no rank; see
    # tests/test_committed_job_logs_in_repositories_2023_2026_batch368_wordings.py
    "genetictrading-pasted-start-system-rank0-ga-typeerror-elite-count-ranks1-3-sigterm":
        "rank 0's lone `[rank0]: TypeError: run_ga_evolution() got an unexpected keyword argument 'elite_count'` reads as "
        "a python-exception warning of no rank ('every process runs the same code: it fails them all alike'), but no "
        "other rank raised anything: the agent SIGTERMs the other three, reports `<NO_OTHER_FAILURES>` and Root Cause "
        "rank 0, and GPU 2's NCCL says `Connection closed by localRank 0`; the GA phase runs on rank 0 only, so the "
        "code-bug-alike reading needs another rank's own failure before it may clear the one rank that raised",
    "deepseek-training-train-err-accelerate-four-gpus-device-mismatch-launcher-local-rank1-control":
        "names rank 1 (python-exception, warning, 'only its exit status is in the logs') from the agent's `failed "
        "(exitcode: 1) local_rank: 1` and Root Cause rank 1, but the run carries four bare copies of torch's device-"
        "mismatch message `Expected all tensors to be on the same device, but found at least two devices, cuda:N and "
        "cpu!` for N = 0, 3, 2, 1 (stderr lost the `Traceback` and `RuntimeError:` heads), one per process of a "
        "4-process node: every rank failed alike (a CPU-offloading device map), the launcher's first exit is no culprit",
    # batch 369 (chinese-language-github-issues-llm-training-2025-2026): 2 of 3 read right both ways as collected
    # (3de7d674), all three controls: ms-swift-2776 (rank 0's `Error while creating shared memory segment /dev/shm/...`
    # under a DistBackendError, rank 1's traceback after it) a rankless nccl-error warning; llamafactory-4035 (two
    # untagged `ModuleNotFoundError: No module named 'llamafactory'` and the agent's `local_rank: 0` from the base
    # Anaconda's torchrun) a rankless python-exception warning; ms-swift-3551 named rank 4
    # batch 369: ms-swift-3551 read right since session 59 (a lone paste's full disk is a suspect only, at info)
    # session 59 leftovers
}
