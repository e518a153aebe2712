"""Why a rank-failure culprit is said at medium or low confidence: the sentences its summary gives (queries/rank_failure.py;
rank_failure.sql's ``medium_why`` and ``low_why``)."""

from __future__ import annotations

#: why a culprit the line names is said at medium (rank_failure.sql ``medium_why``), as the summary says it
MEDIUM_WHY = {
    "nccl-setup-cuda-call": "It is NCCL's report of a CUDA call its transport set-up made (shared memory, P2P, NVLS): a container's "
                            "/dev/shm or IPC, the host's P2P or the fabric refuse it as often as the rank's GPU fails (confidence medium).",
    "spawn-first-only": "mp.spawn reports only the first failed process: its traceback is the only one spawn prints, and it "
                        "SIGTERMs the other processes before any line of theirs; whether they, running the same code, "
                        "raised it too is not said (confidence medium).",
    "lone-paste-exception": "The paste holds this rank's lines only: whether the other ranks, running the same code, raised it "
                            "too is not said (confidence medium).",
    "lone-paste-kernel-fault": "The paste holds this rank's lines only, and the fault is a kernel's, not its GPU's: whether the "
                               "other ranks, running the same kernels, hit it too is not said (confidence medium).",
    "lone-paste-failure": "The paste holds this rank's lines only: whether the other ranks failed the same way is not said "
                          "(confidence medium).",
    "nonfinite-progress": "The other ranks failed alike, but only this rank's own progress line (the failure line) shows a non-finite value "
                          "(its loss NaN or inf) while theirs stayed finite: the NaN began in its step (its batch) and the "
                          "collective carried it to every rank (confidence medium).",
}
#: why a culprit the line names is only a suspect (rank_failure.sql ``low_why``), as the summary says it
LOW_WHY = {
    "cuda-invalid-argument": "A CUDA call refused as an invalid argument is the call's, which every rank running the code makes "
                             "alike, or the platform's, not its GPU's: a suspect, not a culprit (confidence low).",
    "lone-paste-stack-mismatch": "The paste holds this rank's lines only, and the error is the build's or driver's misfit with "
                                 "the GPU (a kernel or symbol missing for its architecture, a runtime newer than the driver), "
                                 "which every GPU of that model meets alike: a suspect, not a culprit (confidence low).",
    "lone-paste-nccl-launch": "The paste holds this rank's lines only, and the error is NCCL's report of a CUDA failure "
                              "launching its collective, whose kernel every member runs alike: a suspect, not a culprit "
                              "(confidence low).",
    "lone-paste-storage-full": "The paste holds this rank's lines only, and the error is a full disk or quota: the filesystem "
                               "it wrote to (a node's, or one every node shares: a cache, a checkpoint directory), not the "
                               "rank's own: a suspect, not a culprit (confidence low).",
    "lone-paste-autograd-graph": "The paste holds this rank's lines only, and the error is autograd's refusal of the "
                                 "program's graph (a loss with no grad_fn, a view modified in place), which the model and "
                                 "code every rank runs meet alike at their first backward: a suspect, not a culprit "
                                 "(confidence low).",
    "lone-paste-setup-refusal": "The paste holds this rank's lines only, and the error refuses the setup, mode or "
                                "combination (not supported, not compatible, not in distributed mode), which the config "
                                "and launch every rank shares meet alike: a suspect, not a culprit (confidence low).",
    "lone-paste-program-structure": "The paste holds this rank's lines only, and the error is the program's own structure "
                                    "refused (tensors placed on two devices, an attribute asked of the DDP or FSDP wrapper "
                                    "instead of its module, a device-mesh dimension the config never built), which the code "
                                    "and config every rank runs meet alike: a suspect, not a culprit (confidence low).",
    "lone-paste-cross-rank-check": "The paste holds this rank's lines only, and the error is a check comparing its state with "
                                   "another rank's (a disagreement between two ranks): it fires on the rank that compares, "
                                   "and which rank diverged is not said: a suspect, not a culprit (confidence low).",
    "lone-paste-graph-capture": "The paste holds this rank's lines only, and the CUDA error is CUDA graph capture's refusal "
                                "of the program's stream use (an operation during capture), which every rank capturing the "
                                "same graph meets alike, not its GPU's: a suspect, not a culprit (confidence low).",
    "lone-paste-library-check": "The paste holds this rank's lines only, and the error is an installed library's own "
                                "assertion (an AssertionError or NotImplementedError raised in its site-packages code, "
                                "naming no device, rank, file or shape), which every rank running that library with that "
                                "config meets alike: a suspect, not a culprit (confidence low).",
}
