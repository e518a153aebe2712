"""Wordings found by real incidents batch 16 (docs/rules.md "Real incidents batch 16"):

* c10d's store-based barrier of ``init_process_group`` (torch < 2.0): the ranks that reached it say so
  (``Waiting in store based barrier to initialize process group for rank: 3, key:
  store_based_barrier_key:1 (world_size=8, worker_count=7, timeout=0:30:00)``, ``Added key: ... to store
  for rank: 3``, ``Rank 3: Completed store-based barrier ... with 8 nodes.``); the rank of the world never
  seen there, when exactly as many as the worker count says are missing, never joined;
* Horovod's stall warning naming the missing ranks with nothing else of the job in the paste
  (``HorovodBroadcast_x_0 [missing ranks: 0]``): the job is larger than the ranks it names missing, so
  those ranks are its culprits (they used to be read as "the whole job missing": no one).
"""

from __future__ import annotations

import datetime as dt

import pytest

from incident_kit import naming_findings
from k10s_forensics.analyze.runner import analyze
from k10s_forensics.logimport import LogSource, import_logs
from k10s_forensics.parsers.log_classify import classify

NOW = dt.datetime(2026, 11, 29, 4, 0, tzinfo=dt.timezone.utc)
WAIT = ("INFO:root:Waiting in store based barrier to initialize process group for rank: {rank}, "
        "key: store_based_barrier_key:1 (world_size={world}, worker_count={count}, timeout=0:30:00)")


def _named(tmp_path, text: str, nproc: int | None = None, world: int | None = None):
    bundle, _ = import_logs([LogSource("log.txt", text)], tmp_path / "b", nproc_per_node=nproc, world_size=world,
                            job="train", namespace="team-a", now=NOW)
    return [(f["rule"], f["severity"], f["cause"], f["ranks"]) for f in naming_findings(analyze(bundle)["findings"])]


# ---- c10d's store-based barrier -----------------------------------------------------------------
@pytest.mark.parametrize(("line", "rank", "nranks"), [
    (WAIT.format(rank=3, world=8, count=7), 3, 8),
    ("[2022-02-08 19:04:25,632][torch.distributed.distributed_c10d][INFO] - Added key: store_based_barrier_key:1 to store for rank: 1", 1, None),
    ("torch.distributed.distributed_c10d: INFO     Rank 6: Completed store-based barrier for key:store_based_barrier_key:1 with 7 nodes.", 6, 7),
])
def test_a_store_barrier_line_is_its_rank_joining(line, rank, nranks):
    events = classify(line)
    assert [(e["kind"], e["subkind"], e["rank"], e.get("nranks")) for e in events] == [("rank_joining", "store_barrier", rank, nranks)]


@pytest.mark.parametrize("line", [
    "the store based barrier for rank: 3 is slow",  # prose
    "Waiting in store based barrier to initialize process group for rank: x, key: k (world_size=8, worker_count=7, timeout=0:30:00)",
])
def test_prose_about_a_store_barrier_is_no_rank(line):
    assert not [e for e in classify(line) if e["kind"] == "rank_joining"]


def test_the_rank_never_seen_at_the_store_barrier_never_joined(tmp_path):
    text = "\n".join(WAIT.format(rank=r, world=4, count=3) for r in (0, 3, 1)) + "\n"
    assert _named(tmp_path, text) == [("nccl-hang", "critical", "never-joined", [2])]


@pytest.mark.parametrize("waiting", [
    (0, 3),  # two ranks seen, the count says three arrived: which one else is unknown
    (0, 1, 2, 3),  # four seen: the count is stale, no one is missing
])
def test_a_store_barrier_count_that_does_not_add_up_names_no_one(tmp_path, waiting):
    text = "\n".join(WAIT.format(rank=r, world=4, count=3) for r in waiting) + "\n"
    assert _named(tmp_path, text) == []


def test_a_completed_store_barrier_names_no_one(tmp_path):
    done = "torch.distributed.distributed_c10d: INFO     Rank {r}: Completed store-based barrier for key:store_based_barrier_key:1 with 4 nodes."
    text = "\n".join(done.format(r=r) for r in (3, 1, 2)) + "\n"  # rank 0's own line is elsewhere: it was counted
    assert _named(tmp_path, text) == []


# ---- Horovod's stall warning with nothing else of the job ------------------------------------------
STALL = [
    " WARNING: One or more tensors were submitted to be reduced, gathered or broadcasted by subset of ranks and are waiting "
    "for remainder of ranks for more than 60 seconds. This may indicate that different ranks are trying to submit different "
    "tensors or that only subset of ranks is submitting tensors, which will cause deadlock. ",
    "Stalled ops:",
    "HorovodBroadcast_dense_kernel_0 [missing ranks: {missing}]",
    "HorovodBroadcast_dense_bias_0 [missing ranks: {missing}]",
]


@pytest.mark.parametrize(("missing", "ranks"), [("0", [0]), ("2, 3", [2, 3])])
def test_ranks_a_bare_stall_warning_names_missing_are_its_culprits(tmp_path, missing, ranks):
    text = "\n".join(line.format(missing=missing) for line in STALL) + "\n"
    assert _named(tmp_path, text) == [("nccl-hang", "critical", "never-joined", ranks)]
