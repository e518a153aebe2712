"""Settled lone-rank culprits of 2025-2026 (real incidents batch 233), pinned as read. One culprit named: rank 97's
``torch.OutOfMemoryError`` while Megatron builds GLM-5 on 64 nodes of 140 GB GPUs (modelscope/ms-swift#9191), read
as cuda-oom on rank 97 alone, as pasted and laid out 8 x 64. Three traceback-only pastes whose CUDA OOM line was cut by
the excerpt window (ultralytics/ultralytics#21344: rank 0 in the box assigner; ultralytics/ultralytics#20843: rank 0
in OBB validation; Saquib764/omini-kontext#22: rank 2 in a LoRA ``F.linear``) read as that rank's Python exception at
info severity, naming no culprit. One control (flagos-ai/Megatron-LM-FL#143: a Triton kernel that does not compile on
Metax MC550, every rank alike) read as local rank 0's critical exception, because ``[default0]:`` is the only prefix.
Scored 1/5 both ways as collected; no rule changed (measure only; the four misses are in NOT_YET).
Contrasts: the OOM line restored names the traceback's rank as cuda-oom (critical); rank 97's OOM line removed leaves an
info exception; the control without its ``CompilationError`` line names no one, and without the ``[default0]:``
prefix it reads as an unplaced exception. Pasted logs through ``k10s import-logs``, batched.
Since session 57 the Metax control names no one: Triton's ``CompilationError`` is a compiler's refusal of the program,
every rank's (common mode).
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 4, 0, 40, tzinfo=dt.timezone.utc)

GLM5_RANK97 = corpus_lines("ms-swift-9191-")
TAL_RANK0 = corpus_lines("ultralytics-21344-")
OBB_VAL_RANK0 = corpus_lines("ultralytics-20843-")
LORA_RANK2 = corpus_lines("omini-kontext-22-")
METAX_TRITON = corpus_lines("Megatron-LM-FL-143-")

#: the OOM lines the excerpt window cut, restored in a short form
OOM_RANK0 = (
    "[rank0]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 15.46 GiB. GPU 0 has a total capacity "
    "of 79.15 GiB of which 5.50 GiB is free. Process 1079173 has 6.04 GiB memory in use."
)
OOM_RANK2 = (
    "[rank2]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 40.00 MiB. GPU 2 has a total capacity "
    "of 79.18 GiB of which 24.50 MiB is free."
)
#: rank 97's traceback without its OOM line
GLM5_NO_OOM = GLM5_RANK97[:-1]
#: the control without the line that raises
METAX_NO_ERROR = [line for line in METAX_TRITON if "CompilationError" not in line]
#: the control without torchrun's local-rank tee prefix
METAX_UNPREFIXED = [line.replace("[default0]:", "", 1) for line in METAX_TRITON]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # as collected
    "glm5-rank97-as-pasted": (GLM5_RANK97, None, None, 97, "cuda-oom"),
    "glm5-rank97-8x64": (GLM5_RANK97, 8, 512, 97, "cuda-oom"),
    "tal-rank0-as-pasted": (TAL_RANK0, None, None, None, None),
    "obb-val-rank0-as-pasted": (OBB_VAL_RANK0, None, None, None, None),
    "lora-rank2-4xh100": (LORA_RANK2, 4, 4, None, None),
    "metax-triton-as-pasted": (METAX_TRITON, None, None, None, None),  # since session 57: a compiler's refusal, every rank's
    # contrasts
    "tal-with-oom-names-rank0": (TAL_RANK0 + [OOM_RANK0], None, None, 0, "cuda-oom"),
    "obb-val-with-oom-names-rank0": (OBB_VAL_RANK0 + [OOM_RANK0], None, None, 0, "cuda-oom"),
    "lora-with-oom-names-rank2": (LORA_RANK2 + [OOM_RANK2], 4, 4, 2, "cuda-oom"),
    "glm5-without-oom-names-none": (GLM5_NO_OOM, 8, 512, None, None),
    "metax-without-error-names-none": (METAX_NO_ERROR, None, None, None, None),
    "metax-unprefixed-names-none": (METAX_UNPREFIXED, None, None, None, None),
}
BATCHED = Batched("b233", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_lone_rank_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])


@pytest.mark.parametrize(
    ("lines", "nproc", "world", "rank"),
    [(TAL_RANK0, None, None, 0), (OBB_VAL_RANK0, None, None, 0), (LORA_RANK2, 4, 4, 2), (GLM5_NO_OOM, 8, 512, 97)],
    ids=["tal-rank0", "obb-val-rank0", "lora-rank2", "glm5-no-oom"],
)
def test_traceback_without_its_error_is_an_info_exception(lines, nproc, world, rank, tmp_path):
    """A rank's traceback whose exception line is missing is that rank's Python exception, at info severity only."""
    from k10s_forensics.analyze.runner import analyze

    findings = analyze(pasted(lines, tmp_path, nproc, NOW, world=world))["findings"]
    got = [(f["rule"], f["severity"], f["cause"], f["ranks"]) for f in findings]
    assert got == [("rank-failure", "info", "python-exception", [rank])], got


def test_rank97_oom_is_the_oom_cascade_rule(tmp_path):
    """Rank 97's own CUDA OOM is read by the oom-cascade rule and names rank 97 alone (at warning: the paste holds rank 97's
    lines only, session 45)."""
    from k10s_forensics.analyze.runner import analyze

    findings = analyze(pasted(GLM5_RANK97, tmp_path, 8, NOW, world=512))["findings"]
    got = [(f["rule"], f["severity"], f["cause"], f["ranks"]) for f in findings]
    assert got == [("oom-cascade", "warning", "cuda-oom", [97])], got


def test_metax_unprefixed_exception_is_unplaced(tmp_path):
    """Without the ``[default0]:`` prefix the CompilationError is a warning that places no rank."""
    from k10s_forensics.analyze.runner import analyze

    findings = analyze(pasted(METAX_UNPREFIXED, tmp_path, None, NOW, world=None))["findings"]
    got = [(f["rule"], f["severity"], f["cause"], f["ranks"]) for f in findings]
    assert got == [("rank-failure", "warning", "python-exception", [])], got
