"""The newest threads (real incidents batch 154, opened in 2026's second half): their wordings, pinned as read.
sglang's scheduler watchdog dump (sgl-project/sglang#33549: ``[<time> TP<n>] Scheduler debug info:`` blocks of every
TP rank on the same request, then ``Scheduler watchdog timeout`` and the launcher's ``SIGQUIT received``) is a hang
met by every rank alike and names no one; a Megatron-Bridge pipeline-group watchdog timeout, abridged by its author
(NVIDIA-NeMo/Megatron-Bridge#5088: ``[PG ID 6 ... PIPELINE_MODEL_PARALLEL_GROUP Rank 1]``) or in PyTorch 2.10's full
wording for a lone waiter on SeqNum 1, names no one; NCCL 2.28's ``ncclCommShrink`` test (NVIDIA/nccl#2397: excluded
ranks 0 and 1 leave by design, the survivors' AllReduce iterations and every rank's ``Done``, with or without the GIN
plugin's start-up lines) names no one. Contrasts: a TP rank's own CUDA OOM in the same dump names that rank, and
fifteen of sixteen ranks' watchdog timeouts on one SeqNum still name the absent rank. No rule changed for the batch
(all three met as collected). Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import naming_findings

NOW = dt.datetime(2026, 12, 2, 3, 0, tzinfo=dt.timezone.utc)
REQ = (
    "scheduler.cur_batch_for_debug.reqs=[Req(rid=3e64727659014c729d0ee75279c38a28, input_ids=array('q', [0, 90, "
    "27791, 13172, 297, 1761, 6885, 55159, 28, 4  ... <input_ids truncated> ..."
)
WATCHDOG = "[2026-08-04 11:58:43 TP0] Scheduler watchdog timeout (self.watchdog_timeout=300, self.soft=False)"
SIGQUIT = "[2026-08-04 11:58:48] SIGQUIT received. signum=None, frame=None. It usually means one child failed."


def _dump(tps) -> list[str]:
    """sglang-33549's shape: each TP rank's scheduler debug block, all on the same request."""
    out: list[str] = []
    for t in tps:
        out += [
            f"[2026-08-04 11:58:42 TP{t}] Scheduler debug info:",
            "scheduler.cur_batch_for_debug.batch_size()=1",
            REQ,
            f"[full] total=4974080, available={1024 * (t + 1)}, evictable=4947200, protected=24832, "
            "session_held=0, uncached=0",
            "[swa] total=497408, available=1280, evictable=494848, protected=256, session_held=0, uncached=0",
            "",
        ]
    return out


OOM_TP3 = [
    "[2026-08-04 11:58:42 TP3] Scheduler hit an exception: Traceback (most recent call last):",
    '  File "/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py", line 3118, in run_scheduler_process',
    "    scheduler.event_loop_overlap()",
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 3 has a total capacity of 95.00 GiB "
    "of which 1.02 GiB is free.",
    "",
]
PP_ABRIDGED = [
    "[PG ID 6 ... PIPELINE_MODEL_PARALLEL_GROUP Rank 1]",
    "Watchdog caught collective operation timeout:",
    "WorkNCCL(SeqNum=1, OpType=COALESCED, Timeout(ms)=1800000)",
]
PP_FULL = [
    "[rank9]:[E725 10:41:07.118236473 ProcessGroupNCCL.cpp:685] [PG ID 6 PG GUID 623(PIPELINE_MODEL_PARALLEL_GROUP) "
    "Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1, OpType=COALESCED, NumelIn=0, "
    "NumelOut=0, Timeout(ms)=1800000) ran for 1800087 milliseconds before timing out.",
    "[rank9]:[E725 10:41:07.118302713 ProcessGroupNCCL.cpp:2251] [PG ID 6 PG GUID 623(PIPELINE_MODEL_PARALLEL_GROUP) "
    "Rank 1]  failure detected by watchdog at work sequence id: 1 PG status: last enqueued work: 1, last completed "
    "work: -1",
]


def _waiter(r: int, seq: int) -> list[str]:
    """PyTorch 2.10's watchdog pair for rank ``r`` waiting on the default group's ``seq``."""
    pg = f"[PG ID 0 PG GUID 0(default_pg) Rank {r}]"
    return [
        f"[rank{r}]:[E725 10:41:07.{118236473 + 97 * r} ProcessGroupNCCL.cpp:685] {pg} Watchdog caught collective "
        f"operation timeout: WorkNCCL(SeqNum={seq}, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=1800000) "
        f"ran for {1800087 + r} milliseconds before timing out.",
        f"[rank{r}]:[E725 10:41:07.{118302713 + 97 * r} ProcessGroupNCCL.cpp:2251] {pg}  failure detected by watchdog "
        f"at work sequence id: {seq} PG status: last enqueued work: {seq}, last completed work: {seq - 1}",
    ]


GIN = [
    "ubuntu2:321049:321049 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/RoCE [1]mlx5_1:1/RoCE [RO]; OOB "
    "ens16f1:10.153.235.11<0>",
    "ubuntu2:321049:321049 [0] NCCL INFO Initialized NET plugin IB",
    "ubuntu2:321049:321049 [0] NCCL INFO Assigned NET plugin IB to comm",
    "ubuntu2:321049:321049 [0] NCCL INFO ncclOsDlopen(libnccl-gin.so) failed: libnccl-gin.so: cannot open shared "
    "object file: No such file or directory",
    "ubuntu2:321049:321049 [0] NCCL INFO GIN/Plugin: Could not find: libnccl-gin.so",
    "ubuntu2:321049:321049 [0] NCCL INFO Assigned GIN plugin GIN_IB_GDAKI to comm",
    "ubuntu2:321049:321049 [0] NCCL INFO Assigned RMA plugin GIN_IB_PROXY to comm",
    "ubuntu2:321049:321049 [0] NCCL INFO Using network IB",
]


def _shrink(excluded_done: bool = True) -> list[str]:
    """nccl-2397's shape: the shrunk communicator's last connections, the survivors' iterations, every rank done."""
    out = [
        "ubuntu4:251908:251908 [1] NCCL INFO Channel 00 : 1[1] -> 0[0] via SHM/direct/direct",
        "ubuntu4:251908:251908 [1] NCCL INFO Connected all rings, use ring PXN 0 GDR 1",
        "ubuntu4:251907:251907 [0] NCCL INFO Connected all rings, use ring PXN 0 GDR 1",
    ]
    for i in range(10):
        out += [
            f"[3] AllReduce iteration {i} completed.",
            f"[2] AllReduce iteration {i} completed.",
        ]
    done = [
        "[0] Excluded rank done.",
        "[2] Done.",
        "[1] Excluded rank done.",
        "[3] Done.",
    ]
    out += done if excluded_done else [line for line in done if "Excluded" not in line]
    return out + [
        "pengbobo@ubuntu2:~/nccl_bak/nccl/docs/examples/01_communicators/test$_"
    ]


#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone: None)
CASES = {
    # sglang-33549's shape: two TP ranks' blocks as pasted, all eight, and the watchdog's kill after them
    "sglang-dump-tp1-tp7": (_dump([1, 7]), 8, 8, None),
    "sglang-dump-all-eight": (_dump(range(8)), 8, 8, None),
    "sglang-dump-watchdog-sigquit": (_dump(range(8)) + [WATCHDOG, SIGQUIT], 8, 8, None),
    "sglang-dump-watchdog-no-layout": (
        _dump(range(8)) + [WATCHDOG, SIGQUIT],
        None,
        None,
        None,
    ),
    # Megatron-Bridge-5088's shape: the author's abridged lines, and the full PyTorch 2.10 wording of a lone waiter
    "pp-group-abridged": (PP_ABRIDGED, 8, 16, None),
    "pp-group-abridged-no-layout": (PP_ABRIDGED, None, None, None),
    "pp-group-full-lone-waiter": (PP_FULL, 8, 16, None),
    # nccl-2397's shape: with and without the GIN start-up lines, and with the excluded ranks' lines cut
    "shrink-survivors-done": (_shrink(), 2, 4, None),
    "shrink-gin-startup": (GIN + _shrink(), 2, 4, None),
    "shrink-no-layout": (_shrink(), None, None, None),
    "shrink-excluded-lines-cut": (_shrink(excluded_done=False), 2, 4, None),
    # contrasts: a TP rank's own OOM in the dump is that rank's ...
    "sglang-dump-tp3-own-oom": (
        _dump([0, 1, 2, 4, 5, 6, 7]) + OOM_TP3 + [SIGQUIT],
        8,
        8,
        3,
    ),
    # ... and fifteen of sixteen waiters on one SeqNum still name the rank never shown
    "fifteen-waiters-rank12-absent": (
        [x for r in range(16) if r != 12 for x in _waiter(r, 40)],
        8,
        16,
        12,
    ),
}
BATCHED = Batched("b154", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_newest_threads_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3])
