"""rank-failure on small logs in every launcher / prefix wording: the real parsers, one pod per node.

Each case is a log as a launcher writes it (the bundle is built like the real incidents',
tests/incident_kit.py): the culprit rank and cause, or no culprit where the log cannot name
one. Victims (SIGTERMed, watchdog aborts, SIGTERM escalated to SIGKILL) are never named.
"""

from __future__ import annotations

import pytest

from incident_kit import Case, incident_bundle
from k10s_forensics.analyze.runner import analyze, prepare

AGENT = "WARNING:torch.distributed.elastic.multiprocessing.api:"
FAILED = "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: {code}) local_rank: {local} (pid: {pid}) of binary: /usr/bin/python3"


def sigterm(pid: int, sig: str = "SIGTERM") -> str:
    return f"{AGENT}Sending process {pid} closing signal {sig}"


def table(entries: list[tuple[int, int, int, str]], root: tuple[int, int, int, str]) -> list[str]:
    """A ChildFailedError table; entries = (rank, exitcode, pid, time)."""
    def entry(i, rank, code, pid, when):
        return [f"[{i}]:", f"  time      : {when}", "  host      : gpu-node-0", f"  rank      : {rank} (local_rank: {rank})",
                f"  exitcode  : {code} (pid: {pid})", "  error_file: <N/A>", f"  traceback : Signal {-code} received by PID {pid}" if code < 0 else "  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html"]
    out = ["torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ", "=" * 60, "train.py FAILED", "-" * 60, "Failures:"]
    for i, e in enumerate(entries, 1):
        out += entry(i, *e)
    out += ["-" * 60, "Root Cause (first observed failure):"] + entry(0, *root) + ["=" * 60]
    return out


def findings(tmp_path, lines: list[str], nproc: int, world: int | None = None, stamped: bool = False):
    case = Case("synthetic", "", [], [], nproc, world)
    bundle = incident_bundle(tmp_path / "b", case, "\n".join(lines), api_timestamps=stamped)
    return [f for f in analyze(bundle)["findings"] if f["severity"] in ("critical", "warning")]


def rank_failure(found):
    return [f for f in found if f["rule"] == "rank-failure"]


CULPRITS = {
    "host-oom-kill: -9 that no SIGTERM preceded": (
        [sigterm(101), sigterm(103), sigterm(104), FAILED.format(code=-9, local=1, pid=102)], 4, None, [1], "host-oom-kill"),
    "sigbus behind a progress bar": (
        ["Map:  96%|█████████▋| 48000/50000 [00:31<00:01, 1500.00 examples/s]" + sigterm(200), sigterm(202), FAILED.format(code=-7, local=1, pid=201)],
        3, None, [1], "sigbus"),
    "segfault root cause, SIGTERM escalated to SIGKILL on a victim": (
        [sigterm(301), sigterm(302)] + table([(2, -9, 302, "2026-05-01_10:00:35"), (1, -15, 301, "2026-05-01_10:00:05")], (0, -11, 300, "2026-05-01_10:00:04")),
        3, None, [0], "segfault"),
    "Root Cause names a victim: the signal beats its exit 1": (
        table([(2, -11, 12, "2026-05-01_10:00:04")], (1, 1, 11, "2026-05-01_10:00:04")), 3, None, [2], "segfault"),
    "python exception behind [rankN]:": (
        ["[rank3]: Traceback (most recent call last):", '[rank3]:   File "train.py", line 9, in <module>', "[rank3]: KeyError: 'input_ids'",
         sigterm(400), sigterm(401), sigterm(402), FAILED.format(code=1, local=3, pid=403)], 4, None, [3], "python-exception"),
    "python exception, Determined [rank=N] ||": (
        ["[2024-02-27T21:35:28.419846Z] fa88a9df [rank=5] || Traceback (most recent call last):",
         "[2024-02-27T21:35:28.419900Z] fa88a9df [rank=5] || FileNotFoundError: [Errno 2] No such file or directory: '/data/shard-17'"],
        8, None, [5], "python-exception"),
    "python exception, mpirun [1,N]<stderr>: and its exit banner": (
        ["[1,6]<stderr>:Traceback (most recent call last):", "[1,6]<stderr>:ZeroDivisionError: division by zero",
         "[1,2]<stderr>:RuntimeError: Horovod has been shut down. This was caused by an exception on one of the ranks",
         "mpirun detected that one or more processes exited with non-zero status, thus causing", "the job to be terminated. The first process to do so was:",
         "", "  Process name: [[4711,1],6]", "  Exit code:    1"], 8, None, [6], "python-exception"),
    "srun --label prefix, rank on the second node": (
        ["11: Traceback (most recent call last):", "11: AssertionError: loss is nan", "3: RuntimeError: [3] is setting up NCCL communicator: Connection reset by peer"],
        8, 16, [11], "python-exception"),
    "Ray Train worker prefix": (
        ["(RayTrainWorker pid=8123, ip=10.0.3.7) [rank6]: Traceback (most recent call last):",
         "(RayTrainWorker pid=8123, ip=10.0.3.7) [rank6]: IndexError: index 4096 is out of bounds for dimension 0 with size 4096"],
        4, 8, [6], "python-exception"),
    "host prefixes of a log shipper": (
        ["[job-master-0] " + sigterm(500), "[job-master-0] " + sigterm(502), "[job-master-0] " + FAILED.format(code=-11, local=1, pid=501)],
        3, None, [1], "segfault"),
    "CUDA error through the watchdog, torchrun --tee prefix": (
        ["[default2]:[rank6]:[E817 17:40:34.227531918 ProcessGroupNCCL.cpp:1515] [PG 0 (default_pg) Rank 6] Process group watchdog thread terminated with exception: CUDA error: an illegal memory access was encountered"],
        4, 8, [6], "cuda-error"),
    "abort of its own (no watchdog)": (
        ["W0526 03:33:34.518000 115160 api.py:897] Sending process 7 closing signal SIGTERM",
         "E0526 03:33:41.170000 115160 api.py:869] failed (exitcode: -6) local_rank: 1 (pid: 8) of binary: /usr/bin/python"], 2, None, [1], "abort"),
    "a SIGABRT in the same second as another rank's exit 1 is the NCCL teardown's": (
        table([(1, -6, 11, "2022-04-06_11:25:56")], (0, 1, 10, "2022-04-06_11:25:56")), 2, None, [0], "python-exception"),
    "a SIGABRT a second after another rank's exception": (
        table([(2, -6, 12, "2026-05-01_10:00:05"), (3, -6, 13, "2026-05-01_10:00:05")], (1, 1, 11, "2026-05-01_10:00:04")), 4, None, [1], "python-exception"),
    "a SIGABRT seconds before another rank's exit stays its own": (
        table([(1, 1, 11, "2026-05-01_10:00:09")], (0, -6, 10, "2026-05-01_10:00:04")), 2, None, [0], "abort"),
    "DeepSpeed launcher with one process: its --local_rank=0 command is the failed one": (
        ["[2023-04-14 13:11:27,879] [INFO] [launch.py:428:sigkill_handler] Killing subprocess 13266",
         "[2023-04-14 13:11:27,885] [ERROR] [launch.py:434:sigkill_handler] ['/usr/bin/python3', '-u', 'main.py', '--local_rank=0', '--zero_stage', '2'] exits with return code = -9"],
        1, None, [0], "host-oom-kill"),
    "legacy launcher with one process (--local-rank=0)": (
        ["subprocess.CalledProcessError: Command '['/usr/bin/python', '-u', 'train.py', '--local-rank=0']' returned non-zero exit status 1."],
        1, None, [0], "python-exception"),
    "exit status alone loses to a failure that says why": (
        ["[rank2]: RuntimeError: CUDA error: device-side assert triggered", sigterm(600), sigterm(602), sigterm(603), FAILED.format(code=1, local=1, pid=601)],
        4, None, [2], "cuda-error"),
}


@pytest.mark.parametrize("stamped", [False, True], ids=["as-pasted", "api-timestamps"])
@pytest.mark.parametrize("name", sorted(CULPRITS))
def test_culprit_and_cause(tmp_path, name, stamped):
    lines, nproc, world, ranks, cause = CULPRITS[name]
    found = findings(tmp_path, lines, nproc, world, stamped)
    rf = rank_failure(found)
    assert [(f["ranks"], f["cause"]) for f in rf] == [(ranks, cause)], [(f["rule"], f["cause"], f["ranks"]) for f in found]
    assert all(set(f["ranks"]) <= set(ranks) for f in found), "another finding names a victim"
    assert rf[0]["summary"] and rf[0]["recommendation"] and rf[0]["title"].startswith(f"Rank {ranks[0]} ")


NO_CULPRIT = {
    "three ranks SIGSEGV in the same second": (
        table([(1, -11, 11, "2026-05-01_10:00:04"), (2, -11, 12, "2026-05-01_10:00:04")], (0, -11, 10, "2026-05-01_10:00:04")), 3, "segfault"),
    "legacy launcher names its last command": (
        ['subprocess.CalledProcessError: Command \'[\'/usr/bin/python3\', \'-u\', \'train.py\', \'--local_rank=7\']\' died with <Signals.SIGSEGV: 11>.'], 8, "segfault"),
    "legacy launcher, its command redacted (one process guessed)": (
        ["subprocess.CalledProcessError: Command XXXXX (my script params) died with <Signals.SIGSEGV: 11>."], 1, "segfault"),
    "legacy launcher under --use_env: no --local_rank in its command": (
        ["subprocess.CalledProcessError: Command '['/usr/bin/python', '-u', 'train.py', '--epochs', '3']' returned non-zero exit status 1."], 1, "python-exception"),
    "DeepSpeed launcher with --no_local_rank": (
        ["[2023-04-14 13:11:27,879] [INFO] [launch.py:428:sigkill_handler] Killing subprocess 13266",
         "[2023-04-14 13:11:27,885] [ERROR] [launch.py:434:sigkill_handler] ['/usr/bin/python3', '-u', 'main.py', '--deepspeed'] exits with return code = -9"],
        1, "host-oom-kill"),
    "DeepSpeed launcher names its last command": (
        ["[2024-03-20 20:31:29,210] [INFO] [launch.py:315:sigkill_handler] Killing subprocess 3353707",
         "[2024-03-20 20:31:29,269] [ERROR] [launch.py:321:sigkill_handler] ['python', '-u', 'train.py', '--local_rank=4'] exits with return code = 1"],
        5, "python-exception"),
}


@pytest.mark.parametrize("name", sorted(NO_CULPRIT))
def test_no_single_culprit_is_said_without_ranks(tmp_path, name):
    lines, nproc, cause = NO_CULPRIT[name]
    found = findings(tmp_path, lines, nproc)
    assert [f for f in found if f["ranks"]] == []
    rf = rank_failure(found)
    assert len(rf) == 1 and rf[0]["cause"] == cause and rf[0]["severity"] == "warning"
    assert "no single" in rf[0]["title"] and rf[0]["evidence"][0]["no_culprit_reason"]


SILENT = {
    "launcher SIGHUP on shutdown": ["WARNING:torch.distributed.elastic.agent.server.api:Received 1 death signal, shutting down workers",
                                    sigterm(700, "SIGHUP"), sigterm(701, "SIGHUP")],
    "every rank aborted by its own watchdog": [
        *[f"[rank{r}]:[E424 01:11:21.160832730 ProcessGroupNCCL.cpp:629] [Rank {r}] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=4, OpType=BROADCAST, NumelIn=112, NumelOut=112, Timeout(ms)=1800000) ran for 1800010 milliseconds before timing out." for r in range(4)],
        "E0424 01:11:22.000000 900 api.py:869] failed (exitcode: -6) local_rank: 0 (pid: 800) of binary: /usr/bin/python"],
    "an error raised when the hung collective timed out is its consequence": [
        "[2024-02-27T21:35:28.419846Z] fa88a9df [rank=5] || RuntimeError: DDP expects same model across all ranks, but Rank 5 has 8 params, while rank 0 has inconsistent 0 params.",
        *[f"[2024-02-27T21:35:28.7{r}5869Z] fa88a9df [rank={r}] || [E ProcessGroupNCCL.cpp:828] [Rank {r}] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1, OpType=ALLGATHER, Timeout(ms)=1800000) ran for 1804775 milliseconds before timing out." for r in (1, 4)]],
    "a caught exception, then training goes on": [
        "[rank2]: Traceback (most recent call last):", "[rank2]: ValueError: token id 50304 out of range, sample skipped",
        *[f"[rank{r}]: step {s} | loss 2.{s} | lr 3e-4" for s in (11, 12, 13) for r in range(4)]],
    "the agent stopped from outside, its rendezvous closed": [
        "W0409 07:28:49.530000 1359 torch/distributed/elastic/agent/server/api.py:719] Received 15 death signal, shutting down workers",
        "W0409 07:28:49.531000 1359 torch/distributed/elastic/multiprocessing/api.py:897] Sending process 1365 closing signal SIGTERM",
        "Traceback (most recent call last):", '  File "/usr/local/bin/torchrun", line 8, in <module>',
        "torch.distributed.elastic.rendezvous.api.RendezvousClosedError"],
    "a CUDA OOM first: oom-cascade's": ["[rank2]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 14.06 GiB.", sigterm(900), sigterm(902), FAILED.format(code=1, local=1, pid=901)],
}


@pytest.mark.parametrize("name", sorted(SILENT))
def test_silent(tmp_path, name):
    assert rank_failure(findings(tmp_path, SILENT[name], 4)) == []


def test_incident_row_and_first_failure_evidence(tmp_path):
    """k10s_incident and its hang-evidence form: one row, the contract's columns."""
    lines, nproc, world, ranks, cause = CULPRITS["host-oom-kill: -9 that no SIGTERM preceded"]
    bundle = incident_bundle(tmp_path / "b", Case("synthetic", "", [], [], nproc, world), "\n".join(lines))
    con = prepare(bundle)
    try:
        inc = con.sql("SELECT * FROM k10s_incident").to_arrow_table().to_pylist()
        ev = con.sql("SELECT * FROM k10s_hang_evidence_first_failure")
        cols = [(c, str(t)) for c, t in zip(ev.columns, ev.types)]
        rows = ev.to_arrow_table().to_pylist()
    finally:
        con.close()
    assert len(inc) == 1 and inc[0]["culprit_ranks"] == [1] and inc[0]["cause"] == "host-oom-kill" and inc[0]["confidence"] == "high"
    assert inc[0]["victims"] == 3  # three SIGTERMed pids the logs do not tie to a rank
    assert cols == [("job_key", "VARCHAR"), ("evidence", "VARCHAR"), ("culprit_ranks", "BIGINT[]"), ("suspect_ranks", "BIGINT[]"),
                    ("confidence", "VARCHAR"), ("pg", "VARCHAR"), ("seq_num", "BIGINT"), ("op_type", "VARCHAR"),
                    ("ts", "TIMESTAMP WITH TIME ZONE"), ("detail", "VARCHAR")]
    assert rows[0]["evidence"] == "first-failure" and rows[0]["culprit_ranks"] == [1] and rows[0]["detail"].startswith("host-oom-kill")


CUT_BESIDE = [  # rank 0's whole traceback and its exit-time warning (its clock), then rank 1's cut down the same frames
    "[rank0]: Traceback (most recent call last):", '[rank0]:   File "run.py", line 30, in main', "[rank0]:     pipe(**kwargs)",
    "[rank0]: RuntimeError: value cannot be converted to type int64_t without overflow",
    "[rank0]:[W1115 09:08:20.026822356 ProcessGroupNCCL.cpp:1250] Warning: WARNING: process group has NOT been destroyed before we destruct ProcessGroupNCCL.",
    "[rank1]: Traceback (most recent call last):", '[rank1]:   File "run.py", line 30, in main']


@pytest.mark.parametrize("stamped", [False, True], ids=["as-pasted", "api-timestamps"])
def test_a_cut_traceback_within_a_second_of_another_ranks_exception_names_no_one(tmp_path, stamped):
    """The traceback cut before its exception may be the same error: with a clock shared by the paste's lines, as without one."""
    found = findings(tmp_path, CUT_BESIDE, 2, 2, stamped)
    assert [f for f in found if f["ranks"]] == []
    assert [f["cause"] for f in rank_failure(found)] == ["python-exception"]
