"""Threads found by the launcher's exit signatures (real incidents batch 399), pinned as read. Three controls,
collected blind (the corpus' settled one-rank threads behind ``exitcode: -7/-11/-6/-9``, ``Signal N (SIG...) received
by PID`` and ``ProcessExitedException`` are mined already). Two were read right as collected: rank 1's ``[1]`` frames
out of ipex-llm's ``optimize_model`` → ``_optimize_pre`` and Intel MPI's ``RANK 1 PID 1676751 RUNNING AT test-server``
/ ``KILLED BY SIGNAL: 6 (Aborted)`` box, the error line itself past the excerpt (intel/ipex-llm#11392: a regression of
the nightly, fixed after 2.1.0b20240625) hold rank 1 as an info python-exception suspect only, confidence low, as
pasted or as its 2 processes; two identical ``Segmentation fault from GPU at 0xff00ffffff400000 ... banned: 1,
aborting.`` lines, the driver's ``Abort was called at 288 line in file:`` and one SIGTERM (intel/torch-xpu-ops#2178:
XCCL's ``all_gather_object`` crash on both workers of a 2-XPU accelerate run) give no finding at all. The third
(NOT_YET as collected, batch 399, read right since session 64): rank 1's ``[1]`` frames down to ipex-llm's
``qwen_attention_forward_quantized`` (its exception line cut by the excerpt), then rank 0's down to ``[0]
RuntimeError: shape '[1, 1024, 16, 128]' is invalid for input of size 4194304`` (intel/ipex-llm#10763: an AutoTP bug in
Qwen attention every rank hits, fixed by PR #10766) named rank 0 (warning, python-exception, medium); rank 1's
traceback down to the same innermost frame is the same error now (docs/rules.md, "Session 64: a second rank's traceback
down to the same frame"): no one named. Scored 2/3 both ways as collected. Contrasts: the same error line given to rank 1 as well, the paste without its ``[N]`` tags, or one
rank's lines alone (a lone ``[N]`` prefix is not read as a rank tag) name no one; ipex-llm#11392's rank 1 given its own
``RuntimeError`` line names rank 1 (warning); its frames without the MPI box stay an info suspect; the GPU fault lines
tagged ``[rank1]:`` still give nothing. Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted, pasted_findings
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 6, 5, 0, tzinfo=dt.timezone.utc)

AUTOTP_REGRESSION = corpus_lines("ipex-llm-11392-")
QWEN_VIEW = corpus_lines("ipex-llm-10763-")
XCCL_GPU_FAULT = corpus_lines("torch-xpu-ops-2178-")

QWEN_ERROR = "RuntimeError: shape '[1, 1024, 16, 128]' is invalid for input of size 4194304"
_RANK1_END = max(i for i, line in enumerate(QWEN_VIEW) if line.startswith("[1]")) + 1

#: rank 1's copy of the same RuntimeError after its frames: both ranks' exception lines
QWEN_VIEW_BOTH_ERRORS = QWEN_VIEW[:_RANK1_END] + [f"[1] {QWEN_ERROR}"] + QWEN_VIEW[_RANK1_END:]
#: the paste without mpirun's ``[N]`` tags
QWEN_VIEW_UNTAGGED = [line[4:] if line.startswith(("[0] ", "[1] ")) else line for line in QWEN_VIEW]
#: rank 0's lines alone (one ``[0]`` prefix, no second tag)
QWEN_VIEW_RANK0_ONLY = [line for line in QWEN_VIEW if line.startswith("[0]")]
#: ipex-llm#11392's rank 1 with its own exception line before the MPI box
AUTOTP_WITH_ERROR = AUTOTP_REGRESSION[:15] + [
    "[1] RuntimeError: The size of tensor a (3584) must match the size of tensor b (1792) at non-singleton dimension 0"
] + AUTOTP_REGRESSION[15:]
#: ipex-llm#11392's frames without the MPI box
AUTOTP_NO_BOX = AUTOTP_REGRESSION[:15]
#: the XPU fault lines tagged by rank 1
XCCL_GPU_FAULT_RANK1 = [f"[rank1]: {line}" for line in XCCL_GPU_FAULT[:4]] + XCCL_GPU_FAULT[4:]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # as collected, pasted and laid out as the threads say
    "autotp-regression-as-pasted": (AUTOTP_REGRESSION, None, None, None, None),
    "autotp-regression-two-processes": (AUTOTP_REGRESSION, 2, 2, None, None),
    "xccl-gpu-fault-as-pasted": (XCCL_GPU_FAULT, None, None, None, None),
    "xccl-gpu-fault-two-processes": (XCCL_GPU_FAULT, 2, 2, None, None),
    # NOT_YET as collected (batch 399), read right since session 64: rank 1 down to rank 0's error frame
    "qwen-view-as-pasted-names-none": (QWEN_VIEW, None, None, None, None),
    "qwen-view-two-processes-names-none": (QWEN_VIEW, 2, 2, None, None),
    # variants that must not name anyone
    "qwen-view-both-errors-names-none": (QWEN_VIEW_BOTH_ERRORS, 2, 2, None, None),
    "qwen-view-untagged-names-none": (QWEN_VIEW_UNTAGGED, 2, 2, None, None),
    "qwen-view-rank0-only-names-none": (QWEN_VIEW_RANK0_ONLY, 2, 2, None, None),
    "autotp-no-box-names-none": (AUTOTP_NO_BOX, 2, 2, None, None),
    "xccl-gpu-fault-rank1-tagged-names-none": (XCCL_GPU_FAULT_RANK1, 2, 2, None, None),
    # contrasts that must name a rank
    "autotp-with-error-names-rank1": (AUTOTP_WITH_ERROR, 2, 2, 1, "python-exception"),
}
BATCHED = Batched("b399", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_signal_exit_signature_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])


def _read(lines: list[str], folder: Path, nproc: int | None, world: int | None) -> list[tuple]:
    return [
        (f["rule"], f["severity"], f["cause"], f["ranks"], f.get("confidence"))
        for f in pasted_findings(lines, folder, nproc, world, NOW)
    ]


def test_mpi_box_after_frames_without_the_error_is_an_info_suspect(tmp_path):
    """ipex-llm#11392 as collected: rank 1's frames and the MPI ``KILLED BY SIGNAL: 6`` box hold rank 1 at info,
    confidence low — the exception line is not in the paste, and the thread settles a library regression."""
    want = [("rank-failure", "info", "python-exception", [1], "low")]
    assert _read(AUTOTP_REGRESSION, tmp_path / "a", None, None) == want
    assert _read(AUTOTP_REGRESSION, tmp_path / "b", 2, 2) == want


def test_xpu_gpu_page_fault_lines_give_no_finding(tmp_path):
    """torch-xpu-ops#2178 as collected: the Level Zero driver's ``Segmentation fault from GPU ... aborting.`` lines and
    ``Abort was called`` are read by no rule; nothing is named (right: XCCL's fault on both workers)."""
    assert _read(XCCL_GPU_FAULT, tmp_path / "a", None, None) == []
    assert _read(XCCL_GPU_FAULT, tmp_path / "b", 2, 2) == []


def test_lone_exception_line_beside_a_peer_in_the_same_frame_names_no_one(tmp_path):
    """ipex-llm#10763 as collected (NOT_YET, batch 399; read right since session 64): rank 0's ``RuntimeError`` named
    rank 0 at warning, medium; rank 1's frames end in the same ``qwen_attention_forward_quantized`` frame (its error line
    cut by the excerpt): the same error, rankless, as when rank 1's error line is given too."""
    assert [g[:4] for g in _read(QWEN_VIEW, tmp_path / "a", 2, 2)] == [("rank-failure", "warning", "python-exception", [])]
    assert [g[:4] for g in _read(QWEN_VIEW_BOTH_ERRORS, tmp_path / "b", 2, 2)] == [
        ("rank-failure", "warning", "python-exception", [])
    ]
