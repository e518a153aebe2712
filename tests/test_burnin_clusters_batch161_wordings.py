"""Cluster qualification and benchmark runs, nccl-tests ``all_reduce_perf`` under ``mpirun`` (real incidents batch
161): the readings held. The controls: MPICH's ``Abort(3712399) on node 0 (rank 0 in comm 0): Fatal error in
PMPI_Init`` followed by a one-node ``-np 2 -g 2`` run whose ``node1:`` process gets an invalid device ordinal
(NVIDIA/nccl-tests#92: MPI not functional, the command over-asks GPUs), and ``--host g0010:8,g0016:8`` with ``-g 8``
where processes on both hosts fail alike with ``invalid device ordinal`` (NVIDIA/nccl-tests#263): neither names a rank
at warning or above. What the log cannot show is not named either: nccl-tests' device table with one host's older GPU
and start-up INFO only (NVIDIA/nccl-tests#179, the culprit by the thread), and two hosts' NCCL plugin INFO lines, one
without ``libnccl-net.so`` (NVIDIA/nccl#1634). Contrast, the boundary of the NOT_YET kept for nccl-tests-322 and -1:
Open MPI's ``first process to do so`` report still names its process (nccl-tests-294's shape). The parser change of the
batch: nccl-tests' own check of a CUDA call (``Cuda failure common.cu:891 'invalid device ordinal'``, ``node1: Test CUDA
failure common.cu:963 '…'``) is the process's CUDA error, so the first exit's process is named with ``cuda-error``
(the last process of a node of known size given a missing ordinal, LMFlow-855's shape). Pasted logs through ``k10s
import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import naming_findings

NOW = dt.datetime(2026, 12, 2, 3, 0, tzinfo=dt.timezone.utc)

#: nccl-tests-92's shape: MPICH's PMI failure at init, then a one-node run over-asking GPUs
PMI_ABORT = [
    "Abort(3712399) on node 0 (rank 0 in comm 0): Fatal error in PMPI_Init: Other MPI error, error stack:",
    "MPIR_Init_thread(159).......: ",
    "MPID_Init(597)..............: ",
    "MPIDI_UCX_mpi_init_hook(250): ",
    "initial_address_exchange(97): ",
    "MPIR_pmi_kvs_get(227).......: PMI_KVS_Get returned -1",
]
ONE_NODE_ORDINAL = [
    "# nThread 1 nGpus 2 minBytes 8 maxBytes 134217728 step: 2(factor) warmup iters: 5 iters: 20 validation: 1 ",
    "#",
    "# Using devices",
    "node1: Test CUDA failure common.cu:963 'invalid device ordinal'",
    " .. node1 pid 198671: Test failure common.cu:925",
]


def _every_host(hosts: list[str], line: int = 941) -> list[str]:
    """nccl-tests-263's shape: each process on every host fails its device selection alike."""
    out = ["# Using devices"]
    for i, host in enumerate(hosts):
        out += [
            f"{host}: Test CUDA failure common.cu:{line} 'invalid device ordinal'",
            f" .. {host} pid {888380 + i}: Test failure common.cu:891",
        ]
    return out


#: nccl-tests-179's shape: the device table of two hosts with different GPUs, start-up INFO only
MIXED_GPUS = [
    "# nThread 1 nGpus 1 minBytes 32 maxBytes 64 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 "
    "graph: 0",
    "#",
    "# Using devices",
    "#  Rank  0 Group  0 Pid  12171 on  manolinux device  0 [0x01] NVIDIA RTX A2000",
    "#  Rank  1 Group  0 Pid   4449 on manolinux1 device  0 [0x0f] Quadro K620",
    "manolinux:12171:12171 [0] NCCL INFO Bootstrap : Using eno1:10.39.43.133<0>",
    "NCCL version 2.19.3+cuda11.5",
    "manolinux1:4449:4449 [0] NCCL INFO cudaDriverVersion 12020",
    "manolinux1:4449:4449 [0] NCCL INFO Bootstrap : Using enp1s0:10.39.42.196<0>",
]
#: nccl-1634's shape: one host without the network plugin, one loading HPC-X's (a reply's quote markers kept)
PLUGIN_SPLIT = [
    "> > HGX-H100-11:18226:18274 [5] NCCL INFO NET/Plugin: Could not find: libnccl-net.so. Using internal network "
    "plugin.",
    "> > HGX-H100-04:589474:589541 [0] NCCL INFO Plugin Path : /opt/hpcx/nccl_rdma_sharp_plugin/lib/libnccl-net.so",
]


def _first_exit(vpid: int, code: int = 3) -> list[str]:
    """Open MPI's report of the first process to exit non-zero (nccl-tests-294's shape)."""
    return [
        "-" * 74,
        "mpirun detected that one or more processes exited with non-zero status, thus causing",
        "the job to be terminated. The first process to do so was:",
        "",
        f"  Process name: [[44912,1],{vpid}]",
        f"  Exit code:    {code}",
        "-" * 74,
    ]


#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone: None)
CASES = {
    # the controls: MPICH's PMI abort and a one-node over-ask, apart and together, fenced
    "pmi-abort": (PMI_ABORT, None, None, None),
    "one-node-ordinal": (ONE_NODE_ORDINAL, None, None, None),
    "pmi-abort-then-one-node-ordinal": (
        PMI_ABORT + [""] + ONE_NODE_ORDINAL,
        None,
        None,
        None,
    ),
    "pmi-abort-then-one-node-ordinal-fenced": (
        ["```"] + PMI_ABORT + ONE_NODE_ORDINAL + ["```"],
        None,
        None,
        None,
    ),
    # every host's processes alike: two hosts, four, with the launch's layout, an older nccl-tests line number
    "every-host-ordinal": (
        _every_host(["g0010", "g0010", "g0010", "g0016"]),
        None,
        None,
        None,
    ),
    "every-host-ordinal-four-hosts": (
        _every_host(["g0010", "g0016", "g0020", "g0031"]),
        None,
        None,
        None,
    ),
    "every-host-ordinal-layout": (_every_host(["g0010", "g0016"] * 2), 8, 16, None),
    "every-host-ordinal-old-line": (
        _every_host(["node-a", "node-b"], line=732),
        None,
        None,
        None,
    ),
    # what the log cannot show: an older GPU in the device table, a plugin on one host only
    "mixed-gpus-startup-only": (MIXED_GPUS, None, None, None),
    "mixed-gpus-startup-only-world2": (MIXED_GPUS, 1, 2, None),
    "plugin-split-quoted": (PLUGIN_SPLIT, None, None, None),
    "plugin-split-unquoted": ([x[4:] for x in PLUGIN_SPLIT], 8, 16, None),
    # contrast: Open MPI's first exit alone names its process (the boundary nccl-tests-1 and -322 wait on)
    "first-exit-alone": (_first_exit(10), None, None, 10),
    # nccl-tests' own CUDA check read as the process's CUDA error: the last process of a two-process node given an
    # ordinal past the node's GPUs is its own (ordinal_alike, LMFlow-855's shape), in both wordings of the check
    "harness-cuda-failure-2017-first-exit": (
        ["Cuda failure common.cu:891 'invalid device ordinal'"] + _first_exit(1, 1),
        2,
        2,
        1,
    ),
    "harness-cuda-failure-host-first-exit": (
        [
            "node1: Test CUDA failure common.cu:963 'invalid device ordinal'",
            " .. node1 pid 9972: Test failure common.cu:842",
        ]
        + _first_exit(1, 2),
        2,
        2,
        1,
    ),
}
#: the cause a naming finding must give, where the case names a rank
CAUSES = {k: "cuda-error" for k in CASES if k.startswith("harness-cuda-failure")}
BATCHED = Batched("b161", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_burnin_clusters_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CAUSES.get(key))
