"""Expected events of the log parser on the real log samples under real-samples/logs (tests/test_parsers_logs_real.py),
written by reading each file, and the builders the expectations are written with; the incidents' logs:
tests/real_incident_log_expectations.py.
"""

from __future__ import annotations

import datetime as dt

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


def nccl_ret(pid, *sites, sub="ncclRemoteError"):
    """NCCL's error returns of one process (``… NCCL INFO proxy.cc:698 -> 6``), one event per site."""
    return [("nccl_return", dict(pid=pid, error_message=site, subkind=sub, rank=None)) for site in sites]


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

EXPECTED_LOGS: dict[str, list[tuple[str, dict]]] = {
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
        ev for port, sites in ((54862, ("transport/net.cc:1302 -> 6", "proxy.cc:698 -> 6", "proxy.cc:878 -> 6")),
                               (54862, ("transport/net.cc:1302 -> 6", "proxy.cc:698 -> 6", "proxy.cc:878 -> 6")),
                               (49892, ("transport/net.cc:1302 -> 6", "proxy.cc:698 -> 6")))
        for ev in [("nccl_remote_error", dict(peer_ip="10.216.210.236", peer_port=port, nccl_host="kp-ddp-worker-0", pid=3468, cuda_dev=4, severity="W")),
                   *nccl_ret(3468, *sites)]
    ],
    "logs/nccl-warn-net-ib-error4-vendor81_h100-nccl-tests_nccl-issue928.log": [
        ("nccl_remote_error", dict(peer_ip="fe80::966d:ae03:8b:df78%ib0", peer_port=53249, nccl_host="H100-2", pid=19989, cuda_dev=1)),
        *nccl_ret(19989, "transport/net.cc:1008 -> 6", "proxy.cc:679 -> 6", "proxy.cc:858 -> 6"),
        ("nccl_remote_error", dict(peer_ip="fe80::966d:ae03:8b:df50%ib0", peer_port=44413, nccl_host="H100-1", pid=9821, cuda_dev=1)),
        *nccl_ret(9821, "transport/net.cc:1008 -> 6", "proxy.cc:679 -> 6", "proxy.cc:858 -> 6"),
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
        *nccl_ret(180, "misc/socket.cc:47 -> 3", "misc/socket.cc:550 -> 3", "misc/socket.cc:573 -> 3", sub="ncclInternalError"),
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
        # the paste begins inside the launcher's own traceback (a frame of run.py): parsers/log_head.py
        ("log_head", dict(subkind="frame", line_no=1)),
        *(table(r, r, 1, 3669030 + r, "failures", T(2023, 9, 4, 10, 10, 23)) for r in (1, 2, 3)),
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
}
