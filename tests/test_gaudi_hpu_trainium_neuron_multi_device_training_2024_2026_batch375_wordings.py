"""Distributed training on non-NVIDIA accelerators (Gaudi, Trainium/Inferentia, TPU with torch_xla), 2024-2026 (real
incidents batch 375), pinned as read. Three incidents, collected blind; no Gaudi thread with a pasted multi-card log
and a settled answer was reachable. Two controls were read right as collected, neither naming anyone: gcloud's fan-out
header (``Attempting to SSH into 1 nodes with a total of 4 workers``, ``SSH: Attempting to connect to worker 0...`` to
``worker 3...``) and the head of the ``xmp.spawn`` launcher traceback, cut before its exception line
(pytorch/xla#8295: a v5litepod-16 created with a TPU runtime version v5e does not support, the same on all four
workers; a Google engineer: use ``v2-alpha-tpuv5``) is no finding, as pasted or as 4 hosts of 4 chips; the lone
``Nrt::BuildGlobalComm failed on NeuronCores 0-1(2):  nrt_status=1, message="Non specific failure".``
(ray-project/ray#65070: Ray never sets ``NEURON_RT_ROOT_COMM_ID``, so each of the 64 workers on two trn1.32xlarge
builds its communicator alone) is no finding, as pasted or as 2 x 32 workers. The third (NOT_YET as collected, batch
375): both Ray workers' Neuron runtime lines ``ENC:validate_neff_cc_ops ... mismatching number of cc ops, expected 3
received 6. Check if ranks 0 and 1 are using the same neff`` (and ``expected 6 received 3 ... ranks 1 and 0``), then the
driver's ``RayTaskError(RuntimeError)`` raised at rank 0's ``print(... loss.cpu())`` (aws-neuron/aws-neuron-sdk#779:
rank 0 alone printing a tensor runs a different graph than rank 1, the maintainer's diagnosis) names rank 0 as a
python-exception warning (medium) when laid out as 2 nodes x 1 process: the right rank, from the one exception line the
untagged paste puts on rank 0; the Neuron lines, which say the two ranks' graphs differ, are not read at all (as
pasted: a python-exception warning of no rank). Scored 2/3 both ways as collected. Contrasts: the Neuron lines without
the driver's traceback, the traceback tagged by both ranks, the launcher traceback with an exception line added, the
root-comm line twice name no one; the driver's traceback tagged ``[rank1]:`` names rank 1; the root-comm line as rank
3's ``RuntimeError`` names rank 3. Read right since session 61 (docs/rules.md, "Session 61: the Neuron runtime's program
mismatch"): the Neuron lines are the runtime's cross-rank program check, a collective-mismatch naming rank 0 (of exactly
ranks 0 and 1, the side whose rank-0-only code cut another graph), as pasted, as 2 x 1, and the runtime lines alone.
Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted, pasted_findings
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 6, 8, 0, tzinfo=dt.timezone.utc)

NEFF_MISMATCH = corpus_lines("aws-neuron-sdk-779-")
LITEPOD_RUNTIME = corpus_lines("xla-8295-")
ROOT_COMM_UNSET = corpus_lines("ray-65070-")

#: both workers' Neuron runtime lines (the unprefixed block and the two Ray-prefixed windows), no driver traceback
NEFF_RUNTIME_LINES = NEFF_MISMATCH[:18]
#: the driver's RayTaskError traceback alone (from its first line to the end of the paste)
NEFF_DRIVER = NEFF_MISMATCH[18:]
#: the driver's traceback as rank 1's, tagged
NEFF_DRIVER_RANK1 = ["[rank1]: " + line for line in NEFF_DRIVER]
#: the same traceback printed by both ranks
NEFF_DRIVER_BOTH = ["[rank0]: " + line for line in NEFF_DRIVER] + ["[rank1]: " + line for line in NEFF_DRIVER]
#: the launcher traceback with an exception line after its last frame (the thread's was not visible)
LITEPOD_WITH_EXCEPTION = LITEPOD_RUNTIME + [
    "RuntimeError: Bad StatusOr access: UNKNOWN: TPU initialization failed: Failed to establish SliceBuilder grpc channel"
]
#: the root-comm line from two workers
ROOT_COMM_TWICE = ROOT_COMM_UNSET + ROOT_COMM_UNSET
#: the root-comm line as rank 3's raised RuntimeError
ROOT_COMM_RANK3 = ["[rank3]: RuntimeError: " + line for line in ROOT_COMM_UNSET]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # as collected, pasted and laid out as the threads say
    "litepod-runtime-as-pasted": (LITEPOD_RUNTIME, None, None, None, None),
    "litepod-runtime-four-hosts": (LITEPOD_RUNTIME, 4, 16, None, None),
    "root-comm-unset-as-pasted": (ROOT_COMM_UNSET, None, None, None, None),
    "root-comm-unset-64-workers": (ROOT_COMM_UNSET, 32, 64, None, None),
    # read right since session 61: the runtime's program check names rank 0, a collective-mismatch
    "neff-mismatch-as-pasted": (NEFF_MISMATCH, None, None, 0, "collective-mismatch"),
    "neff-mismatch-two-workers": (NEFF_MISMATCH, 1, 2, 0, "collective-mismatch"),
    "neff-runtime-lines-only-names-rank0": (NEFF_RUNTIME_LINES, 1, 2, 0, "collective-mismatch"),
    # variants that must not name anyone
    "neff-driver-on-both-ranks-names-none": (NEFF_DRIVER_BOTH, 1, 2, None, None),
    "litepod-with-exception-names-none": (LITEPOD_WITH_EXCEPTION, 4, 16, None, None),
    "root-comm-twice-names-none": (ROOT_COMM_TWICE, 32, 64, None, None),
    # contrasts that must name a rank
    "neff-driver-rank1-tagged-names-rank1": (NEFF_DRIVER_RANK1, 1, 2, 1, "python-exception"),
    "root-comm-rank3-runtimeerror-names-rank3": (ROOT_COMM_RANK3, 32, 64, 3, "python-exception"),
}
BATCHED = Batched("b375", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_accelerator_incident_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])


def _gist(lines: list[str], folder: Path, nproc: int | None, world: int | None) -> list[tuple]:
    return [(f["rule"], f["severity"], f["cause"], f["ranks"]) for f in pasted_findings(lines, folder, nproc, world, NOW)]


def test_neff_cc_ops_mismatch_reads_as_rank0_collective_mismatch(tmp_path):
    """aws-neuron-sdk#779 as collected, read right since session 61: laid out as 2 x 1, rank 0's raised RuntimeError is
    its program's failed load, a collective-mismatch (critical); as pasted the runtime's check names rank 0 (nccl-hang).
    The Neuron lines `mismatching number of cc ops ... Check if ranks 0 and 1 are using the same neff` are read."""
    assert _gist(NEFF_MISMATCH, tmp_path / "a", None, None) == [
        ("nccl-hang", "critical", "collective-mismatch", [0]), ("rank-failure", "info", "python-exception", [])]
    assert _gist(NEFF_MISMATCH, tmp_path / "b", 1, 2) == [("rank-failure", "critical", "collective-mismatch", [0])]


def test_neuron_runtime_lines_alone_name_rank0(tmp_path):
    """The Neuron runtime's cross-replica NEFF validation failure, both workers' copies: rank 0's program differs."""
    assert _gist(NEFF_RUNTIME_LINES, tmp_path / "a", None, None) == [("nccl-hang", "critical", "collective-mismatch", [0])]
    assert _gist(NEFF_RUNTIME_LINES, tmp_path / "b", 1, 2) == [("nccl-hang", "critical", "collective-mismatch", [0])]


def test_launcher_header_and_root_comm_line_read_nothing(tmp_path):
    """pytorch/xla#8295 and ray#65070 as collected: no finding at all, pasted or laid out (controls read right)."""
    assert _gist(LITEPOD_RUNTIME, tmp_path / "a", None, None) == []
    assert _gist(LITEPOD_RUNTIME, tmp_path / "b", 4, 16) == []
    assert _gist(ROOT_COMM_UNSET, tmp_path / "c", None, None) == []
    assert _gist(ROOT_COMM_UNSET, tmp_path / "d", 32, 64) == []
