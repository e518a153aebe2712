"""The log parser on EVERY real log sample (real-samples/logs and incidents/*/log.txt).

Expectations were written by reading each file. Each file is fed as a raw log body twice:
as pasted (no API timestamp prefix) and with a synthetic ``timestamps=true`` prefix on
every line; both must give the same events (the prefix then supplies ``ts``).
"""

from __future__ import annotations

import datetime as dt

import pytest

from log_helpers import CAPTURED, derive, issue_counts, log_row, prefix_ts, with_api_prefix
from k10s_forensics.parsers import logs

UTC = dt.timezone.utc
GIB = 1024.0


def T(*args) -> dt.datetime:
    return dt.datetime(*args, tzinfo=UTC)


def wd(rank, seq, op, ran, timeout=600000, subkind="watchdog_caught", **kw):
    return ("nccl_watchdog_timeout", dict(rank=rank, seq_num=seq, op_type=op, ran_for_ms=ran, timeout_ms=timeout, subkind=subkind, **kw))


def summary(rank, seq, enq, done, pg, **kw):
    return ("watchdog_exception_summary", dict(rank=rank, seq_num=seq, last_enqueued_seq=enq, last_completed_seq=done, pg=pg, **kw))


def oom(rank, dev, req, total, free, in_use, **kw):
    return ("cuda_oom", dict(rank=rank, cuda_dev=dev, oom_requested_mib=req, oom_total_mib=total, oom_free_mib=free, oom_in_use_mib=in_use, **kw))


def sigterm(pid):
    return ("torchrun_sigterm", dict(pid=pid, subkind="SIGTERM", rank=None))


def table(rank, local, exit_code, pid, subkind, ts=None):
    fields = dict(rank=rank, local_rank=local, exit_code=exit_code, pid=pid, subkind=subkind)
    if ts:
        fields["ts"] = ts
    return ("torchrun_failure", fields)


def closed(local, host, pid):
    return ("nccl_peer_closed", dict(local_rank=local, nccl_host=host, pid=pid))


W0 = "liangxianchen-funasr-15wh-train-lxc0-w-0"
M0 = "liangxianchen-funasr-15wh-train-lxc0-m-0"

EXPECTED: dict[str, list[tuple[str, dict]]] = {
    "logs/cuda-oom_80gb-gpu_bare-message_mask2dit-issue4.log": [
        oom(None, 0, 35.60 * GIB, 79.33 * GIB, 26.16 * GIB, 53.16 * GIB, subkind="pytorch"),
    ],
    "logs/cuda-oom_legacy-runtimeerror-format_80gb_stylegaussian-issue11.log": [
        oom(None, 0, 130674.91 * GIB, 79.15 * GIB, 37.61 * GIB, 28.21 * GIB, subkind="pytorch_legacy"),
        ("training_step", dict(step=0, subkind="tqdm", line_no=2)),
    ],
    "logs/cuda-oom_legacy-runtimeerror-format_gpu1_stripformer-issue21.log": [
        oom(None, 1, 1.65 * GIB, 7.79 * GIB, 1.40 * GIB, 5.28 * GIB, subkind="pytorch_legacy"),
    ],
    "logs/cuda-oom_rank-prefix_cobra-issue24.log": [oom(0, 0, 158.0, 23.69 * GIB, 115.69, 23.57 * GIB)],
    "logs/cuda-oom_traceback-tail_multi-process-gpu_rlinf-issue255.log": [
        oom(None, 0, 86.0, 23.64 * GIB, 264.0, 8.04 * GIB, line_no=5),  # "this process has" wins over other processes
    ],
    "logs/cuda-oom_vllm-engine-prefix_cuda-graph-pools_kaito-issue976.log": [
        oom(None, 0, 546.0, 15.77 * GIB, 514.19, 15.25 * GIB, ts_raw=T(2026, 4, 1, 23, 46, 56)),
    ],
    "logs/nccl-remote-error_processgroupnccl-terminate_legacy_alpaca-issue207.log": [
        ("nccl_remote_error", dict(peer_ip="11.214.147.122", peer_port=39138, subkind="ib_completion_error", severity="E")),
    ],
    "logs/nccl-timeout_blocking-wait_diffusers-issue12422.log": [
        wd(1, 2521, "ALLREDUCE", 600000, ts_raw=T(2026, 10, 2, 18, 16, 40, 662329)),
        wd(1, 2521, "ALLREDUCE", None, subkind="blocking_wait"),
        wd(7, 2521, "ALLREDUCE", 600000),
        wd(7, 2521, "ALLREDUCE", None, subkind="blocking_wait"),
        wd(5, 2521, "ALLREDUCE", 600000),
    ],
    "logs/nccl-warn-net-ib-completion-error12-vendor129_k8s-worker_nccl-issue1405.log": [
        ("nccl_remote_error", dict(peer_ip="10.216.210.236", peer_port=port, nccl_host="kp-ddp-worker-0", pid=3468, cuda_dev=4, severity="W"))
        for port in (54862, 54862, 49892)
    ],
    "logs/nccl-warn-net-ib-error4-vendor81_h100-nccl-tests_nccl-issue928.log": [
        ("nccl_remote_error", dict(peer_ip="fe80::966d:ae03:8b:df78%ib0", peer_port=53249, nccl_host="H100-2", pid=19989, cuda_dev=1)),
        ("nccl_remote_error", dict(peer_ip="fe80::966d:ae03:8b:df50%ib0", peer_port=44413, nccl_host="H100-1", pid=9821, cuda_dev=1)),
    ],
    "logs/nccl-watchdog-exception-frames_elastic-exitcode-minus6_pytorch-issue126544.log": [
        # the watchdog's C++ stack header (`Exception raised from ncclCommWatchdog at …`): a watchdog line naming no rank
        ("watchdog_exception_summary", dict(rank=None, subkind="watchdog_stack", seq_num=None, line_no=3)),
        ("torchrun_failure", dict(rank=None, local_rank=0, exit_code=-6, pid=970611, subkind="agent", line_no=10, ts_raw=T(2026, 5, 17, 8, 24, 3, 805000))),
    ],
    "logs/nccl-watchdog-hang-fatal_elastic-sigterm_ms-swift-issue7992.log": [
        ("nccl_watchdog_timeout", dict(rank=2, subkind="watchdog_hang", severity="F", pg="137(INTRA_DISTRIBUTED_OPTIMIZER_INSTANCE_GROUP)", ts_raw=T(2026, 2, 5, 18, 19, 6, 383067))),
        *[sigterm(pid) for pid in (4086, 4088, 4089, 4090, 4091, 4092, 4093)],
    ],
    "logs/nccl-watchdog-timeout_after-tqdm-progress_pytorch-issue118369.log": [
        wd(0, 96120, "ALLREDUCE", 25624887, timeout=1800000, ts_raw=None),  # glued to a tqdm bar: still found
        wd(0, 96117, "ALLREDUCE", 25625613, timeout=1800000),
        wd(0, 96125, "ALLREDUCE", 25625593, timeout=1800000),
        wd(0, 96125, "ALLREDUCE", 25625593, timeout=1800000),
        wd(7, 64088, "ALLREDUCE", 25625251, timeout=1800000),
    ],
    "logs/nccl-watchdog-timeout_alltoall_timestamp-prefix_nccl-socket_nccl-issue1610.log": [
        wd(13, 216, "ALLTOALL_BASE", 600045, pg_rank=1),
        summary(13, 216, 220, 215, "119", pg_rank=1),
        wd(15, 57, "ALLREDUCE", 600045, pg_rank=1),
        summary(15, 57, 57, 56, "112", pg_rank=0),
    ],
    "logs/nccl-watchdog-timeout_legacy-format_8xV100_ofa-issue271.log": [
        wd(r, 469508, "ALLREDUCE", ran, timeout=1800000, severity="E", ts_raw=None)
        for r, ran in ((1, 1802212), (3, 1802211), (2, 1802212), (6, 1802210), (7, 1802220))
    ],
    "logs/nccl-watchdog-timeout_reduce-scatter_pg1_llamafactory-issue6269.log": [
        wd(0, 7753, "_REDUCE_SCATTER_BASE", 600061, ts_raw=T(2025, 12, 6, 18, 44, 12, 715298)),  # E1206 before a Nov capture: last year
        summary(0, 7753, 7755, 7752, "1"),
        wd(4, 7753, "_REDUCE_SCATTER_BASE", 600099),
        summary(4, 7753, 7755, 7752, "1"),
        wd(3, 7753, "_REDUCE_SCATTER_BASE", 600089),
    ],
    "logs/nccl-watchdog-timeout_torch2.4-format_pg-guid_basicsr-issue737.log": [
        wd(1, 808, "ALLREDUCE", 600020),
        summary(1, 808, 811, 807, "0(default_pg)"),
        wd(0, 808, "ALLREDUCE", 600030),
        summary(0, 808, 811, 807, "0(default_pg)"),
        wd(2, 808, "ALLREDUCE", 600061),
    ],
    "logs/torch-distributed-launch_exitcode-minus9-sigkill_mmhuman3d-issue322_truncated.log": [
        ("torchrun_failure", dict(rank=None, local_rank=0, exit_code=-9, pid=3041437, subkind="agent")),
    ],
    "logs/torchrun-childfailederror_multiple-failures_pla-issue18_truncated.log": [
        table(r, r, 1, 3669030 + r, "failures", T(2023, 9, 4, 10, 10, 23)) for r in (1, 2, 3)
    ],
    "logs/torchrun-childfailederror_no-other-failures_traceback_colossalai-issue3571_truncated.log": [
        ("torchrun_failure", dict(rank=None, local_rank=0, exit_code=1, pid=130182, subkind="agent")),
    ],
    "logs/torchrun-childfailederror_root-cause-rank0_minigpt4-issue237.log": [
        table(1, 1, 1, 78971, "failures", T(2023, 5, 19, 16, 39, 58)),
        table(0, 0, 1, 78970, "root_cause", T(2023, 5, 19, 16, 39, 58)),
    ],
    "logs/torchrun-childfailederror_sigabrt-exitcode-minus6_picotron-issue6_excerpt.log": [
        table(None, None, -6, 3437, "table"),  # the excerpt starts mid-entry
        table(7, 7, -6, 3438, "table", T(2025, 5, 1, 11, 12, 35)),
        table(0, 0, -6, 3431, "root_cause", T(2025, 5, 1, 11, 12, 35)),
    ],
    "incidents/amphion-167-all-ranks-sigsegv/log.txt": [
        table(1, 1, -11, 45620, "failures", T(2024, 3, 27, 14, 52, 55)),
        table(2, 2, -11, 45621, "failures", T(2024, 3, 27, 14, 52, 55)),
        table(0, 0, -11, 45619, "root_cause", T(2024, 3, 27, 14, 52, 55)),
    ],
    "incidents/colossalai-3172-gemini-sigkill-rank0/log.txt": [
        sigterm(2410413),
        ("torchrun_failure", dict(local_rank=0, exit_code=-9, pid=2410412, subkind="agent")),
    ],
    "incidents/colossalai-3556-torchrun-sigbus-local-rank1/log.txt": [
        sigterm(5620),  # glued to a "Map:  96%|###" progress bar
        sigterm(5622),
        ("torchrun_failure", dict(local_rank=1, exit_code=-7, pid=5621, subkind="agent")),
    ],
    "incidents/colossalai-3677-torchrun-sigkill-local-rank1/log.txt": [
        sigterm(1167), sigterm(1169), sigterm(1170),
        ("torchrun_failure", dict(local_rank=1, exit_code=-9, pid=1168, subkind="agent")),
    ],
    "incidents/deepspeed-5302-launcher-last-rank-misattribution/log.txt": [
        # the command printed is the LAST spawned one ('--local_rank=4'), not the failed process: no rank
        ("process_exit", dict(rank=None, local_rank=None, exit_code=1, subkind="launcher_last_cmd", ts_raw=T(2024, 3, 20, 20, 31, 29, 269000))),
    ],
    "incidents/determined-8915-first-allgather-hang-bogus-rank0-mismatch/log.txt": [
        # c10d's store-based barrier: each rank that reached it (no worker count here: nothing is missing)
        *[("rank_joining", dict(rank=r, subkind="store_barrier", nranks=None, line_no=n)) for n, r in ((1, 3), (2, 1), (3, 6), (4, 4))],
        *[("rank_joining", dict(rank=r, subkind="store_barrier", nranks=8, line_no=n)) for n, r in ((5, 1), (6, 4), (7, 2))],
        ("python_exception", dict(rank=5, subkind="raised", error_type="RuntimeError", ts_raw=T(2024, 2, 27, 21, 35, 28, 419846),
                                  error_message="DDP expects same model across all ranks, but Rank 5 has 8 params, while rank 0 has inconsistent 0 params.")),
        # rank-tagged tracebacks whose exception line the paste does not hold
        ("python_traceback", dict(rank=6, line_no=9)),
        ("python_traceback", dict(rank=0, line_no=11)),
        wd(1, 1, "ALLGATHER", 1804775, timeout=1800000, ts_raw=T(2024, 2, 27, 21, 35, 28, 705869)),
        wd(4, 1, "ALLGATHER", 1804782, timeout=1800000),
        ("python_traceback", dict(rank=2, line_no=21)),
    ],
    "incidents/kohya-1434-2gpu-ecc-rank1/log.txt": [
        ("cuda_error", dict(rank=None, subkind="ecc", error_type="CUDA error", error_message="uncorrectable ECC error encountered")),
        ("cuda_error", dict(rank=1, subkind="ecc", error_message="uncorrectable ECC error encountered", severity="E")),  # via the watchdog
    ],
    "incidents/llamafactory-2206-srun-all-ranks-sigbus/log.txt": [
        ("process_exit", dict(pid=16614, exit_code=-7, subkind="SIGBUS")),  # the paste starts at a table trailer
        table(6, 6, -7, 16615, "table", T(2024, 1, 16, 18, 4, 1)),
        table(7, 7, -7, 16616, "table", T(2024, 1, 16, 18, 4, 1)),
        table(0, 0, -7, 16609, "root_cause", T(2024, 1, 16, 18, 4, 1)),
        ("process_exit", dict(exit_code=1, subkind="srun", rank=0)),  # srun task 0 = the agent (queries/_incident.sql ignores it: torchrun reports here)
    ],
    "incidents/llamafactory-6953-multinode-heartbeat-rank144/log.txt": [
        ("nccl_watchdog_timeout", dict(rank=144, subkind="watchdog_hang", pg="0", severity="E")),
    ],
    "incidents/longchat-9-torchrun-sigkill-local-rank4/log.txt": [
        *[sigterm(pid) for pid in (24901, 24902, 24903, 24904, 24906, 24907, 24908, 24909)],
        ("torchrun_failure", dict(local_rank=4, exit_code=-9, pid=24905, subkind="agent")),
    ],
    "incidents/ms-swift-5884-torchrun-launcher-sighup-control/log.txt": [
        ("torchrun_sigterm", dict(pid=85005, subkind="SIGHUP", ts_raw=T(2026, 9, 20, 9, 10, 41, 195000))),
        ("torchrun_sigterm", dict(pid=85006, subkind="SIGHUP")),
    ],
    "incidents/nccl-1730-ras-ok-rank118-timeout/log.txt": [
        wd(118, 2398459, "ALLREDUCE", 1800068, timeout=1800000, ts_raw=T(2026, 6, 3, 17, 48, 1, 5271)),
        ("nccl_watchdog_timeout", dict(rank=118, subkind="failure_detected", seq_num=2398459, last_enqueued_seq=2398578, last_completed_seq=2398458, pg="0(default_pg)")),
    ],
    "incidents/open-r1-620-grpo-broadcast-rank0-missing/log.txt": [
        # the paste is hard-wrapped at 138 columns ("OpTy" / "pe=BROADCAST"): the tail is glued back
        # (pasted only: container logs with API timestamps are never wrapped)
        ("nccl_watchdog_timeout", dict(rank=1, seq_num=4, op_type="BROADCAST", subkind="watchdog_caught", **{"timeout_ms@pasted": 1800000, "ran_for_ms@pasted": 1800010})),
        *[("nccl_watchdog_timeout", dict(rank=r, seq_num=4, subkind="watchdog_caught", **{"op_type@pasted": "BROADCAST", "ran_for_ms@pasted": ran}))
          for r, ran in ((2, 1800010), (3, 1800011), (6, 1800010), (5, 1800010))],
        ("nccl_watchdog_timeout", dict(rank=4, seq_num=4, subkind="watchdog_caught", op_type=None)),  # its tail was cut from the paste
        ("watchdog_exception_summary", dict(rank=None, subkind="watchdog_stack", seq_num=None, line_no=22)),  # `Exception raised from ncclCommWatchdog at …`
    ],
    "incidents/pytorch-113128-multinode-ecc-rank12/log.txt": [
        # [default0]: is torchrun's --tee role prefix: LOCAL rank 0; [rank12]: the global rank
        ("cuda_error", dict(rank=12, local_rank=0, subkind="ecc", error_message="uncorrectable ECC error encountered", ts_raw=T(2026, 8, 17, 17, 40, 34, 227531))),
    ],
    "incidents/pytorch-152780-rtx5090-illegal-access-both-ranks/log.txt": [
        ("cuda_error", dict(subkind="illegal-address", nccl_host="Amphitrite", pid=940929, cuda_dev=1, ts_raw=T(2025, 5, 4, 23, 32, 59),
                            error_message="an illegal memory access was encountered")),
        ("cuda_error", dict(subkind="illegal-address", nccl_host="Amphitrite", pid=940928, cuda_dev=0)),
        ("cuda_error", dict(subkind="illegal-address", rank=None, pid=None)),  # c10::Error what(): no prefix

    ],
    "incidents/pytorch-61839-legacy-launch-segfault-wrong-rank/log.txt": [
        # CalledProcessError names the last spawned command ('--local_rank=7'), not the failed one: no rank
        ("process_exit", dict(rank=None, local_rank=None, exit_code=-11, subkind="launcher_last_cmd")),
    ],
    "incidents/pytorch-88251-torchrun-rank5-exit1-wrapped-lines/log.txt": [
        *[sigterm(pid) for pid in (59460, 59461, 59462, 59463, 59466, 59470, 59471)],
        ("torchrun_failure", dict(local_rank=5, exit_code=1, pid=59469, subkind="agent")),
    ],
    "incidents/uniter-31-horovodrun-mpirun-rank0-first/log.txt": [
        ("python_exception", dict(rank=1, subkind="teardown", error_type="RuntimeError")),  # [1,1]<stderr>: = rank 1
        ("process_exit", dict(rank=0, exit_code=1, subkind="mpirun_first")),  # Process name: [[50371,1],0] + Exit code: 1
    ],
    "incidents/vad-r1-11-torchrun-oom-rank2-first-failure-rank1/log.txt": [
        oom(2, 2, 14.06 * GIB, 79.25 * GIB, 6.96 * GIB, 72.28 * GIB),
        ("torchrun_sigterm", dict(pid=155026, subkind="SIGTERM", ts_raw=T(2026, 3, 30, 21, 37, 33, 868000))),
        sigterm(155028), sigterm(155029),
        ("torchrun_failure", dict(local_rank=1, exit_code=1, pid=155027, subkind="agent", ts_raw=T(2026, 3, 30, 21, 37, 34, 807000))),
    ],
    "incidents/vrt-47-legacy-launch-sighup-control/log.txt": [
        ("training_step", dict(step=400, subkind="iteration")),
        ("training_step", dict(step=600, subkind="iteration", _pasted_only=True)),  # thinned when 1 s apart
        ("training_step", dict(step=800, subkind="iteration")),
        ("torchrun_sigterm", dict(pid=2704351, subkind="SIGHUP")),
        ("torchrun_sigterm", dict(pid=2704352, subkind="SIGHUP")),
    ],
    "incidents/funasr-2006-multinode-allreduce-timeout/log.txt": [
        oom(2, None, 336.0, 79.15 * GIB, 141.25, 78.99 * GIB),  # "GPU  has": no device ordinal printed
        closed(2, W0, 15325), closed(2, W0, 15323), closed(2, W0, 15327), closed(2, W0, 15329),
        wd(5, 15734, "ALLREDUCE", 600037),
        closed(1, W0, 15323), closed(1, W0, 15325), closed(1, W0, 15324), closed(1, W0, 15327), closed(1, W0, 15329),
        ("nccl_comm_abort", dict(rank=7, nranks=16, cuda_dev=7, bus_id="0000:e0:00.0", nccl_host=W0, pid=15330)),
        ("nccl_comm_abort", dict(rank=5, nranks=16, cuda_dev=5, bus_id="0000:a1:00.0", nccl_host=W0, pid=15328)),
        ("nccl_watchdog_timeout", dict(rank=7, subkind="timeout_at_work", seq_num=15734, last_enqueued_seq=15735, last_completed_seq=15733, pg="1")),
        ("nccl_error_other", dict(rank=7, subkind="async_error_teardown")),
        ("nccl_comm_abort", dict(rank=14, nranks=16, cuda_dev=6, bus_id="0000:db:00.0", nccl_host=M0, pid=14057)),
        ("nccl_watchdog_timeout", dict(rank=14, subkind="timeout_at_work", seq_num=15734, last_enqueued_seq=15735, last_completed_seq=15733)),
        ("nccl_error_other", dict(rank=14, subkind="async_error_teardown")),
        wd(14, 15734, "ALLREDUCE", 600098, subkind="thread_terminated", pg="1"),
        ("watchdog_exception_summary", dict(rank=None, subkind="watchdog_stack", seq_num=None, line_no=22)),  # `Exception raised from ncclCommWatchdog at …`
    ],
    "incidents/ms-swift-4353-torchrun-agent/log.txt": [
        sigterm(115225), sigterm(115226), sigterm(115227),
        ("torchrun_failure", dict(local_rank=3, exit_code=-6, pid=115228, subkind="agent", ts_raw=T(2026, 5, 26, 3, 33, 41, 170000))),
    ],
    "incidents/ms-swift-6301-4node-zero3-timeout/log.txt": [
        ("training_step", dict(step=40, subkind="tqdm", line_no=1)),
        ("training_step", dict(step=20, subkind="tqdm", line_no=2)),
        ("python_traceback", dict(rank=11, line_no=3)),  # its exception line is the CUDA OOM below
        oom(11, 3, 4.35 * GIB, 63.42 * GIB, 1.70 * GIB, 60.30 * GIB, line_no=21),
        sigterm(2521733),
        wd(3, 55485, "_REDUCE_SCATTER_BASE", 600087),
        ("nccl_watchdog_timeout", dict(rank=3, subkind="failure_detected", seq_num=55485, last_enqueued_seq=55487, last_completed_seq=55484, pg="1")),
        ("watchdog_exception_summary", dict(rank=5, subkind="dump_signal", seq_num=None, last_enqueued_seq=79209, last_completed_seq=79196, pg="0(default_pg)")),
    ],
    "incidents/ms-swift-9112-two-gpu-sft/log.txt": [
        oom(1, 1, 674.0, 79.14 * GIB, 100.75, 79.03 * GIB),
        sigterm(92385),
        ("torchrun_failure", dict(local_rank=1, exit_code=1, pid=92386, subkind="agent")),
    ],
    "incidents/nccl-1235-multinode-p2p-setup/log.txt": [
        ("nccl_remote_error", dict(peer_ip="ng30903-ib.narval.calcul.quebec", peer_port=51159, nccl_host="ng30903", pid=3063025, cuda_dev=0, subkind="connection_closed")),
        ("nccl_error_other", dict(subkind="nccl_warn", nccl_host="ng30903", pid=3063025)),
        # "Cuda failure 'out of memory'" absorbs the "Failed to CUDA calloc 6291456 bytes" line after it
        ("cuda_oom", dict(subkind="nccl", nccl_host="ng30903", pid=3063028, cuda_dev=3, oom_requested_mib=6.0, line_no=14)),
    ],
    "incidents/pytorch-140969-fr-trace-default-pg/log.txt": [
        ("flight_recorder_missing_ranks", dict(rank=r, seq_num=31117, op_type="nccl:all_reduce", pg="0:default_pg")) for r in (3, 4, 5, 6, 7)
    ],
    "incidents/pytorch-152623-nanogpt-nightly-hang/log.txt": [
        wd(0, 241, "ALLREDUCE", 600086),
        ("nccl_desync", dict(rank=7, reporter_rank=0, seq_num=183, last_completed_seq=182, line_no=5)),
        ("nccl_watchdog_timeout", dict(rank=0, subkind="failure_detected", seq_num=241, last_enqueued_seq=315, last_completed_seq=183)),
    ],
    "incidents/sglang-5013-tp8-service-thread/log.txt": [
        closed(7, "A100-GPU-50", pid) for pid in (343, 344, 341, 340, 339, 342, 338, 344, 343, 342, 341, 339, 340, 338)
    ],
    "incidents/simpletuner-2712-collective-mismatch/log.txt": [
        ("collective_mismatch", dict(rank=1, reporter_rank=1, seq_num=101, op_type="ALLGATHER", ts_raw=T(2026, 5, 19, 10, 10, 29, 701000))),
        ("collective_mismatch", dict(rank=7, reporter_rank=1, seq_num=0, op_type="REDUCE")),
        ("python_traceback", dict(rank=7, line_no=3)),
    ],
}

#: Issues (source logs) each file must produce, as pasted (no prefix).
EXPECTED_ISSUES = {
    "logs/torchrun-childfailederror_no-other-failures_traceback_colossalai-issue3571_truncated.log": {
        "torchrun failure table entry without fields (log cut short)": 1,
    },
}


def _sample_files(real_samples):
    files = sorted(p.relative_to(real_samples).as_posix() for p in (real_samples / "logs").iterdir())
    files += sorted(p.relative_to(real_samples).as_posix() for p in (real_samples / "incidents").glob("*/log.txt"))
    return files


def test_every_real_log_sample_has_expectations(real_samples):
    assert sorted(_sample_files(real_samples)) == sorted(EXPECTED), "a real log sample was added or removed: write its expectations"


def _check(events: list[dict], expected: list[tuple[str, dict]], prefixed: bool, name: str) -> None:
    got = sorted(events, key=lambda e: e["line_no"])
    expected = [(k, {f: v for f, v in fields.items() if f != "_pasted_only"}) for k, fields in expected if not (prefixed and fields.get("_pasted_only"))]
    summary_ = [(e["kind"], e["line_no"], e.get("rank")) for e in got]
    assert [e["kind"] for e in got] == [k for k, _ in expected], f"{name}: {summary_}"
    for ev, (kind, fields) in zip(got, expected):
        for key, want in fields.items():
            if key.endswith("@pasted"):  # a field only the pasted form yields (wrapped lines glued)
                if prefixed:
                    continue
                key = key.removesuffix("@pasted")
            if key == "ts_raw":  # ts parsed from the line itself (only meaningful without the prefix)
                if not prefixed:
                    assert ev["ts"] == want, (name, kind, ev["line_no"], ev["ts"])
                continue
            if key == "ts" and prefixed is False:
                assert ev["ts"] == want, (name, kind, ev["ts"])
                continue
            if isinstance(want, float):
                assert ev[key] == pytest.approx(want, rel=1e-9), (name, kind, key, ev[key])
            else:
                assert ev[key] == want, (name, kind, key, ev[key], ev["line"][:120])
        assert ev["line"] and len(ev["line"]) <= 4096
        if prefixed:
            want_ts = fields.get("ts") if kind == "torchrun_failure" and "ts" in fields else prefix_ts(ev["line_no"])
            assert ev["ts"] == want_ts, (name, kind, ev["line_no"], ev["ts"])


@pytest.mark.parametrize("prefixed", [False, True], ids=["as-pasted", "api-timestamps"])
def test_real_log_samples(tmp_path, real_samples, prefixed):
    names = _sample_files(real_samples)
    rows = []
    for name in names:
        body = (real_samples / name).read_text(encoding="utf-8")
        rows.append(log_row(with_api_prefix(body) if prefixed else body, pod=name))
    ctx, issues = derive(tmp_path, logs, logs=rows)
    table = ctx.table("log_events")
    events = table.to_pylist()
    by_pod: dict[str, list[dict]] = {}
    for ev in events:
        by_pod.setdefault(ev["pod"], []).append(ev)
        assert ev["namespace"] == "team-a" and ev["container"] == "pytorch" and ev["node"] == "gpu-node-1"
        assert ev["pod_uid"] == f"uid-{ev['pod']}" and ev["previous"] is False
        assert names[ev["raw_row"]] == ev["pod"]
    for name in names:
        _check(by_pod.get(name, []), EXPECTED[name], prefixed, name)
    counts = issue_counts(issues)
    assert counts.get(("logs", "torchrun failure table entry without fields (log cut short)")) == 1
    null_ts = sum(1 for e in events if e["ts"] is None)
    if prefixed:
        assert null_ts == 0 and ("logs", "recognised line without any timestamp (ts null)") not in counts
    else:
        assert null_ts > 0 and counts[("logs", "recognised line without any timestamp (ts null)")] == null_ts
    assert not any(src != "logs" for src, _ in counts), counts


def test_yearless_glog_timestamps_use_the_capture_year(tmp_path):
    body = "\n".join(
        [
            "[rank0]:[E1231 23:59:58.100000000 ProcessGroupNCCL.cpp:607] [Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=3, OpType=ALLREDUCE, Timeout(ms)=600000) ran for 600001 milliseconds before timing out.",
            "[rank1]:[E101 00:00:01.5 ProcessGroupNCCL.cpp:607] [Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=3, OpType=ALLREDUCE, Timeout(ms)=600000) ran for 600002 milliseconds before timing out.",
        ]
    )
    captured = dt.datetime(2027, 1, 1, 0, 10, tzinfo=UTC)
    ctx, _ = derive(tmp_path, logs, logs=[log_row(body, captured_at=captured)])
    ts = {e["rank"]: e["ts"] for e in ctx.table("log_events").to_pylist()}
    assert ts == {0: T(2026, 12, 31, 23, 59, 58, 100000), 1: T(2027, 1, 1, 0, 0, 1, 500000)}
    assert CAPTURED.year == 2026  # the other tests rely on a November capture
