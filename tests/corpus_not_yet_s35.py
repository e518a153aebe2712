"""The corpus' expectations k10s does not meet yet from session 35's blind batches (177-), each with why; part of
tests/corpus_not_yet.NOT_YET (strict xfail: a case that starts passing must leave this list)."""

from __future__ import annotations

#: Expectations of session 35's batches that we do not meet, with why.
NOT_YET_S35: dict[str, str] = {
    # batch 177
    "Restormer-33-train-sh-after-dataloaders-agent-local-rank0-exit1-control": (
        "rank-failure warning names rank 0, python-exception, for the torch-elastic agent's lone `failed (exitcode: 1) "
        "local_rank: 0 (pid: 23058)` over the launcher's own traceback, with no worker output. That every run fails "
        "alike right after the data loaders are created (a setup failure of the job) is the author's, not the log's; "
        "the agent's lone failed line is the corpus's culprit shape (Flowformer-8, batch 172's contrast), and nothing in "
        "the log tells it from one rank's error (SevenNet-83's and MMAudio-40's reason)"
    ),
    # batch 178
    # batch 179
    # batch 180
    "transformers-3660-kaggle-tpu-xmp-spawn-cell-traceback-process0-sigkill-in-title": (
        "the excerpt is a Kaggle notebook cell's xmp.spawn traceback (`xla_multiprocessing.py in spawn` -> "
        "`spawn.py in start_processes`) cut before its last line: no process number, no signal, no exit appears in "
        "the log; process 0's SIGKILL is the issue's title and the out-of-RAM restart is Kaggle's message in the "
        "author's prose. Naming any process from the log would be a guess"
    ),
    "accelerate-3833-kaggle-notebook-launcher-fork-local-rank0-init-error-control": (
        "the elastic agent's lone `failed (exitcode: 1) local_rank: 0 ... (start_method: fork)` with "
        "`-- Process 0 terminated with the following error:` and the worker's exception cut is the corpus's culprit "
        "shape for a lone failed process (unsloth-fork-4, examples-447's contrast, DiffusionVideoEditing-4); what makes "
        "it a control (the title's `CUDA error: initialization error` in a forked worker, every worker alike) is not "
        "in the excerpt, and a fork-started worker can fail alone for its own reasons (one GPU's OOM), so the start "
        "method alone cannot clear the rank"
    ),
    # batch 181
    "oneflow-models-191-eager-resnet50-machine4-lost-machine0-timeout": (
        "no finding, rightly from the text: the paste is machine 0's unranked OneFlow `TimeoutException` in "
        "`optimizer.step()` (a survivor waiting); rank 4 is the culprit only by the comment's prose ('machine 4 lost', "
        "no stack). Nothing in the log names it, and naming the absent one among eight from one unranked waiter would "
        "be a guess (GNNFlow-67's reason)"
    ),
    "ColossalAI-6386-colossalai-run-gemini-cpuadam-div-scale-root-cause-rank2-control": (
        "rank-failure warning names rank 2, python-exception, for torchrun's lone root-cause entry (`rank : 2 "
        "(local_rank: 2)`, `exitcode : 1`, `<NO_OTHER_FAILURES>`) under colossalai run's `Error: failed to run "
        "torchrun ...`, no worker output. That Gemini + CPUAdam's `div_scale` assertion is every rank's is the "
        "thread's (the fix PR reproduces it with one process); a lone root-cause block is the corpus's culprit shape "
        "under the same launcher (ColossalAI-2642, ColossalAI-3582; SevenNet-83's and MMAudio-40's reason)"
    ),
    # batch 182
    "sglang-32855-kimi-k3-dspark-8xb300-tp6-scheduler-exception-head":
        "SGLang's `[… TP6] Scheduler hit an exception` record is cut after its first frames, before its exception: a cut "
        "record names no one (batch 11, sglang-8336/6624); the launch failure is in the thread only, and the same cut record "
        "is the load check's victim in ktransformers-1666 (TP2's `could finish the model loading, but … other ranks`)",
    # batch 183
    # batch 184
    # batch 190
    "nvdiffrast-197-lrm-geo-rank5-depth-peel-cuda-error-700": (
        "no finding, rightly from the text: the excerpt is worker 5's first two traceback frames (`[5]: out = "
        "self.lrm_generator.forward_geometry(`, `lrm_geo.py` line 338) between the log viewer's timestamp lines, cut "
        "before the exception; nvdiffrast's `Cuda error: 700[cudaStreamSynchronize(stream);]` that makes it rank 5's own "
        "CUDA error is the issue's title. A cut record names no one (batch 11, sglang-32855); with the exception line "
        "(`[default5]:` or `[rank5]:` tagged, or torchrun's empty-role `[5]:` glued) it names rank 5, cuda-error "
        "(tests/test_3d_generation_batch190_wordings.py)"
    ),
    # session 35 leftovers
}
