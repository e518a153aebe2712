"""The corpus' expectations k10s does not meet yet from session 51's blind batches (281-), each with why; part of
tests/corpus_not_yet.NOT_YET (strict xfail: a case that starts passing must leave this list)."""

from __future__ import annotations

#: Expectations of session 51's batches that we do not meet, with why.
NOT_YET_S51: dict[str, str] = {
    # batch 284
    "UNITER-31-horovod-shutdown-rank1-mpirun-first-rank0-oom":
        "the log is rank 1's `RuntimeError: Horovod has been shut down. This was caused by an exception on one of the "
        "ranks ...` (a victim's wording) and Open MPI's `The first process to do so was: Process name: [[50371,1],0] Exit "
        "code: 1`, read as rank 0's failure with rank 1's exception (python-exception, warning): the rank is the one "
        "mpirun names, but that rank 0 died of a `RuntimeError: CUDA out of memory` is only the author's closing comment "
        "(\"i missed this ... message\"), not a log line",
    "returnn-1084-horovod-stalled-rank2-crashed-worker":
        "the log is Horovod's stall warning (`stall_inspector.cc:105] One or more tensors were submitted ... waiting for "
        "remainder of ranks for more than 60 seconds`) and its untagged list `Stalled ranks:` / `2: [..._have_more_data_"
        "placeholder_0, ..._have_error_placeholder_0]`, read routed as rank 2 never joining (nccl-hang, never-joined, "
        "critical, also with every line behind the API's timestamp since session 51); that rank 2's worker had crashed "
        "(rank-dead) is the author's account, not a log line",
    # batch 282
    "Liger-Kernel-332-fsdp-lm-head-flce-rank3-size-mismatch-control":
        "the log is the tail of rank 3's `[rank3]:` traceback in Liger's fused linear cross-entropy ending in "
        "`RuntimeError: size mismatch, got input (2), mat (2x4096), vec (65667072)`, read as rank 3's own failure "
        "(python-exception, warning): the one rank pasted; that every rank hits the same FLCE/FSDP flattened-lm_head "
        "incompatibility is the thread's account (the author's 'always' when lm_head is trained), not a log line",
    # batch 282: Liger-Kernel-48 read right since session 60 (a lone paste's autograd refusal of the program's graph,
    # `Output 0 of ViewBackward0 is a view and its base ... has been modified inplace`, is a suspect only: low_why
    # lone-paste-autograd-graph)
    # batch 288
    "torchforge-500-reference-model-replica0-oom-cut-traceback":
        "the log is Monarch's remote-actor report `Got failure on replica 0. Error:` / `A remote actor call has failed.` "
        "and the reference-model actor's traceback down to `scaled_logits = logits / temperature`, read as no finding at "
        "all (no exception line survives the excerpt, and `replica 0` is not a rank wording k10s reads); that the "
        "reference model's replica 0 ran out of CUDA memory on its GPU 0 is the author's account and the paste's next, "
        "cut line (`torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 37.09 GiB. GPU 0 ...`), which even kept "
        "would read as a critical cuda-oom of no rank",
    # session 51 leftovers
}
