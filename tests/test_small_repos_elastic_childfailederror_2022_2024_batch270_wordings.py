"""Small research repositories' elastic-launcher failures, 2022-2024 (real incidents batch 270), pinned as read. One
culprit: YOLOv5-Lite resumed on two processes where ``torch.cuda.device_count()`` is 1 (ppogg/YOLOv5-Lite#195): an
untagged ``assert torch.cuda.device_count() > opt.local_rank`` traceback, rank 0 reaching its store barrier, and the
agent's ``failed (exitcode: 1) local_rank: 1`` name local rank 1 (python-exception, critical). Five controls that name
no one: DSL's two identical ``ZeroDivisionError`` tracebacks from mmcv's ``rank % num_gpus`` with no GPU visible
(chenbinghui1/DSL#25); both workers rejecting ``--local-rank`` under PyTorch 2.x's launcher (FutureXiang/Diffusion#4);
c10d store ``Address already in use`` on port 38429 under ``srun`` (OpenDriveLab/DriveLM#40); ranks 2 and 1's 30-minute
ALLREDUCE watchdogs, settled by a longer ``--set_timeout`` (MiZhenxing/Switch-NeRF#8, an info never-joined suspect at
most). Scored 5/6 both ways as collected; no rule changed (measure only). The miss, fdbtrs/IDiff-Face#6's two untagged
``can't open file 'train_jonas.py'`` lines, where the agent's ``failed (exitcode: 2) local_rank: 0`` named rank 0 (exit-2,
warning), is read since session 49 as every process's failure (the interpreter cannot open the script of the command line
each runs: common mode, as argparse's usage error): no one is named. Contrasts: YOLOv5-Lite without the agent line names no one, with the
agent naming local rank 0 names rank 0; one DSL traceback tagged ``[rank3]:`` names rank 3; Diffusion's agent line
without the two argparse errors names rank 0; DriveLM with an agent line for local rank 1 names rank 1; a third
watchdog reporter makes Switch-NeRF's absent rank 0 a warned laggard; IDiff-Face's two failures worded as argparse
errors name no one. Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted, pasted_findings
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 4, 21, 30, tzinfo=dt.timezone.utc)

ONE_GPU_RANK1 = corpus_lines("YOLOv5-Lite-195-")
NO_GPU_ZERODIV = corpus_lines("DSL-25-")
LOCAL_RANK_ARGPARSE = corpus_lines("Diffusion-4-launch-")
STORE_PORT_IN_USE = corpus_lines("DriveLM-40-")
WATCHDOG_2_1 = corpus_lines("Switch-NeRF-8-")
MISSING_SCRIPT = corpus_lines("IDiff-Face-6-")

_AGENT = next(i for i, line in enumerate(ONE_GPU_RANK1) if "failed (exitcode: 1) local_rank: 1" in line)
#: YOLOv5-Lite's paste cut before the agent's line: the assertion and rank 0's start-up only
ONE_GPU_NO_AGENT = ONE_GPU_RANK1[:_AGENT]
#: the agent naming local rank 0 instead
ONE_GPU_AGENT_RANK0 = ONE_GPU_RANK1[:_AGENT] + [ONE_GPU_RANK1[_AGENT].replace("local_rank: 1", "local_rank: 0")] \
    + ONE_GPU_RANK1[_AGENT + 1:]
#: DSL's first traceback alone, tagged the way torch 2.x tags a rank's exception
ZERODIV_RANK3_TAGGED = ["[rank3]: " + line for line in NO_GPU_ZERODIV[4:14]]
#: Diffusion's agent line without the two workers' argparse errors before it
ARGPARSE_AGENT_ONLY = LOCAL_RANK_ARGPARSE[4:]
#: DriveLM's store warnings followed by an agent line for one worker
PORT_THEN_AGENT_RANK1 = STORE_PORT_IN_USE + [
    "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: 1) local_rank: 1 (pid: 5678) of binary: "
    "/usr/bin/python3",
]
#: a third rank's watchdog line after ranks 2 and 1
WATCHDOG_2_1_3 = WATCHDOG_2_1 + [
    "[E ProcessGroupNCCL.cpp:587] [Rank 3] Watchdog caught collective operation timeout: WorkNCCL(OpType=ALLREDUCE, "
    "Timeout(ms)=1800000) ran for 1801175 milliseconds before timing out.",
]
#: IDiff-Face's two failures worded as argparse's (``<script>: error: ...``)
MISSING_AS_ARGPARSE = [line.replace("/usr/bin/python3: ", "train_jonas.py: error: ") for line in MISSING_SCRIPT[:2]] \
    + MISSING_SCRIPT[2:]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # the culprit, as pasted and laid out as the thread says (two processes on one node)
    "one-gpu-rank1-as-pasted": (ONE_GPU_RANK1, None, None, 1, "python-exception"),
    "one-gpu-rank1-two-procs": (ONE_GPU_RANK1, 2, 2, 1, "python-exception"),
    # controls
    "no-gpu-zerodiv-as-pasted": (NO_GPU_ZERODIV, None, None, None, None),
    "no-gpu-zerodiv-four-procs": (NO_GPU_ZERODIV, 4, 4, None, None),
    "argparse-as-pasted": (LOCAL_RANK_ARGPARSE, None, None, None, None),
    "argparse-two-procs": (LOCAL_RANK_ARGPARSE, 2, 2, None, None),
    "port-in-use-as-pasted": (STORE_PORT_IN_USE, None, None, None, None),
    "port-in-use-two-per-node": (STORE_PORT_IN_USE, 2, None, None, None),
    "watchdog-2-1-as-pasted": (WATCHDOG_2_1, None, None, None, None),
    "watchdog-2-1-four-procs": (WATCHDOG_2_1, 4, 4, None, None),
    # the miss as read (NOT_YET in the corpus): the agent's exit-2 line names rank 0
    "missing-script-as-read": (MISSING_SCRIPT, None, None, None, None),
    "missing-script-two-procs-as-read": (MISSING_SCRIPT, 2, 2, None, None),
    # contrast: without the interpreter's two lines, the agent's exit names its local rank 0
    "missing-script-agent-only-names-rank0": (MISSING_SCRIPT[2:], 2, 2, 0, "exit-2"),
    # contrasts
    "one-gpu-no-agent-names-none": (ONE_GPU_NO_AGENT, None, None, None, None),
    "one-gpu-agent-rank0-names-rank0": (ONE_GPU_AGENT_RANK0, None, None, 0, "python-exception"),
    "zerodiv-rank3-tagged-names-rank3": (ZERODIV_RANK3_TAGGED, None, None, 3, "python-exception"),
    "argparse-agent-only-names-rank0": (ARGPARSE_AGENT_ONLY, None, None, 0, "exit-2"),
    "port-then-agent-rank1-names-rank1": (PORT_THEN_AGENT_RANK1, None, None, 1, None),
    "watchdog-2-1-3-names-rank0": (WATCHDOG_2_1_3, None, None, 0, "never-joined"),
    "missing-as-argparse-names-none": (MISSING_AS_ARGPARSE, None, None, None, None),
}
BATCHED = Batched("b270", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_small_repo_elastic_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])


def _failures(findings: list[dict]) -> list[tuple]:
    return [(f["rule"], f["severity"], f["cause"], f["ranks"]) for f in findings if f["severity"] != "ok"]


def test_one_visible_gpu_names_local_rank1_critical_and_without_the_agent_no_one(tmp_path):
    """The agent's ``local_rank: 1`` makes rank 1's assertion a critical python-exception; the same traceback and rank 0's
    start-up without it are a python-exception on no rank (warning): the untagged assertion alone names no one."""
    read = _failures(pasted_findings(ONE_GPU_RANK1, tmp_path / "a", 2, 2, NOW))
    assert ("rank-failure", "critical", "python-exception", [1]) in read, read
    cut = [f for f in _failures(pasted_findings(ONE_GPU_NO_AGENT, tmp_path / "b", None, None, NOW))
           if f[0] == "rank-failure"]
    assert cut == [("rank-failure", "warning", "python-exception", [])], cut


def test_two_alike_zerodivisions_are_one_failure_on_no_rank(tmp_path):
    """DSL's two identical mmcv tracebacks read as one python-exception naming no rank (warning), laid out or not."""
    for nproc, sub in ((None, "a"), (4, "b")):
        failures = [f for f in _failures(pasted_findings(NO_GPU_ZERODIV, tmp_path / sub, nproc, nproc, NOW))
                    if f[0] == "rank-failure"]
        assert failures == [("rank-failure", "warning", "python-exception", [])], (nproc, failures)


def test_two_watchdog_reporters_leave_rank0_an_info_suspect_only(tmp_path):
    """Ranks 2 and 1's watchdogs hold the absent rank 0 as an info never-joined suspect (not a culprit); laid out four
    per node it is no single culprit; rank 2's line alone suspects no one (since session 57 an info hang of no rank)."""
    as_pasted = _failures(pasted_findings(WATCHDOG_2_1, tmp_path / "a", None, None, NOW))
    assert as_pasted == [("nccl-hang", "info", "never-joined", [0])], as_pasted
    four = _failures(pasted_findings(WATCHDOG_2_1, tmp_path / "b", 4, 4, NOW))
    assert four == [("nccl-hang", "info", "no-single-culprit", [])], four
    alone = _failures(pasted_findings(WATCHDOG_2_1[:1], tmp_path / "c", None, None, NOW))
    assert alone == [("nccl-hang", "info", "no-single-culprit", [])], alone


def test_store_port_warnings_alone_name_no_rank(tmp_path):
    """DriveLM's c10d ``Address already in use`` lines, before any worker runs, name no rank; since session 58 they say
    the rendezvous store's port in use (rank-failure, warning, no rank)."""
    assert _failures(pasted_findings(STORE_PORT_IN_USE, tmp_path, 2, None, NOW)) == [
        ("rank-failure", "warning", "rendezvous-port-in-use", [])]
