"""The corpus' expectations k10s does not meet yet from session 62's blind batches (388-), each with why; part of
tests/corpus_not_yet.NOT_YET (strict xfail: a case that starts passing must leave this list)."""

from __future__ import annotations

#: Expectations of session 62's batches that we do not meet, with why.
NOT_YET_S62: dict[str, str] = {
    # batch 388 (rl-post-training-verl-openrlhf-trl-grpo-multi-node-2025-2026): 3 of 3 read right both ways as
    # collected (8ce7bb68), three controls, only 3 usable threads found: Qwen-VL-Series-Finetune-234 (rank 0's lone
    # reward-call `TypeError: accuracy_reward() missing 1 required positional argument: 'assistant'`) a rankless
    # python-exception warning; rllm-10 (NCCL's lone `Duplicate GPU detected : rank 7 and rank 5 both on CUDA device
    # 10000`) nothing; open-r1-236 (rank 1's GRPOTrainer traceback cut at `raise ValueError(`) an info suspect only: see
    # tests/test_rl_post_training_verl_openrlhf_trl_grpo_multi_node_2025_2026_batch388_wordings.py
    # session 62 leftovers
}
