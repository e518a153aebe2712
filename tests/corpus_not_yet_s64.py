"""The corpus' expectations k10s does not meet yet from session 64's blind batches (400-), each with why; part of
tests/corpus_not_yet.NOT_YET (strict xfail: a case that starts passing must leave this list)."""

from __future__ import annotations

#: Expectations of session 64's batches that we do not meet, with why.
NOT_YET_S64: dict[str, str] = {
    # batch 400 (japanese-chinese-blog-posts-multi-gpu-training-errors-2024-2026): 2 of 2 read right both ways as
    # collected (035a3e48), no NOT_YET, both controls, only 2 usable threads in ~70 searches (the blog/Q&A page corpus
    # held no console paste with a settled answer; both are Chinese-language GitHub Q&A threads): ChatGLM3-800
    # (torchrun's table, rank 1 and the "Root Cause" rank 0 both `exitcode  : 1` in the same second, a wrong dataset
    # path) is a python-exception warning of no rank; Chinese-LLaMA-Alpaca-3-47 (the agent's own `Received
    # Signals.SIGHUP death signal` glued to a tqdm bar, nohup) gives no finding: see
    # tests/test_japanese_chinese_blog_posts_multi_gpu_training_errors_2024_2026_batch400_wordings.py
    # batch 401 (one-gpu-or-node-hardware-faults-xid-ecc-nvlink-ib-2024-2026): 2 of 3 read right both ways as
    # collected (1abd06b1), one NOT_YET, two controls (only 3 usable threads in ~60 searches: the theme's settled
    # threads are mined already): vllm-40604 (ranks 5-7's interleaved Gloo start-up lines and one worker's FlashInfer
    # banner of an 8x B200 DeepSeek-R1 hang after NCCL init, fixed by rebooting the node) finds nothing, right;
    # TensorRT-LLM-17060 (untagged `NVLinkOneSided not available: Invalid Argument` and NVSHMEM `cuMemMap failed` on a
    # healthy NVL72 node, an NVML probe bug) names no rank, right: see
    # tests/test_one_gpu_or_node_hardware_faults_xid_ecc_nvlink_ib_2024_2026_batch401_wordings.py
    "sglang-34260-kimi-k3-b300-tp4-xid13-cta-not-present-dmesg":
        "a gpu-health warning `Xid 13 on 0000:9a:00.0` of no rank: the paste is the node's kernel log alone (five "
        "`NVRM: Xid (PCI:0000:9a:00): 13, Graphics SM Cga Exception ... CTA Not Present` / ESR lines on one PCI "
        "address), which names no rank, GPU index or pid; the truth is TP4 (the author's occurrence table maps crash "
        "1 to `TP4 | 4 | 0000:9a:00`; one TP rank raises the CUDA error, the other seven block), cuda-error, the GPU "
        "not defective (the next crash hit TP5 on another card, a Kimi-K3 kernel bug); naming a rank needs a "
        "PCI-to-rank map (a nvidia-smi bus-id table or a `[rankN]` line saying which device it runs on) that the "
        "paste does not carry",
    # batch 402 (k8s-operators-skypilot-determined-one-worker-pod-failed-2024-2026): 2 of 2 read right both ways as
    # collected (3ec228c8), no NOT_YET, both controls, only 2 usable threads in ~105 searches (the operators' settled
    # one-pod threads are mined already, or their logs are screenshots or past the stored excerpt): skypilot-4448
    # (head's and worker1's identical `NCCL WARN socketStartConnect ... Software caused connection abort` under
    # SkyPilot's node prefix, then worker1's `[rank7]: Traceback`) gives no finding at all (no rank, but no nccl-error
    # either); verl-726 (the driver's untagged `DistBackendError ... socketStartConnect: Connect to 169.254.0.1`) is an
    # nccl-error warning of no rank: see
    # tests/test_k8s_operators_skypilot_determined_one_worker_pod_failed_2024_2026_batch402_wordings.py
    # session 64 leftovers
}
