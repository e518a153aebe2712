"""Session 36 (issue 18): what a TCPStore host's count says. ``init_process_group``'s store is rank 0's; the host waits
for every client, its own connection among them, and times out with ``DistStoreError: Timed out after N seconds
waiting for clients. J/M clients joined.`` (c10d's ``TCPStore`` with ``wait_for_workers``): a count, not which.
``1/M`` is the host alone: no peer reached it, every other rank alike (a launch that never formed one group, the
navsim-srun-fix-notes control's 1/16) or the host unreachable (the sirzzang-blog control's 1/2: rank 1 was up, the
security group closed the port): no single culprit. A lone client now names no one even where the host announced
itself and the others said nothing (it named every other rank; the store-based barrier's lone arriver reads so since
batch 96). ``(M-1)/M`` leaves one rank out, which one only the ranks' own announcing lines say (Lightning's
``Initializing distributed: GLOBAL_RANK: r``): with them it is named, as before; a count alone names no one
(docs/rules.md, "Session 36: leftovers"). Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, pasted
from incident_kit import naming_findings

NOW = dt.datetime(2026, 12, 2, 12, 30, tzinfo=dt.timezone.utc)
HOST = "torch.distributed.DistStoreError: Timed out after {s} seconds waiting for clients. {j}/{m} clients joined."
TB = ["Traceback (most recent call last):", '  File "/workspace/train.py", line 118, in main',
      "    torch.distributed.init_process_group(backend, rank=global_rank, world_size=world_size)"]
VLLM = ["(VllmWorker rank=0 pid=2113) ERROR 07-14 09:12:55 [multiproc_executor.py:487] WorkerProc failed to start.",
        "Traceback (most recent call last):",
        '  File "/usr/lib/python3.12/site-packages/torch/distributed/rendezvous.py", line 189, in _create_c10d_store',
        "    return TCPStore(",
        "           ^^^^^^^^^"]


def _announce(*ranks: int, m: int) -> list[str]:
    return [f"Initializing distributed: GLOBAL_RANK: {r}, MEMBER: {r + 1}/{m}" for r in ranks]


#: key: (the pasted lines, the ranks a warning/critical finding must name: None for none)
CASES = {
    # the real wordings: vLLM's 601 s 1/2 (batch 185's digest), navsim's 1/16 cut after its full stop, sirzzang's 1/2
    "vllm-1-of-2": ([*VLLM, HOST.format(s=601, j=1, m=2)], None),
    "navsim-1-of-16-cut": (["torch.distributed.DistStoreError: Timed out after 3601 seconds waiting for clients. ",
                            "1/16 clients joined."], None),
    "eks-1-of-2": (["[init] host=nccl-master-0 rank=0 ws=2 master=nccl-master:29500", *TB,
                    HOST.format(s=121, j=1, m=2)], None),
    # a lone client where the host announced itself and no other rank said anything: no one (it named every other rank)
    "lone-host-announced-1-of-3": ([*_announce(0, m=3), *TB, HOST.format(s=21, j=1, m=3)], None),
    "lone-host-announced-1-of-4": ([*_announce(0, m=4), *TB, HOST.format(s=21, j=1, m=4)], None),
    "lone-host-announced-1-of-16": ([*_announce(0, m=16), *TB, HOST.format(s=1801, j=1, m=16)], None),
    "lone-host-announced-rank-tagged-1-of-8": ([*_announce(0, m=8), *(f"[rank0]: {t}" for t in TB),
                                               "[rank0]: " + HOST.format(s=601, j=1, m=8)], None),
    # a count alone places no one: one of four out, which one no line says
    "three-of-four-alone": ([*TB, HOST.format(s=21, j=3, m=4)], None),
    "seven-of-eight-alone": ([*TB, HOST.format(s=601, j=7, m=8)], None),
    # a count whose announcing ranks do not match it (two announced, one joined): a split or blocked store, no one
    "announced-more-than-joined": ([*_announce(0, 1, 2, m=4), *TB, HOST.format(s=21, j=1, m=4)], None),
    # contrasts kept: the ranks' own lines account for the count: the ones that never announced never joined
    "three-of-four-announced": ([*_announce(0, 1, 2, m=4), *TB, HOST.format(s=21, j=3, m=4)], [3]),
    "two-of-four-announced": ([*_announce(0, 2, m=4), *TB, HOST.format(s=21, j=2, m=4)], [1, 3]),
    # a world of two: the one other rank (the recorded t4-lightning-never-joins run's culprit)
    "one-of-two-host-announced": ([*_announce(0, m=2), *TB, HOST.format(s=7, j=1, m=2)], [1]),
}
BATCHED = Batched("s36-store-clients", list(CASES))


def _make(key: str, folder: Path):
    return pasted(CASES[key][0], folder, None, NOW, world=None)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_a_store_host_s_count_names_only_ranks_the_ranks_own_lines_leave_out(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    got = [(f["rule"], f["cause"], f["ranks"]) for f in named]
    want = CASES[key][1]
    if want is None:
        assert named == [], got
    else:
        assert named and all(f["ranks"] == want and f["cause"] == "never-joined" for f in named), got
