"""The twenty-fifth launcher set's shape (docs/rules.md, "Twenty-fifth launcher set"), in one analysis of small node sets.

``torchrun --run-path`` on 2 x 2: rank 1 segfaults; node 1's rank 2 dies of gloo's ``Connection reset by peer`` (a victim,
its traceback inside its agent's ``ProcessRaisedException``). Rank 2's one exit is reported twice: by its failure table,
stamped with the table's own ``time`` (the error file's timestamp), and by its agent's ``failed (exitcode: 1) … (pid: …)``
line more than 10 s later. One process's exit is one failure whatever the two clocks say: only rank 1 is named, a
segfault. Where the two reports carry two pids (a process that was started again), rank 2 failing twice is still a loop.
"""

from __future__ import annotations

import pytest

from bundle_batch import analyze_node_sets, assert_names
from torch_runs_kit import CAPTURED

GLOG = "{lvl}1201 01:{t} {agent} torch/distributed/elastic/multiprocessing/api.py:836] "
RESET = ("RuntimeError: [/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:545] Read error [127.0.0.1]:34207: "
         "Connection reset by peer. This is typically caused by a remote worker hanging or bugs in the application.")


def _table(rank: int, local: int, t: str, code: int, pid: int, tb: str) -> list[str]:
    sig = "  (SIGSEGV)" if code == -11 else ""
    return ["torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ", "=" * 60, "run_script_path FAILED",
            "-" * 60, "Failures:", "  <NO_OTHER_FAILURES>", "-" * 60, "Root Cause (first observed failure):", "[0]:",
            f"  time      : 2026-12-01_01:{t}", "  host      : localhost", f"  rank      : {rank} (local_rank: {local})",
            f"  exitcode  : {code} (pid: {pid}){sig}", "  error_file: <N/A>", f"  traceback : {tb}", "=" * 60]


def _stamp(t: str, lines: list[str]) -> str:
    """The lines as the pod log serves them, each arriving 0.1 ms after the one above from ``t`` on."""
    whole, frac = t.split(".")
    return "".join(f"2026-12-01T01:{whole}.{int(frac) + 100 * i:06d}Z {line}\n" for i, line in enumerate(lines))


def _nodes(table_pid: int) -> list[str]:
    """Node 0: rank 1's segfault reported at once. Node 1: rank 2's gloo error; its failure table's time 01:54:34, its
    agent's line 14.9 s later (pid 20419; the table's pid ``table_pid``)."""
    steps = [f"[default{r % 2}]:rank {r} step {s} loss 0.00{r}" for s in range(3) for r in (0, 1)]
    node0 = _stamp("54:33.600000", [f"[default{r}]:rank {r}/4 (local {r}, pid {20412 + r}) initialised" for r in (0, 1)] + steps)
    node0 += _stamp("54:34.611658", ["[default1]:Fatal Python error: Segmentation fault"])
    head = GLOG.format(lvl="E", t="54:34.908000", agent=20366)
    node0 += _stamp("54:34.908000", [head + "failed (exitcode: -11) local_rank: 1 (pid: 20413) of fn: run_script_path (start_method: spawn)",
                                     head + "torch.multiprocessing.spawn.ProcessExitedException: process 1 terminated with signal SIGSEGV"])
    node0 += _stamp("54:35.100000", _table(1, 1, "54:34", -11, 20413, "Signal 11 (SIGSEGV) received by PID 20413"))
    steps = [f"[default{r % 2}]:rank {r} step {s} loss 0.00{r}" for s in range(3) for r in (2, 3)]
    node1 = _stamp("54:33.600000", [f"[default{r - 2}]:rank {r}/4 (local {r - 2}, pid {20417 + r}) initialised" for r in (2, 3)] + steps)
    head = GLOG.format(lvl="E", t="54:48.864000", agent=20380)
    node1 += _stamp("54:48.864000", [
        GLOG.format(lvl="W", t="54:48.675000", agent=20380).replace("elastic/multiprocessing/api.py:836", "spawn.py:165")
        + "Terminating process 20420 via signal SIGTERM",
        head + "failed (exitcode: 1) local_rank: 0 (pid: 20419) of fn: run_script_path (start_method: spawn)",
        head + "torch.multiprocessing.spawn.ProcessRaisedException: ", head, head + "-- Process 0 terminated with the following error:",
        head + "Traceback (most recent call last):", head + RESET, head])
    node1 += _stamp("54:49.100000", _table(2, 0, "54:34", 1, table_pid, "Traceback (most recent call last):"))
    return [node0, node1]


#: (name, node logs, the ranks warning/critical findings name, a cause one of them gives; [] and None: nothing named)
NODE_SETS = [
    ("one-exit-two-clocks", _nodes(20419), [1], "segfault"),
    ("two-processes", _nodes(20519), [1, 2], "segfault"),
]


@pytest.fixture(scope="module")
def findings(tmp_path_factory) -> list:
    return analyze_node_sets(NODE_SETS, tmp_path_factory.mktemp("t25shapes"), CAPTURED, nproc=lambda name: 2)


@pytest.mark.parametrize(("i", "want", "cause"), [(i, w, c) for i, (_, _, w, c) in enumerate(NODE_SETS)],
                         ids=[s[0] for s in NODE_SETS])
def test_the_twenty_fifth_set_s_shape(findings, i, want, cause):
    assert_names(findings, i, want, cause)
