"""Uneven per-rank data and one rank's data work (real incidents batch 341), pinned as read.
One culprit and three controls, collected blind, all read right both ways as collected: xtuner's 4-GPU LLaVA run where
ranks 1-3 time out on the first ``BROADCAST`` (SeqNum=1) while rank 0 still maps the dataset (InternLM/xtuner#768)
names rank 0, never-joined; swift's Megatron DPO ``[rank24]: StopIteration`` out of ``next(data_iterator)`` (blank
lines between, as pasted; modelscope/ms-swift#4644: a swift bug every data rank runs, "fixed") is an info suspect of
rank 24, no culprit; rank 15's lone watchdog timeout in the last epoch (facebookresearch/vggt#301: the sampler gives
GPUs different iteration counts) gives no finding at all; the Hub's ``HTTP Error 429`` / ``Rate limited`` retries
before ``[rank356]``'s first traceback frames (pytorch/torchtitan#2239: every rank calls ``load_dataset`` on a 48-node
launch) are an info suspect of rank 356. Scored 4/4 both ways as collected; no rule changed (measure only).
Contrasts: the ``StopIteration`` replaced by a DataLoader worker ``killed by signal: Killed`` names rank 24
(host-oom-kill), by a ``ValueError`` names rank 24 (python-exception), renumbered ``[rank3]`` it stays an info suspect;
every rank but 7 timing out on vggt's ALLREDUCE names rank 7 (never-joined), a lone waiter of two names no one; rank
356's traceback ending in the Hub's ``HfHubHTTPError: 429`` names rank 356 (python-exception) — the rate limit's retry
lines do not make it the whole job's; the xtuner waiters renumbered 0, 2, 3 name rank 1; two waiters of four, or the
three waiters laid out as eight ranks, name no one. Pasted logs through ``k10s import-logs``, batched.
Since session 57 (the batch's suggestion) rank 356's ``HfHubHTTPError: 429 … Too Many Requests`` names no one: an
outside service's rate limit is the job's, not a rank's (common mode).
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import (
    Batched,
    assert_info_suspect,
    assert_one_rank,
    pasted_cases,
    pasted_findings,
)
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 5, 22, 30, tzinfo=dt.timezone.utc)

DATA_ITERATOR_STOP = corpus_lines("ms-swift-4644-")
LAST_EPOCH_WAITER = corpus_lines("vggt-301-")
HUB_RATE_LIMIT = corpus_lines("torchtitan-2239-")
MAP_BROADCAST = corpus_lines("xtuner-768-")

#: swift's traceback ending in its DataLoader worker killed by the host (no StopIteration)
STOP_AS_WORKER_KILLED = DATA_ITERATOR_STOP[:-1] + [
    "[rank24]: RuntimeError: DataLoader worker (pid 4242) is killed by signal: Killed."
]
#: the same traceback ending in a data-dependent ValueError (one bad sample)
STOP_AS_VALUE_ERROR = DATA_ITERATOR_STOP[:-1] + [
    "[rank24]: ValueError: Image features and image tokens do not match: tokens: 2456, features 3360"
]
#: the StopIteration traceback renumbered ``[rank3]``
STOP_RANK3 = [line.replace("[rank24]", "[rank3]") for line in DATA_ITERATOR_STOP]
#: vggt's timeout line for every rank of sixteen but 7
ALL_BUT_SEVEN = [
    LAST_EPOCH_WAITER[0]
    .replace("[rank15]", f"[rank{r}]")
    .replace("[Rank 15]", f"[Rank {r}]")
    for r in range(16)
    if r != 7
]
#: vggt's two lines renumbered rank 1, laid out as two ranks (rank 0 the only silent one)
LONE_WAITER_RANK1 = [
    line.replace("rank15", "rank1").replace("Rank 15", "Rank 1")
    for line in LAST_EPOCH_WAITER
]
#: torchtitan's paste with rank 356's traceback ending in the Hub's 429
HUB_429_RAISED = HUB_RATE_LIMIT + [
    "[rank356]: huggingface_hub.errors.HfHubHTTPError: 429 Client Error: Too Many Requests for url: "
    "https://huggingface.co/api/datasets/allenai/c4/tree/main/en"
]
#: the xtuner waiters renumbered 0, 2, 3 (rank 1 silent)
MAP_RANK1_SILENT = [line.replace("[Rank 1]", "[Rank 0]") for line in MAP_BROADCAST]
#: only ranks 1 and 2 waiting (two silent ranks of four)
MAP_TWO_WAITERS = [line for line in MAP_BROADCAST if "[Rank 3]" not in line]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # as collected, pasted and laid out as the threads say
    "map-broadcast-seq1-as-pasted": (MAP_BROADCAST, None, None, 0, "never-joined"),
    "map-broadcast-seq1-four-gpus": (MAP_BROADCAST, 4, 4, 0, "never-joined"),
    "data-iterator-stop-as-pasted": (DATA_ITERATOR_STOP, None, None, None, None),
    "last-epoch-waiter-as-pasted": (LAST_EPOCH_WAITER, None, None, None, None),
    "last-epoch-waiter-sixteen-ranks": (LAST_EPOCH_WAITER, 8, 16, None, None),
    "hub-rate-limit-as-pasted": (HUB_RATE_LIMIT, None, None, None, None),
    "hub-rate-limit-48-nodes": (HUB_RATE_LIMIT, 8, 384, None, None),
    # contrasts
    "stop-as-worker-killed-names-rank24": (
        STOP_AS_WORKER_KILLED,
        None,
        None,
        24,
        "host-oom-kill",
    ),
    "stop-as-value-error-names-rank24": (
        STOP_AS_VALUE_ERROR,
        None,
        None,
        24,
        "python-exception",
    ),
    "stop-rank3-eight-ranks-names-none": (STOP_RANK3, 8, 8, None, None),
    "all-but-seven-time-out-names-rank7": (ALL_BUT_SEVEN, 8, 16, 7, "never-joined"),
    "lone-waiter-of-two-names-none": (LONE_WAITER_RANK1, 2, 2, None, None),
    "hub-429-raised-names-none": (HUB_429_RAISED, 8, 384, None, None),
    "map-rank1-silent-names-rank1": (MAP_RANK1_SILENT, 4, 4, 1, "never-joined"),
    "map-two-waiters-of-four-names-none": (MAP_TWO_WAITERS, 4, 4, None, None),
    "map-three-waiters-of-eight-names-none": (MAP_BROADCAST, 8, 8, None, None),
}
BATCHED = Batched("b341", list(CASES))
_make = pasted_cases(CASES, NOW)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_uneven_data_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])


@pytest.mark.parametrize(
    ("lines", "nproc", "world", "rank"),
    [
        pytest.param(DATA_ITERATOR_STOP, None, None, 24, id="stopiteration-rank24"),
        pytest.param(STOP_RANK3, 8, 8, 3, id="stopiteration-rank3"),
        pytest.param(HUB_RATE_LIMIT, 8, 384, 356, id="hub-rate-limit-frames-rank356"),
    ],
)
def test_lone_ranked_stop_or_frames_is_an_info_suspect(
    lines, nproc, world, rank, tmp_path: Path
):
    """A bare ``StopIteration`` out of a data iterator, or a rank's traceback frames with no exception line, is an info
    python-exception of that rank (a suspect), not a culprit."""
    assert_info_suspect(pasted_findings(lines, tmp_path, nproc, world, NOW), rank)


def test_lone_watchdog_timeout_gives_no_finding(tmp_path: Path):
    """Rank 15's watchdog timeout and PG status line alone, laid out as sixteen ranks: no finding of any rule as
    collected; since session 57 the job's hang at info, naming no one."""
    found = [(f["rule"], f["severity"], f["cause"], f["ranks"]) for f in pasted_findings(LAST_EPOCH_WAITER, tmp_path, 8, 16, NOW)]
    assert found == [("nccl-hang", "info", "no-single-culprit", [])]
