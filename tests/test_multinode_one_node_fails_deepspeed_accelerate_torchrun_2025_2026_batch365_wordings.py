"""One node fails in a multi-node DeepSpeed/pdsh run (real incidents batch 365), pinned as read. Three controls,
collected blind, all read right as collected (3/3 both ways, 0 of 3 named):

- EleutherAI/gpt-neox#919: ML-01 prints ``use_shared_fs ... True`` and builds the index maps ``on rank 0``; the
  paste ends at ``ML-02: Traceback (most recent call last):`` (the title's FileNotFoundError: the maps are not on
  ML-02's unshared disk, a storage set-up any non-rank-0 node would hit). No finding, as pasted or as two nodes of 8.
- EleutherAI/gpt-neox#1127: five pdsh hosts' interleaved frames down to ``doc_idx = np.load(...)``, no exception
  line (every distributed configuration fails alike). No finding, as pasted or as five nodes of 8.
- deepspeedai/DeepSpeed#2899: ``gpu-q-13: torch.cuda.OutOfMemoryError: ... (GPU 2; ...)`` of a 30B ZeRO-3 run the
  author sees at 1, 2 or 4 nodes alike. A critical cuda-oom of no rank, as pasted or as 4 nodes of 4.

Contrasts: the FileNotFoundError itself on ML-02 names rank 1 when the paste is laid out one process per node (the
importer's default: ML-02 is node 1) and no one as two nodes of 8 (which of ML-02's eight is unknown); the same line
tagged ``[rank9]:`` names rank 9; ML-01's copy beside ML-02's names no one. One gpt-neox#1127 host's untagged
exception is a Python failure of no rank; tagged ``[rank3]:`` it names rank 3. DeepSpeed#2899's OOM tagged
``[rank10]:`` names rank 10 (a warning); a second host's copy stays the job's critical OOM of no rank. No rule changed
(measure only). Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted, pasted_findings
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 6, 5, 0, tzinfo=dt.timezone.utc)

INDEX_MAPS = corpus_lines("gpt-neox-919-")
FIVE_HOSTS = corpus_lines("gpt-neox-1127-")
ZERO3_OOM = corpus_lines("deepspeed-2899-")

HOSTS = ("172.31.20.74", "172.31.21.158", "172.31.18.171", "172.31.21.63", "172.31.16.64")
FNF = ("FileNotFoundError: [Errno 2] No such file or directory: "
       "'data/enwik8_text_document_train_indexmap_576123680ns_2048sl_1234s_doc_idx.npy'")

#: ML-02's exception line, untagged by rank (what the title says the traceback ended in)
INDEX_MAPS_ML02_RAISES = INDEX_MAPS + ["ML-02: " + FNF]
#: the same line tagged with a global rank of ML-02's
INDEX_MAPS_RANK9_RAISES = INDEX_MAPS + ["ML-02: [rank9]: " + FNF]
#: both hosts raise it: every node's
INDEX_MAPS_BOTH_RAISE = INDEX_MAPS + ["ML-02: " + FNF, "ML-01: " + FNF]
#: one host's exception after the interleaved frames, untagged by rank
FIVE_HOSTS_ONE_RAISES = FIVE_HOSTS + [HOSTS[2] + ": " + FNF]
#: every host's
FIVE_HOSTS_ALL_RAISE = FIVE_HOSTS + [h + ": " + FNF for h in HOSTS]
#: one host's, tagged with a rank
FIVE_HOSTS_RANK3_RAISES = FIVE_HOSTS + [HOSTS[2] + ": [rank3]: " + FNF]
#: the OOM tagged with the global rank of gpu-q-13's GPU 2 (were it the third node)
ZERO3_OOM_RANK10 = [line.replace("gpu-q-13: ", "gpu-q-13: [rank10]: ") for line in ZERO3_OOM]
#: a second node's copy: the same OOM on two hosts
ZERO3_OOM_TWO_HOSTS = ZERO3_OOM + [line.replace("gpu-q-13", "gpu-q-14") for line in ZERO3_OOM]
#: the host tags taken off
ZERO3_OOM_UNTAGGED = [line.replace("gpu-q-13: ", "") for line in ZERO3_OOM]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # as collected, pasted and laid out as the threads say
    "index-maps-as-pasted": (INDEX_MAPS, None, None, None, None),
    "index-maps-two-nodes-of-8": (INDEX_MAPS, 8, 16, None, None),
    "five-hosts-as-pasted": (FIVE_HOSTS, None, None, None, None),
    "five-hosts-five-nodes-of-8": (FIVE_HOSTS, 8, 40, None, None),
    "zero3-oom-as-pasted": (ZERO3_OOM, None, None, None, None),
    "zero3-oom-four-nodes-of-4": (ZERO3_OOM, 4, 16, None, None),
    # variants that must not change it
    "index-maps-both-raise-names-none": (INDEX_MAPS_BOTH_RAISE, None, None, None, None),
    "index-maps-ml02-raises-two-nodes-of-8-names-none": (INDEX_MAPS_ML02_RAISES, 8, 16, None, None),
    "five-hosts-one-raises-names-none": (FIVE_HOSTS_ONE_RAISES, None, None, None, None),
    "five-hosts-all-raise-names-none": (FIVE_HOSTS_ALL_RAISE, None, None, None, None),
    "zero3-oom-two-hosts-names-none": (ZERO3_OOM_TWO_HOSTS, 4, 16, None, None),
    "zero3-oom-untagged-names-none": (ZERO3_OOM_UNTAGGED, None, None, None, None),
    # contrasts
    "index-maps-ml02-raises-one-per-node-names-rank1": (INDEX_MAPS_ML02_RAISES, None, None, 1, "python-exception"),
    "index-maps-rank9-raises-names-rank9": (INDEX_MAPS_RANK9_RAISES, 8, 16, 9, "python-exception"),
    "five-hosts-rank3-raises-names-rank3": (FIVE_HOSTS_RANK3_RAISES, 8, 40, 3, "python-exception"),
    "zero3-oom-rank10-names-rank10": (ZERO3_OOM_RANK10, 4, 16, 10, "cuda-oom"),
}
BATCHED = Batched("b365", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_one_node_fails_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])


def _gist(lines: list[str], folder: Path, nproc: int | None, world: int | None) -> list[tuple]:
    return [(f["rule"], f["severity"], f["cause"], f["ranks"]) for f in pasted_findings(lines, folder, nproc, world, NOW)]


def test_index_maps_without_the_exception_line_is_no_finding(tmp_path):
    """gpt-neox#919 as pasted: ML-01's index build and ML-02's bare traceback header are no finding at all, one
    process per node or two nodes of 8 (a traceback header is not a failure)."""
    assert _gist(INDEX_MAPS, tmp_path / "a", None, None) == []
    assert _gist(INDEX_MAPS, tmp_path / "b", 8, 16) == []


def test_ml02_exception_reads_by_layout(tmp_path):
    """ML-02's FileNotFoundError, untagged by rank: one process per node (the importer's default), ML-02 is node 1 and
    rank 1 is named (a warning python-exception: today's reading, though the thread's truth is the job's unshared
    storage, any non-rank-0 node's); two nodes of 8, which of ML-02's ranks raised is unknown and no rank is named."""
    assert _gist(INDEX_MAPS_ML02_RAISES, tmp_path / "a", None, None) == [
        ("rank-failure", "warning", "python-exception", [1])]
    assert _gist(INDEX_MAPS_ML02_RAISES, tmp_path / "b", 8, 16) == [
        ("rank-failure", "warning", "python-exception", [])]


def test_interleaved_frames_are_nothing_and_one_untagged_exception_is_no_rank(tmp_path):
    """gpt-neox#1127's five hosts' frames without an exception line: nothing; one host's untagged exception after them:
    a Python failure (warning) of no rank."""
    assert _gist(FIVE_HOSTS, tmp_path / "a", None, None) == []
    assert _gist(FIVE_HOSTS_ONE_RAISES, tmp_path / "b", None, None) == [
        ("rank-failure", "warning", "python-exception", [])]


def test_zero3_oom_is_a_critical_oom_of_no_rank(tmp_path):
    """DeepSpeed#2899's lone host OOM: the job's critical cuda-oom with no rank, tagged by host or not, one node of one
    or four nodes of 4; tagged ``[rank10]:`` it names rank 10 at warning."""
    want = [("oom-cascade", "critical", "cuda-oom", [])]
    assert _gist(ZERO3_OOM, tmp_path / "a", None, None) == want
    assert _gist(ZERO3_OOM, tmp_path / "b", 4, 16) == want
    assert _gist(ZERO3_OOM_UNTAGGED, tmp_path / "c", None, None) == want
    assert _gist(ZERO3_OOM_RANK10, tmp_path / "d", 4, 16) == [("oom-cascade", "warning", "cuda-oom", [10])]
