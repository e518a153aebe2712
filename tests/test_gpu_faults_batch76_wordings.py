"""Batch 76's GPU and fabric fault shapes (tests/data/real-incidents, ``"batch": 76``, family ``gpu-faults``), each
with its wording variants, as one pasted log through ``k10s import-logs`` (docs/rules.md, "Session 26: batch 76"):

* culprit: one rank's ``Process group watchdog thread terminated with exception: CUDA error: …`` (an unspecified
  launch failure, an uncorrectable ECC error, an illegal memory access) behind a pdsh host prefix
  (``192.168.13.81: [rank19]:…``), other hosts' lines only training progress — that rank, ``cuda-error``
  (LlamaFactory-8871);
* controls: both hosts' NCCL proxies reporting the old ``NET/IB : Got completion with error 12, opcode 1, len 0,
  vendor err 129`` (no peer in the wording), the communicators destroyed, then one host's NCCL ``Cuda failure 'an
  illegal memory access was encountered'`` at teardown (nccl-tests-24: a RoCE GID index every rank shared); Ray
  workers failing vLLM's NCCL initialisation alike, one traceback printed and the others folded into ``[repeated Nx
  across cluster]`` (vllm-7896: the bad node is not in the paste); one rank's ``found async exception … NCCL error:
  remote process exited or there was a network error`` after its proxy's ``NET/IB: Got completion from peer … with
  status=5 … vendor err 249`` (DeepSpeed-6875: one side of a link) — none names a rank.

The analyses go through tests/bundle_batch.py (every input in one analysis). Batch 76's two other controls (a lone
rank's watchdog illegal memory access that the thread lays on a platform or a library kernel every rank runs) are
NOT_YET in tests/corpus_not_yet.py.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import corpus_log, naming_findings

NOW = dt.datetime(2026, 12, 1, 2, 0, tzinfo=dt.timezone.utc)

PDSH = corpus_log("LlamaFactory-8871-pdsh-rank19-watchdog-unspecified-launch-failure")
IB_BOTH = corpus_log("nccl-tests-24-ib-error12-both-hosts-gid-index-control")
RAY = corpus_log("vllm-7896-ray-workers-nccl-init-bad-node-unplaced-control")
REMOTE = corpus_log("DeepSpeed-6875-rank4-ib-status5-one-side-of-link-control")

ERRORS = {"launch": "unspecified launch failure", "ecc": "uncorrectable ECC error encountered",
          "ima": "an illegal memory access was encountered"}


def _pdsh(rank: int, error: str) -> str:
    return PDSH.replace("[rank19]:", f"[rank{rank}]:").replace("Rank 19]", f"Rank {rank}]").replace(
        "unspecified launch failure", ERRORS[error])


def _ib_both(device: int, host: str) -> str:
    """Both hosts' IB completion errors, then the CUDA failure of ``host``'s device ``device`` at teardown."""
    text = IB_BOTH.replace("gpu5:35917:35917 [1] ", f"gpu5:35917:35917 [{device}] ")
    return text if host == "gpu5" else text.replace("gpu5: Test", "gpu4: Test").replace(" .. gpu5:", " .. gpu4:").replace(
        f"gpu5:35917:35917 [{device}] ", f"gpu4:35902:35902 [{device}] ")


def _ray(times: int) -> str:
    return RAY.replace("[repeated 6x across cluster]", f"[repeated {times}x across cluster]")


def _remote(rank: int) -> str:
    return REMOTE.replace("[rank4]:", f"[rank{rank}]:").replace("[Rank 4]", f"[Rank {rank}]").replace(
        "36821 [4]", f"36821 [{rank % 8}]")


# key: (shape, parameter, …); the expected culprit
CULPRITS = {("pdsh", 19, "launch"): 19, ("pdsh", 5, "ecc"): 5, ("pdsh", 11, "ima"): 11}
CONTROLS = [("ib_both", 1, "gpu5"), ("ib_both", 3, "gpu5"), ("ib_both", 2, "gpu4"),
            ("ray", 6), ("ray", 3), ("ray", 15),
            ("remote", 4), ("remote", 0), ("remote", 13)]
BUILD = {"pdsh": _pdsh, "ib_both": _ib_both, "ray": _ray, "remote": _remote}
#: processes per node and world, as the threads state them (None: unknown)
LAYOUT = {"pdsh": (8, None), "ib_both": (None, 8), "ray": (None, None), "remote": (8, 16)}
BATCHED = Batched("gpu-faults-batch76", list(CULPRITS) + CONTROLS)


def _make(key: tuple, folder: Path) -> object:
    nproc, world = LAYOUT[key[0]]
    return pasted(BUILD[key[0]](*key[1:]), folder, nproc, NOW, world)


@pytest.mark.parametrize("key", BATCHED.params(CULPRITS))
def test_a_lone_ranks_watchdog_cuda_fault_behind_a_host_prefix_names_it(tmp_path_factory, key):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CULPRITS[key], "cuda-error")


@pytest.mark.parametrize("key", BATCHED.params(CONTROLS))
def test_the_fabric_and_init_controls_name_no_one(tmp_path_factory, key):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, None)


def test_the_variants_keep_their_shape():
    """The builders change ranks, devices, hosts and counts, not the wording the tests are about."""
    text = _pdsh(5, "ecc")
    assert "192.168.13.81: [rank5]:" in text and "Rank 5] Process group watchdog" in text and text.endswith("encountered\n")
    assert _ib_both(3, "gpu5").count("Got completion with error 12") == 2 and "gpu5:35917:35917 [3] init.cu" in _ib_both(3, "gpu5")
    swapped = _ib_both(2, "gpu4")
    assert "gpu4:35902:35902 [2] init.cu:194 NCCL WARN Cuda failure" in swapped and "gpu4: Test NCCL failure" in swapped
    assert "gpu5: Test" not in swapped and swapped.count("Got completion with error 12") == 2
    assert "gpu5:35917:35917 [0] NCCL INFO Destroyed comm 0x7f24c4001af0 rank 4" in swapped
    assert _ray(15).count("[repeated 15x across cluster]") == 4 and "pid=11305" in _ray(15)
    remote = _remote(13)
    assert "[rank13]:" in remote and "[Rank 13] found async exception" in remote and "36821 [5] ib_plugin" in remote
