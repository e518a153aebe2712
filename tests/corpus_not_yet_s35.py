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
    "mmdetection-9291-cascade-rcnn-objects365-rank1-loss-vars-differ-nan": (
        "both ranks raise mmdetection's collective `AssertionError: loss log variables are different across GPUs!`, each "
        "followed by its own `rank N len(log_vars): K keys: ...`; the guilty rank is the one whose key list is short (rank "
        "1's 3 against rank 0's 11, the maintainer's reading), a comparison of two ranks' loss sets that no rule can make "
        "without knowing which set is the model's normal one. Untagged, the assertions are placed on no rank (the one-process "
        "layout is a guess where a line numbers rank 1: parsers/log_nproc_guess.py, batch 179); before that, rank 0 was named"
    ),
    "trl-2564-deepspeed-rank6-anomaly-log1p-backward-nan": (
        "only `[rank6]:`-tagged traceback frames are pasted, neither the traceback's header nor its exception line (the "
        "anomaly-mode `Function 'Log1PBackward0' returned nan values` is the issue's title): rank 6 is named at info only; "
        "frames alone stay no event (HLLM-40's reason: the corpus's frames-only pastes are culprits and a control alike)"
    ),
    "transformers-30702-load-best-model-peft-ddp-rank0-inconsistent-params": (
        "DDP's same-model check `DDP expects same model across all ranks, but Rank 5 has 128 params, while rank 0 has "
        "inconsistent 1506656875 params.` is rank 5's own report naming rank 0 as the peer that differs; rank 0 was named "
        "only because the import's one-process guess made the untagged line rank 0's, which a line numbering rank 5 "
        "contradicts (parsers/log_nproc_guess.py, batch 179). Naming the peer needs a rule reading the check's `while rank N "
        "has inconsistent M params`, whose `inconsistent 0 params` form is a broken all-gather's in unige-hpc-4301 and "
        "determined-8915, neither a culprit"
    ),
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
    "sglang-32855-kimi-k3-dspark-8xb300-tp6-scheduler-exception-head": (
        "SGLang's `[… TP6] Scheduler hit an exception` record is cut after its first frames, before its exception: a cut "
        "record names no one (batch 11, sglang-8336/6624); the launch failure is in the thread only, and the same cut record "
        "is the load check's victim in ktransformers-1666 (TP2's `could finish the model loading, but … other ranks`)"
    ),
    # batch 183
    # batch 184
    # batch 185
    "TensorFlowOnSpark-261-yarn-executor1-container-killed-memory": (
        "no finding: the excerpt is a Spark driver's (YARN ApplicationMaster's) log: `Disabling executor 1.`, `Executor "
        "lost: 1 (epoch 0)`, the container on host orange `exit status: -103` and `Container killed by YARN for "
        "exceeding memory limits. 5.0 GB of 4.2 GB virtual memory used`. The thread settles executor 1's memory kill "
        "as the root cause, but a Spark executor id is the cluster manager's (1-based, given at launch), not a training "
        "rank: TensorFlowOnSpark and Horovod on Spark number their workers by partition or by their own rendezvous, and "
        "no line maps executor 1 to one; reading the executor id as the rank would name the wrong process wherever "
        "the two numberings differ. A node-level reading (the host whose container YARN killed) names no rank either"
    ),
    # batch 188
    "marin-7344-gb200-512-proc-task9-global-rank36-illegal-instruction": (
        "no finding: the paste is the author's digest of a 512-process JAX run, `06:14:42  task 9 (global rank 36, rack "
        "0)` over indented `cudaFreeAsync failed ... CUDA_ERROR_ILLEGAL_INSTRUCTION ... (x48)` continuation lines; no "
        "program prints `task N (global rank M, rack K)` (JAX's own `cudaFreeAsync` lines carry no rank), so reading it "
        "would be a rule for one author's digest (marin-7956's and marin-8534's reason); the same fault in PyTorch's "
        "watchdog wording tagged `[rank36]:` names rank 36 (tests/test_newest_threads_batch188_wordings.py)"
    ),
    "spark-vllm-docker-335-dsv4-flash-two-sparks-rank1-never-joins": (
        "no finding: the excerpt is the launcher starting `worker (rank 1) on 192.168.177.12` and the head (rank 0), "
        "then the head's API-server banner; both ranks are merely launched. That rank 1 never joins the store "
        "(`DistStoreError, 1/2 clients`) is the title's, the error further down the paste than any stored excerpt; "
        "naming a rank from a launch with no failure would be a guess"
    ),
    # batch 191
    "analytics-zoo-158-orca-tf2-mwms-eight-workers-task7-seems-down": (
        "no finding: the excerpt is the Ray driver's interleaved worker output of an Orca TF2 Estimator "
        "(MultiWorkerMirroredStrategy, 8 workers): worker 5's and worker 0's server start, worker 0's channel cache for "
        "tasks 0-7, then worker 6's `WARNING:tensorflow:/job:worker/replica:0/task:7 seems down, retrying 1/3`. That "
        "is the first of the health check's three retries, not its verdict (`Cluster check alive failed, ... is down, "
        "aborting collectives`); a task that answers the next ping clears it, and the paste stops there, with no "
        "exit, error or verdict about task 7 and no answer in the thread. Naming task 7 from a first retry would "
        "name a worker that may only have been slow to come up"
    ),
    # batch 187
    "so-vits-svc-126-windows-spawn-process0-net-d-forward-oom": (
        "rank 0 is named (rank-failure warning, from mp.spawn's `-- Process 0 terminated with the following error:`) "
        "with cause python-exception; the expected cuda-oom is the author's prose ('提示显存不足报错', batch_size 6 on "
        "a 6 GB RTX 2060): the excerpt ends inside the traceback (discriminator forward frames), before the exception "
        "line, so no OOM wording is in the log. Reading OOM from a forward pass's frames would be a guess"
    ),
    "ray-13942-xgboost-ray-ft-test-kills-actor-rank2-rabit-rank3": (
        "no finding: Ray's own lines name no actor (`A worker died or was killed while executing task ffff…`, "
        "`Actor status: 3 alive, 1 dead (4 total)`); the one line naming the dead worker is the test harness's own "
        "fault-injection message `(pid=7226, ip=172.31.27.128) Killing process: 7226 for actor rank 2`, an XGBoost-Ray "
        "test utility's wording no real failure prints, and the same pid got Rabit's `got new rank 3`: the two "
        "numberings differ (xgboost_ray#94), so reading a rank off the pid would name 3 where the thread's index is 2 "
        "(why batch 69's collector left this thread out)"
    ),
    # batch 190
    "nvdiffrast-197-lrm-geo-rank5-depth-peel-cuda-error-700": (
        "no finding, rightly from the text: the excerpt is worker 5's first two traceback frames (`[5]: out = "
        "self.lrm_generator.forward_geometry(`, `lrm_geo.py` line 338) between the log viewer's timestamp lines, cut "
        "before the exception; nvdiffrast's `Cuda error: 700[cudaStreamSynchronize(stream);]` that makes it rank 5's own "
        "CUDA error is the issue's title. A cut record names no one (batch 11, sglang-32855); with the exception line "
        "(`[default5]:` or `[rank5]:` tagged, or torchrun's empty-role `[5]:` glued) it names rank 5, cuda-error "
        "(tests/test_3d_generation_batch190_wordings.py)"
    ),
    # batch 193
    # batch 192
    "xKV-9-ruler-eval-sigterm-gap-local-rank2-sigfpe": (
        "no finding: the excerpt is the torch-elastic agent's seven `Sending process N closing signal SIGTERM` lines "
        "for pids 3282850, 3282851 and 3282853-3282857; the agent's next line, `failed (exitcode: -8) local_rank: 2 "
        "(pid: 3282852)`, is cut by the excerpt window and was dropped. The log holds neither a rank nor the signal: "
        "that the pid left out is local rank 2 and that it died of SIGFPE are only in the cut line. Naming a rank from "
        "a gap in a pid list would map pids to local ranks by spawn order, which no line prints, and the cause would "
        "be a guess"
    ),
    "Video-o3-1-video-eval-sigterm-gap-sigkill-local-rank1": (
        "no finding: the excerpt is two generation-flag warnings and the torch-elastic agent's `Sending process N "
        "closing signal SIGTERM` for pids 327472 and 327474-327477 (327478's line cut, dropped); the agent's failed "
        "line is beyond the excerpt and the SIGKILL (-9) is the author's prose. The log shows only that pid 327473 "
        "was not SIGTERMed: its rank (1 by spawn order) and its signal are not printed, so naming it would map a pid "
        "gap to a rank and guess a host OOM kill"
    ),
    "Human3R-4-accelerate-multi-gpu-eval-agent-local-rank2-exit1-control": (
        "rank-failure warning names rank 2, python-exception, for the torch-elastic agent's lone `failed (exitcode: "
        "1) local_rank: 2 (pid: 1856153)` over accelerate's launcher traceback, with no worker output. That the "
        "evaluation fails only when launched on several GPUs (a multi-GPU code path every worker runs, never placed "
        "in the open thread) is the author's, not the log's; the agent's lone failed line is the corpus's culprit "
        "shape (Flowformer-8), and nothing in the log tells it from one rank's own error (Restormer-33's, SevenNet-83's "
        "and MMAudio-40's reason)"
    ),
    # session 35 leftovers
}
