"""A failure table's ``traceback :`` field holds the rank's own exception (session 71, docs/rules.md "a failure table's
traceback field is the rank's own error").

With torch's ``@record`` the agent's failure table quotes each failed worker's error file: a ``traceback : Traceback
(most recent call last):`` field, its frames, and the exception the worker died of. parsers/log_failure_table.py reads
that exception as the rank's own exception line (``python_exception`` of the entry's rank, read by the same
``py_exception`` as a console's line): a peer's failure or the group's wait (gloo's ``Connection closed by peer``,
``DistStoreError: wait timeout ... keys: /default_pg/0//cpu//0/N``, ``DistNetworkError``) makes its exit a victim's; any
other exception is the rank's own failure, with the cause its console line would get (``MemoryError``: host-oom). A store
wait's key, quoted from that round's error file, names the rank that never joined (nccl-hang), although the table is
printed after the agent's teardown. Recorded consoles (tests/data/torch-runs, t73) and marked SYNTHETIC tables, through
``k10s import-logs`` as one pasted log, batched.
"""
from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, pasted_cases
from incident_kit import naming_findings

NOW = dt.datetime(2026, 12, 7, 18, 0, tzinfo=dt.timezone.utc)
RUNS = Path(__file__).parent / "data" / "torch-runs"
NEVER_RUN = "t73-standalone-1x6-never-joins-rank3-w0-record-norank-redirects"
MEMORY_RUN = "t73-trun-2x2-memoryerror-rank2-step2-train-w2-record-logging-norank-redirects"
CLOSED = ("RuntimeError: [/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:553] Connection closed by peer "
          "[10.0.0.{}]:25499. This is typically caused by a remote worker crashing.")
RESET = "RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:598] Connection reset by peer [10.0.0.{}]:61402"
NETWORK = "torch.distributed.DistNetworkError: Connection reset by peer"
STORE = "torch.distributed.DistStoreError: wait timeout after 3000ms, keys: /default_pg/0//{}//0/{}"


def _node(version: str, run: str, node: str) -> list[str]:
    return (RUNS / version / run / f"{node}.log").read_text("utf-8").splitlines()


def _entry(index: int, rank: int, local: int, pid: int, code: int, error: str | None, second: int = 17) -> list[str]:
    """SYNTHETIC: one entry of torchrun's failure table, its ``traceback :`` field the error file's (``error``), or a
    SIGTERMed worker's ``Signal 15`` line (``error`` None)."""
    head = [f"[{index}]:", f"  time      : 2026-12-07_17:28:{second:02d}", "  host      : node-a",
            f"  rank      : {rank} (local_rank: {local})"]
    if error is None:
        return head + [f"  exitcode  : -15 (pid: {pid})  (SIGTERM)", "  error_file: <N/A>",
                       f"  traceback : Signal 15 (SIGTERM) received by PID {pid}"]
    return head + [f"  exitcode  : {code} (pid: {pid}) ", f"  error_file: /tmp/torchelastic_x/attempt_0/{local}/error.json",
                   "  traceback : Traceback (most recent call last):",
                   '    File "/opt/venv/lib/python3.11/site-packages/torch/distributed/elastic/multiprocessing/errors/__init__.py", '
                   "line 367, in wrapper", "      return f(*args, **kwargs)",
                   '    File "/work/train.py", line 88, in main', "      loss.backward()"] + [f"  {e}" for e in error.split("\n")] + ["  "]


def _table(first: int, entries: list[tuple], root: tuple, rank_base: int = 0) -> list[str]:
    """SYNTHETIC: an agent's teardown (its SIGTERMs, its ``failed (exitcode: …)`` line for the root cause) and its
    failure table: ``entries`` and ``root`` are ``(local rank, exit code, error)``; pids ``first + local rank``."""
    def one(i: int, e: tuple) -> list[str]:
        return _entry(i, rank_base + e[0], e[0], first + e[0], e[1], e[2], e[3] if len(e) > 3 else 17)
    out = [f"W1207 17:28:19.130000 28945 torch/distributed/elastic/multiprocessing/api.py:1028] Sending process {first + e[0]} "
           "closing signal SIGTERM" for e in entries]
    out += [f"E1207 17:28:19.201000 28945 torch/distributed/elastic/multiprocessing/api.py:1002] failed (exitcode: {root[1]}) "
            f"local_rank: {root[0]} (pid: {first + root[0]}) of binary: /opt/venv/bin/python3",
            "Traceback (most recent call last):", '  File "/opt/venv/bin/torchrun", line 8, in <module>', "    sys.exit(main())",
            "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ",
            "============================================================", "/work/train.py FAILED",
            "------------------------------------------------------------", "Failures:"]
    for i, e in enumerate(entries, 1):
        out += one(i, e)
    out += ["------------------------------------------------------------", "Root Cause (first observed failure):"]
    return out + one(0, root) + ["============================================================"]


#: key: (lines, nproc, world, the ranks a finding names, its rule and cause; None: a control, no rank named)
CASES = {
    # every failing rank's field the store wait on rank 3's key, rank 3 SIGTERMed: rank 3 never joined (both versions)
    "t73-2.13.0-never-joins": (_node("2.13.0", NEVER_RUN, "node0"), 6, 6, ([3], "nccl-hang", "never-joined")),
    "t73-2.14.1-never-joins": (_node("2.14.1", NEVER_RUN, "node0"), 6, 6, ([3], "nccl-hang", "never-joined")),
    # rank 2's field 'MemoryError', its node's root cause: host-oom; the other node's table alone holds victims only
    "t73-2.13.0-memory-node1": (_node("2.13.0", MEMORY_RUN, "node1"), 2, 4, ([2], "rank-failure", "host-oom")),
    "t73-2.14.1-memory-node1": (_node("2.14.1", MEMORY_RUN, "node1"), 2, 4, ([2], "rank-failure", "host-oom")),
    "t73-2.13.0-memory-node0-victims": (_node("2.13.0", MEMORY_RUN, "node0"), 2, 4, None),
    "t73-2.14.1-memory-node0-victims": (_node("2.14.1", MEMORY_RUN, "node0"), 2, 4, None),
    # SYNTHETIC: the store key of rank 2 in every other rank's field (cpu and cuda key shapes), rank 2 SIGTERMed
    "synthetic-store-key-cpu": (_table(500, [(0, 1, STORE.format("cpu", 2)), (2, -15, None), (3, 1, STORE.format("cpu", 2))],
                                       (1, 1, STORE.format("cpu", 2))), 4, 4, ([2], "nccl-hang", "never-joined")),
    "synthetic-store-key-cuda": (_table(500, [(0, -15, STORE.format("cuda", 2)), (2, -15, None), (3, 1, STORE.format("cuda", 2))],
                                        (1, 1, STORE.format("cuda", 2))), 4, 4, ([2], "nccl-hang", "never-joined")),
    # SYNTHETIC: rank 1's own MemoryError among victims' gloo and network errors, a victim 'first observed'
    "synthetic-memory-among-victims": (_table(700, [(1, 1, "MemoryError"), (2, 1, NETWORK), (3, -15, None)],
                                              (0, 1, RESET.format(2))), 4, 4, ([1], "rank-failure", "host-oom")),
    # SYNTHETIC: rank 2's own ValueError among victims' errors: its own exception, python-exception
    "synthetic-own-exception": (_table(800, [(0, 1, CLOSED.format(3)), (1, 1, CLOSED.format(3)), (3, -15, None)],
                                       (2, 1, "ValueError: bad config: lr must be positive")), 4, 4,
                                ([2], "rank-failure", "python-exception")),
    # SYNTHETIC: a chained exception: a network error's handler ran out of host memory (the chain's end is the rank's)
    "synthetic-chained-memory": (_table(600, [(0, 1, RESET.format(2)), (2, -15, None), (3, 1, CLOSED.format(2))],
                                        (1, 1, NETWORK + "\n\nDuring handling of the above exception, another exception "
                                         "occurred:\n\nTraceback (most recent call last):\n  File \"/work/train.py\", line 91, "
                                         "in main\n    retry()\nMemoryError")), 4, 4, ([1], "rank-failure", "host-oom")),
    # SYNTHETIC CONTROL: node 1 (ranks 2, 3) lost whole, its console empty; node 0's every field a gloo teardown
    "synthetic-control-node-lost": (_table(900, [(1, 1, CLOSED.format(3))], (0, 1, CLOSED.format(3))), 2, 4, None),
}
BATCHED = Batched("table-traceback-exception", list(CASES))
MAKE = pasted_cases(CASES, NOW)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_the_table_s_traceback_is_the_rank_s_own_error(key, tmp_path_factory):
    want = CASES[key][3]
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, MAKE))
    got = [(f["rule"], f["cause"], f["ranks"]) for f in named]
    if want is None:  # victims only: no rank may be named
        assert named == [], got
        return
    ranks, rule, cause = want
    assert named and all(f["ranks"] == ranks for f in named), got
    assert any(f["rule"] == rule and f["cause"] == cause for f in named), got
