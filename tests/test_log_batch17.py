"""Wordings found by real incidents batch 17 (docs/rules.md "Real incidents batch 17"):

* NCCL's ``ncclInvalidUsage`` (the same code's misuse of the library, or ranks sharing one GPU) fails every rank
  alike: whichever rank's exit the launcher reports first, no single culprit (common mode, like argparse's errors).
  It used to leave the launcher's ``failed (exitcode: 1) local_rank: 6`` naming local rank 6.
"""

from __future__ import annotations

import datetime as dt

from incident_kit import naming_findings
from k10s_forensics.analyze.runner import analyze
from k10s_forensics.logimport import LogSource, import_logs

NOW = dt.datetime(2026, 11, 29, 4, 0, tzinfo=dt.timezone.utc)
INVALID_USAGE = [
    "RuntimeError: NCCL error in: /pytorch/torch/lib/c10d/ProcessGroupNCCL.cpp:911, invalid usage, NCCL version 2.7.8",
    "ncclInvalidUsage: This usually reflects invalid usage of NCCL library (such as too many async ops, too many collectives at once, mixing streams in a group, etc).",
]
AGENT = "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: 1) local_rank: {rank} (pid: 1211) of binary: /usr/bin/python3"


def _findings(tmp_path, lines: list[str], nproc: int | None = None):
    bundle, _ = import_logs([LogSource("log.txt", "\n".join(lines) + "\n")], tmp_path / "b", nproc_per_node=nproc,
                            job="train", namespace="team-a", now=NOW)
    return analyze(bundle)["findings"]


def _named(tmp_path, lines: list[str], nproc: int | None = None):
    return [(f["rule"], f["severity"], f["cause"], f["ranks"]) for f in naming_findings(_findings(tmp_path, lines, nproc))]


# ---- ncclInvalidUsage is every rank's ----------------------------------------------------------------
def test_invalid_usage_then_one_agent_exit_names_no_one(tmp_path):
    findings = _findings(tmp_path, INVALID_USAGE + INVALID_USAGE[1:] + [AGENT.format(rank=6)], nproc=8)
    assert not naming_findings(findings)
    said = [e.get("no_culprit_reason") for f in findings if f["rule"] == "rank-failure" for e in f["evidence"]]
    assert said and "ncclInvalidUsage" in said[0]


def test_a_rank_tagged_invalid_usage_names_no_one(tmp_path):
    lines = ["[rank2]: RuntimeError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1269, "
             "invalid usage, NCCL version 2.14.3",
             "[rank2]: ncclInvalidUsage: This usually reflects invalid usage of NCCL library."]
    assert _named(tmp_path, lines, nproc=4) == []


def test_without_invalid_usage_the_agent_exit_still_names_its_rank(tmp_path):
    lines = ["RuntimeError: CUDA error: an illegal memory access was encountered", AGENT.format(rank=6)]
    assert [r for _, _, _, r in _named(tmp_path, lines, nproc=8)] == [[6]]
