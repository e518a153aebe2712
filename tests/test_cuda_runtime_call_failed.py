"""A C++ library's own check of a CUDA runtime call, the call's name then the runtime's message (docs/rules.md, "Session
61: a C++ check naming the CUDA call"): Horovod's GPU operations throw ``std::logic_error("cudaEventQuery failed: " +
cudaGetErrorString(...))``, which ends the process as ``terminate called after throwing …`` / ``what():  cudaEventQuery
failed: an illegal memory access was encountered``. It is the printing rank's own CUDA fault, read like torch's ``CUDA
error: …`` (horovod-2365: only ``[1,25]`` fails on a 5+ node job; it was read as nothing at all).

Contrasts: every rank failing alike names no single culprit; ``cudaMalloc failed: out of memory`` stays the
out-of-memory wording's; a set-up refusal (``invalid device ordinal``) and a message the CUDA kinds do not sort stay
unread; the name must touch `` failed: `` (a call with its arguments is UCX's wording, not this one).
"""

from __future__ import annotations

import datetime as dt

import pytest

from bundle_batch import pasted_findings
from incident_kit import corpus_log, naming_findings
from k10s_forensics.parsers.log_cuda_calls import runtime_call_failed

NOW = dt.datetime(2026, 12, 6, 11, 0, tzinfo=dt.timezone.utc)
HOROVOD_2365 = "horovod-2365-over-5-nodes-rank25-cudaeventquery-illegal-address-sigabrt"


def _terminate(rank: int, what: str) -> list[str]:
    """mpirun --tag-output's lines of rank ``rank`` ending on an uncaught C++ exception whose ``what()`` is ``what``."""
    return [f"[1,{rank}]<stderr>:terminate called after throwing an instance of 'std::logic_error'",
            f"[1,{rank}]<stderr>:  what():  {what}",
            f"[1,{rank}]<stderr>:[c102:70259] *** Process received signal ***",
            f"[1,{rank}]<stderr>:[c102:70259] Signal: Aborted (6)"]


def _gist(findings: list[dict]) -> list[tuple]:
    return [(f["rule"], f["severity"], f["cause"], f["ranks"]) for f in findings]


def test_the_corpus_log_names_rank_25_s_cuda_error(tmp_path):
    findings = pasted_findings(corpus_log(HOROVOD_2365), tmp_path, None, None, NOW)
    named = naming_findings(findings)
    assert [(f["rule"], f["cause"], f["ranks"]) for f in named] == [("rank-failure", "cuda-error", [25])], _gist(findings)
    assert "cudaEventQuery() failed: an illegal memory access was encountered" in named[0]["summary"]


@pytest.mark.parametrize("what", ["cudaEventQuery failed: an illegal memory access was encountered",
                                  "cudaStreamSynchronize failed: unspecified launch failure",
                                  "cudaEventSynchronize failed: uncorrectable ECC error encountered",
                                  "hipMemcpy failed: an illegal memory access was encountered"])
@pytest.mark.parametrize("nproc", [None, 4])
def test_one_rank_s_failed_runtime_call_names_it(tmp_path, what, nproc):
    findings = pasted_findings(_terminate(3, what), tmp_path, nproc, nproc, NOW)
    named = naming_findings(findings)
    assert [(f["cause"], f["ranks"]) for f in named] == [("cuda-error", [3])], _gist(findings)


def test_every_rank_failing_alike_names_no_single_culprit(tmp_path):
    lines = [x for r in range(4) for x in _terminate(r, "cudaEventQuery failed: an illegal memory access was encountered")]
    findings = pasted_findings(lines, tmp_path, 4, 4, NOW)
    assert naming_findings(findings) == [], _gist(findings)


def test_a_failed_allocation_stays_an_out_of_memory(tmp_path):
    findings = pasted_findings(_terminate(3, "cudaMalloc failed: out of memory"), tmp_path, None, None, NOW)
    assert [(f["rule"], f["cause"]) for f in naming_findings(findings)] == [("oom-cascade", "cuda-oom")], _gist(findings)
    assert not [f for f in findings if f["cause"] == "cuda-error"], _gist(findings)


@pytest.mark.parametrize("what", ["cudaSetDevice failed: invalid device ordinal",
                                  "cudaMallocAsync failed: falling back to cudaMalloc"])
def test_a_set_up_refusal_or_an_unsorted_message_stays_unread(tmp_path, what):
    findings = pasted_findings(_terminate(3, what), tmp_path, None, None, NOW)
    assert not [f for f in findings if f["cause"] == "cuda-error"], _gist(findings)


@pytest.mark.parametrize("line, read", [
    ("  what():  cudaEventQuery failed: an illegal memory access was encountered", "illegal-address"),
    ("cudaDeviceSynchronize failed: device-side assert triggered", "device-assert"),
    ("UCX  ERROR cuCtxGetDevice(&cu_device) failed: an illegal memory access was encountered", None),
    ("cudaMemcpy failed: out of memory", None),
    ("mycudaEventQuery failed: an illegal memory access was encountered", None),
    ("CUDA kernel launch failed: an illegal memory access was encountered", None),
])
def test_the_wording_itself(line, read):
    event = runtime_call_failed(line)
    assert (event and event["subkind"]) == read, event
