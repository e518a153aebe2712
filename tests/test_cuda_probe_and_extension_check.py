"""CUDA failures logged rather than raised (session 63, from blind batch 396's controls, which said nothing).

- torch's GPU probe failing at CUDA's initialization, ``Unexpected error from cudaGetDeviceCount() … Error 802: system not
  yet initialized``, in a server's log line (vLLM's ``ERROR … engine.py:389]``: gpustack#1254) or torch's own
  ``UserWarning: CUDA initialization: …`` (dstack#2348) is the node not ready for CUDA: a cuda-error of no rank, with what
  to check (Fabric Manager). Raised (``RuntimeError: Unexpected error …``) it stays the exception it is; another number
  (100, no CUDA-capable device: one container's devices, a warning the process may go on past) is not read.
- vLLM's CUDACHECK printing no ``Failed:`` (``Cuda error /workspace/csrc/custom_all_reduce.cuh:143 'invalid resource
  handle'``: vllm#52778, a tensor-parallel group split across nodes) is read as the printing process's CUDA error; the
  custom all-reduce refusing its IPC set-up (invalid argument, invalid resource handle, peer access) is every worker's
  alike and names no one, with what to check; a GPU fault it reports (an illegal address) is still that rank's own.
"""

from __future__ import annotations

import datetime as dt

import pytest

from bundle_batch import pasted_findings
from k10s_forensics.parsers.log_classify import classify

NOW = dt.datetime(2026, 12, 6, 18, 0, tzinfo=dt.timezone.utc)
PROBE = ("Unexpected error from cudaGetDeviceCount(). Did you run some cuda functions before calling NumCudaDevices() "
         "that might have already set an error? Error {n}: {msg}")
WARN = "/usr/lib/python3/dist-packages/torch/cuda/__init__.py:129: UserWarning: CUDA initialization: " + PROBE
ENGINE = "ERROR 02-20 16:43:12 engine.py:389] " + PROBE
CHECK = "Cuda error /workspace/csrc/custom_all_reduce.cuh:{line} '{msg}'"
AGENT = ("E1206 10:00:03.000000 140 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: 1) local_rank: "
         "{r} (pid: 14{r}) of binary: /usr/bin/python")


def _cuda_events(line: str) -> list[tuple[str, str]]:
    return [(e["subkind"], e["error_message"]) for e in classify(line) if e["kind"] == "cuda_error"]


@pytest.mark.parametrize("form", [WARN, ENGINE], ids=["userwarning", "server-log-line"])
@pytest.mark.parametrize(("n", "msg", "kind"), [
    ("802", "system not yet initialized", "system-not-ready"),
    ("803", "system has unsupported display driver / cuda driver combination", "system-not-ready"),
    ("804", "forward compatibility was attempted on non supported HW", "stack-mismatch"),
], ids=["802", "803", "804"])
def test_the_probe_logged_is_the_nodes_cuda(form, n, msg, kind):
    assert _cuda_events(form.format(n=n, msg=msg)) == [(kind, f"{msg} (CUDA error {n}, at CUDA initialization)")]


@pytest.mark.parametrize("line", [
    WARN.format(n="100", msg="no CUDA-capable device is detected"),
    "RuntimeError: " + PROBE.format(n="802", msg="system not yet initialized"),
], ids=["no-device-warning", "raised"])
def test_the_probe_not_read_as_a_logged_cuda_error(line):
    assert _cuda_events(line) == []


@pytest.mark.parametrize("prefix", ["", "Failed: "], ids=["bare", "failed"])
def test_an_extensions_check_with_or_without_failed(prefix):
    line = prefix + CHECK.format(line=143, msg="invalid resource handle")
    assert _cuda_events(line) == [("other", "invalid resource handle (custom_all_reduce.cuh:143)")]


def test_nvdiffrasts_numbered_check_is_not_an_extension_check():
    events = [e for e in classify("RuntimeError: Cuda error: 700[cudaStreamSynchronize(stream);]") if e["kind"] == "cuda_error"]
    assert events and "custom_all_reduce" not in events[0]["error_message"]


def _failures(lines: list[str], tmp_path, nproc: int | None, world: int | None) -> list[tuple]:
    return [(f["severity"], f["cause"], f["ranks"], f["summary"]) for f in pasted_findings(lines, tmp_path, nproc, world, NOW)
            if f["rule"] == "rank-failure"]


@pytest.mark.parametrize("form", [WARN, ENGINE], ids=["userwarning", "server-log-line"])
@pytest.mark.parametrize("tag", ["", "[rank3]:"], ids=["untagged", "rank3"])
def test_802_logged_names_no_one_and_says_the_node(tmp_path, form, tag):
    ((severity, cause, ranks, summary),) = _failures([tag + form.format(n="802", msg="system not yet initialized")],
                                                     tmp_path, 4, 4)
    assert (severity, cause, ranks) == ("warning", "cuda-error", [])
    assert "Fabric Manager" in summary


@pytest.mark.parametrize("msg", ["invalid resource handle", "invalid argument",
                                 "peer access is not supported between these two devices"])
@pytest.mark.parametrize(("tag", "nproc", "world"), [("", 1, 2), ("[rank1]:", 2, 2)], ids=["untagged-1x2", "rank1"])
def test_the_custom_all_reduce_set_up_refused_names_no_one(tmp_path, msg, tag, nproc, world):
    lines = [tag + CHECK.format(line=143, msg=msg), AGENT.format(r=1)]
    ((severity, cause, ranks, summary),) = _failures(lines, tmp_path, nproc, world)
    assert (severity, cause, ranks) == ("warning", "cuda-error", [])
    assert "vLLM's custom all-reduce refused its CUDA call" in summary and "--disable-custom-all-reduce" in summary


def test_a_gpu_fault_the_custom_all_reduce_reports_is_the_ranks_own(tmp_path):
    """The contrast: the same check reporting an illegal address names the rank whose GPU faulted, as before."""
    lines = ["[rank1]:" + CHECK.format(line=307, msg="an illegal memory access was encountered"), AGENT.format(r=1)]
    assert [(c, r) for _, c, r, _ in _failures(lines, tmp_path, 2, 2)] == [("cuda-error", [1])]
