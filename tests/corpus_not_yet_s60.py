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
    # batch 371 (speech-audio-asr-tts-training-multi-gpu-2024-2026): 2 of 3 read right both ways as collected
    # (4e5ea10d), all three controls: F5-TTS-1008 (the lone `DDP expects same model across all ranks, but Rank 2 has 363
    # params, while rank 0 has inconsistent 0 params.`, the multi-node NCCL env) a collective-mismatch warning of no
    # rank; icefall-1390 (both processes' `Using DDP`, the spawn traceback cut before its exception line, torch 2.1.0
    # alike) nothing: see tests/test_speech_audio_asr_tts_training_multi_gpu_2024_2026_batch371_wordings.py
    "espnet-1801-eight-gpu-scp-load-host-oom-process1-sigkill-control":
        "the parent's lone `Exception: process 1 terminated with signal SIGKILL` (espnet2's spawn join, 8 GPUs on one "
        "256G host) names rank 1 as killed by the host's OOM killer (warning, medium), but the author settles it as "
        "every process loading the same 37.7M-line feats.scp/text/shape files until the shared host RAM ran out: the "
        "OOM killer's SIGKILL picks one victim among identical ranks, so a bare spawn SIGKILL with no per-rank memory "
        "evidence is a job-wide host-memory event, not rank 1's own fault",
    # batch 370 (diffusion-video-image-generation-training-multi-gpu-2025-2026): 1 of 3 read right both ways as
    # collected (7472d2c7): LTX-2-57 (one untagged OOM on GPU 0 listing four processes 16746-16749, every rank's text
    # encoder loaded onto GPU 0) a critical cuda-oom of no rank; the two misses:
    # DiffSynth-Studio-411 read right since session 60 (torch's `[rankN]: ` tag whose `[` the copy lost, `rank4]: ` at
    # the line's start, is read as rank 4's: rank 4's lone OOM names rank 4, warning, cuda-oom)
    # batch 370: DiffSynth-Studio-703 read right since session 60 (a lone paste's autograd refusal of the program's graph,
    # `element 0 of tensors does not require grad and does not have a grad_fn`, is a suspect only: low_why
    # lone-paste-autograd-graph)
    # batch 373 (object-detection-segmentation-ddp-2025-2026): 1 of 2 read right both ways as collected (f777149d);
    # ultralytics-14093 (RT-DETR start-up lines only, `--nproc_per_node 2` debug command) names no one, right
    "seamseg-19-panoptic-eight-gpus-gpu5-cuda-oom":
        "the lone untagged PyTorch 1.x OOM `RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB (GPU 5; 10.92 "
        "GiB total capacity; ...)` is read as an oom-cascade critical cuda-oom of no rank ('A rank ... ran out of GPU "
        "memory', headroom 1782 MiB for 2048 MiB asked); the `(GPU 5; ...)` device index of the old message is not "
        "taken as local rank 5, which on this one-machine, one-process-per-GPU job (8 GPUs) is the rank that failed",
    # batch 374 (axolotl-torchtune-unsloth-llm-finetune-multi-gpu-2025-2026): 3 of 3 read right both ways as collected
    # (5c00a367), no NOT_YET, all three controls, 0 of 3 named: axolotl-2267 (a tmux capture of two ranks' first
    # collective timing out, `Timeout at NCCL work: 1 ... last completed NCCL work: -1.`, an info nccl-hang of no single
    # culprit), axolotl-2797 (rank 1's GRPO `AttributeError: ... 'current_gradient_accumulation_steps'` + rank 0's
    # traceback header, a warning python-exception of no rank), trl-4850 (rank 3's traceback head cut before the
    # exception, an info suspect): see tests/test_axolotl_torchtune_unsloth_llm_finetune_multi_gpu_2025_2026_batch374_wordings.py
    # batch 376 (windows-wsl-multi-gpu-ddp-2024-2026): 3 of 3 read right both ways as collected (a1bfb47d), no NOT_YET,
    # all three controls, 0 of 3 named: torchgeo-1198 (Lightning's two `GLOBAL_RANK` start-up lines with Windows' 10049
    # connect warnings, the missing-NCCL RuntimeError past the excerpt) no finding; LlamaFactory-4359 (`Distributed
    # package doesn't have NCCL built in`, then the agent's `local_rank: 0` exit 1) and ultralytics-17080 (torchrun's own
    # traceback, `use_libuv was requested but PyTorch was build without libuv support`) a warning python-exception of no
    # rank: see tests/test_windows_wsl_multi_gpu_ddp_2024_2026_batch376_wordings.py
    # batch 375 (gaudi-hpu-trainium-neuron-multi-device-training-2024-2026): 2 of 3 read right both ways as collected
    # (03a4f223), both controls, 0 of 2 named: xla-8295 (gcloud's `SSH: Attempting to connect to worker 0..3` and the
    # head of the xmp.spawn launcher traceback, no exception line) nothing; ray-65070 (the lone `Nrt::BuildGlobalComm
    # failed on NeuronCores 0-1(2)` of a 64-worker two-instance job) nothing: see
    # tests/test_gaudi_hpu_trainium_neuron_multi_device_training_2024_2026_batch375_wordings.py
    # aws-neuron-sdk-779 read right since session 61 (the Neuron runtime's cross-rank program check, `mismatching number
    # of cc ops, expected 3 received 6. Check if ranks 0 and 1 are using the same neff`, is a collective-mismatch; of
    # exactly ranks 0 and 1 rank 0 is named, whose rank-0-only code cut another graph: tests/test_neuron_cc_ops_mismatch.py)
    # batch 378 (quantized-qlora-bitsandbytes-fp8-training-multi-gpu-2025-2026): 2 of 3 read right both ways as collected
    # (42a948ac), all three controls: ao-4106 (rank 1's float8 `_scaled_mm` `Expected trailing dimension of mat1 to be
    # divisible by 16 ... (32x8)` + rank 0's traceback head of the same TP test, a warning python-exception of no rank);
    # torchtitan-764 (one indented untagged float8 `RuntimeError: max(): ... input.numel() == 0` from a 128-GPU FSDP2
    # job, no finding): see tests/test_quantized_qlora_bitsandbytes_fp8_training_multi_gpu_2025_2026_batch378_wordings.py
    # batch 378: Qwen-VL-Series-Finetune-7 read right since session 60 (a lone paste's setup refusal, `NotImplementedError:
    # Cannot copy out of meta tensor`, is a suspect only: low_why lone-paste-setup-refusal)
    # batch 377 (newest-threads-2026-late-nov-dec-any-repo): 2 of 2 read right both ways as collected (4f3ecd28), no
    # NOT_YET, both controls, 0 of 2 named: modelscope-1239 (rank 7's GRPO `infer_rank` traceback cut after its
    # `assert` source line) and ms-swift-5592 (rank 0's traceback through `_check_grpo`, cut before its ValueError) are
    # each an info python-exception suspect, confidence low (a lone traceback cut before its exception): see
    # tests/test_newest_threads_2026_late_nov_dec_any_repo_batch377_wordings.py
    # batch 379 (robotics-rl-isaaclab-multi-gpu-training-2024-2026): 1 of 2 read right both ways as collected
    # (3034b569), both controls: rl_games-284 (the inline-quoted `NCCL WARN Duplicate GPU detected : rank 1 and rank 0
    # both on CUDA device`, the missing `torch.cuda.set_device(local_rank)` of continuous A2C) no finding, right: see
    # tests/test_robotics_rl_isaaclab_multi_gpu_training_2024_2026_batch379_wordings.py
    # batch 379: lerobot-2270 read right since session 60 (a lone paste's setup refusal, `You can't train a model ...
    # in any distributed mode`, is a suspect only: low_why lone-paste-setup-refusal)
    # batch 380 (scientific-ml-weather-molecular-physics-multi-gpu-2024-2026): 3 of 3 read right both ways as collected
    # (913444cc), no NOT_YET: torchmd-net-324 and torchmd-net-323 (Lightning's `[rank: N] Child process ... terminated
    # with code 1` after the DataLoader's `Pin memory thread exited unexpectedly`) name rank 1 and rank 2
    # (python-exception, warning, medium); the control mace-458 (torchrun over MACE's own launcher, c10d port 12355
    # `Address already in use`) is a rendezvous-port-in-use warning of no rank: see
    # tests/test_scientific_ml_weather_molecular_physics_multi_gpu_2024_2026_batch380_wordings.py
    # session 60 leftovers
}
