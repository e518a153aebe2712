"""Log parser: research-doc wordings, multi-line constructs, progress lines, bad input, end to end."""

from __future__ import annotations

import datetime as dt
import random

from log_helpers import CAPTURED, PREFIX_T0, derive, issue_counts, log_row, prefix_ts, raw_bundle, ss_row, with_api_prefix
from k10s_forensics.engine import connect, run_sql
from k10s_forensics.parsers import log_sql, logs
from k10s_forensics.rebuild.run import rebuild

UTC = dt.timezone.utc


def events_of(tmp_path, body: str | None, **kw) -> tuple[list[dict], dict]:
    ctx, issues = derive(tmp_path, logs, logs=[log_row(body, **kw)])
    return sorted(ctx.table("log_events").to_pylist(), key=lambda e: e["line_no"]), issue_counts(issues)


# Lines quoted in research/gpu-training.md section 1.4 (NCCL identity lines) and 7 (Xid).
IDENTITY = """task272154-tz9m4:511:511 [0] NCCL INFO Bootstrap : Using eth0:10.10.6.118<0>
task272154-tz9m4:512:512 [1] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB [2]mlx5_2:1/IB [3]mlx5_3:1/IB ; OOB eth0:10.10.6.118<0>
sh-01:98911:98911 [0] NCCL INFO NET/Socket : Using [0]enP1p1s0f0:10.30.0.127<0> [1]enP1p1s0f1:10.30.0.227<0>
hostname-test:984:984 [4] NCCL INFO NCCL_SOCKET_IFNAME set by environment to bond0
hostname-test:984:1257 [4] NCCL INFO comm 0x557fe785f7a0 rank 36 nranks 64 cudaDev 4 nvmlDev 4 busId 9b000 commId 0x5ae77eb5ea4ec1ee - Init COMPLETE
kolyoz2:25146:25827 [0] NCCL INFO ncclCommInitRank comm 0x559d5aa8ca00 rank 4 nranks 8 cudaDev 0 nvmlDev 0 busId 42000 commId 0x996ee6f117cb8e1e - Init START
[rank15]:A03-R28-I49-3-9000018:193027:193119 [7] NCCL INFO comm 0x7fdf08000d00 rank 15 nranks 16 cudaDev 7 busId e7000 - Init COMPLETE
node0:13571:13571 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[0] [send] via NET/Socket/0
[  123.456789] NVRM: Xid (PCI:0000:08:00): 31, pid=1896, name=python, Ch 0000003b, intr 10000000. MMU Fault
I0213 12:07:20.086000 870572 torch/distributed/elastic/agent/server/api.py:889] [default] Worker group FAILED. 3/3 attempts left; will restart worker group
[2024-05-08 08:47:31,877] torch.distributed.elastic.multiprocessing.api: [ERROR] failed (exitcode: 1) local_rank: 2 (pid: 5939) of binary: /usr/bin/python
  traceback : Signal 6 (SIGABRT) received by PID 3438
Process exited with exit code 137"""


def test_identity_xid_and_agent_lines(tmp_path):
    ev, _ = events_of(tmp_path, IDENTITY)
    got = [(e["kind"], e["subkind"]) for e in ev]
    assert got == [
        ("nccl_bootstrap", "bootstrap"),
        ("nccl_bootstrap", "net_ib_oob"),
        ("nccl_bootstrap", "net_socket"),
        ("nccl_bootstrap", "net_socket"),
        ("nccl_comm_init", "init_complete"),
        ("nccl_comm_init", "init_start"),
        ("nccl_comm_init", "init_complete"),
        ("xid", None),
        ("worker_group_restart", None),
        ("torchrun_failure", "agent"),
        ("process_exit", "SIGABRT"),  # outside a table a lone traceback field is still an exit
        ("process_exit", "exit_code"),
    ]
    boot = ev[0]
    assert (boot["ip"], boot["nccl_host"], boot["pid"], boot["cuda_dev"]) == ("10.10.6.118", "task272154-tz9m4", 511, 0)
    assert (ev[1]["ip"], ev[1]["pid"], ev[1]["cuda_dev"]) == ("10.10.6.118", 512, 1)
    assert [e["ip"] for e in ev[2:4]] == ["10.30.0.127", "10.30.0.227"] and {e["nccl_host"] for e in ev[2:4]} == {"sh-01"}
    comm = ev[4]
    assert (comm["rank"], comm["nranks"], comm["cuda_dev"], comm["bus_id"], comm["nccl_host"], comm["pid"]) == (36, 64, 4, "0000:9b:00.0", "hostname-test", 984)
    assert (ev[5]["rank"], ev[5]["nranks"], ev[5]["bus_id"], ev[5]["nccl_host"]) == (4, 8, "0000:42:00.0", "kolyoz2")
    # with a [rankN]: prefix the comm rank stays the communicator rank; the prefix is the reporter
    assert (ev[6]["rank"], ev[6]["reporter_rank"], ev[6]["bus_id"], ev[6]["nccl_host"]) == (15, 15, "0000:e7:00.0", "A03-R28-I49-3-9000018")
    assert (ev[7]["xid"], ev[7]["bus_id"], ev[7]["pid"]) == (31, "0000:08:00.0", 1896)
    assert (ev[8]["attempts_left"], ev[8]["attempts_max"], ev[8]["severity"]) == (3, 3, "I")
    assert ev[8]["ts"] == dt.datetime(2026, 2, 13, 12, 7, 20, 86000, tzinfo=UTC)
    assert (ev[9]["exit_code"], ev[9]["local_rank"], ev[9]["pid"], ev[9]["severity"]) == (1, 2, 5939, "E")
    assert ev[9]["ts"] == dt.datetime(2024, 5, 8, 8, 47, 31, 877000, tzinfo=UTC)
    assert (ev[10]["exit_code"], ev[10]["pid"]) == (-6, 3438)
    assert ev[11]["exit_code"] == 137


# The "Last error:" forms of research section 1.4 and 1.3.
MULTILINE = """[rank3]:torch.distributed.DistBackendError: NCCL error in: /pytorch/torch/csrc/distributed/c10d/NCCLUtils.hpp:268, remote process exited or there was a network error, NCCL version 2.21.5
[rank3]:ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.
[rank3]:Last error:
[rank3]:socketProgressOpt: Call to recv from 172.16.4.9<33759> failed : Connection reset by peer
some unrelated line
torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1275, internal error, NCCL version 2.14.3
ncclInternalError: Internal check failed.
Last error:
Net : Connection closed by remote peer user<50260>
filler
filler
filler
torch.distributed.DistBackendError: NCCL error in: ProcessGroupNCCL.cpp:1275, unhandled cuda error, NCCL version 2.18.1
ncclUnhandledCudaError: Call to CUDA function failed.
Last error:
Cuda failure 'out of memory'"""


def test_last_error_payloads_are_merged(tmp_path):
    ev, _ = events_of(tmp_path, MULTILINE)
    kinds = [(e["kind"], e["line_no"]) for e in ev]
    # each exception (its lines plus the Last error payload) is one event at its first line
    assert kinds == [("nccl_remote_error", 1), ("nccl_remote_error", 6), ("cuda_oom", 13)]
    remote = ev[0]
    assert (remote["rank"], remote["peer_ip"], remote["peer_port"], remote["subkind"]) == (3, "172.16.4.9", 33759, "remote_error")
    assert "Call to recv from" in remote["line"] and remote["line"].count("\n") == 2
    internal = ev[1]
    assert (internal["peer_ip"], internal["peer_port"], internal["subkind"]) == ("user", 50260, "ncclInternalError")
    assert (ev[2]["kind"], ev[2]["subkind"], ev[2]["oom_requested_mib"]) == ("cuda_oom", "ncclUnhandledCudaError", None)


PROGRESS = """[rank3]: step 247 loss 2.31
[Epoch 0] step: 10/1000 | loss 1.0
 iteration      100/  500000 | consumed samples: 3200
Epoch 0:   6%|##        | 32040/500150 [6:28:43<94:39:17,  1.37it/s, loss=2.6, global_step=3.2e+4]
{'loss': 1.2, 'grad_norm': 0.5, 'learning_rate': 1e-05, 'epoch': 0.5}
{'loss': 1.1, 'step': 600, 'epoch': 0.6}
iter 1200: loss 3.1
  5%|5         | 50/1000 [00:10<03:10,  5.00it/s]\r 6%|6         | 60/1000 [00:12<03:08,  5.00it/s]
    optimizer.step()
Total optimization steps = 1000 max_steps=1000 warmup_step 10
[RANK 2] 2026-05-19 10:10:29,701 [INFO] Step 5 done"""


def test_training_progress_lines(tmp_path):
    ev, _ = events_of(tmp_path, PROGRESS)
    got = [(e["line_no"], e["subkind"], e["step"], e["rank"]) for e in ev]
    assert got == [
        (1, "step", 247, 3),
        (2, "step", 10, None),
        (3, "iteration", 100, None),
        (4, "tqdm", 32040, None),  # global_step=3.2e+4 is a float, not step 3
        (5, "hf_log", None, None),
        (6, "hf_log", 600, None),
        (7, "iteration", 1200, None),
        (8, "tqdm", 60, None),  # the last redraw of a \r-joined tqdm line
        (11, "step", 5, 2),
    ]
    assert all(e["kind"] == "training_step" for e in ev)
    assert ev[-1]["ts"] == dt.datetime(2026, 5, 19, 10, 10, 29, 701000, tzinfo=UTC)


def test_progress_lines_with_api_prefix_get_the_api_time(tmp_path):
    ev, issues = events_of(tmp_path, with_api_prefix(PROGRESS))
    assert [e["ts"] for e in ev] == [prefix_ts(e["line_no"]) for e in ev]
    assert not issues


def test_truncated_watchdog_line_keeps_what_it_has(tmp_path):
    body = "[rank4]:[E1206 18:44:12.755262105 ProcessGroupNCCL.cpp:607] [Rank 4] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=7753, OpType=_REDU"
    ev, _ = events_of(tmp_path, body)
    assert len(ev) == 1
    assert (ev[0]["kind"], ev[0]["rank"], ev[0]["seq_num"], ev[0]["op_type"], ev[0]["timeout_ms"]) == ("nccl_watchdog_timeout", 4, 7753, "_REDU", None)


def test_empty_missing_and_binary_bodies(tmp_path):
    junk = bytes(random.Random(7).randrange(256) for _ in range(60_000)).decode("utf-8", errors="replace")
    rows = [log_row(None, pod="a"), log_row("", pod="b"), log_row("\n\n\n", pod="c"), log_row(junk, pod="d"), log_row("\x00\x01\ufffd" * 1000, pod="e")]
    ctx, issues = derive(tmp_path, logs, logs=rows)
    kinds = [e["kind"] for e in ctx.table("log_events").to_pylist()]
    assert all(k == "training_step" for k in kinds)  # random bytes hold no error wording
    assert not [k for k in issue_counts(issues) if "crash" in k[1]]


def test_fetch_errors_are_counted_and_partial_bodies_parsed(tmp_path):
    partial = "[rank9]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 15.77 GiB of which 1.00 GiB is free."
    rows = [
        log_row(None, pod="w-0", error="pods \"w-0\" not found"),
        log_row(None, pod="w-1", error="pods \"w-1\" not found"),
        log_row(with_api_prefix(partial), pod="w-2", error="timeout after 30s (log cut short)"),
    ]
    ctx, issues = derive(tmp_path, logs, logs=rows)
    buckets = {b.reason: b for b in issues.buckets()}
    assert buckets['log fetch failed: pods "w-0" not found'].first_raw_row == 0
    assert buckets['log fetch failed: pods "w-1" not found'].count == 1
    cut = buckets["log fetch failed: timeout after 30s (log cut short)"]
    assert (cut.first_raw_row, cut.raw_file, cut.examples) == (2, "raw/logs.parquet", ["team-a/w-2/pytorch"])
    (ev,) = ctx.table("log_events").to_pylist()
    assert (ev["kind"], ev["rank"], ev["oom_requested_mib"], ev["raw_row"], ev["ts"]) == ("cuda_oom", 9, 2048.0, 2, PREFIX_T0)


def test_ten_megabyte_line(tmp_path):
    oom = "[rank1]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 512.00 MiB. GPU 1 has a total capacity of 79.14 GiB of which 100.75 MiB is free."
    huge = "x" * 5_000_000 + " " + oom + " " + "y" * 5_000_000
    body = with_api_prefix("\n".join(["step 1", huge, "step 2"]))
    ev, counts = events_of(tmp_path, body)
    kinds = [(e["kind"], e["line_no"]) for e in ev]
    assert kinds == [("training_step", 1), ("cuda_oom", 2), ("training_step", 3)]
    oom_ev = ev[1]
    assert (oom_ev["rank"], oom_ev["cuda_dev"], oom_ev["oom_requested_mib"]) == (1, 1, 512.0)
    assert len(oom_ev["line"]) <= 4096 and oom_ev["ts"] == prefix_ts(2)
    assert counts[("logs", "line longer than 65536 chars: parsed a window around the first match")] == 1


def test_end_to_end_rebuild_and_sql(tmp_path, real_samples):
    body = (real_samples / "logs/nccl-watchdog-timeout_reduce-scatter_pg1_llamafactory-issue6269.log").read_text()
    ss_text = (real_samples / "ss/ss-itn_ipv4-mapped-ipv6_mysql_retrans_plantegg.txt").read_text()
    bundle = raw_bundle(
        tmp_path / "b",
        logs=[log_row(with_api_prefix(body), pod="llama-worker-0"), log_row(None, pod="llama-worker-1", error="container not started")],
        exec=[ss_row(ss_text, pod="llama-worker-0"), ss_row(None, pod="llama-worker-1", error="forbidden")],
    )
    issues = rebuild(bundle)
    assert not [b for b in issues.buckets() if b.source in ("parser:logs", "parser:ss")]
    con = connect(bundle)
    rows = run_sql(con, "SELECT rank, kind, seq_num, last_completed_seq, ts FROM log_events ORDER BY line_no").to_pylist()
    assert [(r["rank"], r["kind"], r["seq_num"]) for r in rows] == [
        (0, "nccl_watchdog_timeout", 7753), (0, "watchdog_exception_summary", 7753),
        (4, "nccl_watchdog_timeout", 7753), (4, "watchdog_exception_summary", 7753), (3, "nccl_watchdog_timeout", 7753),
    ]
    assert rows[0]["ts"] == PREFIX_T0
    tcp = run_sql(con, "SELECT peer_addr, peer_port, retrans_total, ts FROM tcp_samples ORDER BY local_port").to_pylist()
    assert [(r["peer_addr"], r["peer_port"], r["retrans_total"]) for r in tcp] == [("192.168.0.173", 3306, 183), ("192.168.0.173", 3306, 260)]
    assert tcp[0]["ts"] == CAPTURED
    errs = run_sql(con, "SELECT source, reason, first_raw_row FROM parse_errors WHERE source IN ('logs', 'exec:ss') ORDER BY source").to_pylist()
    assert errs == [
        {"source": "exec:ss", "reason": "ss failed: forbidden", "first_raw_row": 1},
        {"source": "logs", "reason": "log fetch failed: container not started", "first_raw_row": 1},
    ]


def test_event_prefilter_is_the_same_in_pyarrow_and_duckdb_on_every_real_line():
    """``logs._candidates`` computes ``is_event`` with pyarrow's RE2 (DuckDB recompiles the ~3 KB regex
    in every query): on every line of every real incident and launcher recording, and on lines made to
    probe RE2's edges (trailing CR, tabs, non-ASCII, case), both engines answer alike."""
    from pathlib import Path

    import duckdb
    import pyarrow as pa
    import pyarrow.compute as pc

    data = Path(__file__).parent / "data"
    lines = [ln for f in sorted([*data.glob("real-incidents/*/log.txt"), *data.glob("torch-runs/*/*/node*.log")])
             for ln in f.read_text(encoding="utf-8", errors="replace").split("\n")]
    lines += ["NCCL WARN x\r", "\tncclRemoteError: remote", "ÉRROR ncclSystemError ü", "nccl warn lower", "[rank0]: Watchdog caught collective operation timeout"]
    texts = pa.table({"i": pa.array(range(len(lines)), pa.int64()), "text": pa.array(lines)})
    con = duckdb.connect()
    con.register("texts", texts)
    in_duckdb = [r[0] for r in con.execute(f"SELECT regexp_matches(text, {log_sql._lit(logs.PF.PREFILTER_EVENT)}) FROM texts ORDER BY i").fetchall()]
    in_arrow = pc.match_substring_regex(texts["text"], logs.PF.PREFILTER_EVENT).to_pylist()
    assert len(lines) > 20_000 and sum(in_arrow) > 1_000
    assert in_arrow == in_duckdb
