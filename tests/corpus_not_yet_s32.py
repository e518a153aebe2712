"""The corpus' expectations k10s does not meet yet from session 32's blind batches (139-), each with why; part of
tests/corpus_not_yet.NOT_YET (strict xfail: a case that starts passing must leave this list)."""

from __future__ import annotations

#: Expectations of session 32's batches that we do not meet, with why.
NOT_YET_S32: dict[str, str] = {
    # batch 139
    "art-10-evidence-embedding-rebuild-ranks-3-1-2-allreduce-seq1007-timeout-control": (
        "ranks 3, 1 and 2 time out in one ALLREDUCE (SeqNum 1007) during ART's evidence re-embedding and rank 0 "
        "prints no watchdog line in the excerpt: the corpus's reading of three of four waiting with the fourth absent "
        "names the absent rank (never-joined, medium), and that is what fires; the collectors hold it a control because "
        "the open thread never places it, the world is only guessed from the highest rank seen, the excerpt is cut "
        "before the rest of the teardown, and a re-embedding of 21M passages longer than the 30 min timeout on every "
        "rank fits as well as a slow rank 0. Not naming it would need to tell this absence from the corpus's culprits "
        "of the same shape, which the log cannot"
    ),
    # batch 140
    "torchtitan-61-fsdp-sp-compile-seven-sigterm-local-rank0-exit1-control":
        "the log is torchrun's agent alone: seven `Sending process N closing signal SIGTERM` lines, then `failed "
        "(exitcode: 1) local_rank: 0`, with no worker output; that the failure is a compile bug of FSDP + SP + "
        "`--compile` every rank runs is the maintainer's title, not the log. The agent's lone exit 1 after SIGTERMs is "
        "the corpus's culprit shape (torchtitan-1434, OLMo-706: the one worker that raised), so not naming it would "
        "lose those culprits",
    "pytorch-118984-ddp-dynamic-checkpoint-submod0-compile-local-rank0-exit1-control":
        "the worker's exception line is above the excerpt: the log shows native frames, DDPOptimizer's `While "
        "executing %submod_0` and Dynamo's suppress_errors hint, then the agent's `failed (exitcode: 1) local_rank: 0`. "
        "A torch.compile failure is not common mode in general (a rank can trace a graph the others do not: rank-"
        "dependent code, data-dependent shapes; nanoGPT-545's rank 1 fails in compile as its own culprit), and that "
        "this one is a 2.2.0 regression every rank hits is the thread's, not the log's",
    # batch 141
    "fairseq-4816-pyspy-rank0-dataloader-queue-get-others-allreduce":
        "no finding, rightly from the text: the excerpt is one py-spy main-thread stack (a thread id, 0x7FA6E7C01740, and "
        "source lines) with no rank, pid-to-rank map, launcher tag or collective timeout in it; rank 0 and the 31 ranks "
        "waiting in all_reduce are only in the reporter's prose. A stack waiting on its data loader names no rank, and "
        "reading one unranked dump as rank 0's would charge rank 0 for every pasted stack",
    # batch 142
    "pytorch-143536-peft-save-rank0-alone-allgather-seq600-watchdog":
        "the only rank in the paste is rank 0, timing out alone in a full-parameter `_ALLGATHER_BASE` (SeqNum 600, last "
        "enqueued 600) after an unprefixed FSDP state-dict FutureWarning; that it is the rank out of step (PEFT's "
        "`state_dict()` inside the save only the main process runs) is the fix thread's (transformers#35234), and a lone "
        "timing-out rank is in the corpus far more often the waiter for an absent peer (autocast-381's shape, kept NOT_YET "
        "for the same reason; ultralytics-12905, colbert-318), so naming the reporter would buy a false culprit elsewhere",
    "accelerate-3250-fsdp-save-rank0-seq122-behind-rank1-seq126":
        "two ranks on the default PG, rank 0 in a `_REDUCE_SCATTER_BASE` at work 122 (completed 121), rank 1 in an "
        "`_ALLGATHER_BASE` at 126 (completed 125): the counters put rank 0 behind, but two reports make no majority to call "
        "one behind (vllm-23448's reading), and the same pair shape of different ops a few works apart is a control where "
        "the behind rank was doing its legitimate share (F5-TTS-346 one apart, torchtune-2093 rank 0 writing the merged "
        "checkpoint); that process 0 stayed in step 5 at `get_state_dict` is the author's prints, outside this excerpt",
    "axolotl-3476-fsdp2-cpu-ram-efficient-loading-root-cause-rank1-sigabrt-control":
        "torchrun's report alone: `<NO_OTHER_FAILURES>`, Root Cause `rank : 1 (local_rank: 1)` `exitcode : -6`, `Signal 6 "
        "(SIGABRT)`, which is the shape of a lone rank's own abort (F5-TTS-728, trl-4869 and transformers-28119 are "
        "culprits so); that rank 1's abort is its NCCL watchdog's after both ranks timed out in FSDP2's RAM-efficient "
        "loading is the thread's earlier lines, outside this excerpt, so the -6 cannot be told from a rank's own CUDA "
        "abort (torchtune-2093's shape, kept NOT_YET for the same reason)",
    # batch 143
    # batch 144
    # self-supervised-speech-recognition-34 read right routed since session 67 (fairseq's own OOM report names its process
    # by its device, fairseq's local rank; docs/rules.md, session 67); as one pod's log with API timestamps the wrapped
    # `(G` / `PU 4;` is never joined: NOT_YET_ONE_POD (tests/corpus_not_yet_s67.py)
    "CosyVoice-1817-torchrun-root-cause-rank0-flow-spk-embedding-config-control":
        "torchrun's `Root Cause (first observed failure)` names `rank : 0 (local_rank: 0)` `exitcode : 1` with the "
        "worker's traceback into the model's forward, cut before the exception: the corpus reads a lone root-cause "
        "block as that rank's failure (Megatron-Bridge-2974, prime-rl-938); that the error is a speaker-embedding "
        "configuration every rank meets is the title's, and the log holds nothing that tells it from one rank's error",

    # batch 146
    "jax-22740-host0-clique-rendezvous-waits-host1-never-ran-pmap": (
        "one line from host0: XLA's rendezvous `initialize clique for rank 6; clique=devices=[0..15]` has waited for "
        "its own local threads ('Expected 8 threads to join'); it names neither a process nor a missing device. That "
        "process 1 never ran the pmap is only in the issue's two posted scripts; `rank 6` is the waiting device "
        "(a victim), so naming anyone from the log would be a guess"
    ),
    "marin-8534-restore-barrier-175-tasks-wait-task12-still-reading": (
        "the paste is the author's hand-written timeline (`175 tasks at the barrier, task 12 still reading`), not "
        "any program's output: no launcher, JAX or orchestrator prints this wording, so reading it would be a rule "
        "for one author's prose; the barrier itself (`sync_global_devices`, a device all-gather) logs nothing while "
        "it waits"
    ),
    # batch 147
    "IsaacLab-5562-skrl-cameras-gpu1-usdrt-unsupported-broadcast-hang":
        "the one line is Isaac Sim's usdrt error `UsdStage::SelectPrims: GPU 1 requested. GPUs other than cuda:0 are "
        "not currently supported`, no rank label and no launcher report: `GPU 1` is a device ordinal, and that Isaac "
        "Lab's --distributed puts each worker on cuda:<local_rank> (so the GPU-1 worker is rank 1) is the framework's "
        "placement, not the log's; reading a lone `GPU N` as rank N would name the wrong process where the two differ "
        "(the corpus's zerosearch-11 control), so it is left unnamed",
    # session 32 leftovers
}
