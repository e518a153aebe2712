"""srun's task reports read after an indent (real incidents batch 151, a LUMI AI-workshop Q&A: an accelerate + FSDP
fine-tune's step output, ``srun: error: nid006024: task 0: Out Of Memory`` then tasks 1-3 ``Terminated``, pasted as a
markdown list item's four-space-indented block). A paste whose every line shares the indent is dedented before parsing,
but the same lines as one pod's log served with the API's ``timestamps=true`` prefix carry the indent after the stamp,
and srun's own lines (``srun: error: <host>: task N: <status>``, ``srun: Terminating StepId=…``) were read only at a
line's start: the OOM-killed task went unnamed. They are now read after spaces or a tab. The contrasts keep what an
indented report must not change: every task ending alike names no one, and a sentence that quotes srun's wording is
no report (docs/rules.md, "Session 33: batch 151"). Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import naming_findings

NOW = dt.datetime(2026, 12, 2, 3, 0, tzinfo=dt.timezone.utc)
OOM = "slurmstepd: error: Detected 1 oom_kill event in StepId=8538204.0. Some of the step tasks have been OOM Killed."
CXI = "slurmstepd: error: Failed to destroy CXI Service ID 5 (cxi0): Device or resource busy"
LUMI = [OOM, CXI, CXI, "slurmstepd: error: switch_g_job_postfini: Device or resource busy",
        "srun: error: nid006024: task 0: Out Of Memory", "srun: Terminating StepId=8538204.0",
        "srun: error: nid006900: task 1: Terminated", "srun: error: nid007125: task 2: Terminated",
        "srun: error: nid007405: task 3: Terminated", "srun: Force Terminated StepId=8538204.0"]
#: Slurm 20's teardown wording, task 2 killed by the cgroup, the others' SIGKILL by srun after it
OLD_SLURM = ["slurmstepd: error: Detected 1 oom-kill event(s) in step 4411.0 cgroup. Some of your processes may have been "
             "killed by the cgroup out-of-memory handler.", "srun: error: gpu07: task 2: Out Of Memory",
             "srun: launch/slurm: _step_signal: Terminating StepId=4411.0",
             "srun: error: gpu05: tasks 0-1: Terminated", "srun: error: gpu08: task 3: Terminated"]


def _indented(lines: list[str], indent: str) -> list[str]:
    return [indent + line for line in lines]


def _api(lines: list[str], indent: str) -> list[str]:
    """``lines`` as one pod's log served with the API's timestamps, each body carrying ``indent``."""
    t0 = dt.datetime(2024, 11, 27, 15, 37, 58, tzinfo=dt.timezone.utc)
    return [(t0 + dt.timedelta(milliseconds=i)).strftime("%Y-%m-%dT%H:%M:%S.%fZ ") + indent + line
            for i, line in enumerate(lines)]


#: key: (the pasted lines, the rank a warning/critical finding must name alone: None for none, its cause)
CASES = {
    # batch 151's shape, one pod's log with API timestamps: the four-space indent after every stamp
    "api-4sp-lumi-task0-oom": (_api(LUMI, "    "), 0, "host-oom-kill"),
    "api-tab-lumi-task0-oom": (_api(LUMI, "\t"), 0, "host-oom-kill"),
    "api-8sp-slurm20-task2-oom": (_api(OLD_SLURM, "        "), 2, "host-oom-kill"),
    # the paste itself indented (dedented before parsing, as before)
    "paste-4sp-lumi-task0-oom": (_indented(LUMI, "    "), 0, "host-oom-kill"),
    "paste-2sp-slurm20-task2-oom": (_indented(OLD_SLURM, "  "), 2, "host-oom-kill"),
    # contrasts: every task killed alike names no one, indented or not ...
    "api-4sp-all-tasks-oom": (_api([OOM, "srun: error: nid006024: tasks 0-3: Out Of Memory"], "    "), None, None),
    "api-4sp-both-exit-1": (_api(["srun: error: udc-aj36-35: task 0: Exited with exit code 1",
                                  "srun: error: udc-aj40-35: task 1: Exited with exit code 1"], "    "), None, None),
    # ... and a sentence quoting srun's wording is no report of a task
    "api-4sp-prose-quote": (_api(["The FAQ says srun: error: nid006024: task 0: Out Of Memory means host memory.",
                                  "It looks like it runs out of CPU memory (not GPU memory)."], "    "), None, None),
}
BATCHED = Batched("b151", list(CASES))


def _make(key: str, folder: Path):
    return pasted(CASES[key][0], folder, 1, NOW, world=4)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_srun_task_reports_are_read_after_an_indent(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][1], CASES[key][2])
