"""Quantized / low-precision training on several GPUs, 2025-2026 (real incidents batch 378), pinned as read. Three
controls, collected blind. Two were read right as collected: rank 1's last line ``[rank1]: RuntimeError: Expected
trailing dimension of mat1 to be divisible by 16 but got mat1 shape: (32x8).`` then the head of rank 0's traceback of
the same torchao float8 tensor-parallel test (pytorch/ao#4106: 4-way TP leaves every rank an inner dimension of 8, below
``torch._scaled_mm``'s multiple of 16; fix PR pytorch/ao#4222) is a python-exception warning of no rank, as pasted or
laid out as its 4 GPUs; one indented, untagged ``RuntimeError: max(): Expected reduction dim to be specified for
input.numel() == 0. ...`` from float8 + FSDP2 at world size 128 (pytorch/torchtitan#764: a linear's dim-0 smaller than
the world size leaves empty shards, the maintainer: the fp8 all-gather assumes dim-0 divisible by the world size) gives
no finding at all. The third (NOT_YET as collected, batch 378) is read with a culprit: the lone quoted
``[rank2]: NotImplementedError: Cannot copy out of meta tensor; no data!`` (2U1/Qwen-VL-Series-Finetune#7: DeepSpeed
ZeRO-3 with a bitsandbytes 4-bit QLoRA model, the owner: 'You should use zero2 for QLoRA') names rank 2 (warning,
medium), wrong: every rank loads the same model under the same config. Scored 2/3 both ways as collected.
Contrasts: rank 1's float8 shape error alone, or the float8 amax error unindented and tagged by one rank, names that rank
(the same reading as the NOT_YET, pinned as read); the meta-tensor line untagged, given to every rank, or to two ranks,
names no one; the TP paste untagged, or with rank 0's own copy of the error, names no one. Pasted logs through
``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted, pasted_findings
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 6, 5, 0, tzinfo=dt.timezone.utc)

FLOAT8_TP = corpus_lines("ao-4106-")
FLOAT8_AMAX = corpus_lines("torchtitan-764-")
QLORA_ZERO3 = corpus_lines("Qwen-VL-Series-Finetune-7-")

#: rank 1's error line alone, without rank 0's traceback head after it
FLOAT8_TP_RANK1_ONLY = FLOAT8_TP[:1]
#: the same paste without the rank tags (the untagged console)
FLOAT8_TP_UNTAGGED = [line.replace("[rank1]: ", "").replace("[rank0]: ", "") for line in FLOAT8_TP]
#: rank 0's own copy of the error after its traceback head: two ranks, one error
FLOAT8_TP_RANK0_TOO = FLOAT8_TP + [FLOAT8_TP[0].replace("[rank1]", "[rank0]")]
#: the amax error unindented (as a console prints it)
FLOAT8_AMAX_UNINDENTED = [FLOAT8_AMAX[0].strip()]
#: the amax error tagged by one rank with an empty shard
FLOAT8_AMAX_RANK5 = ["[rank5]: " + FLOAT8_AMAX[0].strip()]
#: the same error tagged by two ranks with empty shards
FLOAT8_AMAX_TWO_RANKS = ["[rank5]: " + FLOAT8_AMAX[0].strip(), "[rank6]: " + FLOAT8_AMAX[0].strip()]
#: the meta-tensor line without its rank tag
QLORA_ZERO3_UNTAGGED = [QLORA_ZERO3[0].replace("[rank2]: ", "")]
#: every one of four ranks' copy of the meta-tensor line
QLORA_ZERO3_ALL_FOUR = [QLORA_ZERO3[0].replace("[rank2]", f"[rank{r}]") for r in range(4)]
#: rank 0's copy beside rank 2's
QLORA_ZERO3_TWO = [QLORA_ZERO3[0].replace("[rank2]", "[rank0]")] + QLORA_ZERO3

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # as collected, pasted and laid out as the threads say
    "float8-tp-as-pasted": (FLOAT8_TP, None, None, None, None),
    "float8-tp-four-gpus": (FLOAT8_TP, 4, 4, None, None),
    "float8-amax-as-pasted": (FLOAT8_AMAX, None, None, None, None),
    "float8-amax-world-128": (FLOAT8_AMAX, 8, 128, None, None),
    # NOT_YET as collected (batch 378), pinned as read: rank 2 named
    "qlora-zero3-as-pasted-names-rank2": (QLORA_ZERO3, None, None, 2, "python-exception"),
    "qlora-zero3-four-gpus-names-rank2": (QLORA_ZERO3, 4, 4, 2, "python-exception"),
    # variants that name no one
    "float8-tp-untagged-names-none": (FLOAT8_TP_UNTAGGED, None, None, None, None),
    "float8-tp-rank0-too-names-none": (FLOAT8_TP_RANK0_TOO, 4, 4, None, None),
    "float8-amax-unindented-names-none": (FLOAT8_AMAX_UNINDENTED, 8, 128, None, None),
    "float8-amax-two-ranks-names-none": (FLOAT8_AMAX_TWO_RANKS, 8, 128, None, None),
    "qlora-zero3-untagged-names-none": (QLORA_ZERO3_UNTAGGED, None, None, None, None),
    "qlora-zero3-all-four-names-none": (QLORA_ZERO3_ALL_FOUR, 4, 4, None, None),
    "qlora-zero3-two-ranks-names-none": (QLORA_ZERO3_TWO, 4, 4, None, None),
    # a lone rank-tagged deterministic error names its rank (the reading behind the NOT_YET), pinned as read
    "float8-tp-rank1-only-names-rank1": (FLOAT8_TP_RANK1_ONLY, 4, 4, 1, "python-exception"),
    "float8-amax-rank5-names-rank5": (FLOAT8_AMAX_RANK5, 8, 128, 5, "python-exception"),
}
BATCHED = Batched("b378", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_quantized_training_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])


def _gist(lines: list[str], folder: Path, nproc: int | None, world: int | None) -> list[tuple]:
    return [(f["rule"], f["severity"], f["cause"], f["ranks"]) for f in pasted_findings(lines, folder, nproc, world, NOW)]


def test_float8_tp_shape_error_is_a_rankless_python_exception(tmp_path):
    """pytorch/ao#4106 as collected: rank 1's error line and rank 0's traceback head are two failing ranks of one
    deterministic shape error; a warning python-exception of no rank."""
    assert _gist(FLOAT8_TP, tmp_path / "a", None, None) == [("rank-failure", "warning", "python-exception", [])]
    assert _gist(FLOAT8_TP, tmp_path / "b", 4, 4) == [("rank-failure", "warning", "python-exception", [])]


def test_indented_untagged_amax_error_gives_no_finding(tmp_path):
    """pytorch/torchtitan#764 as collected: the one indented, untagged float8 amax error gives no finding (the control
    passes); unindented it is a warning python-exception of no rank."""
    assert _gist(FLOAT8_AMAX, tmp_path / "a", 8, 128) == []
    assert _gist(FLOAT8_AMAX_UNINDENTED, tmp_path / "b", 8, 128) == [("rank-failure", "warning", "python-exception", [])]


def test_lone_meta_tensor_line_names_its_rank_as_read(tmp_path):
    """2U1/Qwen-VL-Series-Finetune#7 (NOT_YET as collected, batch 378): rank 2's lone ``NotImplementedError: Cannot
    copy out of meta tensor; no data!`` names rank 2 at warning, medium ('the paste holds this rank's lines only');
    the truth is ZeRO-3 + 4-bit QLoRA, a configuration every rank shares (no culprit)."""
    findings = pasted_findings(QLORA_ZERO3, tmp_path, None, None, NOW)
    assert [(f["rule"], f["severity"], f["cause"], f["ranks"]) for f in findings] == [
        ("rank-failure", "warning", "python-exception", [2])
    ]
    assert findings[0]["confidence"] == "medium"
