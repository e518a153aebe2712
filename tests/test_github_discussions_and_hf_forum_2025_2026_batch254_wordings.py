"""Multi-GPU training failures of 2025-2026 from public threads (real incidents batch 254), pinned as read. Four
controls, no culprit (the family's GitHub Discussions and Hugging Face forum threads are not in the stored index, and
the settled lone-rank threads it shows were already taken; GitHub issue threads of 2025-2026 stand in). Two are read as
nothing: DeepDeWedge's Lightning-DDP rank 1 frames ending at ``batch = next(iter_loader)`` with no exception line
(MLI-lab/DeepDeWedge#40: every rank rewrites the same subtomo files, a race; fixed by #41) and diffusion-pipe's rank 1
backward frames with block swapping on a 3090 + 3080 Ti (tdrussell/diffusion-pipe#173: two ranks swapping into one
host's RAM); each leaves only an info python-exception suspect on rank 1. Two are read as a culprit and stay NOT_YET
(tests/corpus_not_yet_s38.py): mp.spawn's ``-- Process 1 terminated with the following error:`` into DDP's
``_verify_params_across_processes`` (pytorch/pytorch#152302: NCCL 2.26's cuMem host allocation, every process) names
rank 1 (python-exception), and torchtitan's lone ``[rank1]: KeyError: ("Mesh dimension 'ep' does not exist." ...)``
(pytorch/torchtitan#1396: the EP mesh config, every rank) names rank 1 (python-exception); both are pinned here as they
read today. Scored 2/4 both ways as collected; no rule changed (measure only).
Contrasts: spawn's traceback without its ``-- Process 1`` header names no one, and with ``Process 0`` names rank 0; the
KeyError without its ``[rank1]:`` tag names no one, and tagged ``[rank3]`` names rank 3; DeepDeWedge's frames with the
thread's ``PytorchStreamReader`` line on rank 1 name rank 1 (python-exception); diffusion-pipe's frames with a rank-1
``CUDA error: out of memory`` name rank 1 (cuda-oom). Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt

import pytest

from bundle_batch import Batched, assert_info_suspect, assert_one_rank, pasted_cases, pasted_findings
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 4, 13, 30, tzinfo=dt.timezone.utc)

SPAWN_PROCESS1 = corpus_lines("pytorch-152302-")
MESH_KEYERROR = corpus_lines("torchtitan-1396-")
REWRITE_RACE = corpus_lines("DeepDeWedge-40-")
BLOCKSWAP_FRAMES = corpus_lines("diffusion-pipe-173-")

#: spawn's traceback without the ``-- Process 1 terminated`` header: an exception of no rank
SPAWN_NO_HEADER = [line for line in SPAWN_PROCESS1 if not line.startswith("-- Process")]
#: the same paste for process 0
SPAWN_PROCESS0 = [line.replace("Process 1", "Process 0") for line in SPAWN_PROCESS1]
#: the KeyError without the rank tag torch prints
KEYERROR_UNTAGGED = [MESH_KEYERROR[0].replace("[rank1]: ", "")]
#: the KeyError as rank 3 prints it
KEYERROR_RANK3 = [MESH_KEYERROR[0].replace("[rank1]", "[rank3]")]
#: DeepDeWedge's frames with the read error the fix PR quotes, on rank 1
RACE_WITH_ERROR = REWRITE_RACE + [
    "[rank1]: RuntimeError: PytorchStreamReader failed reading zip archive: failed finding central directory"]
#: diffusion-pipe's frames with the error the description quotes, on rank 1
BLOCKSWAP_WITH_ERROR = BLOCKSWAP_FRAMES + ["[rank1]: RuntimeError: CUDA error: out of memory"]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # controls read as nothing
    "rewrite-race-as-pasted": (REWRITE_RACE, None, None, None, None),
    "blockswap-as-pasted": (BLOCKSWAP_FRAMES, None, None, None, None),
    "blockswap-two-gpus": (BLOCKSWAP_FRAMES, 2, 2, None, None),
    # controls read as a culprit today (NOT_YET in the corpus), pinned as read
    "spawn-process1-as-read-names-rank1": (SPAWN_PROCESS1, None, None, 1, "python-exception"),
    "spawn-process1-two-gpus-as-read-names-rank1": (SPAWN_PROCESS1, 2, 2, 1, "python-exception"),
    # read right since session 61: a device-mesh dimension that does not exist, in a lone paste, is a suspect at info
    # (low_why lone-paste-program-structure)
    "mesh-keyerror-as-read-suspect-only": (MESH_KEYERROR, None, None, None, None),
    # contrasts
    "spawn-no-header-names-none": (SPAWN_NO_HEADER, 2, 2, None, None),
    "spawn-process0-names-rank0": (SPAWN_PROCESS0, 2, 2, 0, "python-exception"),
    "keyerror-untagged-names-none": (KEYERROR_UNTAGGED, None, None, None, None),
    "keyerror-rank3-suspect-only": (KEYERROR_RANK3, 4, 4, None, None),
    "race-with-error-names-rank1": (RACE_WITH_ERROR, None, None, 1, "python-exception"),
    "blockswap-with-error-names-rank1": (BLOCKSWAP_WITH_ERROR, 2, 2, 1, "cuda-oom"),
}
BATCHED = Batched("b254", list(CASES))


_make = pasted_cases(CASES, NOW)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_public_thread_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])


@pytest.mark.parametrize("lines", [REWRITE_RACE, BLOCKSWAP_FRAMES], ids=["rewrite-race", "blockswap"])
def test_frames_without_exception_leave_rank1_a_suspect(lines, tmp_path):
    """Rank 1's frames with no exception line: an info python-exception suspect on rank 1, nothing louder."""
    assert_info_suspect(pasted_findings(lines, tmp_path, None, None, NOW), 1)


def test_untagged_keyerror_is_a_failure_of_no_rank(tmp_path):
    """The KeyError without its rank tag is still read as a python exception, one that names no rank."""
    findings = pasted_findings(KEYERROR_UNTAGGED, tmp_path, None, None, NOW)
    failures = [(f["severity"], f["cause"], f["ranks"]) for f in findings if f["rule"] == "rank-failure"]
    assert failures == [("warning", "python-exception", [])], failures
