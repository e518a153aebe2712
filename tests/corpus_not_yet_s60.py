"""The corpus' expectations k10s does not meet yet from session 60's blind batches (370-), each with why; part of
tests/corpus_not_yet.NOT_YET (strict xfail: a case that starts passing must leave this list)."""

from __future__ import annotations

#: Expectations of session 60's batches that we do not meet, with why.
NOT_YET_S60: dict[str, str] = {
    # batch 372 (recsys-graph-gnn-distributed-training-2024-2026): 3 of 3 read right both ways as collected (2ca8c001),
    # no NOT_YET, all three controls, 0 of 3 named: torchrec-1614 (SpawnProcess-1's planner `RuntimeError: No available
    # sharding type and compute kernel combination ...`, a warning python-exception of no rank), dgl-7426 (GraphStorm
    # DistGB trainers' `Duplicate GPU detected : rank 10 and rank 8 both on CUDA device 160`, a warning nccl-error of no
    # rank), dgl-7381 (a spawned GraphBolt loader worker's untagged unpickle frames cut before the exception, no finding):
    # see tests/test_recsys_graph_gnn_distributed_training_2024_2026_batch372_wordings.py
    # batch 374 (axolotl-torchtune-unsloth-llm-finetune-multi-gpu-2025-2026): 3 of 3 read right both ways as collected
    # (5c00a367), no NOT_YET, all three controls, 0 of 3 named: axolotl-2267 (a tmux capture of two ranks' first
    # collective timing out, `Timeout at NCCL work: 1 ... last completed NCCL work: -1.`, an info nccl-hang of no single
    # culprit), axolotl-2797 (rank 1's GRPO `AttributeError: ... 'current_gradient_accumulation_steps'` + rank 0's
    # traceback header, a warning python-exception of no rank), trl-4850 (rank 3's traceback head cut before the
    # exception, an info suspect): see tests/test_axolotl_torchtune_unsloth_llm_finetune_multi_gpu_2025_2026_batch374_wordings.py
    # session 60 leftovers
}
