"""The corpus' expectations k10s does not meet yet from session 58's blind batches (350-), each with why; part of
tests/corpus_not_yet.NOT_YET (strict xfail: a case that starts passing must leave this list)."""

from __future__ import annotations

#: Expectations of session 58's batches that we do not meet, with why.
NOT_YET_S58: dict[str, str] = {
    # batch 350 (newest-threads-2026-late-nov-early-dec): none (4/4 controls read right both ways as collected at
    # e241d1f5, 0 of 4 named: vllm#52907's gloo timeout, vllm#52504's RPC timeout and MiaAI-Lab/DeepSeek-v4-Flash-DSpark-
    # 2x-DGX-Spark#65's JIT engine death no finding, flashinfer#3279's EngineDeadError traceback a python-exception of no
    # rank): see tests/test_newest_threads_2026_late_nov_early_dec_batch350_wordings.py
    # batch 351 (settled-lone-rank-culprits-2025): none (3/3 controls read right both ways as collected at cb0366ed,
    # 0 of 3 named: Wan2GP#22 ranks 2 and 5 alike, a python-exception of no rank; sglang#4964's TP3 head without its
    # exception line and sglang#11218's docker-compose-prefixed tail, nothing): see
    # tests/test_settled_lone_rank_culprits_2025_batch351_wordings.py
    # batch 352 (desync-debug-and-collective-fingerprint-reports-2024-2026): 1 of 3 read right both ways as collected
    # (cf9aa5fd): Phi3-Vision-Finetune-41 (rank 0's `[rank0]: RuntimeError: Detected mismatch ... Rank 0 ... but Rank 1`,
    # same sequence number and op, shapes differ, two ranks) names no one
    "pytorch-152623-modded-nanogpt-desync-report-rank7-didnt-join-nccl226-nonblocking-hang":
        "the desync report `[7] finished collective #182, but didn't join collective #183` names rank 7 (nccl-hang, "
        "critical, confidence high), the right rank, but as never-joined where the batch wants lagging-rank: the "
        "report's own words (it finished #182, so it joined the job and ran collectives before it stopped) mark a rank "
        "that fell behind mid-run; that the stop was NCCL 2.26's non-blocking-mode hang is the maintainers' PR, not a line",
    # batch 352: VeOmni-175 read right since session 58 (one fingerprint report whose ranks differ in their tensors'
    # sizes only names no one)
    # batch 353 (multinode-network-bind-rendezvous-hostname-2024-2026): none (4/4 controls read right both ways as
    # collected at 6ab4b65d, 0 of 4 named, no finding at all): sglang-3794 (TP1..TP7 start NCCL, TP7's scheduler
    # exception with no body), verl-2550 (both nodes' workers cannot resolve the bracketed IPv6 store address),
    # torchtune-392 and vllm-omni-6425 (a DistNetworkError on a rendezvous port in use); see
    # tests/test_multinode_network_bind_rendezvous_hostname_2024_2026_batch353_wordings.py
    # batch 354 (checkpoint-load-resume-state-dict-mismatch-2024-2026): 4 of 4 controls read right both ways as
    # collected (ae55b061), no NOT_YET: deepspeed-5570 (rank 1's `size mismatch` lines and SIGTERMs, nothing),
    # megatron-lm-4129 and dlms-are-super-data-learners-4 (DCP's per-rank frames, an info suspect of the tagged rank),
    # rlinf-655 (two Ray actors' alike `ValueError: Size mismatch`, a warning of no rank)
    # batch 355 (pipeline-and-tensor-parallel-one-stage-failures-2024-2026): none (4/4 controls read right both ways as
    # collected at ec87acba, 0 of 4 named): fast-llm-59 (every TP rank's debug-check NaN MISMATCH lines, nothing),
    # colossalai-5940, deepspeedexamples-790 and pippy-1054 (one untagged stage's shape error, a warning of no rank):
    # see tests/test_pipeline_and_tensor_parallel_one_stage_failures_2024_2026_batch355_wordings.py
    # batch 356 (one-rank-sigkill-host-oom-2024-2026): 1 of 3 read right both ways as collected (243d7407):
    # llamafactory-8836 (the agent's SIGTERMs glued to a tqdm bar while 120B shards load, CPU RAM OOM of the whole
    # job: nothing) names no one
    "ms-swift-1208-glm4v-zero3-offload-save-step-local-rank0-sigkill":
        "k10s reads only the step-1 loss dict and the agent's `Sending process 1760810 closing signal SIGTERM` glued to "
        "the tqdm bar and finds nothing; that worker 0 (pid 1760809) died of SIGKILL (`failed (exitcode: -9) local_rank: "
        "0`) at the first ZeRO-3-offload save is the issue title, a line the excerpt does not hold",
    "open-sora-plan-512-v13-checkpoint-save-seven-sigterms-local-rank0-sigkill":
        "k10s reads seven agent `Sending process ... closing signal SIGTERM` lines to survivors and finds nothing; the "
        "culprit's `failed (exitcode: -9) local_rank: 0 (pid: 598577)` is the paste's next line, cut by the excerpt, and "
        "that the kill was host RAM at rank 0's checkpoint save is the author's account",
    # batch 358 (moe-expert-parallel-long-context-failures-2025-2026): 0 of 3 controls read right both ways as
    # collected (eaf2800e); each names the one tagged rank whose error line is in the paste (warning, medium)
    # arcticinference-175 read right since session 64 (c10d's `output tensor size must be equal to world_size times
    # input tensor size`: the collective's sizes from the settings every rank shares, common mode)
    # batch 358: megatron-bridge-1335 read right since session 58 (DeepEP's own dispatch/combine timeout is a wait on
    # peers, a teardown, not the rank's failure)
    "vllm-27998-sequence-parallel-pass-moe-illegal-memory-access-control":
        "rank 1's lone watchdog `CUDA error: an illegal memory access was encountered` names rank 1 (rank-failure, "
        "cuda-error, warning, medium: 'the fault is a kernel's, not its GPU's'); that the kernel is wrong on every rank "
        "because the torch.compile sequence-parallel pass mis-rewrites MoE graphs is the issue's, not a line",
    # batch 359 (forum-and-qa-pages-multi-gpu-errors-2025-2026): 0 of 1 read right as collected (caf36056, 1 control,
    # named both ways); see tests/test_forum_and_qa_pages_multi_gpu_errors_2025_2026_batch359_wordings.py
    "diffusion-pipe-154-dual-rtx5090-nccl-2-25-1-unhandled-cuda-error-control":
        "rank 1's lone `[rank1]: torch.distributed.DistBackendError: NCCL error in: ... unhandled cuda error ..., NCCL "
        "version 2.25.1` / `ncclUnhandledCudaError: Call to CUDA function failed.` names rank 1 (rank-failure, "
        "nccl-error, warning: only its lines are in the paste), as a lone rank's NCCL error does; that NCCL 2.25.1 "
        "cannot run on any RTX 5090 (fixed in 2.26.2), so both ranks meet the same wall, is NVIDIA's threads and the "
        "maintainer's reply, not a line of the paste",
    # batch 360 (consumer-gpu-workstation-p2p-iommu-multi-gpu-2024-2026): 2 of 3 read right both ways as collected
    # (2c0037e6): wsl-12467 (two vLLM workers' alike `unhandled cuda error` under WSL2, a warning of no rank) names no
    # one, and cogvlm-104 (torchrun's `failed (exitcode: -9) local_rank: 0` beside rank 1's store `Connection reset by
    # peer`) names rank 0 (host-oom-kill, warning)
    "llamafactory-8036-wsl2-dual-gpu-rank1-nccl-shm-host-alloc-oom-control": "rank 1's `include/alloc.h:65 NCCL WARN "
    "Cuda failure 2 'out of memory'` is read as rank 1's GPU running out of memory (oom-cascade, cuda-oom, warning, "
    "lone-paste-oom); the frames under it (`transport/shm.cc:534 -> 1`, rank 0's `via SHM/direct/direct` channels) mark "
    "NCCL's shared-memory transport allocating its host buffer, which WSL2 restricts, and that the dual-GPU WSL2 "
    "workstation's GPU memory is ample is the thread's title, not a line",
    # batch 357 (one-rank-busy-alone-others-watchdog-2024-2026): 2 of 3 read right both ways as collected (bc6ad56a):
    # pai-megatron-patch-436 (rank 5's lone watchdog line during a slow save) and transformers-35234 (rank 0's lone
    # _ALLGATHER_BASE timeout, the rank-0-only state_dict() of the PEFT/FSDP save) name no one, an info hang of no rank
    "verl-2238-megatron-dist-checkpoint-rank0-slow-save-rank5-allreduce-watchdog":
        "rank 5's lone watchdog timeout of a one-element ALLREDUCE (SeqNum 29) in Megatron's `sync_all_async_calls` is "
        "read as the job's hang at info with no rank (one rank's wait alone); that rank 0 was the one still saving "
        "(36 minutes against the others' 22) is the maintainer's account in the thread, not a line",
    # session 58 leftovers
}
