"""The Kubernetes training stack, 2025-2026 (real incidents batch 408), pinned as read. Collected blind (a148cd29): one
incident, a control. Scored once as collected: 1/1 both ways (no rank named); no control named:

- awslabs/ai-on-eks#240 (control, read right as collected): a multi-node torchrun job of the Slinky-Slurm blueprint on
  EKS (Slurm as Kubernetes pods, slurm-operator v0.4.x) fails at rendezvous, ``RendezvousConnectionError: The
  connection to the C10d store has failed.`` / ``TCP client failed to connect/validate to host slinky-0:29400 - Name or
  service not known`` (no rank): the sbatch script's ``--rdzv_endpoint=$(hostname)`` names a pod hostname no pod can
  resolve, a launch-configuration defect common to every node. k10s reads one warning ``rank-failure`` of cause
  ``rendezvous-connection`` that names no rank ("No rank is named: the elastic launcher's agent raised it").

Contrasts: the control laid out as 2×4 or 4×8 processes, both lines twice (two nodes' agents), or after a SYNTHETIC
c10d name-lookup warning for the endpoint (the "repeated name-resolution warnings" the upstream report describes),
still names no one (an agent's rendezvous failure is the launcher's, not a rank's); a SYNTHETIC rank 3's own CUDA OOM
traceback, before or after the control's two lines, names rank 3 (cuda-oom): a rank's own failure is still read
beside a rendezvous error. Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted, pasted_findings
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 7, 5, 0, tzinfo=dt.timezone.utc)

RDZV = corpus_lines("ai-on-eks-240-")

#: Synthetic: torch's c10d warning that the rendezvous endpoint's name does not resolve (torch 2.x wording).
NAME_LOOKUP = ["[W108 10:00:00.000000000 socket.cpp:752] [c10d] The IPv4 network addresses of (slinky-0, 29400) cannot be "
               "retrieved (gai error: -2 - Name or service not known)."]

#: Synthetic: rank 3's own CUDA OOM traceback (torch 2.x wording, tagged by torchrun's ``--tee``-style prefix).
RANK3_OOM = ["[rank3]: Traceback (most recent call last):",
             '[rank3]:   File "/workspace/train.py", line 10, in <module>',
             "[rank3]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 3 has a total capacity of "
             "79.10 GiB of which 1.02 GiB is free."]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # as collected, pasted and laid out as the thread could have run it
    "rdzv-as-pasted": (RDZV, None, None, None, None),
    "rdzv-two-nodes-of-four": (RDZV, 4, 8, None, None),
    "rdzv-four-nodes-of-eight": (RDZV, 8, 32, None, None),
    # variants that must not name anyone
    "rdzv-two-agents-names-none": (RDZV + RDZV, 4, 8, None, None),
    "name-lookup-then-rdzv-names-none": (NAME_LOOKUP + RDZV, 4, 16, None, None),
    # contrasts that must name a rank
    "rank3-oom-then-rdzv-names-rank3": (RANK3_OOM + RDZV, 4, 8, 3, "cuda-oom"),
    "rdzv-then-rank3-oom-names-rank3": (RDZV + RANK3_OOM, 4, 8, 3, "cuda-oom"),
}
BATCHED = Batched("b408", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_kubernetes_training_operators_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])


def _gist(lines: list[str], folder: Path, nproc: int | None, world: int | None) -> list[tuple]:
    return [(f["rule"], f["severity"], f["cause"], f["ranks"]) for f in pasted_findings(lines, folder, nproc, world, NOW)]


def test_rendezvous_control_as_collected_is_the_launchers_failure(tmp_path):
    """ai-on-eks#240 (control) as collected: one warning of the launcher's rendezvous failure, no rank named, saying
    why (the agent raised it; no rank failed on its own) and pointing at the endpoint's reachability (DNS among it)."""
    findings = pasted_findings(RDZV, tmp_path / "a", None, None, NOW)
    assert [(f["rule"], f["severity"], f["cause"], f["ranks"]) for f in findings] == [
        ("rank-failure", "warning", "rendezvous-connection", [])]
    assert "No rank is named: the elastic launcher's agent raised it" in findings[0]["summary"]
    assert "DNS" in findings[0]["recommendation"]
    assert _gist(RDZV, tmp_path / "b", 4, 8) == [("rank-failure", "warning", "rendezvous-connection", [])]


def test_name_lookup_warning_alone_finds_nothing(tmp_path):
    """The synthetic name-lookup warning alone (a hang before the agent gives up) is no finding, no rank named."""
    assert _gist(NAME_LOOKUP, tmp_path, 4, 16) == []
