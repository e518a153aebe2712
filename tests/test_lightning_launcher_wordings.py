"""PyTorch Lightning / Fabric's launcher on a child process that ended (real incidents batch 25,
openfold-481): its main process (local rank 0) starts the node's other processes and watches them;
on the first that ended with a non-zero status it logs ``[rank: 3] Child process with PID 11479
terminated with code 1. Forcefully terminating all other processes to avoid zombies 🧟`` and kills
the rest. The ``[rank: N]`` prefix is the child's local rank (not the printing process's), the code
its exit status (negative for a signal). An untagged CUDA OOM just above the line is that child's
(queries/_views.sql, ``oom_hint``), as above torchrun's agent line.
"""

from __future__ import annotations

import datetime as dt
import re

import pytest

from incident_kit import named_in_paste
from k10s_forensics.logimport import LogSource
from k10s_forensics.parsers.log_launchers import launcher_report
from k10s_forensics.parsers.log_layout import infer_layout
from k10s_forensics.parsers.log_prefilter import PREFILTER_EVENT

NOW = dt.datetime(2026, 11, 29, 3, 0, tzinfo=dt.timezone.utc)
TAIL = ". Forcefully terminating all other processes to avoid zombies \U0001f9df"
CHILD = "[rank: {local}] Child process with PID {pid} terminated with code {code}" + TAIL
OOM = ("torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 128.00 GiB. GPU 3 has a total capacty of 79.22 GiB "
       "of which 24.22 GiB is free. Including non-PyTorch memory, this process has 54.99 GiB memory in use.")


@pytest.mark.parametrize(("line", "local", "pid", "code"), [
    (CHILD.format(local=3, pid=11479, code=1), 3, 11479, 1),
    # Python logging's default format in front (the launcher's module logger)
    ("INFO:lightning.fabric.strategies.launchers.subprocess_script:" + CHILD.format(local=1, pid=652, code=-9), 1, 652, -9),
    ("[2025-03-01 10:00:01,123][lightning.pytorch][INFO] - " + CHILD.format(local=7, pid=90211, code=-11), 7, 90211, -11),
    # the emoji lost (a terminal without it, a copy that dropped it) and no sentence after the code
    ("[rank: 2] Child process with PID 4242 terminated with code -6. Forcefully terminating all other processes to avoid zombies ?",
     2, 4242, -6),
    ("[rank: 1] Child process with PID 30 terminated with code 2.", 1, 30, 2),
    # the PID masked in a pasted log (the wordings accept log_normalize.MASK where a PID was)
    (CHILD.format(local=3, pid="xxxxx", code=1), 3, None, 1),
    (CHILD.format(local=5, pid="<PID>", code=-9), 5, None, -9),
    (CHILD.format(local=2, pid="…", code=1), 2, None, 1),
    (CHILD.format(local=4, pid="[REDACTED]", code=-6), 4, None, -6),
])
def test_the_child_s_local_rank_pid_and_status(line, local, pid, code):
    ev = launcher_report(line)
    assert ev == {"kind": "process_exit", "subkind": "lightning_child", "local_rank": local, "pid": pid, "exit_code": code}
    assert re.search(PREFILTER_EVENT, line)


@pytest.mark.parametrize("line", [
    "Child process with PID 11479 terminated with code 1" + TAIL,  # no rank prefix: no process named
    "[rank: 0] Seed set to 77843",  # Lightning's prefix on a line of the printing process
    "[rank: 3] Child process with PID 11479 is still running",
])
def test_other_lines_name_no_child(line):
    ev = launcher_report(line)
    assert ev is None or ev.get("subkind") != "lightning_child"


def test_the_child_s_local_rank_counts_the_node_s_processes():
    """Imported without options, the reported child (local rank 3) says the node ran at least 4 processes."""
    layout = infer_layout([LogSource("log.txt", OOM + "\n" + CHILD.format(local=3, pid=11479, code=1) + "\nKilled\n")])
    assert (layout.nproc_per_node, layout.world_size) == (4, 4)


def _named(tmp_path, text: str, nproc: int = 4):
    return named_in_paste(tmp_path, text, nproc, nproc, NOW)


def test_the_oom_above_is_the_reported_child_s(tmp_path):
    """The OOM's ``GPU 3`` names no process; the child the launcher reports below it (local rank 1) does."""
    named = _named(tmp_path, "\n".join([OOM, CHILD.format(local=1, pid=11479, code=1), "Killed", "```"]) + "\n")
    assert ("oom-cascade", "cuda-oom", [1]) in named
    assert all(ranks == [1] for _, _, ranks in named)


def test_a_child_killed_from_outside(tmp_path):
    """A SIGKILL the observer did not send (it terminates the others afterwards): the OOM killer's mark."""
    assert _named(tmp_path, CHILD.format(local=2, pid=5150, code=-9) + "\n") == [("rank-failure", "host-oom-kill", [2])]
