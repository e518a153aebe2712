"""Newest threads, 2026 Q4 (real incidents batch 232), pinned as read. One culprit and three controls: a multi-node
torchrun agent's ``Root Cause (first observed failure)`` record naming ``rank : 3 (local_rank: 1)`` with exit code 1
and ``<NO_OTHER_FAILURES>`` (hiyouga/LlamaFactory#5769: rank 3 alone, a Python exception); rank 0's lone
``torch.OutOfMemoryError`` on a 10 GB RTX 3080 under a 7B FSDP SFT (huggingface/trl#3436: every card too small, rank 6
fails the same way outside the excerpt; read as rank 0's OOM, NOT_YET); ranks 1, 2 and 0 timing out on the same
ALLREDUCE SeqNum (open-mmlab/mmdetection#12392: no rank in view is at fault); four processes failing alike with
``CUresult error result=1 ... func=resume`` (fzyzcjy/torch_memory_saver#35: a library fix). Scored 3/4 both ways as
collected; no rule changed (measure only). Contrasts: the root-cause record without its rank line names no one, with
rank 5 names rank 5; a second rank's OOM beside rank 0's makes the OOM shared and names no one; the timeout laid out
as a world of 4 names the absent rank 3 as never joined; one CUresult line alone still names no one.
Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 4, 1, 0, tzinfo=dt.timezone.utc)

ROOT_CAUSE = corpus_lines("LlamaFactory-5769-")
FSDP_OOM = corpus_lines("trl-3436-")
SAME_SEQNUM = corpus_lines("mmdetection-12392-")
CURESULT = corpus_lines("torch_memory_saver-35-")

#: the elastic record without its ``rank :`` line
ROOT_CAUSE_NO_RANK = [line for line in ROOT_CAUSE if not line.lstrip().startswith("rank      :")]
#: the same record naming rank 5
ROOT_CAUSE_RANK5 = [line.replace("3 (local_rank: 1)", "5 (local_rank: 1)") for line in ROOT_CAUSE]
#: rank 6's OOM (as the thread's paste has it) beside rank 0's
OOM_RANK6_TOO = FSDP_OOM + [
    "[rank6]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 388.00 MiB. GPU 6 has a total capacity of "
    "9.68 GiB of which 95.75 MiB is free."
]
#: rank 0's traceback head without the OOM line
OOM_LINE_CUT = FSDP_OOM[1:]
#: one process's CUresult error and its exit
ONE_CURESULT = [CURESULT[0], CURESULT[4]]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # the culprit, as pasted and as 2 per node
    "root-cause-as-pasted": (ROOT_CAUSE, None, None, 3, "python-exception"),
    "root-cause-2-per-node": (ROOT_CAUSE, 2, 4, 3, "python-exception"),
    # the OOM control as read (NOT_YET: rank 0 is named)
    "fsdp-oom-as-pasted": (FSDP_OOM, None, None, 0, "cuda-oom"),
    "fsdp-oom-one-node-of-8": (FSDP_OOM, 8, 8, 0, "cuda-oom"),
    # controls
    "same-seqnum-as-pasted": (SAME_SEQNUM, None, None, None, None),
    "curesult-as-pasted": (CURESULT, None, None, None, None),
    "curesult-four-processes": (CURESULT, 4, 4, None, None),
    # contrasts
    "root-cause-no-rank-names-none": (ROOT_CAUSE_NO_RANK, None, None, None, None),
    "root-cause-rank5-names-rank5": (ROOT_CAUSE_RANK5, None, None, 5, "python-exception"),
    "oom-rank6-too-names-none": (OOM_RANK6_TOO, 8, 8, None, None),
    "oom-line-cut-names-none": (OOM_LINE_CUT, None, None, None, None),
    "same-seqnum-world-of-4-names-rank3": (SAME_SEQNUM, 4, 4, 3, "never-joined"),
    "one-curesult-names-none": (ONE_CURESULT, None, None, None, None),
}
BATCHED = Batched("b232", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_newest_threads_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])


def test_root_cause_record_is_a_rank_failure(tmp_path):
    """The elastic agent's root-cause record reads as a rank-failure warning on rank 3, a Python exception."""
    from k10s_forensics.analyze.runner import analyze

    findings = analyze(pasted(ROOT_CAUSE, tmp_path, None, NOW, world=None))["findings"]
    failures = [f for f in findings if f["rule"] == "rank-failure"]
    assert failures and failures[0]["ranks"] == [3], [(f["rule"], f["ranks"]) for f in findings]
    assert failures[0]["cause"] == "python-exception" and failures[0]["severity"] == "warning", failures[0]


def test_shared_oom_names_no_rank(tmp_path):
    """Ranks 0 and 6 out of memory alike: the OOM finding stays critical but names no single rank."""
    from k10s_forensics.analyze.runner import analyze

    findings = analyze(pasted(OOM_RANK6_TOO, tmp_path, 8, NOW, world=8))["findings"]
    ooms = [f for f in findings if f["cause"] == "cuda-oom"]
    assert ooms and all(not f["ranks"] for f in ooms), [(f["rule"], f["cause"], f["ranks"]) for f in findings]
