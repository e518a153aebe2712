"""NVIDIA/nccl threads of 2025-2026 (real incidents batch 347), pinned as read.
Three controls, collected blind, all read as collected (3/3 both ways, none named): a bootstrap that fails because a
foreign connection closes before sending NCCL's 8-byte magic (NVIDIA/nccl#1612, fixed in v2.27.3: ``socketProgress:
Connection closed by remote peer`` and a ``-> 6`` return chain, host:pid:tid trimmed to ``[0]``) gives no finding at
all; vLLM's ``ncclCommInitRank failed with error: NCCL error: internal error`` from a malformed aws-ofi-nccl topology
file every H100 worker loads (NVIDIA/nccl#1726) is a warning nccl-error of no rank; PyTorch's ``DistBackendError ...
unhandled cuda error`` with NCCL's ``Failed to bind NVLink SHARP (NVLS) Multicast memory ... CUDA error 2 'out of
memory'`` and its Fabric Manager hint (NVIDIA/nccl#2077: NCCL 2.29.7 exhausting the NVSwitch's 128 multicast slots) is a
warning cuda-error of no rank, not a CUDA OOM. No rule changed (measure only). Contrasts: the bootstrap chain followed by
a rank's ``unhandled system error`` names that rank, by its ``ncclRemoteError`` (a victim's wording) no one; the topology
error under a ``[rank5]:`` tag names rank 5; the NVLS bind lines keep even a ``[rank3]:``-tagged error unnamed, and
without them the same ``[rank3]:`` DistBackendError names rank 3 (nccl-error). Pasted logs through ``k10s
import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted, pasted_cases
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 5, 23, 0, tzinfo=dt.timezone.utc)

BOOTSTRAP_PEER_CLOSED = corpus_lines("nccl-1612-")
TOPO_XML_INTERNAL = corpus_lines("nccl-1726-")
NVLS_SLOTS = corpus_lines("nccl-2077-")


def _tagged(lines: list[str], rank: int) -> list[str]:
    """``lines`` as torchrun's ``[rankN]:`` prefix prints them."""
    return [f"[rank{rank}]:{line}" for line in lines]


#: the trimmed ``[0]`` lines given back a host:pid:tid prefix and rank 3's ``[rank3]:`` tag
BOOTSTRAP_HOST_RANK3 = _tagged(
    [line.replace("[0] ", "node1:2211:2301 [0] ", 1) for line in BOOTSTRAP_PEER_CLOSED],
    3,
)
#: the bootstrap chain, then rank 1's PyTorch error for the same init: a system error of its own
BOOTSTRAP_THEN_SYSTEM_ERROR = BOOTSTRAP_PEER_CLOSED + [
    "[rank1]: torch.distributed.DistBackendError: NCCL error in: /pytorch/torch/csrc/distributed/c10d/NCCLUtils.hpp:268,"
    " unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version 2.21.5"
]
#: the bootstrap chain, then rank 1's ncclRemoteError: the remote side's fault in its own words
BOOTSTRAP_THEN_REMOTE_ERROR = BOOTSTRAP_PEER_CLOSED + [
    "[rank1]: torch.distributed.DistBackendError: NCCL error in: /pytorch/torch/csrc/distributed/c10d/NCCLUtils.hpp:268,"
    " remote process exited or there was a network error, NCCL version 2.21.5",
    "[rank1]: ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.",
]
#: vLLM's error lines without the ``ncclCommInitRank failed`` line: only the worker's generic traceback header
TOPO_XML_NO_NCCL_LINE = TOPO_XML_INTERNAL[1:]
#: PyTorch's error and NCCL's summary without the NVLS bind and Fabric Manager lines, under ``[rank3]:``
NVLS_FREE_RANK3 = _tagged(NVLS_SLOTS[:2], 3)

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # as collected, pasted and laid out as the threads say
    "bootstrap-peer-closed-as-pasted": (BOOTSTRAP_PEER_CLOSED, None, None, None, None),
    "topo-xml-internal-error-as-pasted": (TOPO_XML_INTERNAL, None, None, None, None),
    "topo-xml-internal-error-two-nodes-of-8": (TOPO_XML_INTERNAL, 8, 16, None, None),
    "nvls-slot-exhaustion-as-pasted": (NVLS_SLOTS, None, None, None, None),
    "nvls-slot-exhaustion-eight-gpus": (NVLS_SLOTS, 8, 8, None, None),
    # contrasts
    "bootstrap-host-prefix-rank3-names-none": (BOOTSTRAP_HOST_RANK3, 4, 4, None, None),
    "bootstrap-then-system-error-names-rank1": (
        BOOTSTRAP_THEN_SYSTEM_ERROR,
        4,
        4,
        1,
        "nccl-error",
    ),
    "bootstrap-then-remote-error-names-none": (
        BOOTSTRAP_THEN_REMOTE_ERROR,
        4,
        4,
        None,
        None,
    ),
    "topo-xml-internal-error-rank5-names-rank5": (
        _tagged(TOPO_XML_INTERNAL, 5),
        8,
        16,
        5,
        "nccl-error",
    ),
    "topo-xml-without-nccl-line-names-none": (TOPO_XML_NO_NCCL_LINE, 8, 16, None, None),
    "nvls-slot-exhaustion-rank3-names-none": (_tagged(NVLS_SLOTS, 3), 8, 8, None, None),
    "dist-backend-error-rank3-without-nvls-names-rank3": (
        NVLS_FREE_RANK3,
        8,
        8,
        3,
        "nccl-error",
    ),
}
BATCHED = Batched("b347", list(CASES))
_make = pasted_cases(CASES, NOW)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_nccl_repo_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])


def _failures(
    lines: list[str], folder: Path, nproc: int | None, world: int | None
) -> list[tuple]:
    from k10s_forensics.analyze.runner import analyze

    findings = analyze(pasted(lines, folder, nproc, NOW, world=world))["findings"]
    return [
        (f["severity"], f["cause"], f["ranks"])
        for f in findings
        if f["rule"] == "rank-failure"
    ]


def test_bootstrap_chain_alone_is_no_failure(tmp_path):
    """NCCL's WARN and ``-> 6`` return chain with no exception after it is no failure at all, trimmed or with its
    host:pid:tid prefix and a ``[rank3]:`` tag."""
    assert _failures(BOOTSTRAP_PEER_CLOSED, tmp_path / "a", None, None) == []
    assert _failures(BOOTSTRAP_HOST_RANK3, tmp_path / "b", 4, 4) == []


def test_topology_internal_error_is_an_nccl_error_of_no_rank(tmp_path):
    """vLLM's ``ncclCommInitRank failed ... internal error`` is a warning nccl-error, no rank named."""
    assert _failures(TOPO_XML_INTERNAL, tmp_path, 8, 16) == [
        ("warning", "nccl-error", [])
    ]


def test_nvls_bind_out_of_memory_is_a_cuda_error_not_an_oom(tmp_path):
    """NCCL's NVLS multicast bind failing with ``CUDA error 2 'out of memory'`` reads as a cuda-error of no rank (the
    NVSwitch's multicast slots, not device memory): no cuda-oom, with or without a ``[rank3]:`` tag."""
    from k10s_forensics.analyze.runner import analyze

    assert _failures(NVLS_SLOTS, tmp_path / "a", 8, 8) == [
        ("warning", "cuda-error", [])
    ]
    assert _failures(_tagged(NVLS_SLOTS, 3), tmp_path / "b", 8, 8) == [
        ("warning", "cuda-error", [])
    ]
    findings = analyze(pasted(NVLS_SLOTS, tmp_path / "c", 8, NOW, world=8))["findings"]
    assert "cuda-oom" not in {f["cause"] for f in findings}, [
        (f["rule"], f["cause"]) for f in findings
    ]
