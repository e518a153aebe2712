"""``k10s import-logs``: log files as a bundle that every rule reads (k10s_forensics/logimport.py)."""

from __future__ import annotations

import datetime as dt
import gzip
import json
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from k10s_forensics.analyze.runner import analyze
from k10s_forensics.store.bundle import Bundle
from k10s_forensics.engine import connect
from k10s_forensics.logimport import LogSource, import_logs, infer_layout, route_lines, tagged_rank

K10S = [sys.executable, "-m", "k10s_forensics"]
ZERO3 = "ms-swift-6301-4node-zero3-timeout"  # [rankN]: lines of 16 ranks, 4 per node; rank 11 OOMs


def _run(*args: str, cwd: Path, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([*K10S, *args], cwd=cwd, input=stdin, capture_output=True, text=True, timeout=300)


def _ranks(bundle: Bundle) -> dict[int, tuple[str, int]]:
    con = connect(bundle)
    try:
        return {r: (pod, lr) for r, pod, lr in con.execute("SELECT rank, pod, local_rank FROM ranks").fetchall()}
    finally:
        con.close()


def _bodies(bundle: Bundle) -> dict[str, str]:
    rows = pq.read_table(bundle.path / "raw" / "logs.parquet").to_pylist()
    return {r["pod"]: r["body"] for r in rows}


def test_one_paste_is_routed_to_the_pods_of_its_ranks(tmp_path, real_samples):
    log = real_samples / "incidents" / ZERO3 / "log.txt"
    done = _run("import-logs", str(log), "-o", "b", "--nproc-per-node", "4", "--world-size", "16", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "4 node(s) x 4 process(es), world size 16" in done.stdout
    bundle = Bundle.open(tmp_path / "b")
    ranks = _ranks(bundle)
    assert sorted(ranks) == list(range(16))
    assert ranks[11] == ("imported-worker-1", 3)  # node rank 2 = the second worker
    bodies = _bodies(bundle)
    for pod, first in (("imported-master-0", 0), ("imported-worker-0", 4), ("imported-worker-1", 8), ("imported-worker-2", 12)):
        tagged = {tagged_rank(line) for line in bodies[pod].splitlines()} - {None}
        assert tagged and tagged <= set(range(first, first + 4)), (pod, tagged)
    assert "[rank11]: torch.OutOfMemoryError" in bodies["imported-worker-1"]
    # nothing lost, nothing reordered within a pod: every line is in exactly one pod
    original = log.read_text(encoding="utf-8").split("\n")
    routed = [ln for body in bodies.values() for ln in body.split("\n")]
    assert sorted(routed) == sorted(original)
    oom = [f for f in analyze(bundle)["findings"] if f["rule"] == "oom-cascade"]
    assert oom and oom[0]["ranks"] == [11] and oom[0]["pods"] == ["imported/imported-worker-1"]


def test_layout_is_read_from_the_lines_when_not_given():
    text = ("torchrun --nnodes 2 --nproc_per_node=8 train.py\n"
            "host-a:1:1 [3] NCCL INFO comm 0x5 rank 3 nRanks 16 nNodes 2 localRanks 8 localRank 3 - Init COMPLETE\n")
    layout = infer_layout([LogSource("x", text)])
    assert (layout.nproc_per_node, layout.nodes, layout.world_size) == (8, 2, 16)
    assert layout.hints == {"nproc_per_node": "log: --nproc_per_node", "world_size": "log: nRanks"}
    # nothing stated: one log holds every rank seen (a single node)
    layout = infer_layout([LogSource("x", "[rank0]: a\n[rank5]: b\n")])
    assert (layout.nproc_per_node, layout.nodes, layout.world_size) == (6, 1, 6)
    # options win over the lines
    layout = infer_layout([LogSource("x", text)], nproc_per_node=4, world_size=32)
    assert (layout.nproc_per_node, layout.nodes, layout.world_size) == (4, 8, 32)


def test_several_logs_are_one_node_each_and_local_ranks_resolve(tmp_path):
    node0 = "I1203 10:00:00.000000 7 api.py:1] starting\n"
    node1 = ("E1203 10:00:05.000000 9 site-packages/torch/distributed/elastic/multiprocessing/api.py:869] "
             "failed (exitcode: -9) local_rank: 1 (pid: 4242) of binary: /usr/bin/python\n")
    (tmp_path / "n0.log").write_text(node0)
    (tmp_path / "n1.log").write_bytes(gzip.compress(node1.encode()))
    done = _run("import-logs", "n0.log", "n1.log", "-o", "b", "--nproc-per-node", "4", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    bundle = Bundle.open(tmp_path / "b")
    assert _bodies(bundle)["imported-worker-0"] == node1
    manifest = json.loads((tmp_path / "b" / "manifest.json").read_text())
    assert manifest["collectors"][0]["imported_from"] == ["n0.log", "n1.log"]
    failure = [f for f in analyze(bundle)["findings"] if f["rule"] == "rank-failure"]
    assert failure and failure[0]["ranks"] == [5] and failure[0]["cause"] == "host-oom-kill"


def test_standard_input_and_no_split(tmp_path):
    text = "[rank0]: step 1\n[rank3]: RuntimeError: CUDA error: an illegal memory access was encountered\n"
    done = _run("import-logs", "-", "-o", "b", "--nproc-per-node", "2", "--no-split", cwd=tmp_path, stdin=text)
    assert done.returncode == 0, done.stderr
    bodies = _bodies(Bundle.open(tmp_path / "b"))
    assert bodies == {"imported-master-0": text, "imported-worker-0": ""}


@pytest.mark.parametrize("setup, args, message", [
    (None, ["missing.log"], "missing.log: no such log file"),
    ("binary", ["bin.log"], "bin.log: binary data, not a text log"),
    ("badgz", ["bad.gz"], "bad.gz: not a readable gzip file"),
    ("exists", ["ok.log"], "a bundle already exists there"),
    ("empty", ["empty.log"], "empty.log: no log lines (empty)"),
    ("huge", ["huge.log", "--world-size", "99999"], "99999 ranks, no rank named to import on its own"),
])
def test_bad_input_is_one_line_and_exit_2(tmp_path, setup, args, message):
    (tmp_path / "ok.log").write_text("[rank0]: hi\n")
    if setup == "binary":
        (tmp_path / "bin.log").write_bytes(b"\x7fELF\x00\x00\x01")
    if setup == "badgz":
        (tmp_path / "bad.gz").write_bytes(b"\x1f\x8b\x08garbage")
    if setup == "empty":
        (tmp_path / "empty.log").write_text("\n \n")
    if setup == "huge":
        (tmp_path / "huge.log").write_text("hello\n")  # a rank the log named would be imported (test_import_unplaced)
    if setup == "exists":
        assert _run("import-logs", "ok.log", "-o", "b", cwd=tmp_path).returncode == 0
    done = _run("import-logs", *args, "-o", "b", cwd=tmp_path)
    assert done.returncode == 2
    assert message in done.stderr and "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_routing_follows_nccl_hosts_and_keeps_tracebacks_together():
    lines = [
        "hostB:11:11 [1] NCCL INFO comm 0xa rank 5 nRanks 8 - Init COMPLETE",
        "hostA:10:10 [0] NCCL INFO comm 0xb rank 0 nRanks 8 - Init COMPLETE",
        "[rank6]: Traceback (most recent call last):",
        '  File "train.py", line 3, in <module>',
        "RuntimeError: boom",
        "hostB:11:11 [1] NCCL WARN Call to recv failed",
        "hostA:10:10 [0] NCCL INFO done",
    ]
    nodes = route_lines(lines, nproc=4, nodes=2)
    assert nodes == [[1, 6], [0, 2, 3, 4, 5]]


def test_interleaved_tracebacks_and_local_rank_flags_count_processes():
    """Untagged lines of several processes: their count comes from the paste's shape, so no line is
    pinned on rank 0 of a made-up world of one."""
    one = "Traceback (most recent call last):\n  File \"t.py\", line 1, in <module>\nRuntimeError: x\n"
    # back to back: a process raises once (batch 18), so the second traceback is another process's; a chained exception
    # (its banner between) and a traceback after other lines are still one process's
    assert infer_layout([LogSource("x", one + one)]).world_size == 2
    chained = one.replace("RuntimeError: x\n", "KeyError: 'k'\n\nDuring handling of the above exception, another exception occurred:\n\n")
    assert infer_layout([LogSource("x", chained + one)]).world_size == 1
    assert infer_layout([LogSource("x", one + "INFO: retrying\n" + one)]).world_size == 1
    spliced = ("Traceback (most recent call last):\n  File \"t.py\", line 1, in <module>\n"
               "Traceback (most recent call last):\n  File \"t.py\", line 1, in <module>\n"
               "RuntimeError: connect [10.0.0.1]:13195: Connection refused\nRuntimeError: x\n")
    layout = infer_layout([LogSource("x", spliced)])
    assert (layout.nproc_per_node, layout.world_size) == (2, 2)
    argparse = "train.py: error: unrecognized arguments: --local-rank=1\nfailed (exitcode: 2) local_rank: 0 (pid: 7)\n"
    assert infer_layout([LogSource("x", argparse)]).nproc_per_node == 2


def _hang_findings(tmp_path, text: str, **layout) -> list[dict]:
    bundle, _ = import_logs([LogSource("x", text)], tmp_path, job="j", namespace="ns", **layout)
    return [f for f in analyze(bundle, only={"nccl-hang"})["findings"] if f["rule"] == "nccl-hang"]


@pytest.mark.parametrize("layout", [{"nproc_per_node": 2, "world_size": 2}, {"nproc_per_node": 1, "world_size": 2}])
def test_a_rank_absent_from_a_paste_is_not_named_never_joined(tmp_path, layout):
    """One rank's watchdog timeout pasted alone: the other rank's output is simply not in the paste."""
    wd = ("[rank1]:[E ProcessGroupNCCL.cpp:563] [Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=158, "
          "OpType=GATHER, NumelIn=28, NumelOut=0, Timeout(ms)=600000) ran for 600027 milliseconds before timing out.\n")
    alone = _hang_findings(tmp_path / "alone", wd, **layout)
    assert not [f for f in alone if f["ranks"] or f["severity"] in ("critical", "warning")]
    # a line of rank 0's own shows its output is in the paste: its silence is evidence
    (pair,) = _hang_findings(tmp_path / "pair", "[rank0]: step 157 done\n" + wd, **layout)
    assert pair["ranks"] == [0] and pair["cause"] == "never-joined"


def test_one_waiter_and_one_silent_rank_is_a_pair_only_in_a_job_of_two(tmp_path):
    """Of eight ranks, one timed out and one other printed a line: the six unseen may be the one
    it waited for, so the one seen is no culprit."""
    text = ("[rank3]: step 157 done\n[rank5]:[E ProcessGroupNCCL.cpp:563] [Rank 5] Watchdog caught collective operation "
            "timeout: WorkNCCL(SeqNum=158, OpType=ALLREDUCE, NumelIn=8, NumelOut=8, Timeout(ms)=600000) ran for 600027 "
            "milliseconds before timing out.\n")
    found = _hang_findings(tmp_path, text, nproc_per_node=8, world_size=8)
    assert not [f for f in found if f["ranks"] or f["severity"] in ("critical", "warning")]


@pytest.mark.parametrize("split", [True, False])
@pytest.mark.parametrize("closed", [
    "ji-server-0:72:294 [0] NCCL INFO [Service thread] Connection closed by localRank 0",
    "node-7:72:294 [0] NCCL INFO [Service thread] Connection closed by localRank 0",
])
def test_a_peer_closed_line_is_not_the_silent_rank_s_own(tmp_path, split, closed):
    """NCCL's `Connection closed by localRank 0` is printed by another process about local rank 0:
    beside one waiter's timeout (routed or all in one pod's log) it is no line of rank 0's own."""
    wd = ("[rank1]:[E327 09:31:09.976973235 ProcessGroupNCCL.cpp:629] [Rank 1] Watchdog caught collective operation "
          "timeout: WorkNCCL(SeqNum=3313, OpType=RECV, NumelIn=18, NumelOut=18, Timeout(ms)=600000) ran for 600086 "
          "milliseconds before timing out.\n")
    bundle, _ = import_logs([LogSource("x", wd + closed + "\n")], tmp_path, job="j", namespace="ns",
                            nproc_per_node=1, world_size=2, split=split)
    found = [f for f in analyze(bundle, only={"nccl-hang"})["findings"] if f["rule"] == "nccl-hang"]
    assert not [f for f in found if f["ranks"] or f["severity"] in ("critical", "warning")]


def test_a_teardown_with_masked_pids_still_counts_its_processes():
    """torchrun's ``Sending process 197 closing signal SIGTERM`` lines give the node's process count even when
    the user masked the pids (``xxxxxx``, ``<pid>``, ``***``): each line is one process."""
    from k10s_forensics.parsers.log_layout import _torn_down_max

    for mask in ("xxxxxx", "<pid>", "***", "[REDACTED]"):
        text = "\n".join(f"WARNING  Sending process {mask} closing signal SIGTERM" for _ in range(3))
        assert _torn_down_max([text]) == 3, mask
    assert _torn_down_max(["Sending process 7 closing signal SIGTERM\nSending process 7 closing signal SIGTERM"]) == 1


def test_raw_only_import_rebuilds_to_the_same_tables(tmp_path):
    """``derive=False`` (the test kits' batches, merged and rebuilt once) writes the raw layer only; a rebuild of
    it derives what an ordinary import derives."""
    from k10s_forensics.rebuild.run import rebuild

    text = ("[rank1]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB\n"
            "E1203 10:00:05.000000 9 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: 1) "
            "local_rank: 1 (pid: 42) of binary: /usr/bin/python\n")
    now = dt.datetime(2026, 12, 3, 10, 1, tzinfo=dt.timezone.utc)
    full, _ = import_logs([LogSource("x", text)], tmp_path / "full", job="j", namespace="ns", nproc_per_node=2, now=now)
    raw, _ = import_logs([LogSource("x", text)], tmp_path / "raw", job="j", namespace="ns", nproc_per_node=2, now=now,
                         derive=False)
    assert full.table_path("log_events").is_file() and not raw.table_path("log_events").exists()
    assert (raw.path / "raw" / "logs.parquet").read_bytes() == (full.path / "raw" / "logs.parquet").read_bytes()
    rebuild(raw)
    for name in ("log_events", "ranks", "pods"):
        assert pq.read_table(raw.table_path(name)).to_pylist() == pq.read_table(full.table_path(name)).to_pylist(), name
