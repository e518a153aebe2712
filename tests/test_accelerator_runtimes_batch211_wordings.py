"""Distributed training on non-NVIDIA accelerators (real incidents batch 211): their runtimes' wordings, pinned as read.
Held controls: the Neuron collective bootstrap's ``bootstrap.cc:106 CCOM WARN Call to accept failed : Too many open
files`` on NeuronCores 15, 18 and 22 with ``[nec_dev N] bootstrapRecv failed for ch 1 nbr 4``, lines interleaved
mid-line (aws-neuron/aws-neuron-sdk#713, ``--nproc_per_node=32``), the neuronx_distributed T5 example's ranks 0 and 1
of 8 both retrying ``Timeout waiting for RX (waited 120 sec) - retrying, [bootstrapInit, rank: 0/8/-1]``
(aws-neuron/aws-neuron-sdk#851) and two processes' interleaved ``NRT:nrt_infodump`` both ending ``Failure:
NRT_INVALID in nrt_load()`` (aws-neuron/aws-neuron-sdk#1189) name no one, as pasted and in their layouts. The batch's
culprit torch_xla's rendezvous wait is read as naming no one too, and is NOT_YET (tests/corpus_not_yet_s36.py): it names
only the waiting rank 1 of ``global_devices=[0,1]`` (pytorch/xla#7974). HCCL's topology exchange (the CANN HCCL guide's
EI0015 page) is read since session 37 (tests/test_hccl_topology_s37_wordings.py). No rule changed for the batch. Pasted logs
through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 2, 13, 0, tzinfo=dt.timezone.utc)


XLA_WAIT = corpus_lines("pytorch-xla-7974-")
FD_LIMIT = corpus_lines("aws-neuron-sdk-713-")
RX_RETRY = corpus_lines("aws-neuron-sdk-851-")
NRT_LOAD = corpus_lines("aws-neuron-sdk-1189-")

#: the fd-limit lines without the mid-line interleaving (one thread's lines only)
FD_LIMIT_CLEAN = [
    line for line in FD_LIMIT if line.startswith("2023-Aug-01 16:12:43.0204 332066:")
]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # aws-neuron-sdk-713's shape: every NeuronCore's bootstrap out of file descriptors at once
    "neuron-bootstrap-too-many-open-files-as-pasted": (
        FD_LIMIT,
        None,
        None,
        None,
        None,
    ),
    "neuron-bootstrap-too-many-open-files-layout-32": (FD_LIMIT, 32, 32, None, None),
    "neuron-bootstrap-too-many-open-files-layout-32x2": (FD_LIMIT, 32, 64, None, None),
    "neuron-bootstrap-too-many-open-files-uninterleaved-32": (
        FD_LIMIT_CLEAN,
        32,
        32,
        None,
        None,
    ),
    # aws-neuron-sdk-851's shape: ranks 0 and 1 of 8 both retry the bootstrap RX wait
    "neuron-bootstrapinit-rx-retry-as-pasted": (RX_RETRY, None, None, None, None),
    "neuron-bootstrapinit-rx-retry-layout-2": (RX_RETRY, 2, 2, None, None),
    "neuron-bootstrapinit-rx-retry-layout-8": (RX_RETRY, 8, 8, None, None),
    # aws-neuron-sdk-1189's shape: two processes' runtime dumps, both NRT_INVALID in nrt_load()
    "neuron-nrt-load-invalid-two-dumps-as-pasted": (NRT_LOAD, None, None, None, None),
    "neuron-nrt-load-invalid-two-dumps-layout-2": (NRT_LOAD, 2, 2, None, None),
    # NOT_YET culprits, as read today (no one): the XLA rendezvous wait names only the waiting rank
    "xla-rendezvous-wait-rank1-as-pasted": (XLA_WAIT, None, None, None, None),
    "xla-rendezvous-wait-rank1-layout-2": (XLA_WAIT, 2, 2, None, None),
}
BATCHED = Batched("b211", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_accelerator_runtimes_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])
