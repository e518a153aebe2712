"""The corpus' expectations k10s does not meet yet from session 38's blind batches (227-), each with why; part of
tests/corpus_not_yet.NOT_YET (strict xfail: a case that starts passing must leave this list)."""

from __future__ import annotations

#: Expectations of session 38's batches that we do not meet, with why.
NOT_YET_S38: dict[str, str] = {
    # batch 227
    # batch 228
    # batch 229
    "accelerate-1194-dreambooth-t4-oom-gpu0-local-rank0-job-memory-control":
        "a lone CUDA out-of-memory on GPU 0 with the launcher's `failed (exitcode: 1) local_rank: 0` is the corpus' culprit "
        "shape (a lone rank's OOM, named cuda-oom); that DreamBooth outgrows every 15 GB T4 alike, rank 0 only the first the "
        "launcher saw, is the author's account (it runs on one GPU, fails on several), not a log line",
    # batch 230
    "verl-1208-sglang-gh200-flashinfer-workerdict-0-2-died-version-control":
        "Ray's `ActorDiedError` for `PfngwQWorkerDict_0:2` (`SYSTEM_ERROR ... End of file`) is, line for line, the corpus' "
        "lone-worker culprit shape (verl#4921, verl#2987, and verl#1759 in this batch name the `WorkerDict_0:N` rank); that a "
        "flashinfer regression ran every GH200 worker out of memory, rank 2 only the first Ray saw dead, is the thread's "
        "version fix, not a log line",
    # batch 232
    "trl-3436-fsdp-8x-rtx3080-rank0-oom-every-rank-control":
        "the log is rank 0's lone `torch.OutOfMemoryError` (GPU 0, 388 MiB asked, 95 MiB free) with its `[rank0]:` traceback, "
        "the corpus' lone-rank OOM culprit shape, so rank 0 is named (cuda-oom); that a 7B FSDP job fits none of the eight "
        "10 GB cards, rank 6 failing the same way, is the title and the rest of the paste, not this excerpt",
    # batch 233
    "ultralytics-21344-ddp-rank0-tal-get-targets-traceback-oom-cut":
        "the log is rank 0's assigner traceback (`tal.py line 206, in get_targets`) with no exception line, which is read as "
        "rank 0's Python exception (info); that it is a CUDA out-of-memory is the thread's next line, cut by the excerpt window",
    "ultralytics-20843-obb-ddp-rank0-validation-traceback-oom-offscreen":
        "the log is rank 0's traceback head into `validate()` with no exception line, read as rank 0's Python exception (info); "
        "that the OBB validation ran out of GPU memory is the issue's title and label, not a log line",
    "omini-kontext-22-flux-lora-4xh100-rank2-linear-traceback-oom-cut":
        "the log is rank 2's traceback tail into the LoRA `F.linear` with no exception line, read as rank 2's Python exception "
        "(info); the CUDA out-of-memory is the thread's next line, cut by the excerpt window",
    # Megatron-LM-FL-143 read right since session 57 (Triton's CompilationError is every rank's: common mode)
    # batch 236
    "pytorch-105287-a800-gpu2-rank0-reduce-scatter-desync-behind":
        "the log is the tail of a TORCH_DISTRIBUTED_DEBUG desync report (`[0] finished`, `#330 started ranks:`, `[1] started`) "
        "and an info-level `[I ...] [Rank 0] NCCL watchdog thread terminated with exception: ... INTERNAL ASSERT FAILED`, which "
        "nothing reads as a rank behind, so no finding is made; that rank 0 is GPU 2 and that GPU is bad is the author's "
        "bisection of GPU pairs in the thread, not a log line",
    "finetrainers-344-wsl2-cuda-999-alloc-rank0-platform-control":
        "a lone process `[0]` with `NCCL WARN Cuda failure 999 'unknown error'` and the framework's `unhandled cuda error` is "
        "the corpus' lone-rank CUDA-error culprit shape, so rank 0 is named; that the same error comes on one GPU alone under "
        "WSL2 (a platform error, not one bad card) is the author's account in the thread, not a log line",
    # batch 237
    "LlamaFactory-9313-qwen25vl-4xa800-ds-rank0-image-token-mismatch-cutoff-len":
        "the log is the head of rank 0's `[rank0]: Traceback` (launcher.py -> run_exp -> run_sft) with no exception line, "
        "read as rank 0's Python exception at info (a suspect, not a culprit); that the ValueError came from a sample cut "
        "by cutoff_len on rank 0 alone (fixed by cutoff_len 4096) is the title and the thread, not a log line",
    "LlamaFactory-7160-deepspeed-rank5-compute-loss-image-token-mismatch":
        "the log is rank 5's frames from trainer.train into compute_loss and DeepSpeed's `wrapped_fn`, with neither a "
        "Traceback header nor an exception line, read as rank 5's Python exception at info; that rank 5 raised the "
        "image-token ValueError in its own forward is the issue's title, not a log line",
    "LlamaFactory-10241-qwen35-timestamped-rank2-traceback-image-token-mismatch":
        "the log is the head of rank 2's timestamped `[rank2]: Traceback` down to run_sft with no exception line, read as "
        "rank 2's Python exception at info; the ValueError ending that traceback (tokens 8422, features 8779) is the "
        "title and the thread's next excerpt, not a log line",
    # batch 238
    "torchtitan-774-zbv-pp4-rank3-stage-keyerror-schedule-control":
        "the log is rank 3's lone complete traceback ending in its own `KeyError: 6` (doubled `[rank3]:[rank3]:` prefix), the "
        "corpus' lone-rank-exception shape, so rank 3 is named (python-exception); that the ZBV schedule asks for a stage the "
        "configured pp=4 stage assignment never put on it, on every pipeline rank alike, is the config in the description, "
        "not a log line",
    # batch 241
    "LlamaFactory-8226-gemma3-rank3-step101-image-placeholder-truncated-by-cutoff":
        "the log is the head of rank 3's `[rank3]: Traceback` (glued to the step-101 tqdm bar, down to run_sft) with no "
        "exception line, read as rank 3's Python exception at info (a suspect, not a culprit); that the image-token "
        "ValueError came from one sample whose placeholder cutoff_len truncated, on rank 3 alone, is the title and the "
        "collaborator's reply, not a log line",
    # batch 243
    "rccl-1728-mi300x-4gpu-rank2-allreduce-reverse-path-internal-error-every-rank-control":
        "the log is rank 2's lone traceback ending in its own `DistBackendError ... internal error` and RCCL's `Failed to "
        "find reverse path from remNode ...` (the only rank printed), the corpus' lone-rank NCCL-error shape, so rank 2 is "
        "named (nccl-error, warning); that all 4 MI300X ranks fail alike on the VM's topology is the author's sentence in "
        "the description, not a log line",
    # batch 246
    "Wan2.2-332-4x4090-ti2v-5b-launcher-root-cause-rank0-vae-decode-oom":
        "the log is torchrun's `generate.py FAILED` table naming one root cause, `rank : 0 (local_rank: 0)` with "
        "`exitcode : 1` and `<NO_OTHER_FAILURES>`, read as rank 0's Python exception (an exit code 1 carries no error "
        "class); that rank 0 ran out of GPU memory in the VAE decode only it performs is the title, the commenters and "
        "Wan's pipeline code, not a log line",
    "Wan2.2-19-4x4090-ti2v-5b-four-ranks-sampled-rank0-vae-decode-traceback":
        "the log is four finished `50/50` sampling bars and the head of rank 0's `[rank0]: Traceback` down to "
        "`generate` with no exception line, read as rank 0's Python exception at info; that the traceback ends in a CUDA "
        "out-of-memory in the rank-0-only VAE decode is the issue's title and Wan's pipeline code, not a log line",
    # batch 247
    # nccl-1788-h100-vllm-nvls-multicast-cuda401-dev1-fabric-control: read right since session 62 (NCCL's NVLS WARN of
    # any CUDA code is the node's NVSwitch fabric, no rank: tests/test_nccl_nvls_fabric_state.py); was "the log is one
    # process's two NVLS lines, `node004:27907:27907 [1] transport/nvls.cc:254 NCCL WARN Cuda failure 401 ...` and
    # `nvls.cc:409 -> 1`, the only device printed, read as the corpus' lone-rank CUDA-error shape with device [1] taken
    # as rank 1 (warning since session 45: the paste holds that process only)"
    # batch 248
    "trl-2688-grpo-8xh100-vllm-init-on-main-process-rank0-oom":
        "the log is vLLM's start-up INFO lines and the head of rank 0's `[rank0]: Traceback` into `self.llm = LLM(` with "
        "no exception line, read as rank 0's Python exception at info (a suspect, not a culprit); that rank 0, the only "
        "process building the vLLM engine, ran its device out of memory is the description and the maintainer's fix "
        "(lower vllm_gpu_memory_utilization), not a log line",
    "trl-3622-grpo-vllm-server-mode-rank0-connection-error-cut-traceback":
        "the log is the four-line head of rank 0's `[rank0]: Traceback` (grpo.py -> main) with no exception line, read as "
        "rank 0's Python exception at info (a suspect, not a culprit); that rank 0, the only process talking to the vLLM "
        "server, raised a ConnectionError during the weight sync is the description, not a log line",
    # batch 249
    # lightning-thunder-2629 read right since session 64 (an API's `TypeError: Expected `model` to be of type …, but
    # got …` check of what the script hands it: every rank's alike, common mode)
    "rf-detr-1093-ddp-2gpu-torchrun-local-rank0-exitcode1-unused-parameters-control":
        "the log is torchrun's `failed (exitcode: 1) local_rank: 0` after SIGTERMing the only other worker, the corpus' "
        "launcher-first-failure shape, so local rank 0 is named (python-exception, warning); that both ranks raise DDP's "
        "unused-parameter error at the second step, rank 0 only the first exit the agent saw, is the title and PR #1094, "
        "not a log line",
    # batch 250
    "pytorch-178085-rtx-pro-6000-ddp-init-reducer-lone-rank3-illegal-memory-access-control":
        "the log is rank 3's lone `[rank3]:` traceback in DDP's `dist.Reducer(` construction ending in its own `CUDA error: "
        "an illegal memory access was encountered`, the corpus' lone-rank CUDA-error shape, so rank 3 is named (cuda-error, "
        "warning); that the same DDP start-up fails on this torch 2.7.0/cu128 Blackwell stack after working on 2.1.0, on no "
        "particular rank, is the reporter's description, not a log line",
    # batch 251
    "Thinkless-4-four-v100-workerdict-0-2-died-triton-ampere-assert-control":
        "Ray's `ActorDiedError` for `HPjKLZWorkerDict_0:2` (`SYSTEM_ERROR ... End of file`) is the corpus' lone-worker "
        "culprit shape (a `WorkerDict_0:N` actor named dead, nothing else), so rank 2 is named (exit-unknown, warning); that "
        "Triton's `mma -> mma layout conversion is only supported on Ampere` assertion aborts every worker alike on the "
        "four V100s is the author's follow-up comment, not a log line",
    # batch 252
    "ms-swift-6849-megatron-grpo-end-of-run-reversed-table-rank19-sigabrt-control":
        "the log is a torchrun report pasted bottom-to-top whose only root-cause entry is rank 19's `exitcode : -6`, the "
        "lone-rank abort shape, so rank 19 is named (abort, warning); that the SIGABRT came in the exit path after every "
        "step had finished, a Megatron MoE teardown problem every rank shares, is the description and ms-swift's fix for "
        "the same symptom, not a log line",
    # batch 252: LlamaFactory-10224 read right since session 61 (a lone paste's `Detected a disagreement on list length
    # between rank0 and rank7`, a check comparing two ranks, is a suspect only: low_why lone-paste-cross-rank-check)
    "ms-swift-7200-torch28-vllm011-colocate-local-rank0-sigsegv-translated-table-control":
        "the log is the agent's `failed (exitcode: -11) local_rank: 0` with a root-cause block (translated into Chinese) "
        "naming only that worker, the lone-rank segfault shape, so rank 0 is named (warning since session 45: the paste "
        "holds that worker only); that the vLLM 0.11 engine start segfaults in every colocated rank while `vllm serve` "
        "alone works is the description, not a log line",
    # batch 256
    "cloudai-486-nemo2-llama70b-node-295-026-ranks40-42-43-nan-grad-norm":
        "the log is three `Unexpected error: Rank N, node cw-dfw-h100-002-295-026, device D, iteration -1: Unexpected "
        "result nan (message='found NaN in local grad norm ...')` lines, a prefix-less CloudAI wrapper of Megatron's "
        "rerun-state-machine message that the importer does not take as a rank-naming line (no `[rankN]:`, no launcher "
        "report), so no rank is read and nothing is found (and tagged `[rank40]:`, the NaN-check message is read as a "
        "check every rank runs, naming none); that ranks 40, 42 and 43 of that one node are the suspects is the PR "
        "author's \"node level issue\" sentence, not a log line",
    # batch 258
    "ms-swift-8371-qwen3vl-multinode-extend-tokens-masked-scatter-ranks8-11-device-assert":
        "the log names rank 8 alone (its watchdog's `CUDA error: device-side assert triggered` after two unprefixed "
        "`masked_scatter_size_check` assertions), so rank 8 is named (cuda-error, warning); that rank 11 asserted the same "
        "way 5 ms later is the rest of the same paste, outside the excerpt, not a log line",
    "trl-5386-ci-rloo-fsdp2-both-procs-device-assert-local-rank0-sigabrt-control":
        "the log is one process's watchdog abort frames and the agent's `failed (exitcode: -6) local_rank: 0` with the "
        "other worker SIGTERMed, the corpus' lone-rank abort shape, so rank 0 is named (abort, warning); that both "
        "processes hit the same device-side assert in the RLOO FSDP2 test is the maintainer's report and the second "
        "address space in the thread's trace, not a log line",
    # batch 255
    "ms-swift-5199-qwen25vl-lora-two-a6000-rank0-oom-attention-mask-step0-control":
        "the log is rank 0's lone `torch.OutOfMemoryError` (GPU 0, 1.15 GiB asked) at the end of its `[rank0]:` traceback, "
        "the corpus' lone-rank OOM shape, so rank 0 is named (cuda-oom, warning); that the 20480-token Qwen2.5-VL setting "
        "fits neither 48 GB card, rank 1's traceback coming first in the same paste, is the rest of the thread, not this "
        "excerpt",
    # batch 254
    "pytorch-152302-ddp-two-gpu-process1-nccl-cumem-host-alloc-platform-control":
        "the log is mp.spawn's `-- Process 1 terminated with the following error:` with process 1's traceback into DDP's "
        "`_verify_params_across_processes` and the parent SIGTERMing the other process, the lone-failing-process shape, so "
        "rank 1 is named (python-exception, warning); that NCCL 2.26's cuMem host allocation fails alike in every process "
        "(workaround NCCL_CUMEM_HOST_ENABLE=0) is the NCCL maintainers' reading in the thread, not a log line",
    # batch 254: torchtitan-1396 read right since session 61 (a lone paste's `KeyError: ("Mesh dimension 'ep' does not
    # exist.", ...)`, a device-mesh dimension the config never built, is a suspect only: low_why
    # lone-paste-program-structure)
    # batch 262
    "nccl-348-two-8-gpu-nodes-16-procs-ranks8-15-invalid-device-ordinal-one-host-tag":
        "the log is eight `[1,8]`..`[1,15]` ranks each printing the same `Test CUDA failure ... 'invalid device ordinal'` "
        "and no other rank failing, which is read as one CUDA error failing ranks alike (rank-failure, warning, no culprit); "
        "that those eight are exactly the second host's `:8` slots, numbered past the first node's GPUs while ranks 0-7 run, "
        "is the mpirun `-H` slot list and nccl-tests' host grouping, not a failure line, and the fix is outside the excerpt",
    # batch 263
    "transformers-17478-ddp-earlystopping-rank6-alone-in-end-of-training-barrier":
        "the log is the Trainer's end-of-training message and the author's `Before barrier for rank 6` line, neither an "
        "error nor a failure marker, so no rank is named; that rank 6 stopped early (EarlyStoppingCallback on ungathered, "
        "per-process metrics) and waited alone in the final barrier while the others trained on is the author's diagnosis "
        "in the thread, not a log line",
    "transformers-17106-main-process-first-rank0-tokenizing-replicas-wait-socket-timeout":
        "the log is several interleaved tracebacks blocked entering `main_process_first` with no error line and no rank "
        "number, so no rank is named; that these are the replicas waiting for rank 0, still tokenizing past the 30-minute "
        "store timeout, is the thread and its follow-ups (#18054, ddp_timeout), not a log line",
    # batch 264
    "fairscale-1139-fsdp-pp-te-spawn-process5-run-backward-systemerror-control":
        "the log is mp.spawn's `-- Process 5 terminated with the following error:` with process 5's `loss.backward()` "
        "traceback ending in `SystemError: ... run_backward ... returned NULL`, the lone-failing-process shape, so rank 5 is "
        "named (python-exception, warning); that the error is fairscale's FSDP handle bug under PP+TE, hit by every process "
        "and fixed in the library by the PR itself, is the thread, not a log line",
    "fairscale-920-fsdp-two-losses-spawn-process3-backward-control":
        "the log is mp.spawn's relay and `-- Process 3 terminated with the following error:` with process 3's traceback into "
        "`loss_dict['total_loss'].backward()`, the lone-failing-process shape, so rank 3 is named (python-exception, "
        "warning); that FSDP does not support the script's multiple losses, so every process fails alike (the author moved "
        "to ShardedDDP, #918), is the thread, not a log line",
    # batch 265
    "pytorch-lightning-2425-horovod-test-rank1-alone-traceback-load-checkpoint-hparams":
        "every line starts with the CI viewer's line number (`1003 | `) before the `Tue Jun 30 ... 2020[1]<stderr>:` "
        "timestamp and rank tag, so the tag is not where the importer reads one and no rank is named (without the numbers "
        "it reads as rank 1's traceback cut before its exception, info, a suspect); that rank 1 alone fails, its "
        "rank-0-only logger leaving it no experiment directory, is the pull request's diagnosis, not a log line",
    "horovod-2365-over-5-nodes-rank25-cudaeventquery-illegal-address-sigabrt":
        "rank 25 is right since session 61 (its `what():  cudaEventQuery failed: an illegal memory access was "
        "encountered`, Horovod's check of a CUDA runtime call, is read as its own CUDA error: rank-failure warning "
        "cuda-error), the expectation's cause being abort: Open MPI's `[c102:70259] Signal: Aborted (6)` handler lines "
        "follow the CUDA error, and an abort a rank's own CUDA error precedes is read as that CUDA error (torch's "
        "`what():  CUDA error: …` the same, universal-llm-trainer-bugs' expectation cuda-error)",
    "horovod-1122-two-hosts-3-per-node-rank3-shm-invalid-argument-control":
        "rank 3's lone `include/shm.h:42 NCCL WARN Cuda failure 'invalid argument'` after the others' `Init COMPLETE` is "
        "the lone-rank CUDA error shape, so rank 3 is named (cuda-error, critical); that the failure follows the layout "
        "(more than 2 processes per node across nodes fail, 2x2, 1x8 and 4x2 work), not a rank or a host, is the author's "
        "account of which runs work, not a log line",
    # batch 267
    "fairseq-2387-launch-plus-spawn-process3-nccl-invalid-argument-control":
        "the log is a worker's `NCCL error ... invalid argument` at the init all_reduce followed by one spawn's `-- Process 3 "
        "terminated with the following error:`, the lone-failing-process shape, so rank 3 is named (python-exception, "
        "warning); that `torch.distributed.launch` plus fairseq's own spawn (no `--distributed-no-spawn`) starts every "
        "process on the same GPUs, so all fail alike and `Process 3` is only a spawn index, is the title and fairseq's docs, "
        "not a log line",
    # batch 271
    "FasterTransformer-438-mpirun-4-ranks-first-exit-rank2-converter-tp-mismatch-control":
        "the log is Open MPI's `The first process to do so was: Process name: [[8250,1],2] Exit code: 1`, the launcher's "
        "first-exit report of one rank, so rank 2 is named (python-exception, warning); that the TP-split `4-gpu` checkpoint "
        "run with TP=2 x PP=2 fails on every rank, rank 2 only the first exit mpirun saw, is the maintainer's reply on the "
        "converter's `i_g`, not a log line",
    "Megatron-DeepSpeed-356-two-nodes-index-cache-doc-idx-filenotfound-control":
        "the `c000001:`/`c000002:` host-prefixed tracebacks carry one `FileNotFoundError` line, read as one rank's Python "
        "exception, so rank 0 is named (python-exception, warning); that both nodes fail on the same unbuilt index cache, a "
        "missing barrier after the index build, is the maintainer-author's account, not a log line",
    "stylegan3-40-spawn-process1-ddp-consistency-class-labels-control":
        "spawn's `-- Process 1 terminated with the following error:` with that worker's `AssertionError` is the corpus' "
        "lone-failing-process shape, so rank 1 is named (python-exception, warning); that `check_ddp_consistency` compares "
        "each rank with rank 0's broadcast copy, so diverged replicas can only fail on a non-zero rank, and that the "
        "label-conditioned path all ranks run is at fault, is the code's and the thread's account, not a log line",
    # batch 268
    "Baichuan2-208-two-3090-gpu0-held-by-other-model-rank0-oom":
        "the log is one untagged `torch.cuda.OutOfMemoryError ... (GPU 0; 23.69 GiB total capacity; 4.05 GiB already "
        "allocated; 13.00 MiB free; 4.14 GiB reserved ...)` with no rank tag and no launcher line, so the OOM is read "
        "with no rank named (cuda-oom, oom-cascade without a culprit); that GPU 0 is held by another model, so "
        "the rank on it fails while its own share is 4 GiB, is the author's account and the answers, not a log line",
    # session 38 leftovers
}
