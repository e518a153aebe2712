"""torchrun / torch elastic restarts where a rank fails again (real incidents batch 239), pinned as read. One culprit
and four controls, as pasted and laid out by their own nproc/world: DLRM inference under torch.distributed.run whose
agent reports ``failed (exitcode: 1) local_rank: 1`` after a ``load_state_dict`` size mismatch and restarts the group
(facebookresearch/dlrm#231, read as local rank 1, python-exception); YOLOv5 on a g4dn.12xlarge where ranks 3 and 2 each
time out in a 60 s BROADCAST and find their parameters do not match process 0's, on every restart (ultralytics/yolov5
#4290: the environment, run it in Docker; read as no one); PseCo's last attempt timing out in the store-based barrier
at ``world_size=4, worker_count=16`` (ligang-cs/PseCo#15: restart residue and the PyTorch version; read as no one);
two g4dn.xlarge nodes whose agent marks global rank 1 FAILED with no error after three restarts and records
``MemoryError: std::bad_alloc`` from its rendezvous store (pytorch/pytorch#64990: read as no one); rank 0's
``Waiting in store based barrier ... (world_size=4, worker_count=8 ...)`` of a restarted YOLOv5 group (ultralytics/yolov5
#4574: read as no one). Scored 5/5 both ways as collected; no rule changed (measure only).
Contrasts: DLRM without the agent's failure line names no one, with it on local rank 0 names rank 0; YOLOv5's mismatch
tagged ``[rank3]:`` alone still names no one, an illegal memory access in its place names rank 3; PseCo's barrier
timeout replaced by the worker's own ValueError names rank 0; the restarted YOLOv5 group with an agent failure line for
local rank 2 names rank 2; the 64990 status event carrying a worker's CUDA error reads a rank failure but names no one.
Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt

import pytest

from bundle_batch import Batched, assert_one_rank, pasted_cases, pasted_findings
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 4, 6, 0, tzinfo=dt.timezone.utc)

DLRM_LOAD = corpus_lines("dlrm-231-")
VERIFY_MODEL = corpus_lines("yolov5-4290-")
BARRIER_16 = corpus_lines("PseCo-15-")
BAD_ALLOC = corpus_lines("pytorch-64990-")
BARRIER_8 = corpus_lines("yolov5-4574-")

AGENT_RANK1 = "local_rank: 1 (pid: 192412)"
MISMATCH = "appears not to match sizes of the same param in process 0"
ILLEGAL = "RuntimeError: CUDA error: an illegal memory access was encountered"

#: DLRM with the agent's failure line left out: only the mismatch list and the other process's report
DLRM_NO_AGENT_LINE = [line for line in DLRM_LOAD if AGENT_RANK1 not in line]
#: DLRM with the agent naming local rank 0 instead
DLRM_AGENT_RANK0 = [line.replace(AGENT_RANK1, "local_rank: 0 (pid: 192412)") for line in DLRM_LOAD]
#: rank 3's part only (its watchdog line, then its traceback tagged ``[rank3]:`` as torch >= 2.2 prints it)
RANK3_TAGGED = [VERIFY_MODEL[0]] + ["[rank3]: " + line for line in VERIFY_MODEL[1:13]]
#: the same, its mismatch replaced by a CUDA error of that rank's own
RANK3_ILLEGAL = ["[rank3]: " + ILLEGAL if MISMATCH in line else line for line in RANK3_TAGGED]
#: PseCo's barrier timeout replaced by the worker's own exception: a rank that failed on its own
PSECO_VALUEERROR = ["ValueError: need at least one array to concatenate"] + BARRIER_16[1:]
#: the restarted YOLOv5 group with the agent's failure line for local rank 2 after the waiting
BARRIER_8_RANK2 = BARRIER_8 + ["ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: 1) local_rank: 2 "
                               "(pid: 4242) of binary: /usr/bin/python3"]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # the culprit, as pasted and laid out
    "dlrm-load-as-pasted": (DLRM_LOAD, None, None, 1, "python-exception"),
    "dlrm-load-one-node-of-2": (DLRM_LOAD, 2, 2, 1, "python-exception"),
    # controls, as pasted and laid out as the threads say
    "verify-model-as-pasted": (VERIFY_MODEL, None, None, None, None),
    "verify-model-one-node-of-4": (VERIFY_MODEL, 4, 4, None, None),
    "barrier-16-as-pasted": (BARRIER_16, None, None, None, None),
    "barrier-16-world-4": (BARRIER_16, 4, 4, None, None),
    "bad-alloc-as-pasted": (BAD_ALLOC, None, None, None, None),
    "bad-alloc-two-nodes-of-1": (BAD_ALLOC, 1, 2, None, None),
    "barrier-8-as-pasted": (BARRIER_8, None, None, None, None),
    "barrier-8-one-node-of-4": (BARRIER_8, 4, 4, None, None),
    # contrasts
    "dlrm-no-agent-line-names-none": (DLRM_NO_AGENT_LINE, None, None, None, None),
    "dlrm-agent-rank0-names-rank0": (DLRM_AGENT_RANK0, 2, 2, 0, "python-exception"),
    "rank3-tagged-mismatch-names-none": (RANK3_TAGGED, 4, 4, None, None),
    "rank3-tagged-illegal-names-rank3": (RANK3_ILLEGAL, 4, 4, 3, "cuda-error"),
    "pseco-valueerror-names-rank0": (PSECO_VALUEERROR, 4, 4, 0, "python-exception"),
    "barrier-8-agent-rank2-names-rank2": (BARRIER_8_RANK2, 4, 4, 2, "python-exception"),
}
BATCHED = Batched("b239", list(CASES))


_make = pasted_cases(CASES, NOW)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_torchrun_restart_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])


def test_contrast_lines_are_edits_of_the_corpus():
    """Each contrast changes only the line that carries the reading (a guard against the corpus drifting)."""
    assert len(DLRM_NO_AGENT_LINE) == len(DLRM_LOAD) - 1
    assert sum(a != b for a, b in zip(DLRM_AGENT_RANK0, DLRM_LOAD)) == 1
    assert sum(MISMATCH in line for line in RANK3_TAGGED) == 1 and not any(MISMATCH in line for line in RANK3_ILLEGAL)
    assert RANK3_ILLEGAL[10] == "[rank3]: " + ILLEGAL, RANK3_ILLEGAL[10]
    assert PSECO_VALUEERROR[1:] == BARRIER_16[1:] and "store based barrier" in BARRIER_16[0]
    assert all("worker_count=8" in line for line in BARRIER_8) and len(BARRIER_8_RANK2) == len(BARRIER_8) + 1


def test_verify_model_reads_a_mismatch_of_everyone(tmp_path):
    """Ranks 3 and 2 against process 0 at DDP's model check: a collective mismatch and a hang with no single culprit,
    each found but naming no rank."""

    findings = pasted_findings(VERIFY_MODEL, tmp_path, 4, 4, NOW)
    got = sorted((f["rule"], f["cause"]) for f in findings)
    assert ("rank-failure", "collective-mismatch") in got and ("nccl-hang", "no-single-culprit") in got, got
    assert all(not f["ranks"] for f in findings), [(f["rule"], f["ranks"]) for f in findings]


def test_dlrm_restart_is_read_with_its_exit(tmp_path):
    """The culprit's finding names the agent's exit (a python-exception of local rank 1) as a warning."""

    findings = pasted_findings(DLRM_LOAD, tmp_path, 2, 2, NOW)
    failure = [f for f in findings if f["rule"] == "rank-failure"]
    assert [(f["severity"], f["cause"], f["ranks"]) for f in failure] == [("warning", "python-exception", [1])]


def test_status_event_with_a_worker_error_reads_a_failure_of_no_rank(tmp_path):
    """The 64990 status event carrying a worker's CUDA error instead of ``<NONE>`` is read as a rank failure (the
    error counts), still naming no rank as pasted: the event alone does not say which process died first."""

    lines = [line.replace('\\"<NONE>\\"', '\\"' + ILLEGAL + '\\"') for line in BAD_ALLOC]
    assert lines != BAD_ALLOC
    findings = pasted_findings(lines, tmp_path, None, None, NOW)
    assert [(f["rule"], f["cause"]) for f in findings if f["rule"] == "rank-failure"] == [("rank-failure", "cuda-error")]
    assert naming_findings(findings) == []
    assert pasted_findings(BAD_ALLOC, tmp_path / "plain", None, None, NOW) == []
