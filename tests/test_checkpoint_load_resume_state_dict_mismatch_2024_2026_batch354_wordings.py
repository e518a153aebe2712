"""Checkpoint load/resume failing on a state-dict mismatch, 2024-2026 (real incidents batch 354), pinned as read. Four
controls, collected blind, all read right both ways as collected (4/4; measure only, no rule changed):

- deepspeedai/DeepSpeed#5570: the tail of rank 1's ``Error(s) in loading state_dict`` (three ``[rank1]:`` ``size
  mismatch`` lines, 1024 vs 4096 in every layer: a checkpoint of another model configuration) and torchrun's SIGTERM
  to two pids is no finding at all: the ``size mismatch`` continuation lines are no exception line;
- NVIDIA/Megatron-LM#4129: an untagged ``ValueError: Size mismatch between saved ... and current`` then
  ``[default7]:[rank7]: Traceback (most recent call last): (RANK 7)`` from DCP's ``reduce_scatter`` (a CI resume test
  missing Megatron-FSDP's DCP preprocessing) leaves rank 7 an info suspect (frames, no exception of its own);
- RLinf/RLinf#655: Ray actor pid 9671's ``ValueError: Size mismatch`` on resume then actor pid 9672's identical
  traceback is a Python failure (warning) of no rank: the Ray prefixes give pids, not ranks;
- JinjieNi/dlms-are-super-data-learners#4: ``[rank3]: Traceback (most recent call last): (RANK 2)`` and frames down
  to ``create_default_local_load_plan`` (a missing key every rank meets) leave rank 3 an info suspect.

Contrasts: the ``RuntimeError: Error(s) in loading state_dict`` head line tagged ``[rank1]:`` (or the agent's
``Root Cause`` report of rank 1) names rank 1; rank 7's ``ValueError`` tagged as its own names rank 7; one actor's
error retagged ``[rank1]:`` alone names rank 1, both actors tagged name no one; a second rank's copy of the frames
(Megatron, dlms) or the ``Missing key`` line after DCP's ``(RANK 2)`` section is every rank's (warning, no rank);
rank 3's frames renumbered stay a suspect of the new rank. Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import (
    Batched,
    assert_info_suspect,
    assert_one_rank,
    pasted,
    pasted_findings,
)
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 6, 2, 0, tzinfo=dt.timezone.utc)

SIZE_MISMATCH_TAIL = corpus_lines("deepspeed-5570-")
MFSDP_CI_RESUME = corpus_lines("megatron-lm-4129-")
RAY_ACTORS_RESUME = corpus_lines("rlinf-655-")
DCP_MISSING_KEY = corpus_lines("dlms-are-super-data-learners-4-")

#: the head of the message rank 1's ``size mismatch`` lines belong to
LOAD_STATE_DICT_HEAD = "[rank1]: RuntimeError: Error(s) in loading state_dict for Qwen2ForCausalLM:"
SIZE_MISMATCH_WITH_HEAD = [LOAD_STATE_DICT_HEAD] + SIZE_MISMATCH_TAIL
#: the elastic agent's failure report naming rank 1 after the SIGTERMs
SIZE_MISMATCH_AGENT_REPORT = SIZE_MISMATCH_TAIL + [
    "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ",
    "============================================================",
    "train.py FAILED",
    "------------------------------------------------------------",
    "Failures:",
    "  <NO_OTHER_FAILURES>",
    "------------------------------------------------------------",
    "Root Cause (first observed failure):",
    "[0]:",
    "  time      : 2024-05-27_01:21:27",
    "  host      : gpu-node",
    "  rank      : 1 (local_rank: 1)",
    "  exitcode  : 1 (pid: 1056308)",
    "  error_file: <N/A>",
    "  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html",
    "============================================================",
]
#: rank 0's copy of the size-mismatch lines beside rank 1's
SIZE_MISMATCH_RANK0_COPY = (
    SIZE_MISMATCH_TAIL[:3]
    + [line.replace("[rank1]", "[rank0]") for line in SIZE_MISMATCH_TAIL[:3]]
    + SIZE_MISMATCH_TAIL[3:]
)

#: the untagged ValueError moved after the frames, under rank 7's own prefix
_RANK7_PREFIX = MFSDP_CI_RESUME[1].split(" Traceback")[0]
MFSDP_VALUEERROR_TAGGED = MFSDP_CI_RESUME[1:] + [f"{_RANK7_PREFIX} {MFSDP_CI_RESUME[0]}"]
#: the frames without the ValueError line
MFSDP_NO_VALUEERROR = MFSDP_CI_RESUME[1:]
#: rank 0's copy of the frames beside rank 7's
MFSDP_TWO_COPIES = MFSDP_CI_RESUME + [
    line.replace("default7]:[rank7]", "default0]:[rank0]").replace("(RANK 7)", "(RANK 0)")
    for line in MFSDP_CI_RESUME[1:]
]

#: both actors under rank tags, and the first actor's lines alone under rank 1's
RAY_ACTORS_RANK_TAGS = [
    line.replace("(EmbodiedFSDPActor pid=9671)", "[rank1]:").replace("(EmbodiedFSDPActor pid=9672)", "[rank2]:")
    for line in RAY_ACTORS_RESUME
]
RAY_ACTOR_RANK1_ALONE = [line.replace("(EmbodiedFSDPActor pid=9671)", "[rank1]:") for line in RAY_ACTORS_RESUME[:3]]
#: the actors' frames without the ValueError line
RAY_ACTORS_NO_VALUEERROR = RAY_ACTORS_RESUME[:1] + RAY_ACTORS_RESUME[2:]

#: the RuntimeError DCP's section ends in, under rank 3's prefix
DCP_MISSING_KEY_ERROR = DCP_MISSING_KEY + [
    "[rank3]: RuntimeError: Missing key in checkpoint state_dict: model.decoder.layers.0.self_attention.linear_qkv.weight."
]
#: rank 1's copy of the frames beside rank 3's
DCP_TWO_COPIES = DCP_MISSING_KEY + [line.replace("[rank3]", "[rank1]") for line in DCP_MISSING_KEY]
#: the same frames from rank 0
DCP_RANK0 = [line.replace("[rank3]", "[rank0]") for line in DCP_MISSING_KEY]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # as collected, pasted and laid out as the threads allow
    "size-mismatch-as-pasted": (SIZE_MISMATCH_TAIL, None, None, None, None),
    "size-mismatch-four-gpus": (SIZE_MISMATCH_TAIL, 4, 4, None, None),
    "mfsdp-ci-as-pasted": (MFSDP_CI_RESUME, None, None, None, None),
    "mfsdp-ci-eight-gpus": (MFSDP_CI_RESUME, 8, 8, None, None),
    "mfsdp-ci-two-nodes": (MFSDP_CI_RESUME, 8, 16, None, None),
    "ray-actors-as-pasted": (RAY_ACTORS_RESUME, None, None, None, None),
    "ray-actors-four-gpus": (RAY_ACTORS_RESUME, 4, 4, None, None),
    "dcp-missing-key-as-pasted": (DCP_MISSING_KEY, None, None, None, None),
    "dcp-missing-key-four-gpus": (DCP_MISSING_KEY, 4, 4, None, None),
    # contrasts
    "size-mismatch-rank0-copy-names-none": (SIZE_MISMATCH_RANK0_COPY, 4, 4, None, None),
    "size-mismatch-head-names-rank1": (SIZE_MISMATCH_WITH_HEAD, 4, 4, 1, "python-exception"),
    "size-mismatch-agent-report-names-rank1": (SIZE_MISMATCH_AGENT_REPORT, 4, 4, 1, "python-exception"),
    "mfsdp-ci-valueerror-tagged-names-rank7": (MFSDP_VALUEERROR_TAGGED, 8, 8, 7, "python-exception"),
    "mfsdp-ci-two-copies-names-none": (MFSDP_TWO_COPIES, 8, 8, None, None),
    "ray-actors-rank-tags-names-none": (RAY_ACTORS_RANK_TAGS, 4, 4, None, None),
    "ray-actor-rank1-alone-names-rank1": (RAY_ACTOR_RANK1_ALONE, 4, 4, 1, "python-exception"),
    "dcp-missing-key-error-names-none": (DCP_MISSING_KEY_ERROR, 4, 4, None, None),
    "dcp-missing-key-two-copies-names-none": (DCP_TWO_COPIES, 4, 4, None, None),
}
BATCHED = Batched("b354", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_checkpoint_load_mismatch_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])


def _failures(lines: list[str], folder: Path, nproc: int | None, world: int | None) -> list[tuple]:
    return [
        (f["severity"], f["cause"], f["ranks"])
        for f in pasted_findings(lines, folder, nproc, world, NOW)
        if f["rule"] == "rank-failure"
    ]


def test_size_mismatch_continuation_lines_alone_are_no_finding(tmp_path):
    """Rank 1's ``size mismatch`` lines and the agent's SIGTERMs, as pasted, as four GPUs, or with rank 0's copy:
    nothing at all (no exception line, no exit report); the head line makes it rank 1's failure."""
    assert pasted_findings(SIZE_MISMATCH_TAIL, tmp_path / "a", None, None, NOW) == []
    assert pasted_findings(SIZE_MISMATCH_TAIL, tmp_path / "b", 4, 4, NOW) == []
    assert pasted_findings(SIZE_MISMATCH_RANK0_COPY, tmp_path / "c", 4, 4, NOW) == []
    assert pasted_findings(SIZE_MISMATCH_TAIL[:3], tmp_path / "d", 4, 4, NOW) == []
    assert _failures(SIZE_MISMATCH_WITH_HEAD, tmp_path / "e", 4, 4) == [("critical", "python-exception", [1])]


def test_dcp_frames_leave_an_info_suspect_of_the_tagged_rank(tmp_path):
    """DCP's per-rank section without its exception under a rank's prefix: an info suspect of that rank, whether the
    untagged ValueError precedes it or not, and whichever rank the prefix gives."""
    assert_info_suspect(pasted_findings(MFSDP_CI_RESUME, tmp_path / "a", 8, 8, NOW), 7)
    assert_info_suspect(pasted_findings(MFSDP_NO_VALUEERROR, tmp_path / "b", 8, 8, NOW), 7)
    assert_info_suspect(pasted_findings(DCP_MISSING_KEY, tmp_path / "c", 4, 4, NOW), 3)
    assert_info_suspect(pasted_findings(DCP_RANK0, tmp_path / "d", 4, 4, NOW), 0)


def test_every_ranks_copy_is_a_failure_of_no_rank(tmp_path):
    """A second rank's copy of the frames, or the ``Missing key`` line ending DCP's gathered section: a Python failure
    (warning) of no rank."""
    assert _failures(MFSDP_TWO_COPIES, tmp_path / "a", 8, 8) == [("warning", "python-exception", [])]
    assert _failures(DCP_TWO_COPIES, tmp_path / "b", 4, 4) == [("warning", "python-exception", [])]
    assert _failures(DCP_MISSING_KEY_ERROR, tmp_path / "c", 4, 4) == [("warning", "python-exception", [])]


def test_ray_actor_size_mismatch_is_a_failure_of_no_rank(tmp_path):
    """The actors' ``ValueError: Size mismatch`` under Ray's pid prefixes: a Python failure (warning) of no rank, as
    pasted or as four GPUs; without the ValueError line, the frames alone are nothing."""
    assert _failures(RAY_ACTORS_RESUME, tmp_path / "a", None, None) == [("warning", "python-exception", [])]
    assert _failures(RAY_ACTORS_RESUME, tmp_path / "b", 4, 4) == [("warning", "python-exception", [])]
    assert pasted_findings(RAY_ACTORS_NO_VALUEERROR, tmp_path / "c", None, None, NOW) == []
