"""Forum threads and their issue-thread cross-posts (real incidents batch 171): their wordings, pinned as read.
Held controls: a two-node torchrun whose master node's devices fail NCCL's bootstrap connection alike
(``misc/socket.cc:505 -> 2 (Operation now in progress)`` ... ``group.cc:64 -> 2 [Async thread]``; pytorch/pytorch#131781,
also with the job's 8 x 2 layout), three ranks' PyTorch 2.x watchdog lines on one ALLREDUCE ``SeqNum=2521`` each followed
by ``timed out in blocking wait`` (huggingface/diffusers#12422, also in a world of 8), a lone Ray-prefixed verl worker's
rank 3 timing out in an ALLTOALL of process group 5 (GAIR-NLP/DeepResearcher#16, also without the Ray prefix), and rank
0's NCCL 2.4 socket ring set up to rank 1 before the job hangs (pytorch/pytorch#22531) name no one. The missed culprits
(NOT_YET_S34) are pinned as read: one process's unranked tqdm bar of a 200 GB scan with rank 6's lone 1.x ALLREDUCE
watchdog line wrapped by the terminal (huggingface/accelerate#314), and fairseq's terminal-wrapped ``CUD`` / ``A out of
memory ... (GPU 1; ...)`` warning with the failing process's device-0 summary (facebookresearch/fairseq#4352) name no
one. Contrasts: the same fairseq OOM under a ``[rank1]:`` tag names rank 1, and three of four ALLREDUCE waiters on one
SeqNum name the absent rank. No rule changed for the batch. Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import naming_findings

NOW = dt.datetime(2026, 12, 2, 6, 0, tzinfo=dt.timezone.utc)

# pytorch-131781's shape: devices of host g105 failing the bootstrap connect alike
CHAIN = [
    "misc/socket.cc:505 -> 2 (Operation now in progress)",
    "misc/socket.cc:570 -> 2",
    "misc/socket.cc:621 -> 2",
    "bootstrap.cc:275 -> 2",
    "init.cc:1493 -> 2",
    "group.cc:64 -> 2 [Async thread]",
]
PIDS = {0: (26921, 27058), 2: (26923, 27059), 4: (26925, 27053)}


def _bootstrap() -> list[str]:
    def line(dev: int, what: str) -> str:
        pid, tid = PIDS[dev]
        return f"g105:{pid}:{tid} [{dev}] NCCL INFO {what}"

    out = [
        "...",
        "g105:26927:27054 [6] NCCL INFO Using non-device net plugin version 0",
        "g105:26927:27054 [6] NCCL INFO Using network IB",
    ]
    for what in CHAIN:
        out += [line(0, what), line(4, what)]
    return out + [line(2, what) for what in CHAIN]


# diffusers-12422's shape: ranks 1, 7, 5 on one ALLREDUCE, each with the blocking-wait line
WORK = "WorkNCCL(SeqNum=2521, OpType=ALLREDUCE, NumelIn=160672064, NumelOut=160672064, Timeout(ms)=600000)"


def _waiters(ranks: list[int], seq: int = 2521) -> list[str]:
    work = WORK.replace("2521", str(seq))
    out = []
    for i, r in enumerate(ranks):
        stamp = f"[rank{r}]:[E1002 18:16:40.6{62 + i}329700"
        out += [
            f"{stamp} ProcessGroupNCCL.cpp:632] [Rank {r}] Watchdog caught collective operation timeout: {work} "
            "ran for 600000 milliseconds before timing out.",
            f"{stamp} ProcessGroupNCCL.cpp:756] [Rank {r}] Work {work} timed out in blocking wait.",
        ]
    return out


def _lone_alltoall(ray: bool = True) -> list[str]:
    """DeepResearcher-16's shape: one verl worker's rank 3, process group 5, the Ray prefix."""
    pre = "(WorkerDict pid=63294) " if ray else ""
    stamp = "[rank3]:[E416 20:40:12.98"
    return [
        f"{pre}{stamp}4683378 ProcessGroupNCCL.cpp:607] [Rank 3] Watchdog caught collective operation timeout: "
        "WorkNCCL(SeqNum=8, OpType=ALLTOALL, NumelIn=3150848, NumelOut=3150848, Timeout(ms)=600000) ran for 600000 "
        "milliseconds before timing out.",
        f"{pre}{stamp}6007770 ProcessGroupNCCL.cpp:1664] [PG 5 Rank 3] Exception (either an error or timeout) "
        "detected by watchdog at work: 8, last enqueued NCCL work: 10, last completed NCCL work: 7.",
        f"{pre}{stamp}6037518 ProcessGroupNCCL.cpp:1709] [PG 5 Rank 3] Timeout at NCCL work: 8, last enqueued NCCL "
        "work: 10, last completed NCCL work: 7.",
        f"{pre}{stamp}6061777 ProcessGroupNCCL.cpp:621] [Rank 3] Some NCCL operations have failed or timed out. Due "
        "to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data.",
        f"{pre}{stamp}6079237 ProcessGroupNCCL.cpp:627] [Rank 3] To avoid data inconsistency, we are taking the "
        "entire process down.",
    ]


# pytorch-22531's shape: rank 0's NCCL 2.4 socket ring to rank 1, then nothing
H = "ZBOX-EN1080K:10379"
RING = [
    f"{H}:10379 [0] NCCL INFO NET/Socket : Using [0]eth0:30.4.241.186<0>",
    f"{H}:10379 [0] NCCL INFO NET/Plugin : No plugin found (libnccl-net.so).",
    "",
    f"{H}:10379 [0] misc/ibvwrap.cu:63 NCCL WARN Failed to open libibverbs.so[.1]",
    "NCCL version 2.4.2+cuda10.0",
    f"{H}:10390 [0] NCCL INFO Setting affinity for GPU 0 to ff",
    f"{H}:10390 [0] NCCL INFO comm 0x7ff1c0001920 rank 0 nranks 2 cudaDev 0 nvmlDev 0",
    f"{H}:10390 [0] NCCL INFO CUDA Dev 0[0], Socket NIC distance :  PHB",
    f"{H}:10390 [0] NCCL INFO Channel 00 :    0   1",
    f"{H}:10390 [0] NCCL INFO NET/Socket : GPU Direct RDMA Disabled for GPU 0[0] / HCA 0 (distance 2 >= 2)",
    f"{H}:10390 [0] NCCL INFO Ring 00 : 1 -> 0 [receive] via NET/Socket/0",
    f"{H}:10390 [0] NCCL INFO Ring 00 : 0 -> 1 [send] via NET/Socket/0",
]

# accelerate-314's shape (NOT_YET): an unranked bar still scanning, rank 6's lone 1.x waiter wrapped at 175 columns
PAD = " " * 61
SCAN = [
    "<class 'data.read_data.LineShuffler'>: Init /vc_data/users/junpenghuang/trigger_model_data/0711-0814/"
    f"NegativeTrain{PAD}",
    " 35%|"
    + "█" * 40
    + " " * 73
    + "| 73811210851/208140108456 [30:01<57:14, 39115047.81MB/s]",
    "[E ProcessGroupNCCL.cpp:485] [Rank 6] Watchdog caught collective operation timeout: WorkNCCL(OpType=ALLREDUCE, "
    "Timeout(ms)=1800000) ran for 1802246 milliseconds before timing ",
    "out." + " " * 171,
]

# fairseq-4352's shape (NOT_YET): the trainer's OOM warning wrapped at 78 columns, the paste starting mid-row
OOM = [
    "| WARNING | fairseq.trainer | OOM: Ran out of memory with exception: CUD",
    "A out of memory. Tried to allocate 3.02 GiB (GPU 1; 23.70 GiB total capacity; ",
    "16.92 GiB already allocated; 1019.69 MiB free; 21.03 GiB reserved in total by ",
    "PyTorch)" + " " * 70,
    "2022-04-14 02:39:35 | WARNING | fairseq.trainer | |===========================",
    "================================================|                             ",
    "|                  PyTorch CUDA memory summary, device ID 0                 | ",
    "|" + "-" * 75 + "| ",
    "|            CUDA OOMs: 0            |        cudaMalloc retries: 0         | ",
    "|" + "=" * 75 + "| ",
]
OWN_OOM = [
    "[rank1]: Traceback (most recent call last):",
    '[rank1]:   File "/opt/fairseq/fairseq/trainer.py", line 870, in train_step',
    "[rank1]:     self.optimizer.step()",
    "[rank1]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 3.02 GiB (GPU 1; 23.70 GiB total "
    "capacity; 16.92 GiB already allocated; 1019.69 MiB free; 21.03 GiB reserved in total by PyTorch)",
]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # held controls
    "master-node-devices-bootstrap-alike": (_bootstrap(), None, None, None, None),
    "master-node-devices-bootstrap-alike-layout": (_bootstrap(), 8, 16, None, None),
    "three-blocking-waiters-one-seq": (_waiters([1, 7, 5]), None, None, None, None),
    "three-blocking-waiters-one-seq-world8": (_waiters([1, 7, 5]), 8, 8, None, None),
    "lone-ray-rank3-alltoall-pg5": (_lone_alltoall(), None, None, None, None),
    "lone-rank3-alltoall-pg5-no-ray": (
        _lone_alltoall(ray=False),
        None,
        None,
        None,
        None,
    ),
    "rank0-socket-ring-then-hang": (RING, 1, 2, None, None),
    # the missed culprits as read (NOT_YET_S34)
    "unranked-scan-bar-lone-rank6-waiter": (SCAN, None, None, None, None),
    # read since session 72 (docs/rules.md "Session 72: a padded paste's first row cut mid-row": the row joins its
    # tail): the OOM report rejoined names GPU 1, local rank 1
    "fairseq-wrapped-oom-gpu1": (OOM, 2, 2, 1, "cuda-oom"),
    # contrasts
    "fairseq-oom-under-rank1-tag": (OWN_OOM, 2, 2, 1, "cuda-oom"),
    "three-of-four-waiters-name-the-absent": (
        _waiters([1, 3, 2], seq=4178),
        4,
        4,
        0,
        None,
    ),
}
BATCHED = Batched("b171", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_forum_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])
