"""NCCL's own ``NCCL WARN Cuda failure ... 'invalid argument'`` raised in its NVLS transport (``transport/nvls.cc``)
names no rank (real incidents batch 175, pytorch/pytorch#150852: on the one node whose driver is CUDA 12.2, NCCL's
NVLS set-up fails during communicator init and rank 0's traceback is the one pasted; the same run works on nodes with
another driver). NVLS is the node's NVSwitch multicast, which every local rank sets up together: the driver or fabric
manager refusing it refuses them all, so the lone reporter is the copy shown, not a culprit (queries/_incident.sql
``common_mode``; docs/rules.md, "Session 34: batch 175"). NCCL's WARN of the same refusal from its other transports
(shared memory, P2P) and an NVLS failure that is not an invalid argument stay the reporting rank's. Pasted logs
through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import naming_findings

NOW = dt.datetime(2026, 12, 2, 7, 0, tzinfo=dt.timezone.utc)
TB = [
    "[rank{r}]: Traceback (most recent call last):",
    '[rank{r}]:   File "/home/u/repro.py", line 12, in <module>',
    "[rank{r}]:     dist.all_reduce(x)",
    "[rank{r}]: torch.distributed.DistBackendError: NCCL error in: /pytorch/torch/csrc/distributed/c10d/NCCLUtils.cpp:77,"
    " unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL version 2.26.2",
]


def _nvls(
    r: int,
    *,
    stamp: bool = True,
    line: int = 254,
    code: str = "1 ",
    err: str = "invalid argument",
    host: str = "devgpu263",
    transport: str = "transport/nvls.cc",
) -> list[str]:
    pid = 589012 + r
    head = "[2025-04-08 08:39:46] " if stamp else ""
    return [
        f"{head}{host}:{pid}:{pid + 2640} [{r}] {transport}:{line} NCCL WARN Cuda failure {code}'{err}'",
        f"{host}:{pid}:{pid + 2640} [{r}] NCCL INFO transport/nvls.cc:409 -> 1",
        f"{host}:{pid}:{pid + 2640} [{r}] NCCL INFO init.cc:1141 -> 1",
        f"{host}:{pid}:{pid} [{r}] NCCL INFO init.cc:1836 -> 1",
        *(t.format(r=r) for t in TB),
    ]


#: key: (the pasted lines, the rank a warning/critical finding must name alone: None for none); NPROC: the processes
#: per node the import is told (else what the paste says)
CASES = {
    # pytorch-150852's shape: the NVLS WARN with its timestamp, the return chain, rank 0's traceback
    "nvls-lone-rank0": (_nvls(0), None),
    # without the timestamp prefix, and NCCL 2.18's wording without the error number
    "nvls-bare": (_nvls(0, stamp=False), None),
    "nvls-2.18-no-code": (_nvls(0, stamp=False, line=165, code=""), None),
    # the WARN alone, no traceback
    "nvls-warn-only": (_nvls(0)[:4], None),
    # a lone rank 3 of the node, and two local ranks alike
    "nvls-lone-rank3": (_nvls(3, stamp=False), None),
    "nvls-lone-rank3-8x4": (_nvls(3, stamp=False), None),
    "nvls-two-ranks": (_nvls(0, stamp=False) + _nvls(1, stamp=False), None),
    # contrasts that stay the reporter's: the refusal from NCCL's shared-memory transport (pytorch-23534's shape) ...
    "shm-lone-rank4": (
        [
            f"ip-172-31-44-237:52617:53046 [4] NCCL INFO Ring 0{n} : {a} -> {b} via {how} "
            for n, a, b, how in (
                (0, "4[4]", "5[5]", "P2P/IPC"),
                (0, "4[4]", "3[3]", "direct shared memory"),
                (2, "4", "19 [send]", "NET/Socket/0"),
                (2, "19", "4 [receive]", "NET/Socket/0"),
                (3, "4[4]", "1[1]", "direct shared memory"),
            )
        ]
        + [
            "",
            "ip-172-31-44-237:52617:53046 [4] include/shm.h:42 NCCL WARN Cuda failure 'invalid argument' ",
        ],
        4,
    ),
    # ... and an NVLS failure that is not an invalid argument (a GPU out of memory is that GPU's)
    "nvls-oom-rank2": (_nvls(2, stamp=False, code="2 ", err="out of memory"), 2),
}
#: the shared-memory contrast as its corpus case is imported (8 per node, 32 in all: NCCL's `[4]` is local rank 4), and
#: the NVLS cases so too (a known layout places the lone reporter as surely)
NPROC = {
    "shm-lone-rank4": (8, 32),
    "nvls-lone-rank3-8x4": (8, 32),
    "nvls-oom-rank2": (8, 32),
}
BATCHED = Batched("b175", list(CASES))


def _make(key: str, folder: Path):
    nproc, world = NPROC.get(key, (None, None))
    return pasted(CASES[key][0], folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_nvls_invalid_argument_names_no_rank(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][1])
