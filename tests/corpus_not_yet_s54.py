"""The corpus' expectations k10s does not meet yet from session 54's blind batches (314-), each with why; part of
tests/corpus_not_yet.NOT_YET (strict xfail: a case that starts passing must leave this list)."""

from __future__ import annotations

#: Expectations of session 54's batches that we do not meet, with why.
NOT_YET_S54: dict[str, str] = {
    # batch 315
    "sichek-51-nccltest-gpu1-reset-required-busy-unavailable": "nccl-tests' `Test CUDA failure common.cu:1007` with its "
    "quoted CUDA message wrapped onto the next line (`'CUDA-capable device(s) is/are busy or unavailable'`) reads as "
    "nothing at all (no finding): the failure pattern wants the quote on the same line; joined, it reads as a cuda-error "
    "of no rank (warning), nccl-tests' one process naming neither rank nor device in the line. Only the thread says "
    "GPU1 is the reset-required GPU, and only sichek's code maps `-g 1,0` (CUDA_VISIBLE_DEVICES=1,0, one two-GPU "
    "process) to CUDA device 0, i.e. NCCL rank 0.",
    # batch 316
    "metax-forum-430-torchrun-eaddrinuse-every-worker-rendezvous-control": "torchrun's `Root Cause (first observed "
    "failure)` block naming `rank: 5 (local_rank: 5)`, `exitcode: 1` under a traceback cut by the author after "
    "`store = TCPStore(` reads as rank 5's Python exception (warning, python-exception), as the pasted "
    "`EADDRINUSE` block above it would too; that every one of the eight workers fails alike at rendezvous with "
    "EADDRINUSE on any port in the MACA container (a launcher/environment fault, rank 5 only the first error file "
    "read) is the author's account, not a log line.",
    # batch 318
    "TorchSpec-126-fsdp2-rank1-skipped-sample-one-allgather-behind-abridged": "no finding at all: the author's `## Error` "
    "block is a template (`[Rank N] Watchdog caught collective operation timeout:` wrapped over three lines with "
    "`SeqNum=…` and `ran for 600000+ ms`), so no rank, sequence number or duration is read; the same three lines "
    "written for ranks 0, 2 and 3 of the 4 DP ranks would name rank 1 (nccl-hang, never-joined, warning). That rank 1 "
    "is the one a collective behind (`[Rank 1] Last enqueued NCCL work: 21936, last completed 21936` against 21937 on "
    "ranks 0/2/3, having dropped a sample per-rank in `DataFetcher`) is the flight-recorder block and the fix PR "
    "(TorchSpec#138), outside this excerpt.",
    "pytorch-77562-fsdp-t5-rank0-save-path-rank3-allgather-only-line": "no finding: one pre-2.0 watchdog line, rank 3 "
    "timing out alone in an FSDP `_ALLGATHER_BASE` (SeqNum 3738254, 30 min); a lone timing-out rank is read as the "
    "waiter for an absent peer and names no one (autocast-381's and pytorch-143536's shape), and the paste does not "
    "say how many ranks there were. That rank 0 took the other path (the loss summed with `dist.reduce`, so only rank "
    "0 decided to save on a new best loss and never reached the all-gather) is the author's and rohan-varma's account "
    "in the thread.",
    # batch 317
    "pytorch-108861-pytorchjob-worker1-dataloader-bus-error-shm": "a DataLoader traceback pasted in inline backticks "
    "ending in `RuntimeError: DataLoader worker (pid 11011) is killed by signal: Bus error ... out of shared memory` "
    "reads as a sigbus (warning) of no rank as pasted, and of rank 0 when laid out one process per pod (nproc 1, world "
    "4): the log carries no rank tag. Only the thread says the log is PyTorchJob worker-1's, which is global rank 2 "
    "by the operator's master=0, worker-i=i+1 numbering.",
    "microsoft-pai-4344-k8s-node-gpu-minor0-rminitadapter-failed": "the kernel's `NVRM: RmInitAdapter failed! "
    "(0x26:0xffff:1127)` / `NVRM: rm_init_adapter failed for device bearing minor number 0`, repeated, read as "
    "nothing at all as collected; since session 54 they are a critical gpu-health finding (`gpu-init-failed`) of the "
    "node and no rank, as pasted or on four GPUs: a GPU the driver could not bring up runs no rank, and the minor "
    "number is no CUDA index. Only the thread says GPU minor 0 is the node's dead GPU (nvidia-smi shows 3 of 4) and "
    "the node was cordoned (the expectation: that GPU as rank 0's).",
    "pytorch-elastic-115-classyvision-group-rank0-pod-deleted-hang": "ClassyVision's last progress lines (`Synced "
    "meters: [0] ...`, `Saving checkpoint to ...`) and then silence read as nothing (no finding): no line fails. "
    "Only the thread says the author deleted the group_rank 0 pod (`cv-test-0`) and the survivors hang.",
    # session 54 leftovers
}
