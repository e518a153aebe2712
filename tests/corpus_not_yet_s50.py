"""The corpus' expectations k10s does not meet yet from session 50's blind batches (272-280), each with why; part of
tests/corpus_not_yet.NOT_YET (strict xfail: a case that starts passing must leave this list)."""

from __future__ import annotations

#: Expectations of session 50's batches that we do not meet, with why.
NOT_YET_S50: dict[str, str] = {
    # batch 273
    "vllm-backport-62-tp4-gpu2-hbm-dbe-engine-dead-apiserver-only":
        "the paste is only the API server's side of the engine death: `(APIServer pid=1) ERROR ... [serving.py:908]` "
        "traceback lines ending in `vllm.v1.engine.exceptions.EngineDeadError: EngineCore encountered an issue.` and two "
        "`500 Internal Server Error` request lines, read as a Python failure of no rank (warning; as collected, nothing at "
        "all); that the TP=4 worker on GPU2 died of failing HBM (Xid 48/171 double-bit ECC on PCI 0000:9c:00, rows "
        "remapped and failing again after a reboot) is the author's dmesg evidence in the thread, not a log line",
    # batch 272
    "Automodel-1393-qwen3-32b-rank1-logits-float-cuda-oom":
        "the log is the author's three-line condensed OOM (`torch.OutOfMemoryError: CUDA out of memory. Tried to allocate "
        "50.51 GiB.`, `GPU 1 total: 178.36 GiB | Free: 44.84 GiB | PyTorch allocated: 130.43 GiB`), with no rank tag and "
        "not PyTorch's own `GPU 1 has a total capacity of ...` wording, so the OOM is read with no rank named (cuda-oom, "
        "critical oom-cascade without a culprit); that it is rank 1 of 4 is the author's `Multi-GPU (4 GPUs), crash on "
        "rank1`, not a log line",
    # batch 274
    # dlrover-533 read right since session 64 (an AssertionError under an `assert` of the settings against the world
    # size: every rank evaluates it alike, common mode; parsers/log_shared_inputs.py)
    # batch 278
    "pytorch-174030-symm-mem-rendezvous-invalid-device-ordinal-2080ti-no-nvlink-control":
        "the log is `torch.multiprocessing.spawn`'s own report: `Terminating process 326046 via signal SIGTERM`, "
        "`ProcessRaisedException` and `-- Process 1 terminated with the following error:` down to `fn(i, *args)`, the "
        "CUDA driver error line past the excerpt, read as process 1's Python exception, so rank 1 is named "
        "(python-exception, warning); that `symm_mem.rendezvous` cannot map peer memory on an RTX 2080 Ti pair without "
        "NVLink, every process alike, process 1 only the first spawn collected, is the thread's account (it works on a "
        "2080 Ti pair with NVLink), not a log line",
    "nccl-2190-gpu7-host-numa-fallback-shm-attach-size-0":
        "the log is GPU 7's `misc/shmutils.cc:132 NCCL WARN Error while attaching to shared memory segment /dev/shm/nccl- "
        "(size 0)` and its `NCCL INFO <file>:<line> -> 2` unwind to `enqueue.cc`, while GPUs 3, 5 and 6 import their "
        "peers' buffers; no rule reads NCCL's shared-memory attach failure (nor the unwind chain), so nothing is named, "
        "with or without `[rank7]:` tags (a `NCCL WARN Cuda failure` on the same line is read, rank 7 at info); that "
        "GPU 7's process is the one whose cuMem host-NUMA probe fell back to /dev/shm is a commenter's diagnosis in the "
        "thread, not a log line",
    # batch 280
    "torchtitan-3817-tp-mxfp8-root-cause-rank7-col-major-traceback-cut-control":
        "the log is torch-elastic's `Root Cause (first observed failure)` block naming `rank : 7 (local_rank: 7)`, "
        "`exitcode : 1` with an error file and the worker traceback into the model (the exception line cut), the corpus' "
        "root-cause culprit shape, so rank 7 is named (python-exception, warning); that TP + MXFP8 raises `mat2 must be "
        "col_major` on every TP rank alike (pytorch/ao#4624 reproduces it with TP=2), rank 7 only the first exit the agent "
        "recorded, is the issue's title and the upstream repro, not a log line",
    # batch 279
    "ms-swift-3049-qwen25vl-zero3-rank1-checkpoint-rename-race-traceback-cut":
        "the paste is swift's `Saving model checkpoint to .../checkpoint-276` and rank 1's traceback frames down to "
        "`os.renames(output_dir, checkpoint_dir)` in `<frozen os>` with the exception line cut, read as an info "
        "python-exception suspect holding rank 1 (nothing at warning or critical); that the cut line is a "
        "`FileExistsError` of the checkpoint rename only rank 1 lost (a transformers Trainer bug, the maintainer's "
        "answer) is the thread's, not a log line, and with that line restored the rename race is read as every "
        "process's (warning, no rank)",
}
