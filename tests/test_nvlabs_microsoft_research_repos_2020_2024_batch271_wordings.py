"""NVlabs / NVIDIA and microsoft research repositories' multi-GPU failures (real incidents batch 271), pinned as read.
Five controls, collected blind; four were read with a culprit as collected (NOT_YET, batch 271) and are pinned here as
read so a change of reading is seen: Open MPI's ``The first process to do so was: Process name: [[8250,1],2]`` after a
TP-split checkpoint run with TP=2 x PP=2 (NVIDIA/FasterTransformer#438: the converter's ``i_g`` mismatch, every rank)
names rank 2; BEiT-3's ``unrecognized arguments: --local-rank=1`` and the agent's ``failed (exitcode: 2) local_rank:
0`` (microsoft/unilm#1597: ``torch.distributed.launch`` passing ``--local-rank`` to every worker) named rank 0 (exit-2)
until session 49 read argparse's words under a program name of the parser's own: now every process's usage error, no one;
two hosts' tracebacks into one missing ``_doc_idx.npy`` (deepspeedai/Megatron-DeepSpeed#356: a missing barrier after
the index build) name rank 0; spawn's ``-- Process 1 terminated`` with ``check_ddp_consistency``'s ``AssertionError``
(NVlabs/stylegan3#40: replicas diverged on the label-conditioned path, the check can only fire off rank 0) names rank
1. The fifth, a Windows run stuck in a custom-op build and aborted (``Aborted!``, ``Process SpawnProcess-2:``, ninja's
``CalledProcessError``; NVlabs/stylegan3#49), is read as a failure of no rank. Scored 1/5 both ways as collected; no
rule changed (measure only). Contrasts: without mpirun's process-name line, the agent's line, or the
``FileNotFoundError`` line nothing is named; mpirun's ``exited on signal 9`` names rank 2 (host-oom-kill); the
assertion under ``Process 3`` names rank 3; the plugin traceback under spawn's ``-- Process 1 terminated`` names rank 1.
Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 4, 21, 30, tzinfo=dt.timezone.utc)

MPIRUN_FIRST_EXIT = corpus_lines("FasterTransformer-438-")
LOCAL_RANK_DASH = corpus_lines("unilm-1597-")
INDEX_CACHE = corpus_lines("Megatron-DeepSpeed-356-")
DDP_CONSISTENCY = corpus_lines("stylegan3-40-")
PLUGIN_ABORTED = corpus_lines("stylegan3-49-")

#: mpirun's block without its ``Process name: [[8250,1],2]`` line: no process is named
MPIRUN_NO_NAME = [line for line in MPIRUN_FIRST_EXIT if "Process name:" not in line]
#: the same abort as mpirun words a killed process: ``process rank 2 ... exited on signal 9``
MPIRUN_SIGNAL_9 = MPIRUN_FIRST_EXIT[:8] + [
    "mpirun noticed that process rank 2 with PID 0 on node 050434086a2e exited on signal 9 (Killed)."]
#: the usage block and rank 1's usage error without the agent's ``failed (exitcode: 2) local_rank: 0``
LOCAL_RANK_NO_AGENT = LOCAL_RANK_DASH[:-1]
#: the usage error replaced by a rank's own exception (no usage error: the agent's exit is that rank's)
LOCAL_RANK_OWN_ERROR = ["Traceback (most recent call last):", '  File "run_beit3_finetuning.py", line 402, in <module>',
                        "KeyError: 'image_size'", LOCAL_RANK_DASH[-1].replace("exitcode: 2", "exitcode: 1")]
#: both hosts' tracebacks without ``c000001``'s ``FileNotFoundError`` line
INDEX_CACHE_NO_ERROR = INDEX_CACHE[1:]
#: the same assertion reported for spawn's process 3
DDP_PROCESS_3 = [line.replace("-- Process 1 ", "-- Process 3 ") for line in DDP_CONSISTENCY]
#: the plugin-build traceback under spawn's own report of process 1 (its second half, after ``direct cause``)
PLUGIN_UNDER_SPAWN = ["-- Process 1 terminated with the following error:"] + PLUGIN_ABORTED[12:]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # as collected, pasted and laid out as the threads say (today's reading of the four NOT_YET controls)
    "mpirun-first-exit-as-pasted": (MPIRUN_FIRST_EXIT, None, None, 2, "python-exception"),
    "mpirun-first-exit-four-ranks": (MPIRUN_FIRST_EXIT, 4, 4, 2, "python-exception"),
    "local-rank-dash-as-pasted": (LOCAL_RANK_DASH, None, None, None, None),
    "local-rank-dash-two-ranks": (LOCAL_RANK_DASH, 2, 2, None, None),
    "index-cache-as-pasted": (INDEX_CACHE, None, None, 0, "python-exception"),
    "ddp-consistency-as-pasted": (DDP_CONSISTENCY, None, None, 1, "python-exception"),
    "ddp-consistency-two-gpus": (DDP_CONSISTENCY, 2, 2, 1, "python-exception"),
    "plugin-aborted-as-pasted": (PLUGIN_ABORTED, None, None, None, None),
    "plugin-aborted-two-gpus": (PLUGIN_ABORTED, 2, 2, None, None),
    # contrasts
    "mpirun-without-process-name-names-none": (MPIRUN_NO_NAME, 4, 4, None, None),
    "mpirun-signal-9-names-rank2": (MPIRUN_SIGNAL_9, 4, 4, 2, "host-oom-kill"),
    "local-rank-dash-without-agent-names-none": (LOCAL_RANK_NO_AGENT, 2, 2, None, None),
    # a rank's own exception in place of the usage error: the agent's local rank 0 is named again
    "local-rank-dash-own-exception-names-rank0": (LOCAL_RANK_OWN_ERROR, 2, 2, 0, "python-exception"),
    "index-cache-without-error-names-none": (INDEX_CACHE_NO_ERROR, None, None, None, None),
    "ddp-consistency-process3-names-rank3": (DDP_PROCESS_3, 4, 4, 3, "python-exception"),
    "plugin-under-spawn-names-rank1": (PLUGIN_UNDER_SPAWN, 2, 2, 1, "python-exception"),
}
BATCHED = Batched("b271", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_research_repo_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])


def _failures(lines: list[str], folder: Path, nproc: int | None) -> list[tuple]:
    from k10s_forensics.analyze.runner import analyze

    findings = analyze(pasted(lines, folder, nproc, NOW, world=nproc))["findings"]
    return [(f["severity"], f["cause"], f["ranks"]) for f in findings if f["rule"] == "rank-failure"]


def test_aborted_plugin_build_is_a_failure_of_no_rank(tmp_path):
    """The aborted Windows run still reads as a Python failure (warning), but of no rank: ``SpawnProcess-2`` is
    multiprocessing's worker name, not a rank tag."""
    assert _failures(PLUGIN_ABORTED, tmp_path, 2) == [("warning", "python-exception", [])]


def test_argparse_exit_is_every_process_s(tmp_path):
    """The usage error under the parser's own program name is every process's (the same command line): with or without
    the agent's ``exitcode: 2`` line, an exit-2 failure of no single rank."""
    assert _failures(LOCAL_RANK_NO_AGENT, tmp_path / "a", 2) == [("warning", "exit-2", [])]
    assert _failures(LOCAL_RANK_DASH, tmp_path / "b", 2) == [("warning", "exit-2", [])]
