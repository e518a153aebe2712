"""CUDA's 802 / 803, the node not ready for CUDA, is every process's on that node (queries/_incident_common_mode.sql).

``Error 802: system not yet initialized`` (an NVSwitch system whose Fabric Manager is not running or not of the driver's
version: dstack#2348, blind batch 323) and ``Error 803: system has unsupported display driver / cuda driver combination``
are met by every process on the node at its first CUDA call. A paste of one rank's copy named that rank before
(python-exception, the lone-paste hedge); now no single culprit is named and the reason says the node. The CUDA error's
kind is ``system-not-ready``; an uncorrectable NVLink error's is ``nvlink`` (a label: still the reporting rank's).
"""

from __future__ import annotations

import datetime as dt

import pytest

from bundle_batch import pasted_findings
from k10s_forensics.parsers.log_classify import classify

NOW = dt.datetime(2026, 12, 5, 18, 0, tzinfo=dt.timezone.utc)
E802 = ("RuntimeError: Unexpected error from cudaGetDeviceCount(). Did you run some cuda functions before calling "
        "NumCudaDevices() that might have already set an error? Error 802: system not yet initialized")
E803 = "RuntimeError: CUDA error: system has unsupported display driver / cuda driver combination"
AGENT = ("E1202 10:00:03.000000 140 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: 1) local_rank: "
         "{r} (pid: 14{r}) of binary: /usr/bin/python")


@pytest.mark.parametrize(
    ("line", "kind"),
    [("RuntimeError: CUDA error: system not yet initialized", "system-not-ready"), (E803, "system-not-ready"),
     ("NCCL WARN Cuda failure 802 'system not yet initialized'", "system-not-ready"),
     ("RuntimeError: CUDA error: uncorrectable NVLink error detected during the execution", "nvlink"),
     ("RuntimeError: CUDA error: Invalid access of peer GPU memory over nvlink or a hardware error", "nvlink"),
     ("RuntimeError: CUDA error: uncorrectable ECC error encountered", "ecc")],
    ids=["802", "803", "nccl-802", "nvlink-uncorrectable", "nvlink-contained", "ecc-unchanged"],
)
def test_the_cuda_errors_kind(line, kind):
    (ev,) = [e for e in classify(line) if e["kind"] == "cuda_error"]
    assert ev["subkind"] == kind


def _traceback(rank: int, error: str) -> list[str]:
    return [f"[rank{rank}]: Traceback (most recent call last):", f'[rank{rank}]:   File "/workspace/train.py", line 41, in <module>',
            f"[rank{rank}]:     torch.cuda.set_device(local_rank)", f"[rank{rank}]: {error}"]


def _failures(lines: list[str], tmp_path) -> list[tuple]:
    return [(f["rule"], f["cause"], f["ranks"], f["summary"]) for f in pasted_findings(lines, tmp_path, 8, 8, NOW)
            if f["rule"] in ("rank-failure", "oom-cascade")]


@pytest.mark.parametrize(("error", "cause"), [(E802, "python-exception"), (E803, "cuda-error")], ids=["802", "803"])
@pytest.mark.parametrize("ranks", [[3], [0, 5]], ids=["one-rank", "two-ranks"])
def test_the_node_not_ready_for_cuda_names_no_rank(tmp_path, error, cause, ranks):
    lines = [line for r in ranks for line in _traceback(r, error)] + [AGENT.format(r=ranks[0])]
    ((rule, got, named, summary),) = _failures(lines, tmp_path)
    assert (rule, got, named) == ("rank-failure", cause, [])
    assert "the node's CUDA not ready" in summary and "no single culprit" in summary


def test_another_error_at_the_same_call_is_still_the_ranks_own(tmp_path):
    """The contrast: the same lone traceback with the GPU's own fault names its rank, as before."""
    lines = _traceback(3, "RuntimeError: CUDA error: uncorrectable ECC error encountered") + [AGENT.format(r=3)]
    assert [(c, r) for _, c, r, _ in _failures(lines, tmp_path)] == [("cuda-error", [3])]


NVLS = ["torch.distributed.DistBackendError: NCCL error in: NCCLUtils.cpp:93, unhandled cuda error (run with NCCL_DEBUG=INFO for "
        "details), NCCL version 2.29.3", "ncclUnhandledCudaError: Call to CUDA function failed.", "Last error:",
        "Failed to bind NVLink SHARP (NVLS) Multicast memory of size 2097152 : CUDA error 401 'the operation cannot be performed "
        "in the present state'.", "This is usually caused by a system or configuration error in the Fabric Manager or NVSwitches."]


@pytest.mark.parametrize("tag", ["", "[rank3]: "], ids=["untagged", "rank3"])
def test_nccls_nvls_bind_refused_is_the_nodes_fabric(tmp_path, tag):
    """NCCL's NVLS multicast memory the node's NVSwitch fabric would not bind (pytorch#177472, blind batch 321): every local
    rank's communicator meets it alike; under one rank's tag it named that rank before (nccl-error)."""
    ((rule, cause, named, summary),) = _failures([tag + line for line in NVLS], tmp_path)
    assert (rule, cause, named) == ("rank-failure", "cuda-error", [])
    # session 62: the summary says what to check (tests/test_nccl_nvls_fabric_state.py)
    assert "the node's NVSwitch fabric refused NCCL's NVLS multicast set-up (NVLS multicast memory bind failed" in summary
