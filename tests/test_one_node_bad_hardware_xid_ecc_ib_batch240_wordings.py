"""One node, GPU or NIC gone bad (Xid / uncorrectable ECC / IB events; real incidents batch 240), pinned as read. Four
controls that name no one, as pasted and laid out by their own nproc/world: a training job's ``CUDA error:
uncorrectable ECC error encountered`` block with no rank, pid or host on it (jade-hpc-gpu#194: node dgk713 repaired by
the admins); a server's dmesg of ``Xid 43`` on PCI 3d:00 and ``Xid 31`` MMU faults on PCI db:00, one pid per run
(pytorch/pytorch#51382: "my device 7 is faulty", read as gpu-health of the node, no rank); the THC-era ``cuda runtime
error (39) : uncorrectable ECC error`` of an 8-GPU run with its ``terminate called`` (NVIDIA/semantic-segmentation#33:
the maintainer's "hardware", no GPU named); eight ranks of one host initialising NCCL and three of them warning ``NET/IB
: Got async event : client reregistration`` (deepspeedai/DeepSpeed#3272: an HCA event every process sees, read as
nothing). Scored 4/4 both ways as collected; no rule changed (measure only).
Contrasts: the ECC block on ``[rank3]:``-tagged lines names rank 3 (cuda-error); the THC error under torchrun's
``[default5]:`` tee prefix names rank 5; the IB host with rank 5's own ECC error added names rank 5 (cuda-error); the
IB event worded ``port error`` still names no one; an ``Xid 79`` added to the dmesg is a critical gpu-health finding
that still names no rank. Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt

import pytest

from bundle_batch import Batched, assert_one_rank, pasted_cases, pasted_findings
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 4, 7, 0, tzinfo=dt.timezone.utc)

NODE_ECC = corpus_lines("jade-hpc-gpu-194-")
DMESG_XID = corpus_lines("pytorch-51382-")
THC_ECC = corpus_lines("semantic-segmentation-33-")
IB_REREG = corpus_lines("DeepSpeed-3272-")

#: the ECC block as torch >= 2.2 prints a rank's exception (``[rank3]:`` on every line)
ECC_RANK3 = ["[rank3]: " + line for line in NODE_ECC]
#: the THC-era ECC error as ``torchrun --tee`` prefixes it for local rank 5 (role ``default``)
THC_DEFAULT5 = ["[default5]:" + line for line in THC_ECC]
#: the IB host with rank 5's own ECC error after the warnings
IB_RANK5_ECC = IB_REREG + ["[rank5]: RuntimeError: CUDA error: uncorrectable ECC error encountered"]
#: the same async event worded as a port error (a flapping link) on the same three processes
IB_PORT_ERROR = [line.replace("client reregistration", "port error") for line in IB_REREG]
#: the dmesg with the GPU falling off the bus at the end
XID_79 = "[Sat Jan 30 01:00:00 2021] NVRM: Xid (PCI:0000:db:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus."

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # controls, as pasted and laid out as the threads say
    "node-ecc-as-pasted": (NODE_ECC, None, None, None, None),
    "node-ecc-one-node-of-4": (NODE_ECC, 4, 4, None, None),
    "dmesg-xid-as-pasted": (DMESG_XID, None, None, None, None),
    "dmesg-xid-one-node-of-8": (DMESG_XID, 8, 8, None, None),
    "thc-ecc-as-pasted": (THC_ECC, None, None, None, None),
    "thc-ecc-one-node-of-8": (THC_ECC, 8, 8, None, None),
    "ib-rereg-as-pasted": (IB_REREG, None, None, None, None),
    "ib-rereg-one-node-of-8": (IB_REREG, 8, 8, None, None),
    # contrasts
    "ecc-rank3-tagged-names-rank3": (ECC_RANK3, 4, 4, 3, "cuda-error"),
    "thc-ecc-default5-names-rank5": (THC_DEFAULT5, 8, 8, 5, "cuda-error"),
    "ib-rank5-ecc-names-rank5": (IB_RANK5_ECC, 8, 8, 5, "cuda-error"),
    "ib-port-error-names-none": (IB_PORT_ERROR, 8, 8, None, None),
    "dmesg-xid79-names-none": (DMESG_XID + [XID_79], 8, 8, None, None),
}
BATCHED = Batched("b240", list(CASES))


_make = pasted_cases(CASES, NOW)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_bad_hardware_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])


def _analyze(lines, tmp_path, nproc, world):
    return pasted_findings(lines, tmp_path, nproc, world, NOW)


def test_unranked_ecc_is_a_cuda_error_of_no_rank(tmp_path):
    """The dgk713 block reads as a CUDA error (ECC) that no rank owns: a rank-failure warning with no ranks."""
    findings = _analyze(NODE_ECC, tmp_path, None, None)
    got = [(f["rule"], f["severity"], f["cause"], f["ranks"]) for f in findings]
    assert got == [("rank-failure", "warning", "cuda-error", [])], got


def test_dmesg_xids_are_the_nodes_gpu_health(tmp_path):
    """Xid 31 (MMU fault, warning) and Xid 43 (info) read as gpu-health of the node; an added Xid 79 is critical; none
    of them names a rank (a PCI bus and a pid are not a rank)."""
    findings = _analyze(DMESG_XID, tmp_path / "a", 8, 8)
    assert sorted((f["cause"], f["severity"]) for f in findings) == [("xid-31", "warning"), ("xid-43", "info")], findings
    assert all(f["rule"] == "gpu-health" and not f["ranks"] for f in findings)
    fell_off = _analyze(DMESG_XID + [XID_79], tmp_path / "b", 8, 8)
    critical = [f for f in fell_off if f["severity"] == "critical"]
    assert [(f["rule"], f["cause"], f["ranks"]) for f in critical] == [("gpu-health", "xid-79", [])], fell_off


def test_thc_era_ecc_wording_reads_as_a_cuda_error(tmp_path):
    """The THC-era ``cuda runtime error (39) : uncorrectable ECC error`` is a cuda-error (a Python exception as
    collected; session 44), as the same fault in torch's current wording (``CUDA error: uncorrectable ECC ...``) is;
    neither names a rank without a rank on the line."""
    old = _analyze(THC_ECC, tmp_path / "a", 8, 8)
    assert [(f["cause"], f["ranks"]) for f in old if f["rule"] == "rank-failure"] == [("cuda-error", [])], old
    new = _analyze([NODE_ECC[0], THC_ECC[1]], tmp_path / "b", 8, 8)
    assert [(f["cause"], f["ranks"]) for f in new if f["rule"] == "rank-failure"] == [("cuda-error", [])], new


def test_ib_async_events_alone_are_not_findings(tmp_path):
    """Three processes of one host warning the same IB async event (reregistration or port error) give no finding at
    all: an event of the node's HCA, no rank's failure."""
    assert _analyze(IB_REREG, tmp_path / "a", 8, 8) == []
    assert _analyze(IB_PORT_ERROR, tmp_path / "b", 8, 8) == []
