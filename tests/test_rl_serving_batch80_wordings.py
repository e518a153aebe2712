"""RL and serving stacks on many GPUs (issue 18, batch 80): what a worker's lone line says of the others.

* **gloo's monitored barrier names its coordinator, not a culprit** (queries/_evidence_logs.sql, ``k10s_desync_lines``):
  ``Rank 3 successfully reached monitoredBarrier, but received errors while waiting for send/recv from rank 0`` —
  rank 0 runs the barrier and answers every rank with an error when ANY rank failed to arrive. The report names rank 0
  only when the reporter's own wait for it ran out (gloo's ``Timed out waiting Nms for send operation to complete`` as
  its ``Original exception``, parsers/log_reports.barrier_wait: ``timeout_ms``), or when every other rank of the job
  reached the barrier and says so (a two-rank job's rank 1; the reporter read from the report's own words when the
  line has no rank tag). A wider group's lone reporter names no one.
* **A chained traceback's marker is its rank's traceback** (parsers/log_failures.py): under a rank's tag, ``The above
  exception was the direct cause of the following exception:`` (or ``During handling of the above exception, another
  exception occurred:``) says that rank is printing a traceback of its own (``python_traceback``/``started``), cut or
  not; and a rank's CUDA OOM beside such a cut traceback in the same second names no one (queries/oom_cascade.sql,
  ``unordered``: the batch 48 reading, with a clock).
* **vLLM's relayed worker pids count a node's processes** (parsers/log_worker_relays.py): ``(VllmWorkerProcess pid=N)``
  lines of two workers say the node ran three processes (the driver, rank 0, and the two): a line naming no worker is no
  single process's, where nothing else said how many the node ran.
"""

from __future__ import annotations

import datetime as dt

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import naming_findings
from k10s_forensics.parsers.log_failures import py_exception
from k10s_forensics.parsers.log_lines import BodyAssembler
from k10s_forensics.parsers.log_worker_relays import relayed_workers

NOW = dt.datetime(2026, 11, 30, 8, 0, tzinfo=dt.timezone.utc)
GLOO = "[../third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:133]"


def _events(lines: list[str]) -> list[dict]:
    asm = BodyAssembler(None)
    for i, line in enumerate(lines):
        asm.feed(i, line, None)
    return asm.finish()


def _barrier(reporter: int, *, tagged: bool = True, wait: str | None = None) -> list[str]:
    """gloo's monitored-barrier report of ``reporter`` (C++ log line); ``wait``: its original exception's gloo wait."""
    tag = f"[rank{reporter}]:" if tagged else ""
    out = [f"{tag}[E1130 07:00:20.426633564 ProcessGroupGloo.cpp:143] Rank {reporter} successfully reached monitoredBarrier, "
           "but received errors while waiting for send/recv from rank 0. Please check rank 0 logs for faulty rank."]
    if wait:
        out += [f"{tag} Original exception: ", f"{tag} {GLOO} Timed out waiting 600000ms for {wait} operation to complete"]
    return out


# ---- parser: the report's reporter and its own wait -------------------------------------------------------------

@pytest.mark.parametrize("tagged", [True, False])
def test_a_barrier_report_names_its_reporter_in_its_own_words(tagged):
    ev = [e for e in _events(_barrier(5, tagged=tagged)) if e["kind"] == "nccl_desync"]
    assert [(e["subkind"], e["rank"], e["reporter_rank"]) for e in ev] == [("barrier_peer", 0, 5)]


@pytest.mark.parametrize("wait", ["send", "recv"])
def test_the_reporters_own_gloo_wait_under_its_report_gives_the_report_its_timeout(wait):
    ev = [e for e in _events(_barrier(3, wait=wait)) if e["kind"] == "nccl_desync"]
    assert [e.get("timeout_ms") for e in ev] == [600000]


def test_another_ranks_wait_or_one_far_below_is_not_the_reports():
    other = _barrier(3) + [" Original exception: ", f"[rank2]: {GLOO} Timed out waiting 600000ms for send operation to complete"]
    far = _barrier(3) + ["[rank3]: noise"] * 5 + [f"[rank3]: {GLOO} Timed out waiting 600000ms for send operation to complete"]
    for lines in (other, far):
        assert [e.get("timeout_ms") for e in _events(lines) if e["kind"] == "nccl_desync"] == [None]


# ---- parser: a chained traceback's marker -----------------------------------------------------------------------

@pytest.mark.parametrize("marker", ["The above exception was the direct cause of the following exception:",
                                    "During handling of the above exception, another exception occurred:"])
def test_a_chained_tracebacks_marker_under_a_rank_tag_is_that_ranks_traceback(marker):
    assert py_exception(marker, tagged=True) == {"kind": "python_traceback", "subkind": "started", "_embedded": False}
    assert py_exception(marker, tagged=False) is None  # untagged: whose, nobody can say
    line = f"(VllmWorker rank=7 pid=10948) ERROR 03-16 06:12:38 [multiproc_executor.py:375] {marker}"
    assert [(e["kind"], e["rank"]) for e in _events([line])] == [("python_traceback", 7)]


# ---- layout: vLLM's relayed worker processes ---------------------------------------------------------------------

def test_relayed_vllm_workers_count_the_nodes_processes():
    two = ["(VllmWorkerProcess pid=195295) ERROR 03-02 19:49:43 [multiproc_worker_utils.py:242] Traceback (most recent call last):",
           "(VllmWorkerProcess pid=195297) ERROR 03-02 19:49:43 [multiproc_worker_utils.py:242] Exception in worker",
           "(VllmWorkerProcess pid=195297) ERROR 03-02 19:49:43 [multiproc_worker_utils.py:242] output = run_method()"]
    assert relayed_workers(["\n".join(two)]) == 3
    stamped = "\n".join("2026-03-02T19:49:43.000000000Z " + ln for ln in two)
    assert relayed_workers([stamped]) == 3
    assert relayed_workers(["(RayWorkerWrapper pid=11305) ERROR init_device", "INFO 03-02 engine started"]) is None


# ---- analysis: who is named ---------------------------------------------------------------------------------------

def _vllm_v1(rank: int, stamp: str, text: str) -> str:
    return f"(VllmWorker rank={rank} pid={10672 + rank}) ERROR 03-16 {stamp} [multiproc_executor.py:375] {text}"


OOM = ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.74 GiB. GPU 0 has a total capacity of 15.48 GiB "
       "of which 953.94 MiB is free. Including non-PyTorch memory, this process has 14.53 GiB memory in use.")
CHAINED = "The above exception was the direct cause of the following exception:"
MP_OOM = ("(VllmWorkerProcess pid=195295) ERROR 03-02 19:49:43 [multiproc_worker_utils.py:242] torch.OutOfMemoryError: CUDA "
          "out of memory. Tried to allocate 20.00 MiB. GPU 2 has a total capacity of 14.62 GiB of which 3.31 MiB is free.")
MP_OTHER = ["(VllmWorkerProcess pid=195297) ERROR 03-02 19:49:43 [multiproc_worker_utils.py:242] Exception in worker "
            "VllmWorkerProcess while processing method load_model.",
            "(VllmWorkerProcess pid=195297) ERROR 03-02 19:49:43 [multiproc_worker_utils.py:242] Traceback (most recent call last):"]

#: name -> (log lines, processes per node (None: not stated), the rank named or None)
CASES = {
    # a wide group's lone barrier reporter: no one; its own wait timed out, or the only other rank: rank 0
    "barrier-rank3-of-8": (_barrier(3), 8, None),
    "barrier-rank3-of-8-untagged": (_barrier(3, tagged=False), 8, None),
    "barrier-rank3-of-4-send-timeout": (_barrier(3, wait="send"), 4, 0),
    "barrier-rank1-of-2": (_barrier(1), 2, 0),
    "barrier-rank1-untagged-of-2": (_barrier(1, tagged=False), 2, 0),
    # a rank's OOM beside another rank's chained traceback in the same second: no one; alone or 30 s apart: its rank
    "oom-rank0-chained-rank7-same-second": ([_vllm_v1(0, "06:12:38", OOM), _vllm_v1(7, "06:12:38", CHAINED)], 8, None),
    "oom-rank2-alone": ([_vllm_v1(2, "06:12:38", OOM)], 8, 2),
    "oom-rank2-chained-rank5-30s-later": ([_vllm_v1(2, "06:12:08", OOM), _vllm_v1(5, "06:12:38", CHAINED)], 8, 2),
    # vLLM's multiproc workers: an OOM relayed from one of two workers, the node's process count unstated: no one
    "mp-oom-two-worker-pids": ([MP_OOM, *MP_OTHER], None, None),
}
BATCHED = Batched("rl-serving-b80", sorted(CASES))


def _make(key: str, folder) -> object:
    return pasted(CASES[key][0], folder, CASES[key][1], NOW)


@pytest.mark.parametrize("key", [pytest.param(k, marks=BATCHED.mark(k)) for k in sorted(CASES)])
def test_a_workers_lone_line_names_it_only_where_nothing_says_the_others_are_in_it_too(tmp_path_factory, key):
    want = CASES[key][2]
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, want)
