"""Forum threads and blog post-mortems of multi-GPU failures outside GitHub issues (real incidents batch 316), pinned as
read. Three controls, collected blind: torchrun's ``Root Cause (first observed failure)`` block naming ``rank: 5
(local_rank: 5)``, ``exitcode: 1`` under a traceback cut after ``store = TCPStore(`` (MetaX developer forum post 430:
every one of eight workers fails alike with EADDRINUSE at rendezvous in a MACA container) names rank 5 (NOT_YET, batch
316); a blog post-mortem's two ``Error: rank 27 and rank 19 both on CUDA device 53000 (PCI 53:00.0)`` lines (GPU
enumeration differing across nodes, fixed with ``CUDA_DEVICE_ORDER=PCI_BUS_ID``) are read as nothing at all; a Chinese
blog's one ``DistBackendError ... ainode01: ncclInternalError: Internal check failed.`` line (NCCL on the wrong NIC,
fixed with ``NCCL_SOCKET_IFNAME``) is a NCCL failure of no rank. Scored 2/3 both ways as collected; no rule changed
(measure only). Contrasts: without the summary's ``rank: 5`` line nobody is named; renumbered, rank 2 is named;
``exitcode: -9`` names rank 5 killed by the host's OOM killer; the author's ``EADDRINUSE`` block alone names no one and
above the summary does not move it off rank 5; NCCL's own duplicate-GPU wording (``ncclInvalidUsage``) is every
process's; a ``[rank3]:`` tag on the NCCL line names rank 3. Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 5, 14, 0, tzinfo=dt.timezone.utc)

RENDEZVOUS_ROOT_CAUSE = corpus_lines("metax-forum-430-")
DUPLICATE_GPU_PAIRS = corpus_lines("thomaskalnik-deepseek-v3-part4-")
NCCL_INTERNAL_HOST = corpus_lines("rhkb-463024-")

#: the author's error block above the pasted one (the post's first block, split from it by a prose label)
EADDRINUSE = [
    "RuntimeError: The server socket has failed to listen on any local network address.",
    "port: 29500",
    "useIpv6: 0",
    "code: -98",
    "name: EADDRINUSE",
    "message: address already in use",
]
#: torchrun's summary without its ``rank: 5 (local_rank: 5)`` line
ROOT_CAUSE_NO_RANK = [
    line for line in RENDEZVOUS_ROOT_CAUSE if not line.startswith("rank: 5")
]
#: the same summary naming rank 2 (and its error file)
ROOT_CAUSE_RANK_2 = [
    line.replace("rank: 5 (local_rank: 5)", "rank: 2 (local_rank: 2)").replace(
        "attempt_0/5/", "attempt_0/2/"
    )
    for line in RENDEZVOUS_ROOT_CAUSE
]
#: the same summary with the worker killed by SIGKILL
ROOT_CAUSE_SIGKILL = [
    line.replace("exitcode: 1", "exitcode: -9") for line in RENDEZVOUS_ROOT_CAUSE
]
#: NCCL's own words for the same collision, under torch's ``ncclInvalidUsage`` error
NCCL_DUPLICATE_GPU = [
    "torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/NCCLUtils.hpp:317, invalid usage "
    "(run with NCCL_DEBUG=WARN for details), NCCL version 2.20.5",
    "ncclInvalidUsage: This usually reflects invalid usage of NCCL library.",
    "Last error:",
    "Duplicate GPU detected : rank 27 and rank 19 both on CUDA device 53000",
]
#: the blog's NCCL line under a rank's own tag
NCCL_INTERNAL_RANK_3 = ["[rank3]: " + NCCL_INTERNAL_HOST[0]]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # as collected, pasted and laid out as the threads say (today's reading; the first is NOT_YET, batch 316)
    "rendezvous-root-cause-as-pasted": (
        RENDEZVOUS_ROOT_CAUSE,
        None,
        None,
        5,
        "python-exception",
    ),
    "rendezvous-root-cause-eight-ranks": (
        RENDEZVOUS_ROOT_CAUSE,
        8,
        8,
        5,
        "python-exception",
    ),
    "duplicate-gpu-pairs-as-pasted": (DUPLICATE_GPU_PAIRS, None, None, None, None),
    "duplicate-gpu-pairs-eight-per-node": (DUPLICATE_GPU_PAIRS, 8, 32, None, None),
    "nccl-internal-host-as-pasted": (NCCL_INTERNAL_HOST, None, None, None, None),
    "nccl-internal-host-two-nodes": (NCCL_INTERNAL_HOST, 8, 16, None, None),
    # contrasts
    "root-cause-without-rank-line-names-none": (ROOT_CAUSE_NO_RANK, 8, 8, None, None),
    "root-cause-rank2-names-rank2": (ROOT_CAUSE_RANK_2, 8, 8, 2, "python-exception"),
    "root-cause-sigkill-names-rank5-oom": (
        ROOT_CAUSE_SIGKILL,
        8,
        8,
        5,
        "host-oom-kill",
    ),
    "eaddrinuse-alone-names-none": (EADDRINUSE, 8, 8, None, None),
    "eaddrinuse-above-root-cause-names-rank5": (
        EADDRINUSE + RENDEZVOUS_ROOT_CAUSE,
        8,
        8,
        5,
        "python-exception",
    ),
    "nccl-duplicate-gpu-names-none": (NCCL_DUPLICATE_GPU, 8, 32, None, None),
    "nccl-internal-rank3-names-rank3": (NCCL_INTERNAL_RANK_3, 8, 16, 3, "nccl-error"),
}
BATCHED = Batched("b316", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_forum_page_wordings_as_read(key, tmp_path_factory):
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


def test_duplicate_gpu_pairs_are_not_read(tmp_path):
    """The blog's ``Error: rank 27 and rank 19 both on CUDA device ...`` lines are no failure at all (not even of no
    rank), while NCCL's own ``ncclInvalidUsage`` wording of the same collision is every process's NCCL failure."""
    assert _failures(DUPLICATE_GPU_PAIRS, tmp_path / "a", 8, 32) == []
    assert _failures(NCCL_DUPLICATE_GPU, tmp_path / "b", 8, 32) == [
        ("warning", "nccl-error", [])
    ]


def test_nccl_internal_error_under_a_host_prefix_is_of_no_rank(tmp_path):
    """The launcher's ``ainode01:`` host prefix inside the NCCL line names no rank: a NCCL failure (warning) of no
    rank, laid out or not."""
    assert _failures(NCCL_INTERNAL_HOST, tmp_path / "a", None, None) == [
        ("warning", "nccl-error", [])
    ]
    assert _failures(NCCL_INTERNAL_HOST, tmp_path / "b", 8, 16) == [
        ("warning", "nccl-error", [])
    ]


def test_eaddrinuse_block_is_a_failure_of_no_rank(tmp_path):
    """The author's EADDRINUSE block alone is a Python failure (warning) of no rank: nothing in it names a worker."""
    assert _failures(EADDRINUSE, tmp_path, 8, 8) == [
        ("warning", "python-exception", [])
    ]
