"""Batch 107's shape (tests/data/real-incidents, ``"batch": 107``, family ``this-year-2026``), with its wording variants,
as pasted logs through ``k10s import-logs`` (docs/rules.md, "Session 28: batch 107").

vLLM's custom all-reduce checks its own CUDA calls and prints a failure without a rank (``Failed: Cuda error
/workspace/csrc/custom_all_reduce.cuh:164 'invalid argument'``): the parser reads it as the printing process's CUDA
error (log_cuda_calls.extension_check), and an ``invalid argument`` from the custom all-reduce is common mode — its IPC
buffers and graph addresses are registered alike by every worker of the tensor-parallel group, so the refusal is the
launch's configuration, and the executor's ``Worker proc VllmWorker-0 died unexpectedly`` after it names no one.
Another message through the same check (an illegal address) is the printing GPU's own, and the executor's lone report
of a dead worker with nothing before it still names that worker (vllm-23582's shape).

The analyses go through tests/bundle_batch.py (every input in one analysis).
"""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import corpus_log, naming_findings
from k10s_forensics.parsers.log_failures import cuda_error
from k10s_forensics.parsers.log_prefilter import PREFILTER_EVENT

NOW = dt.datetime(2026, 12, 1, 7, 0, tzinfo=dt.timezone.utc)

VLLM = corpus_log("vllm-56180-tp2-custom-allreduce-invalid-argument-worker0-died-control")
CHECK = "Failed: Cuda error /workspace/csrc/custom_all_reduce.cuh:164 'invalid argument'"
DIED = ("(EngineCore pid=3677484) ERROR 09-10 09:37:41 [multiproc_executor.py:314] Worker proc VllmWorker-{w} died "
        "unexpectedly (exit code: None), shutting down executor.")


# ---- parser: a CUDA extension's own check -------------------------------------------------------------------------

@pytest.mark.parametrize("line, message, subkind", [
    (CHECK, "invalid argument (custom_all_reduce.cuh:164)", "other"),
    ("Failed: Cuda error /home/runner/work/vllm/vllm/csrc/custom_all_reduce.cuh:310 'invalid argument'",
     "invalid argument (custom_all_reduce.cuh:310)", "other"),
    ("Failed: Cuda error custom_all_reduce.cuh:455 'invalid argument'", "invalid argument (custom_all_reduce.cuh:455)", "other"),
    ("Failed: Cuda error /workspace/csrc/custom_all_reduce.cuh:164 ‘invalid argument’",  # an editor's curly quotes
     "invalid argument (custom_all_reduce.cuh:164)", "other"),
    ("(Worker_TP1 pid=9) Failed: Cuda error /workspace/csrc/custom_all_reduce.cuh:368 'an illegal memory access was encountered'",
     "an illegal memory access was encountered (custom_all_reduce.cuh:368)", None),
])
def test_a_cuda_extensions_own_check_is_read(line, message, subkind):
    assert re.search(PREFILTER_EVENT, line)  # the line reaches the classifier
    event = cuda_error(line)
    assert (event["kind"], event["error_type"], event["error_message"]) == ("cuda_error", "CUDA error", message)
    assert subkind is None or event["subkind"] == subkind


@pytest.mark.parametrize("line", [
    "Failed: Cuda error /workspace/csrc/custom_all_reduce.cuh:164 'out of memory'",  # an OOM is read by the OOM parsers
    "Failed: Cuda error while loading the model",  # no file, line and quoted message: not the check's wording
])
def test_other_failed_lines_are_not_the_check(line):
    assert cuda_error(line) is None


# ---- analysis: who is named ----------------------------------------------------------------------------------------

def _two_workers() -> str:
    """Both workers' checks printed before the executor's report (the paste past the corpus excerpt)."""
    return f"{CHECK}\n{DIED.format(w=0)}\n{CHECK}\n"


#: key: (the log, the rank a warning/critical finding must name alone: None for none)
CASES = {
    "vllm-56180": (VLLM, None),
    "worker1-died": (VLLM.replace("VllmWorker-0", "VllmWorker-1"), None),
    "both-workers-checks": (_two_workers(), None),
    "older-path": (VLLM.replace("/workspace/csrc/custom_all_reduce.cuh:164",
                                "/home/runner/work/vllm/vllm/csrc/custom_all_reduce.cuh:310"), None),
    # contrasts: another message through the same check is the GPU's own; a dead worker with nothing before it
    "illegal-address-worker0": (VLLM.replace("'invalid argument'", "'an illegal memory access was encountered'"), 0),
    "worker0-died-alone": (f"{DIED.format(w=0)}\n", 0),
}
BATCHED = Batched("b107", list(CASES))


def _make(key: str, folder: Path):
    return pasted(CASES[key][0], folder, 2, NOW)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_the_custom_all_reduce_refusing_its_arguments_is_every_workers(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][1])
