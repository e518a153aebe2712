"""The corpus' expectations k10s does not meet yet from session 31's blind batches (128-138), each with why; part of
tests/corpus_not_yet.NOT_YET (strict xfail: a case that starts passing must leave this list)."""

from __future__ import annotations

from corpus_not_yet_late import CUT_TRACEBACK_ALONE

#: Expectations of session 31's batches that we do not meet, with why.
NOT_YET_S31: dict[str, str] = {
    # batch 128
    "accelerate-223-single-gpu-eval-rank0-absent-rank2-broadcast-timeout":
        "no finding: the paste is one waiter's watchdog (rank 2's BROADCAST, PyTorch 1.10-era, no SeqNum) and two "
        "unranked tracebacks interleaved in the next epoch's dataloader loop; rank 0 prints nothing, no evaluation line "
        "is in the paste, and the world size is unknown. That the main GPU was evaluating alone for over 30 minutes is "
        "the author's prose only; a lone waiter's BROADCAST names no one in the corpus (ray-41973's lone rank 7 "
        "BROADCAST is a control, algorithmic-efficiency-247's lone waiter NOT_YET), so naming the broadcast's root "
        "from it would name rank 0 in those controls",
    # batch 134
    "horovod-1834-mnist-rank3-corrupt-download-rank0-broadcast-traceback":
        "the culprit (rank 3, whose per-rank download `data-3` was corrupted) is placed by the maintainer's reply and the "
        "fix, not by the log: the excerpt holds rank 4's download progress and rank 0's traceback in the first "
        "`broadcast_parameters`, cut before its exception, and nothing of rank 3; rank 0 is the victim of a missing peer "
        "(named at info, a suspect), and no line of the log points at rank 3 or any other rank that never joined",
    "mace-1215-patience-rank0-alone-leaves-loop-ddp-verify-traceback": CUT_TRACEBACK_ALONE
    + "; the thread (PR ACEsuit/mace#1216: only rank 0 tested patience and left the epoch loop) makes rank 0 the one "
    "out of step, but the paste is rank 0's traceback into DDP's `_verify_param_shape_across_processes`, cut before "
    "the mismatch text, with nothing of rank 1: a lone rank in a construction-time collective is as often the waiter",
    # batch 135
    "pytorch-78514-gloo-isend-rank0-returns-rank1-recv-connection-closed":
        "the paste is a bare five-line traceback fragment with no rank, process, pod or launcher line: rank 1 is its "
        "process only by the script's `if rank == 0` code, and rank 0 (which returned with an un-waited `isend`) prints "
        "nothing; gloo's `Connection closed by peer [18.25.6.30]:30872` gives a host:port, not a rank. Reading the "
        "`recv(input,0)` argument as the dead peer would turn a call's source argument into a culprit, which no "
        "general rule can trust",
    "autocast-381-post-fit-rank0-alone-save-checkpoint-barrier-allreduce-timeout":
        "the only rank in the log is rank 0, timing out alone on a 1-element ALLREDUCE after `Trainer.fit` stopped (the "
        "author's summary, the watchdog line split over three hand-indented lines and elided with `...`); the fix PR "
        "(autocast#386: only rank 0 entered `save_checkpoint`'s barrier) makes it the rank out of step, but a lone "
        "timing-out rank is in the corpus far more often the waiter for an absent peer (ultralytics-12905, colbert-318), "
        "so naming the reporter would buy a false culprit elsewhere",

    # session 31
    # batch 131
    "kubeflow-trainer-2220-tfjob-operator-event-worker0-exited-code1":
        "no finding: the operator's event `Pod: <ns>.<job>-worker-0 exited with code 1` is read (log_pods), but the paste "
        "holds no other replica of the TFJob, so worker-0's rank is not established: with a Chief (or a Master) it would "
        "be rank 1, without one rank 0, and a PS/Evaluator layout changes nothing of that. The failed pod is known, its "
        "rank is not; giving a lone worker row a rank by guessing the layout would name the wrong rank wherever the "
        "job has a chief (log_pods names a worker only where the body shows a master/chief or launcher)",

    # session 31
    # batch 137 (session 31)
    "GNNFlow-67-tgn-four-machines-ranks1-and-3-crash-in-sampling":
        "no finding, rightly from the text: the excerpt is rank-less `INFO:root:` progress up to epoch 3 with no failure "
        "line; ranks 1 and 3 are the culprits only by the maintainer's sentence and a screenshot. Nothing in the log "
        "can name them, and reading healthy progress as a failure would name ranks in every clean paste",
    "graphstorm-314-dist-embeddings-large-graph-local-rank0-exitcode-9-control":
        "rank-failure names rank 0 host-oom-kill for torch.distributed.launch's lone `failed (exitcode: -9) local_rank: "
        "0` in a world the paste does not give (imported as 1 x 1): the same shape the corpus holds as that rank's own "
        "kill (relion-112's mpirun signal 9, the lone -9 launcher reports). The thread makes it the workload's on every "
        "machine (one trainer per machine, a large graph with distributed embeddings), which the log cannot show; "
        "keeping a lone -9 silent would lose those culprits",
    # batch 136
    "Applio-554-process1-filenotfound-best-epoch-remove-process2-follows":
        "rank 0's own `FileNotFoundError` is found (a python-exception at warning) but with no rank: the paste's only "
        "process identity is multiprocessing's `Process Process-1:` header, a 1-based counter of every Process the "
        "parent started (a DataLoader's, a spawn's earlier children, a test session's `SpawnProcess-31`), not a rank; "
        "reading `Process-N` as rank N-1 would hold only where the trainer starts its rank processes first and alone, "
        "which no general rule can know",
    "Applio-560-overtraining-stop-rank0-leaves-process2-backward-fails":
        "no finding: the only traceback is `Process-2`'s (rank 1, the victim), cut inside `torch.autograd.backward(` "
        "before its error line, and rank 0 shows only Applio's own `Stopping training due to possible overtraining` "
        "line, a trainer's message with no rank or exit; the culprit (rank 0 left the process group) is the reading "
        "of that message and the sibling thread #554, which no general rule can take from a program's own wording",
}
