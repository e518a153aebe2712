"""Expected events of the log parser on the real incidents' logs (real-samples/incidents/*/log.txt;
tests/test_parsers_logs_real.py), written by reading each file.
"""

from __future__ import annotations

from real_log_expectations import GIB, M0, W0, T, closed, nccl_ret, oom, sigterm, table, wd

#: the four functions NCCL unwound in each process of pytorch-152780 (its error returns)
_UNWOUND_152780 = ("group.cc:241 -> 1", "group.cc:478 -> 1", "group.cc:581 -> 1", "enqueue.cc:2299 -> 1")

EXPECTED_INCIDENTS: dict[str, list[tuple[str, dict]]] = {
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
        *nccl_ret(940929, *_UNWOUND_152780, sub="ncclUnhandledCudaError"),
        ("cuda_error", dict(subkind="illegal-address", nccl_host="Amphitrite", pid=940928, cuda_dev=0)),
        *nccl_ret(940928, *_UNWOUND_152780, sub="ncclUnhandledCudaError"),
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
        # the pasted command line, behind a container's root prompt: two processes on one host (parsers/log_launch_cmd.py)
        ("launch_cmd", dict(subkind="one_host", nranks=2, rank=None, line_no=1)),
        ("python_exception", dict(rank=1, subkind="teardown", error_type="RuntimeError")),  # [1,1]<stderr>: = rank 1
        ("process_exit", dict(rank=0, exit_code=1, subkind="mpirun_first")),  # Process name: [[50371,1],0] + Exit code: 1
    ],
    "incidents/vad-r1-11-torchrun-oom-rank2-first-failure-rank1/log.txt": [
        oom(2, 2, 14.06 * GIB, 79.25 * GIB, 6.96 * GIB, 72.28 * GIB),
        # the paste begins at rank 2's exception line (parsers/log_head.py): not a teardown error, so no cut mid-incident
        ("log_head", dict(subkind="error", line_no=1)),
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
        ("log_head", dict(subkind="frame", line_no=1)),  # the paste begins inside rank 1's traceback (parsers/log_head.py)
        # rank 1's first tagged frame line starts its traceback (session 28, docs/parsers-logs.md); its exception line is the OOM
        ("python_traceback", dict(rank=1, line_no=3)),
        oom(1, 1, 674.0, 79.14 * GIB, 100.75, 79.03 * GIB),
        sigterm(92385),
        ("torchrun_failure", dict(local_rank=1, exit_code=1, pid=92386, subkind="agent")),
    ],
    "incidents/nccl-1235-multinode-p2p-setup/log.txt": [
        ("nccl_remote_error", dict(peer_ip="ng30903-ib.narval.calcul.quebec", peer_port=51159, nccl_host="ng30903", pid=3063025, cuda_dev=0, subkind="connection_closed")),
        *nccl_ret(3063025, "misc/socket.cc:749 -> 6"),
        ("nccl_error_other", dict(subkind="nccl_warn", nccl_host="ng30903", pid=3063025)),
        *nccl_ret(3063025, "transport/p2p.cc:438 -> 3", "transport.cc:33 -> 3", "transport.cc:97 -> 3", "init.cc:1079 -> 3",
                  "init.cc:1358 -> 3", "group.cc:65 -> 3", "group.cc:406 -> 3", "group.cc:96 -> 3", sub="ncclInternalError"),
        # "Cuda failure 'out of memory'" absorbs the "Failed to CUDA calloc 6291456 bytes" line after it
        ("cuda_oom", dict(subkind="nccl", nccl_host="ng30903", pid=3063028, cuda_dev=3, oom_requested_mib=6.0, line_no=14)),
        *nccl_ret(3063028, "transport/p2p.cc:204 -> 1", "transport/p2p.cc:605 -> 1", "proxy.cc:1303 -> 1", "proxy.cc:1377 -> 1",
                  sub="ncclUnhandledCudaError"),
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
