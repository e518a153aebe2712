"""PyTorch's desync debug report and collective fingerprints, 2024-2026 (real incidents batch 352), pinned as read. One
culprit and two controls, collected blind. Read right as collected: rank 0's ``[rank0]: RuntimeError: Detected mismatch
between collectives on ranks. Rank 0 is running ... SequenceNumber=2373, OpType=_ALLGATHER_BASE, TensorShape=[256] ...
but Rank 1 is running ... TensorShape=[2048]`` (2U1/Phi3-Vision-Finetune#41: ZeRO-3 on mixed text-only and image-text
batches, the ranks gathering different parameters) names no one, as pasted, as two GPUs or as eight. Two NOT_YET (batch
352): rank 0's ``TORCH_NCCL_DESYNC_DEBUG`` report ``[7] finished collective #182, but didn't join collective #183``
(pytorch/pytorch#152623: NCCL 2.26's non-blocking mode hung one process of modded-nanogpt's eight) names rank 7, the
right rank, but never-joined where the batch wants lagging-rank; the untagged ``Rank 4 is running ... TensorShape=
[9634624] ... but Rank 7 is running ... TensorShape=[2464056]`` at the same sequence number and op (ByteDance-Seed/
VeOmni#175: mixed video and image-text batches under FSDP2, a control) names rank 7 (collective-mismatch, critical).
Scored 1/3 both ways as collected (cf9aa5fd); no rule changed (measure only). Since session 58 (the batch's suggestion):
one fingerprint report whose ranks differ only in their tensors' sizes (same sequence number, op and dtypes) names no
one, VeOmni#175 included, whichever ranks the pair holds; a rank in another op is still named.

Contrasts: the report naming ``[3]`` names rank 3; a second rank's copy of the report still names rank 7; the report's
verdict lines removed leave rank 0's timeout an info hang of no rank; every rank ``joined but didn't finish`` is a
warning of no single culprit. The fingerprint pair renumbered 0 and 1 names no one, and Phi3's pair renumbered 2 and 3
names rank 3 (so the control was read right because rank 0 is one side; since session 58 one sizes-only pair names no
one); a second copy from rank 2 that also names rank 1 makes rank 1 the odd one out (named). Pasted logs through ``k10s
import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted, pasted_findings
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 6, 2, 0, tzinfo=dt.timezone.utc)

DESYNC_RANK7 = corpus_lines("pytorch-152623-")
MIXED_VIDEO_PAIR = corpus_lines("VeOmni-175-")
ZERO3_MIXED_PAIR = corpus_lines("Phi3-Vision-Finetune-41-")

#: the report naming rank 3 behind (and rank 7 among the ranks started at #317)
DESYNC_RANK3 = [line.replace("[7]", "[3]").replace("[3, 4, 5, 6]", "[4, 5, 6, 7]") for line in DESYNC_RANK7]
#: the report's verdict lines removed: rank 0's timeout, the snapshot and its PG status only
DESYNC_NO_VERDICT = [line for line in DESYNC_RANK7 if "didn't join" not in line and "lagging/dead" not in line]
#: every rank inside the timed-out collective (a transport hang: no rank behind)
DESYNC_ALL_JOINED = [
    line.replace(
        "[7] finished collective #182, but didn't join collective #183 (count from 1)",
        "[0, 1, 2, 3, 4, 5, 6, 7] joined but didn't finish collective #315 (count from 1)",
    )
    for line in DESYNC_RANK7
]
#: rank 1's copy of the same report beside rank 0's
DESYNC_SECOND_COPY = DESYNC_RANK7 + [
    line.replace("[rank0]", "[rank1]").replace("Rank 0", "Rank 1").replace("[0] Timeout", "[1] Timeout")
    for line in DESYNC_RANK7
]
#: VeOmni's line as rank 4's own (tagged)
MIXED_VIDEO_PAIR_TAGGED = ["[rank4]: " + MIXED_VIDEO_PAIR[0]]
#: VeOmni's pair with rank 7 in another collective (an all-reduce): a rank odd in what it called
MIXED_VIDEO_OTHER_OP = [MIXED_VIDEO_PAIR[0][:MIXED_VIDEO_PAIR[0].index("but Rank 7")]
                        + MIXED_VIDEO_PAIR[0][MIXED_VIDEO_PAIR[0].index("but Rank 7"):].replace("_ALLGATHER_BASE", "ALLREDUCE")]
#: VeOmni's pair renumbered 0 and 1
MIXED_VIDEO_PAIR_01 = [MIXED_VIDEO_PAIR[0].replace("Rank 4 is", "Rank 0 is").replace("Rank 7 is", "Rank 1 is")]
#: Phi3's line without its tag
ZERO3_MIXED_UNTAGGED = [ZERO3_MIXED_PAIR[0].replace("[rank0]: ", "")]
#: Phi3's pair renumbered 2 and 3 (tag and message)
ZERO3_MIXED_PAIR_23 = [
    ZERO3_MIXED_PAIR[0].replace("[rank0]", "[rank2]").replace("Rank 0 is", "Rank 2 is").replace("Rank 1 is", "Rank 3 is")
]
#: rank 2's copy, also against rank 1: rank 1 is the odd one out
ZERO3_MIXED_SECOND_COPY = ZERO3_MIXED_PAIR + [
    ZERO3_MIXED_PAIR[0].replace("[rank0]", "[rank2]").replace("Rank 0 is running", "Rank 2 is running")
]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # as collected, pasted and laid out as the threads say
    "desync-rank7-as-pasted": (DESYNC_RANK7, None, None, 7, "never-joined"),
    "desync-rank7-eight-gpus": (DESYNC_RANK7, 8, 8, 7, "never-joined"),
    "mixed-video-pair-as-pasted": (MIXED_VIDEO_PAIR, None, None, None, None),
    "mixed-video-pair-eight-gpus": (MIXED_VIDEO_PAIR, 8, 8, None, None),
    "zero3-mixed-pair-as-pasted": (ZERO3_MIXED_PAIR, None, None, None, None),
    "zero3-mixed-pair-two-gpus": (ZERO3_MIXED_PAIR, 2, 2, None, None),
    "zero3-mixed-pair-eight-gpus": (ZERO3_MIXED_PAIR, 8, 8, None, None),
    # contrasts
    "desync-rank3-names-rank3": (DESYNC_RANK3, 8, 8, 3, "never-joined"),
    "desync-second-copy-names-rank7": (DESYNC_SECOND_COPY, 8, 8, 7, "never-joined"),
    "desync-no-verdict-names-none": (DESYNC_NO_VERDICT, 8, 8, None, None),
    "desync-all-joined-names-none": (DESYNC_ALL_JOINED, 8, 8, None, None),
    "mixed-video-pair-tagged-rank4-names-none": (MIXED_VIDEO_PAIR_TAGGED, 8, 8, None, None),
    "mixed-video-pair-other-op-names-rank7": (MIXED_VIDEO_OTHER_OP, 8, 8, 7, "collective-mismatch"),
    "mixed-video-pair-renumbered-01-names-none": (MIXED_VIDEO_PAIR_01, 8, 8, None, None),
    "zero3-mixed-untagged-names-none": (ZERO3_MIXED_UNTAGGED, 8, 8, None, None),
    "zero3-mixed-pair-renumbered-23-names-none": (ZERO3_MIXED_PAIR_23, 8, 8, None, None),
    "zero3-mixed-second-copy-names-rank1": (ZERO3_MIXED_SECOND_COPY, 4, 4, 1, "collective-mismatch"),
}
BATCHED = Batched("b352", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_desync_and_fingerprint_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])


def _gist(lines: list[str], folder: Path, nproc: int | None, world: int | None) -> list[tuple]:
    return [(f["rule"], f["severity"], f["cause"], f["ranks"]) for f in pasted_findings(lines, folder, nproc, world, NOW)]


def test_desync_report_names_rank7_critical_with_high_confidence(tmp_path):
    """The report's ``[7] ... didn't join`` decides it: one critical nccl-hang naming rank 7 alone, decided by the
    desync report (not by which rank logged the timeout: only rank 0 did)."""
    findings = pasted_findings(DESYNC_RANK7, tmp_path, 8, 8, NOW)
    assert [(f["rule"], f["severity"], f["cause"], f["ranks"]) for f in findings] == [
        ("nccl-hang", "critical", "never-joined", [7])
    ]
    first = findings[0]["evidence"][0]
    assert (first["decided_by"], first["confidence"], first["victim_ranks"]) == ("desync-report", "high", [0])


def test_desync_without_its_verdict_is_an_info_hang_of_no_rank(tmp_path):
    """Without the report's verdict lines, rank 0's timeout and the snapshot of started ranks name no one (info)."""
    assert _gist(DESYNC_NO_VERDICT, tmp_path, 8, 8) == [("nccl-hang", "info", "no-single-culprit", [])]


def test_desync_every_rank_joined_is_a_hang_of_no_single_culprit(tmp_path):
    """Every rank joined but none finished: a hang said at warning with no single culprit."""
    assert _gist(DESYNC_ALL_JOINED, tmp_path, 8, 8) == [("nccl-hang", "warning", "no-single-culprit", [])]


def test_one_fingerprint_pair_of_sizes_only_names_no_one(tmp_path):
    """One fingerprint report at the same sequence number and op, only the sizes differing, names no one whatever the
    sizes and whichever ranks (session 58: the ranks called the same collectives; their inputs differ)."""
    big_shapes = [
        ZERO3_MIXED_PAIR[0]
        .replace("[256]", "[9634624]")
        .replace("[2048]", "[2464056]")
        .replace("256vs 2048", "9634624vs 2464056")
    ]
    small_shapes = [MIXED_VIDEO_PAIR[0].replace("9634624", "256").replace("2464056", "2048")]
    assert _gist(big_shapes, tmp_path / "a", 8, 8) == []
    assert _gist(small_shapes, tmp_path / "b", 8, 8) == []
