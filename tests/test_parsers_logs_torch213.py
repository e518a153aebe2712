"""Launcher and gloo wordings of PyTorch 2.13 as our own recordings show them
(tests/data/torch-runs; docs/parsers-logs.md, "PyTorch 2.13/2.14 launchers"): one case per wording."""

from __future__ import annotations

from log_helpers import derive, log_row
from k10s_forensics.logimport import LogSource, infer_layout
from k10s_forensics.parsers import logs

AGENT = "{lvl}1128 11:44:19.673000 19637 .venv/lib/python3.11/site-packages/torch/distributed/elastic/multiprocessing/api.py:{line}] "
GLHF = ". This is typically caused by a remote worker crashing. Check the logs of the remote worker before reporting an error. GLHF!"


def events(tmp_path, body: str) -> list[dict]:
    ctx, _ = derive(tmp_path, logs, logs=[log_row(body)])
    return sorted(ctx.table("log_events").to_pylist(), key=lambda e: e["line_no"])


def kinds(evs: list[dict]) -> list[tuple]:
    return [(e["kind"], e["subkind"], e["rank"], e["local_rank"], e["exit_code"]) for e in evs]


def test_agent_lines_in_glog_layout(tmp_path):
    body = "\n".join([
        AGENT.format(lvl="W", line=1028) + "Sending process 19744 closing signal SIGTERM",
        AGENT.format(lvl="E", line=1002) + "failed (exitcode: -9) local_rank: 1 (pid: 19745) of binary: /workspace/.venv/bin/python",
    ])
    ev = events(tmp_path, body)
    assert [(e["kind"], e["subkind"], e["pid"]) for e in ev] == [("torchrun_sigterm", "SIGTERM", 19744), ("torchrun_failure", "agent", 19745)]
    assert ev[1]["exit_code"] == -9 and ev[1]["local_rank"] == 1 and ev[1]["severity"] == "E"
    assert ev[1]["ts"].strftime("%m-%d %H:%M:%S") == "11-28 11:44:19"


def test_failure_table_with_signal_names(tmp_path):
    """2.13 writes the signal's name after the pid: ``exitcode  : -9 (pid: 19745)  (SIGKILL)``."""
    body = "\n".join([
        "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ", "=" * 55, "/workspace/train.py FAILED", "-" * 55,
        "Failures:", "[1]:", "  time      : 2026-11-28_11:44:19", "  host      : localhost", "  rank      : 2 (local_rank: 0)",
        "  exitcode  : -15 (pid: 19744)  (SIGTERM)", "  error_file: <N/A>", "  traceback : Signal 15 (SIGTERM) received by PID 19744",
        "-" * 55, "Root Cause (first observed failure):", "[0]:", "  time      : 2026-11-28_11:44:19", "  host      : localhost",
        "  rank      : 3 (local_rank: 1)", "  exitcode  : -9 (pid: 19745)  (SIGKILL)", "  error_file: <N/A>",
        "  traceback : Signal 9 (SIGKILL) received by PID 19745", "=" * 55,
    ])
    table = [(e["subkind"], e["rank"], e["local_rank"], e["exit_code"], e["pid"]) for e in events(tmp_path, body) if e["kind"] == "torchrun_failure"]
    assert table == [("failures", 2, 0, -15, 19744), ("root_cause", 3, 1, -9, 19745)]


def test_tee_and_rank_prefixes_with_gloo_errors_are_teardown(tmp_path):
    body = "\n".join([
        "[default0]:[rank2]: RuntimeError: [/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:537] Read error "
        "[127.0.0.1]:42901: Connection reset by peer" + GLHF,
        "[rank1]: RuntimeError: [/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:553] Connection closed by peer [127.0.0.1]:3266" + GLHF,
        "[rank0]: RuntimeError: [/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:78] Timed out waiting 2998ms for recv operation to complete",
    ])
    ev = events(tmp_path, body)
    assert [(e["kind"], e["subkind"], e["rank"]) for e in ev] == [
        ("python_exception", "teardown", 2), ("python_exception", "teardown", 1), ("python_exception", "teardown", 0)]


def test_gloo_rendezvous_key_names_the_rank_that_never_came(tmp_path):
    body = "\n".join([
        "torch.distributed.DistStoreError: wait timeout after 6000ms, keys: /default_pg/0//cpu//0/3",
        "torch.distributed.DistStoreError: wait timeout after 6000ms, keys: /default_pg/0//cuda//0/12",
        "torch.distributed.DistStoreError: wait timeout after 6000ms, keys: /default_pg/store_based_barrier_key",  # names no rank
    ])
    ev = events(tmp_path, body)
    assert [(e["kind"], e["subkind"], e["rank"]) for e in ev][:2] == [("nccl_desync", "store_wait", 3), ("nccl_desync", "store_wait", 12)]
    assert ev[2]["kind"] == "python_exception" and ev[2]["subkind"] == "teardown"


def test_monitored_barrier_reports(tmp_path):
    body = "\n".join([
        "[rank1]:[E1128 11:49:22.429198053 ProcessGroupGloo.cpp:67] Rank 1 successfully reached monitoredBarrier, but received errors "
        "while waiting for send/recv from rank 0. Please check rank 0 logs for faulty rank.",
        "[rank0]:[E1128 11:49:22.451715044 ProcessGroupGloo.cpp:67] [Rank 0]: Rank 3 failed to pass monitoredBarrier in 3000 ms",
    ])
    ev = events(tmp_path, body)
    assert [(e["kind"], e["subkind"], e["rank"], e["reporter_rank"]) for e in ev] == [
        ("nccl_desync", "barrier_peer", 0, 1), ("nccl_desync", "barrier", 3, 0)]


def test_detail_fingerprint_mismatch_behind_tee_prefix(tmp_path):
    fp = ("CollectiveFingerPrint(SequenceNumber=3, OpType={op}, TensorShape=[{n}], TensorDtypes=Float, TensorDeviceTypes=TensorOptions("
          "dtype=float (default), device=cpu, layout=Strided (default), requires_grad=false (default), pinned_memory=false (default), "
          "memory_format=(nullopt)))")
    body = ("[default1]:[rank1]: RuntimeError: Detected mismatch between collectives on ranks. Rank 1 is running collective: "
            + fp.format(op="ALLREDUCE", n=5) + ", but Rank 0 is running collective: " + fp.format(op="ALLREDUCE", n=8) + ".")
    ev = events(tmp_path, body)
    assert [(e["kind"], e["rank"], e["reporter_rank"]) for e in ev] == [("collective_mismatch", 1, 1), ("collective_mismatch", 0, 1)]
    assert "TensorShape=[5]" in ev[0]["fingerprint"] and "TensorShape=[8]" in ev[1]["fingerprint"]


def test_spawn_exception_belongs_to_the_process_named_before_it(tmp_path):
    body = "\n".join([
        "W1128 11:55:14.180000 20342 torch/multiprocessing/spawn.py:165] Terminating process 20845 via signal SIGTERM",
        "Traceback (most recent call last):",
        '  File "<string>", line 1, in <module>',
        "torch.multiprocessing.spawn.ProcessRaisedException: ",
        "",
        "-- Process 2 terminated with the following error:",
        "Traceback (most recent call last):",
        '  File "/workspace/train.py", line 30, in _fault',
        "    _ = batch[\"labels\"]",
        "KeyError: 'labels'",
        "torch.multiprocessing.spawn.ProcessExitedException: process 1 terminated with signal SIGSEGV",
    ])
    ev = [e for e in events(tmp_path, body) if e["kind"] in ("process_exit", "python_exception")]
    assert [(e["kind"], e["local_rank"], e["exit_code"], e["error_type"]) for e in ev] == [
        ("process_exit", 2, 1, None), ("python_exception", 2, None, "KeyError"), ("process_exit", 1, -11, None)]


def test_import_layout_counts_the_processes_a_launcher_tore_down():
    """mp.spawn names its failed process by index; the ones it terminated are the node's other ranks."""
    text = "\n".join([f"W1128 11:55:14.18 1 torch/multiprocessing/spawn.py:165] Terminating process {p} via signal SIGTERM" for p in (11, 12, 14)]
                     + ["-- Process 2 terminated with the following error:", "KeyError: 'labels'"])
    layout = infer_layout([LogSource("spawn.log", text)])
    assert (layout.nproc_per_node, layout.nodes, layout.world_size) == (4, 1, 4)
    assert layout.hints["nproc_per_node"] == "processes the launcher names"
    # torchrun: the agent SIGTERMs every worker of its node when the other node failed (no +1)
    agent = "W1128 12:05:47.076000 18665 torch/distributed/elastic/multiprocessing/api.py:1028] Sending process {} closing signal SIGTERM"
    both = [LogSource("n0.log", "\n".join(agent.format(p) for p in (18982, 18985))),
            LogSource("n1.log", agent.format(18983) + "\nE1128 12:05:45 1 api.py:1002] failed (exitcode: -7) local_rank: 0 (pid: 18984) of binary: python")]
    assert (infer_layout(both).nproc_per_node, infer_layout(both).world_size) == (2, 4)
