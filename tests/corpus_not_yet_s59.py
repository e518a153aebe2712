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
    # host-oom-kill of no rank, streaming#493's lone `ERROR: Unexpected bus error encountered in worker.` nothing): see
    # tests/test_dataloader_worker_killed_shm_bus_error_2024_2026_batch364_wordings.py
    # batch 365 (multinode-one-node-fails-deepspeed-accelerate-torchrun-2025-2026): 3 of 3 read right both ways as
    # collected (88f33cbe), no NOT_YET, all three controls, 0 of 3 named: gpt-neox-919 (ML-01 builds the index maps,
    # ML-02's bare traceback header, no finding) and gpt-neox-1127 (five pdsh hosts' interleaved dataset frames, no
    # exception line, no finding); deepspeed-2899 (gpu-q-13's softmax OOM, a critical cuda-oom of no rank): see
    # tests/test_multinode_one_node_fails_deepspeed_accelerate_torchrun_2025_2026_batch365_wordings.py
    # session 59 leftovers
}
