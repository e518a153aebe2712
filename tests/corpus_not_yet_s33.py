"""The corpus' expectations k10s does not meet yet from session 33's blind batches (149-), each with why; part of
tests/corpus_not_yet.NOT_YET (strict xfail: a case that starts passing must leave this list)."""

from __future__ import annotations

#: Expectations of session 33's batches that we do not meet, with why.
NOT_YET_S33: dict[str, str] = {
    # batch 149
    "dust3r-192-co3d-zero-frame-loop-rank2-absent-ranks0-1-3-allreduce-timeout": (
        "ranks 1, 0 and 3 time out in one gradient all-reduce (SeqNum 367201) and rank 2 never reports; nccl-hang names "
        "rank 2 never-joined, but at info: only rank 0's teardown (`Some NCCL operations have failed`) follows before the "
        "excerpt ends, so the waiters' reports are uneven and the paste does not hold every line they printed (the "
        "collector's excerpt was indeed cut there): rank 2 may have been cut with the rest. Charging it needs the paste's "
        "rest; the CO3D loader deadlock that holds one rank is the thread's. Every waiter's teardown, or none, names it "
        "(tests/test_3d_vision_batch149_wordings.py)"
    ),
    "mmdetection3d-1635-fcos3d-nuscenes-eval-rank0-ranks7-3-6-allreduce-timeout": (
        "three of eight ranks (7, 3, 6) time out in an ALLREDUCE of PyTorch <= 1.10's wording (no SeqNum) and five are "
        "unseen (0, 1, 2, 4, 5): nccl-hang says no single culprit, rightly from the text. That rank 0 is the one still "
        "evaluating is mmdet's eval hook (rank 0 evaluates alone) and the maintainer's reply; the rank-less tqdm bars "
        "name no process, and an all-reduce has no source rank (mmdetection-11096's BROADCAST does)"
    ),
    "mmdetection3d-952-pointpillars-ddp-rank6-missing-from-fetch-sample-prints": (
        "no finding, rightly from the text: the log is the author's own `rank N, fetch sample M` debug prints for seven "
        "of eight ranks, with no error, timeout or launcher report; rank 6 shows only by its absence from one round of "
        "prints. Reading a user's per-rank progress lines and charging the rank missing from a round would name ranks "
        "whose line merely came later (WeNet's per-rank progress, batch 144, names no one)"
    ),
    "neurad-studio-84-num-devices-spawn-process1-traceback-cut-control": (
        "torch.multiprocessing's `-- Process 1 terminated with the following error:` with the worker's traceback cut "
        "before its exception: rank-failure names process 1, python-exception, warning. That the fault is a bug of the "
        "multi-device code path every worker runs is the pull request's, not the log's; a lone spawned process's "
        "traceback is the corpus's culprit shape (contrastBoundary-22, RVT-40, SlowFast-549: the one process that "
        "raised), so not naming it would lose those culprits"
    ),
    # batch 150
    "mace-1348-patience-rank0-ddp-verify-allgather-collective-mismatch": (
        "no finding: the paste is rank 0's side of torch's collective fingerprint check (`Detected mismatch between "
        "collectives on ranks. Rank 0 is running collective: ... SequenceNumber=633704, OpType=ALLGATHER`) inside DDP's "
        "`_verify_param_shape_across_processes`, cut before `but Rank N is running ...`; the reporting rank is as often "
        "the waiter as the one out of step, and the peer is not in the log. That rank 0 alone left the loop on patience "
        "is the thread's cause and the fix ACEsuit/mace#1216's (mace-1215's shape, NOT_YET for the same reason)"
    ),
    "SevenNet-83-continue-finetune-root-cause-rank0-exit1-control": (
        "torchrun's `Root Cause (first observed failure)` names `rank : 0 (local_rank: 0)` `exitcode : 1` with no error "
        "file and no worker output: the corpus reads a lone root-cause block as that rank's failure (Megatron-Bridge-"
        "2974, prime-rl-938); that the failure is SevenNet's continue-training path every rank runs is the thread's "
        "(title, `bug` label), and the log holds nothing that tells it from one rank's error (CosyVoice-1817's shape)"
    ),
    # batch 151
    "pyxis-122-srun-label-task22-container-start-failed-small-set-of-nodes": (
        "The paste is one srun-labelled task's lines only (`22: slurmstepd: error: pyxis: container start failed with "
        "error code: 1` and the enroot log it prints, the hook's `pwck` segfault among them); that the step's other 31 "
        "tasks started their containers and ran (and so that task 22's node is the odd one) is in the reporter's prose "
        "only ('On most nodes srun is executed and I get 0 printed'). A lone labelled task's failure is no culprit by "
        "itself (the corpus's lone-traceback controls, where every rank failed alike and one was pasted), and the "
        "segfault is `pwck`'s inside an enroot hook, not the task's: naming task 22 would guess what the log cannot "
        "show."
    ),
    # batch 152
    "kohya_ss-745-ddp-reducer-oom-gpu0-six-sigterm": (
        "the one error is the CUDA OOM in DDP's reducer construction on `GPU 0`, then the agent SIGTERMs six workers "
        "(pids 45737-45742); the agent's line naming `local_rank: 0 (pid: 45736)` is cut by the excerpt. The allocator's "
        "device index names no rank by design (litgpt-303, self-supervised-speech-recognition-34: with "
        "CUDA_VISIBLE_DEVICES or one visible device per process it is every rank's `GPU 0`), and the six contiguous "
        "SIGTERMed pids leave the failed one either before or after them (CREAM-3's shape); device 0 = local rank 0 "
        "is the launch's convention, not the log's. With the agent's line present the worker is named (pinned in "
        "tests/test_gan_multi_model_batch152_wordings.py)"
    ),
    # batch 153
    # batch 154
    # batch 155
    # batch 156
    "dlrm-292-terabyte-8xa100-rank7-stuck-alltoall-watchdog-ranks2-5-6": (
        "nccl-hang info, no-single-culprit, rightly from the text: the paste is three of eight ranks' watchdog "
        "timeouts (ranks 2, 5, 6) on one ALLTOALL_BASE SeqNum; five ranks (0, 1, 3, 4, 7) are unseen, so the log "
        "cannot tell the rank that never joined from waiters whose lines were not pasted. Rank 7 stuck at the "
        "test-phase barrier is the reporter's prose only (closed without a maintainer's diagnosis); naming one of "
        "five absent ranks would be a guess (mmdetection3d-1635's shape: three of eight waiters, five unseen)"
    ),
    # batch 158
    # batch 159
    # batch 160
    # fairseq-1164 read right since session 67 (fairseq's own OOM report, `| WARNING: ran out of memory with exception:`,
    # names its process by its device: fairseq sets each worker's device to its local rank; docs/rules.md, session 67)
    # fairseq-2867 read right since session 67 (fairseq's own OOM report, `OOM: Ran out of memory with exception:`, names
    # its process by its device, fairseq's local rank; the import's layout takes it as a local rank seen: two processes)
    "fairseq-780-unpickle-other-workers-process5-epoch2-control": (
        "rank-failure warning names process 5, python-exception, for spawn's lone `-- Process 5 terminated with the "
        "following error:` (the excerpt ends there): that its error is `all_gather_list`'s 'Unable to unpickle data "
        "from other workers', the receive side of a desync raised by the worker that noticed, is the title's, not the "
        "log's; the header alone is the corpus's culprit shape (fairseq-3538 names process 5 from the same lines, "
        "contrastBoundary-22, RVT-40), so not naming it would lose those culprits (neurad-studio-84's shape)"
    ),
    # batch 161
    "nccl-tests-179-mpirun-a2000-k620-mixed-gpus-rank1": (
        "no finding, rightly from the text: the excerpt is nccl-tests' device table (rank 0 on an RTX A2000, rank 1 on a "
        "Quadro K620) and both hosts' start-up INFO, cut before the timeout; the K620 host is the culprit only by the "
        "thread (replacing the card fixed it). Naming a rank because its GPU model differs from its peer's would name "
        "every mixed-GPU cluster's odd host with no failure in the log"
    ),
    "nccl-1634-hgx-h100-11-missing-net-plugin-hang-ranks8-15": (
        "no finding, rightly from the text: the excerpt is two quoted NCCL INFO lines, HGX-H100-11's process using the "
        "internal network plugin (`Could not find: libnccl-net.so`) and HGX-H100-04's loading HPC-X's; no error, no hang "
        "line, no rank number (ranks 8-15 come from the command's `-N 8 -H HGX-H100-04:8,HGX-H100-11:8`). A plugin "
        "present on one host only is a difference of configuration, not a failure line; charging it needs the "
        "hang's own lines"
    ),
    "nccl-tests-1-mpirun-npernode2-g2-one-k80-invalid-ordinal-control": (
        "rank-failure names process 1 (warning, cuda-error since nccl-tests' own `Cuda failure common.cu:891 'invalid "
        "device ordinal'` is read as the process's CUDA error) from Open MPI's `first process to do so ... "
        "[[61045,1],1]`. Two processes x `-g 2` on one K80's two devices is the command line's over-ask, but "
        "ordinal_alike keeps the missing ordinal the process's own where it is the last local rank of a node of known "
        "size (here `-npernode 2`), the shape the corpus names as the culprit (LMFlow-855, codellama-123: the second "
        "process on a one-GPU host); that `-g 2` multiplies each process's devices, and that the node has two, is not "
        "in any line the rule reads (the node's device count is prose only)"
    ),
    # nccl-tests-322 (six hosts' identical `Test NCCL failure` lines, Open MPI's first exit) reads right since session
    # 69: log_nccl_tests + _incident_common_mode.nccl_tests_hosts_alike (tests/test_nccl_tests_hosts_alike.py)
    # session 33 leftovers
}
