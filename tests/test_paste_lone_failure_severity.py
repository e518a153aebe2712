"""What a paste cannot prove, any failure (session 45): a rank's failure in a paste that holds that rank's lines only
(no other rank's line, no victim, no watchdog) is named at warning with confidence medium, whatever the failure: a
signal or exit the launcher reports (a SIGKILL, a SIGSEGV), a CUDA error (``medium_why`` ``lone-paste-failure``) and a
CUDA out-of-memory (oom-cascade, ``lone-paste-oom``). The paste cannot say whether the other ranks, running the same
code on the same data sizes, failed the same way (the corpus's controls ms-swift-7200, graphstorm-314, nccl-1788 and
trl-3436 are such pastes). A GPU's own fault (an uncorrectable ECC error, a GPU fallen off the bus) stays critical, and
so does any of them beside another rank's line. Real pastes of tests/data/real-incidents and small variants, through
``k10s import-logs``, batched (docs/rules.md, "What a paste cannot prove").
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, pasted
from incident_kit import corpus_lines

NOW = dt.datetime(2026, 12, 4, 10, 0, tzinfo=dt.timezone.utc)

# torchrun's table only: rank 0 SIGKILLed, `<NO_OTHER_FAILURES>` (a culprit)
SIGKILL_TABLE = corpus_lines("LlamaFactory-4898-")
# the same table for a SIGSEGV (a culprit)
SIGSEGV_TABLE = corpus_lines("hallo2-75-")
# one NCCL WARN of device 1 on a node of eight, moved from nccl-1788's NVLS transport to its P2P one (the NVLS WARN is
# the node's NVSwitch fabric since session 62, naming no one: tests/test_nccl_nvls_fabric_state.py)
NCCL_CUDA_FAILURE = [line.replace("transport/nvls.cc", "transport/p2p.cc") for line in corpus_lines("nccl-1788-")]
# rank 0's CUDA OOM and its traceback (a control: the 7B model fits none of the eight cards)
LONE_OOM = corpus_lines("trl-3436-")
#: another rank SIGTERMed by the same agent: a victim
SIBLING_SIGTERM = "W0104 14:32:01.000000 4600 torch/distributed/elastic/multiprocessing/api.py:897] Sending process 4629 closing signal SIGTERM"
#: another rank's watchdog timeout
PEER_TIMEOUT = ("[rank1]:[E1204 09:50:00.000000000 ProcessGroupNCCL.cpp:632] [Rank 1] Watchdog caught collective operation "
                "timeout: WorkNCCL(SeqNum=88, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600012 "
                "milliseconds before timing out.")
LONE_CUDA = ["[rank3]: Traceback (most recent call last):",
             '[rank3]:   File "/opt/train.py", line 88, in <module>',
             "[rank3]:     loss.backward()",
             "[rank3]: RuntimeError: CUDA error: unspecified launch failure"]
ECC = [line.replace("unspecified launch failure", "uncorrectable ECC error encountered") for line in LONE_CUDA]
FELL_OFF = [line.replace("CUDA error: unspecified launch failure", "CUDA error: GPU is lost; the GPU has fallen off the bus")
            for line in LONE_CUDA]

#: key: (the pasted lines, nproc, the rule, the rank named, cause, severity, confidence, medium_why)
CASES = {
    "lone-sigkill-table": (SIGKILL_TABLE, None, "rank-failure", 0, "host-oom-kill", "warning", "medium", "lone-paste-failure"),
    "lone-sigsegv-table": (SIGSEGV_TABLE, None, "rank-failure", 0, "segfault", "warning", "medium", "lone-paste-failure"),
    "lone-nccl-cuda-failure": (NCCL_CUDA_FAILURE, 8, "rank-failure", 1, "cuda-error", "warning", "medium", "lone-paste-failure"),
    "lone-launch-failure": (LONE_CUDA, None, "rank-failure", 3, "cuda-error", "warning", "medium", "lone-paste-failure"),
    "lone-oom": (LONE_OOM, None, "oom-cascade", 0, "cuda-oom", "warning", "medium", "lone-paste-oom"),
    # contrasts: a GPU's own fault; the same failures beside another rank's line
    "lone-ecc": (ECC, None, "rank-failure", 3, "cuda-error", "critical", "high", None),
    "lone-fell-off-the-bus": (FELL_OFF, None, "rank-failure", 3, "cuda-error", "critical", "high", None),
    "sigkill-beside-a-sibling-sigterm": (SIGKILL_TABLE + [SIBLING_SIGTERM], 2, "rank-failure", 0, "host-oom-kill", "critical",
                                         "high", None),
    "launch-failure-beside-a-peer-timeout": (LONE_CUDA + [PEER_TIMEOUT], None, "rank-failure", 3, "cuda-error", "critical",
                                             "high", None),
    # oom-cascade states a confidence only where it lowers one (None: critical, as before session 45)
    "oom-beside-a-peer-timeout": (LONE_OOM + [PEER_TIMEOUT], None, "oom-cascade", 0, "cuda-oom", "critical", None, None),
}
BATCHED = Batched("paste-lone-failure", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc = CASES[key][:2]
    return pasted(lines, folder, nproc, NOW, world=None)


def _reading(finding: dict) -> tuple:
    """(ranks, cause, severity, confidence, medium_why) of a rank-failure or oom-cascade finding."""
    first = finding["evidence"][0]  # the row's own columns
    return finding["ranks"], finding["cause"], finding["severity"], first.get("confidence"), first.get("medium_why")


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_a_failure_in_one_rank_s_paste_is_named_at_warning(key, tmp_path_factory):
    _, _, rule, rank, cause, severity, confidence, why = CASES[key]
    findings = BATCHED.findings(key, tmp_path_factory, _make)
    got = [_reading(f) for f in findings if f["rule"] == rule]
    assert got == [([rank], cause, severity, confidence, why)], [(f["rule"], f["severity"], f["cause"], f["ranks"])
                                                                 for f in findings]


@pytest.mark.parametrize("key, rule", [("lone-sigkill-table", "rank-failure"), ("lone-oom", "oom-cascade")])
def test_the_finding_says_the_paste_holds_that_rank_only(key, rule, tmp_path_factory):
    (finding,) = [f for f in BATCHED.findings(key, tmp_path_factory, _make) if f["rule"] == rule]
    assert "The paste holds this rank's lines only" in finding["summary"]
    assert "(confidence medium)" in finding["summary"]


def test_the_contrasts_differ_from_their_pastes_in_one_line_or_message():
    assert len(ECC) == len(FELL_OFF) == len(LONE_CUDA) and ECC != LONE_CUDA and FELL_OFF != LONE_CUDA
    assert SIGKILL_TABLE != SIGSEGV_TABLE
