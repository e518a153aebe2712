"""A CUDA error that is the build's or driver's misfit with the GPU (docs/rules.md, "Session 59: the software stack's
misfit with the GPU"): ``named symbol not found``, ``no kernel image is available for execution on the device``,
``invalid device function``, ``CUDA driver version is insufficient for CUDA runtime version``. In a paste of one rank's
lines only it names no culprit: every GPU of that model running that stack meets it alike, so the rank is a suspect,
said at info (batch 363's pytorch#152077 laid out as 2 or 8 GPUs named rank 0 at warning). Contrasts: a kernel's fault
(an illegal memory access) in a lone paste stays a warning naming the rank; an ECC error stays critical; the same
misfit on one rank while the others' lines show them running past it names that rank. And a CUDA error's advice
follows its kind: a device-side assert is the data's or the code's (rerun with CUDA_LAUNCH_BLOCKING=1), not the GPU's.
"""

from __future__ import annotations

import datetime as dt

import pytest

from bundle_batch import pasted_findings
from incident_kit import naming_findings

NOW = dt.datetime(2026, 12, 6, 5, 0, tzinfo=dt.timezone.utc)

TB = ['[rank{r}]: Traceback (most recent call last):', '[rank{r}]:   File "/workspace/train.py", line 40, in <module>']
MISFITS = {
    "no-kernel-image": "[rank{r}]: RuntimeError: CUDA error: no kernel image is available for execution on the device",
    "invalid-device-function": "[rank{r}]: RuntimeError: CUDA error: invalid device function",
    "insufficient-driver": ("[rank{r}]: cupy_backends.cuda.api.runtime.CUDARuntimeError: cudaErrorInsufficientDriver: CUDA "
                            "driver version is insufficient for CUDA runtime version"),
    "nccl-named-symbol": "node-a:50555:50555 [{r}] NCCL WARN Cuda failure 'named symbol not found'",
}


def _lone(line: str, rank: int = 0) -> list[str]:
    return [t.format(r=rank) for t in TB] + [line.format(r=rank)] if line.startswith("[rank") else [line.format(r=rank)]


def _gist(findings: list[dict]) -> list[tuple]:
    return [(f["rule"], f["severity"], f["cause"], f["ranks"]) for f in findings]


@pytest.mark.parametrize("nproc", [None, 2, 8])
@pytest.mark.parametrize("misfit", sorted(MISFITS))
def test_a_lone_paste_s_stack_misfit_is_a_suspect_only(tmp_path, misfit, nproc):
    findings = pasted_findings(_lone(MISFITS[misfit]), tmp_path, nproc, nproc, NOW)
    assert naming_findings(findings) == [], _gist(findings)
    suspects = [f for f in findings if f["rule"] == "rank-failure" and f["ranks"]]
    for f in suspects:  # where the rank is said, it is at info, with why
        assert (f["severity"], f["ranks"]) == ("info", [0]), _gist(findings)
        assert "build's or driver's misfit" in f["summary"]
        assert "architectures" in f["recommendation"]
    if nproc and misfit == "nccl-named-symbol":  # batch 363's shape laid out: the suspect is said
        assert suspects, _gist(findings)


def test_a_lone_paste_s_illegal_memory_access_still_names_its_rank(tmp_path):
    line = "[rank{r}]: RuntimeError: CUDA error: an illegal memory access was encountered"
    assert [(f["severity"], f["ranks"]) for f in naming_findings(pasted_findings(_lone(line, 1), tmp_path, 2, 2, NOW))] == [
        ("warning", [1])]


def test_a_lone_paste_s_ecc_error_stays_critical(tmp_path):
    line = "[rank{r}]: RuntimeError: CUDA error: uncorrectable ECC error encountered"
    named = naming_findings(pasted_findings(_lone(line, 1), tmp_path, 2, 2, NOW))
    assert [(f["severity"], f["ranks"]) for f in named] == [("critical", [1])]
    assert named[0]["recommendation"].startswith("Drain the node")


def test_the_misfit_on_one_rank_while_the_others_run_on_names_it(tmp_path):
    """Rank 1 meets the misfit while ranks 0, 2 and 3 print their steps after it and then time out waiting for it."""
    lines = [f"[rank{r}]: step 10 loss 0.5" for r in range(4)] + _lone(MISFITS["no-kernel-image"], 1)
    lines += [f"[rank{r}]: step 11 loss 0.4" for r in (0, 2, 3)]
    lines += [f"[rank{r}]:[E1206 05:00:00.000000 ProcessGroupNCCL.cpp:632] [Rank {r}] Watchdog caught collective operation "
              f"timeout: WorkNCCL(SeqNum=90, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600003 "
              f"milliseconds before timing out." for r in (0, 2, 3)]
    named = naming_findings(pasted_findings(lines, tmp_path, 4, 4, NOW))
    assert {r for f in named for r in f["ranks"]} == {1}, _gist(named)


def test_a_device_side_assert_is_advised_as_the_data_s(tmp_path):
    lines = ["../aten/src/ATen/native/cuda/Indexing.cu:1290: indexSelectLargeIndex: block: [949,0,0], thread: [62,0,0] "
             "Assertion `srcIndex < srcSelectDimSize` failed."] + _lone(
        "[rank{r}]: RuntimeError: CUDA error: device-side assert triggered", 3)
    failures = [f for f in pasted_findings(lines, tmp_path, 4, 4, NOW) if f["rule"] == "rank-failure"]
    assert failures and "CUDA_LAUNCH_BLOCKING=1" in failures[0]["recommendation"], _gist(failures)
    assert not failures[0]["recommendation"].startswith("Drain the node")


def test_nccl_s_cuda_failure_launching_its_collective_in_a_lone_paste_is_a_suspect(tmp_path):
    """NCCL's own report of a CUDA failure launching its collective (``enqueue.cc``: the collective's kernel, every
    member's alike) in a paste of that device's lines only: a suspect at info (batch 366's mmengine#1557). Contrast:
    NCCL's allocation's CUDA failure (``alloc.h``) keeps its reading (pytorch#131755's rank 1, a culprit)."""
    launch = ["gpu-a:19124:19124 [3] enqueue.cc:1087 NCCL WARN Cuda failure 'misaligned address'",
              "RuntimeError: NCCL Error 1: unhandled cuda error (run with NCCL_DEBUG=INFO for details)"]
    findings = pasted_findings(launch, tmp_path / "a", 8, 16, NOW)
    assert naming_findings(findings) == [], _gist(findings)
    assert [(f["severity"], f["ranks"]) for f in findings if f["rule"] == "rank-failure"] == [("info", [3])]
    alloc = [launch[0].replace("enqueue.cc:1087", "include/alloc.h:125")] + launch[1:]
    assert [f["ranks"] for f in naming_findings(pasted_findings(alloc, tmp_path / "b", 8, 16, NOW))] == [[3]]

