"""Workstation multi-GPU P2P (real incidents batch 158): their wordings, pinned as read.
A hang of the first collective over PCIe P2P (consumer RTX 4090 pairs, RTX A6000s behind an ACS-enabled AMD switch,
RTX PRO 6000 Blackwell, AMD GPUs without ``iommu=pt``) meets every GPU alike and the pastes carry nothing of one
rank's own: nccl-tests' header of one process driving two devices (NVIDIA/nccl-tests#117), with or without the
NCCL start-up INFO of a ``NCCL_P2P_DISABLE=1`` run (tinygrad/open-gpu-kernel-modules#45) or the first ``via
P2P/direct pointer`` channel (NVIDIA/nccl#606); every torchrun worker's identical start-up INFO with the harmless
``NCCL WARN Failed to open libibverbs.so[.1]`` (NVIDIA/nccl#857); RCCL's host-wide ``Missing "iommu=pt"`` WARN that
lands under rank 0 only (ROCm/vllm#390); a P2P-disabled smoke test where both ranks finish
(local-inference-lab/rtx6kpro#15). None of them names a rank. Contrasts: a worker's own CUDA OOM with the agent's
``failed ... local_rank`` line (a mixed pair whose smaller card runs out first) and fifteen of sixteen watchdog
waiters on one SeqNum still name their rank. No rule changed for the batch (all six met as collected). Pasted logs
through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import naming_findings

NOW = dt.datetime(2026, 12, 2, 3, 0, tzinfo=dt.timezone.utc)


def _header(
    n: int, gpu: str = "NVIDIA GeForce RTX 4090", pid: int = 871210
) -> list[str]:
    """nccl-tests' header of one process driving ``n`` devices (nccl-tests-117's shape)."""
    out = [
        f"# nThread 1 nGpus {n} minBytes 8 maxBytes 134217728 step: 2(factor) warmup iters: 5 iters: 20 validation: 1 ",
        "#",
        "# Using devices",
    ]
    out += [
        f"#   Rank  {r} Pid {pid} on 4090-INSTALL device  {r} [0x{r + 1:02x}] {gpu}"
        for r in range(n)
    ]
    return out + [
        "#",
        "#                                                       out-of-place                       in-place          ",
        "#       size         count      type   redop     time   algbw   busbw  error     time   algbw   busbw  error",
        "#        (B)    (elements)                       (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s) ",
    ]


HOST = "i-56butc28zq2jtjaluzq7va7p6:9822"
P2P_OFF_STARTUP = [
    f"{HOST}:9822 [0] NCCL INFO Bootstrap: Using bond0:10.0.11.5<0>",
    f"{HOST}:9822 [0] NCCL INFO cudaDriverVersion 12080",
    f"{HOST}:9822 [0] NCCL INFO NCCL version 2.26.5+cuda12.9",
    f"{HOST}:9928 [0] NCCL INFO NET/Plugin: Could not find: libnccl-net.so. Using internal net plugin.",
    f"{HOST}:9928 [0] NCCL INFO Using network IB",
    f"{HOST}:9929 [1] NCCL INFO Using network IB",
    f"{HOST}:9938 [0] NCCL INFO Channel 01 : 0[0] -> 1[1] via SHM/direct/direct",
]
A6000_PAIR = [
    "nccl-tests:225:225 [0] NCCL INFO Bootstrap : Using eno1np0:172.31.45.2<0>",
    "nccl-tests:225:225 [0] NCCL INFO NET/IB : No device found.",
    "NCCL version 2.8.2+cuda11.1",
    "nccl-tests:225:240 [1] NCCL INFO Trees [0] -1/-1/-1->1->0 [1] -1/-1/-1->1->0",
    "nccl-tests:225:239 [0] NCCL INFO Channel 00/02 :    0   1",
    "nccl-tests:225:240 [1] NCCL INFO Setting affinity for GPU 3 to ffffffff,ffffffff,ffffffff,ffffffff",
    "nccl-tests:225:239 [0] NCCL INFO Setting affinity for GPU 2 to ffffffff,ffffffff,ffffffff,ffffffff",
    "nccl-tests:225:240 [1] NCCL INFO Channel 00 : 1[c2000] -> 0[c1000] via P2P/direct pointer",
]


def _startup(ranks) -> list[str]:
    """nccl-857's shape: each torchrun worker's NCCL start-up with the no-InfiniBand WARN, blank lines kept."""
    out: list[str] = []
    for r in ranks:
        tag = f"ai:{480850 + r}:{480850 + r} [{r}]"
        out += [
            f"{tag} NCCL INFO Bootstrap : Using eth0:162.30.2.40<0>",
            f"{tag} NCCL INFO NET/Plugin : No plugin found (libnccl-net.so), using internal implementation",
            "",
            f"{tag} misc/ibvwrap.cc:63 NCCL WARN Failed to open libibverbs.so[.1]",
            f"{tag} NCCL INFO NET/Socket : Using [0]eth0:162.30.2.40<0>",
            f"{tag} NCCL INFO Using network Socket",
        ]
    return out


IOMMU_WARN = (
    "supllm:402:402 [0] /longer_pathname_so_that_rpms_can_support_packaging_the_debug_info_for_all_os_profiles/src/"
    'out/ubuntu-22.04/22.04/build/rccl/hipify/src/init.cc:179 NCCL WARN Missing "iommu=pt" from kernel command '
    "line which can lead to system instablity or hang!"
)
BANNER = [
    "HIP version  : 6.4.43482-0f2d60242",
    "ROCm version : 6.4.0.0-47-73dae9c",
    "Hostname     : supllm",
    "Librccl path : /opt/rocm/lib/librccl.so.1",
]


def _rccl(quoted: bool) -> list[str]:
    """vllm-rocm-390's shape: rank 0's host-wide IOMMU WARN, both workers' banners, worker 1's INFO."""
    return [
        ("> " if quoted else "") + IOMMU_WARN,
        "supllm:402:402 [0] NCCL INFO RCCL version : 2.22.3-HEAD:271856d",
        *BANNER,
        "supllm:461:461 [1] NCCL INFO Bootstrap : Using enp203s0:192.168.100.86<0>",
        "supllm:461:461 [1] NCCL INFO RCCL version : 2.22.3-HEAD:271856d",
        *BANNER,
        "supllm:461:461 [1] NCCL INFO NET/Plugin: Could not find: librccl-net.so. Using internal network plugin.",
        "supllm:461:461 [1] NCCL INFO Failed to open libibverbs.so[.1]",
    ]


SMOKE = [
    "rank 0: all_reduce result=3.0",
    "rank 1: all_reduce result=3.0",
    "rank 0: test complete",
    "rank 1: test complete",
]
SMOKE_P2P_OFF = ["Channel 00 : 1[1] -> 0[0] via SHM/direct/direct", *SMOKE]

OOM_RANK1 = [
    "[rank1]: Traceback (most recent call last):",
    '[rank1]:   File "/home/user/train.py", line 88, in <module>',
    "[rank1]:     loss.backward()",
    "[rank1]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.50 GiB. GPU 1 has a total capacity of "
    "11.76 GiB of which 1.06 GiB is free. Including non-PyTorch memory, this process has 10.68 GiB memory in use.",
    "W1202 02:58:11.304000 5120 torch/distributed/elastic/multiprocessing/api.py:897] Sending process 5131 closing "
    "signal SIGTERM",
    "E1202 02:58:11.519000 5120 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: 1) "
    "local_rank: 1 (pid: 5132) of binary: /home/user/.venv/bin/python",
]


def _waiter(r: int, seq: int) -> list[str]:
    """PyTorch 2.x's watchdog pair for rank ``r`` waiting on the default group's ``seq``."""
    pg = f"[PG ID 0 PG GUID 0(default_pg) Rank {r}]"
    return [
        f"[rank{r}]:[E1202 02:41:07.{118236473 + 97 * r} ProcessGroupNCCL.cpp:685] {pg} Watchdog caught collective "
        f"operation timeout: WorkNCCL(SeqNum={seq}, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) "
        f"ran for {600087 + r} milliseconds before timing out.",
        f"[rank{r}]:[E1202 02:41:07.{118302713 + 97 * r} ProcessGroupNCCL.cpp:2251] {pg}  failure detected by "
        f"watchdog at work sequence id: {seq} PG status: last enqueued work: {seq}, last completed work: {seq - 1}",
    ]


#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone: None)
CASES = {
    # nccl-tests-117's shape: one process, two 4090s, the hang after the results header (and eight devices)
    "4090-header-hang": (
        ["user@4090-INSTALL:~/nccl-tests$ ./build/all_reduce_perf -g 2"] + _header(2),
        None,
        None,
        None,
    ),
    "4090-header-eight-devices": (_header(8), None, None, None),
    # open-gpu-kernel-modules-45's shape: the P2P-disabled run's header and start-up INFO
    "4090-p2p-disabled-startup": (_header(2) + P2P_OFF_STARTUP, None, None, None),
    # nccl-606's shape: the A6000 pair's INFO up to the first P2P/direct pointer channel
    "a6000-pair-p2p-direct": (
        _header(2, "NVIDIA RTX A6000", 225) + A6000_PAIR,
        None,
        None,
        None,
    ),
    # nccl-857's shape: four workers' identical start-up, all four and with the fourth cut
    "four-workers-startup": (_startup([0, 2, 1, 3]), 4, 4, None),
    "three-workers-startup-fourth-cut": (
        _startup([0, 2, 1]) + ["ai:480853:480853 [3] NCCL INFO Bootstrap"],
        4,
        4,
        None,
    ),
    "four-workers-startup-no-layout": (_startup([0, 2, 1, 3]), None, None, None),
    # vllm-rocm-390's shape: the IOMMU WARN under rank 0, with and without the paste's quote marker
    "rccl-iommu-warn-rank0-quoted": (_rccl(True), 2, 2, None),
    "rccl-iommu-warn-rank0": (_rccl(False), 2, 2, None),
    "rccl-iommu-warn-no-layout": (_rccl(False), None, None, None),
    # rtx6kpro-15's shape: the P2P-disabled smoke test where both ranks finish
    "smoke-test-both-finish": (SMOKE, 2, 2, None),
    "smoke-test-shm-channel": (SMOKE_P2P_OFF, 2, 2, None),
    # contrasts: a mixed pair's smaller card runs out of memory first, and the agent names its worker ...
    "mixed-pair-rank1-own-oom": (_startup([0, 1]) + OOM_RANK1, 2, 2, 1),
    # ... and fifteen of sixteen waiters on one SeqNum name the rank never shown
    "fifteen-waiters-rank5-absent": (
        [x for r in range(16) if r != 5 for x in _waiter(r, 40)],
        8,
        16,
        5,
    ),
}
BATCHED = Batched("b158", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_workstation_p2p_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3])
