"""The newest 2026 threads' multi-GPU failures (real incidents batch 340), pinned as read.
Four incidents, collected blind: three controls read right as collected and one culprit set missed (NOT_YET, batch
340). Ray's memory monitor killing the most recently scheduled ``MegatronTrainRayActor`` of eight that each hold
~102 GB of CPU-offloaded optimizer state, with its ``Top 10 memory users`` table (THUDM/slime#1851: a 1 TB node too
small for the job) reads as a host-oom-kill of no rank; the head of ``[rank6]:``'s ``megatron sft`` traceback down to
``self.prepare_model()``, cut before its exception (modelscope/ms-swift#9724: a mini DeepSeek-V4 checkpoint missing
half its weights, every rank) is an info suspect only; a slime actor's ``[Rank 0] Memory-Usage`` report and the
driver's traceback out of ``ray.get`` (vllm-project/vime#56: four offload actors over Ray's 0.98 host-memory
threshold) read as nothing. The miss: the reporter's one untagged ``RuntimeError: batch size must be positive``
(allenai/molmo2#26: vision context parallelism gave ranks 5-7 empty image shards while ranks 0-4 waited in NCCL) is
a Python failure of no rank. Scored 3/4 both ways as collected; no rule changed (measure only). Contrasts: torchrun's
``failed (exitcode: -9) local_rank: 3`` after the Ray table names rank 3 (host-oom-kill); an exception line under the
``[rank6]:`` frames names rank 6, renumbered rank 2; the exception tagged ``[rank5]:`` names rank 5, tagged alike on
ranks 5, 6 and 7 no one (common mode); Ray's ``OutOfMemoryError`` line after the memory report is a host-oom-kill
of no rank. Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import (
    Batched,
    assert_info_suspect,
    assert_one_rank,
    pasted,
    pasted_cases,
)
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 5, 23, 0, tzinfo=dt.timezone.utc)

RAY_OOM_TABLE = corpus_lines("slime-1851-")
DSV4_RANK6_HEAD = corpus_lines("ms-swift-9724-")
CP_BATCH_SIZE = corpus_lines("molmo2-26-")
RAY_HEADROOM = corpus_lines("vime-56-")

#: the same kill as torchrun's agent reports a worker it lost: ``failed (exitcode: -9) local_rank: 3``
RAY_OOM_AGENT_9 = RAY_OOM_TABLE + [
    "E1205 10:00:00.000000 1514000 torch/distributed/elastic/multiprocessing/api.py:882] failed (exitcode: -9) "
    "local_rank: 3 (pid: 1514977) of binary: /usr/bin/python"
]
#: Ray's exception and its memory line without the ``Top 10 memory users`` table
RAY_OOM_NO_TABLE = RAY_OOM_TABLE[:2]
#: rank 6's frames with an exception line of its own
DSV4_RANK6_EXCEPTION = DSV4_RANK6_HEAD + [
    "[rank6]: KeyError: 'decoder.layers.0.mlp.experts.weight1'"
]
#: the same, renumbered to rank 2
DSV4_RANK2_EXCEPTION = [
    line.replace("[rank6]", "[rank2]") for line in DSV4_RANK6_EXCEPTION
]
#: the exception as rank 5 alone would tag it
CP_RANK5 = ["[rank5]: " + CP_BATCH_SIZE[0]]
#: the exception tagged alike on the three ranks the reporter names
CP_RANKS_5_6_7 = [f"[rank{r}]: " + CP_BATCH_SIZE[0] for r in (5, 6, 7)]
#: the memory report and driver traceback with Ray's own exception line (the one the excerpt cut) after them
RAY_HEADROOM_OOM = RAY_HEADROOM + [
    "ray.exceptions.OutOfMemoryError: Task was killed due to the node running low on memory."
]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # as collected, pasted and laid out as the threads say
    "ray-oom-table-as-pasted": (RAY_OOM_TABLE, None, None, None, None),
    "ray-oom-table-eight-actors": (RAY_OOM_TABLE, 8, 8, None, None),
    "dsv4-rank6-head-as-pasted": (DSV4_RANK6_HEAD, None, None, None, None),
    "dsv4-rank6-head-eight-gpus": (DSV4_RANK6_HEAD, 8, 8, None, None),
    "cp-batch-size-as-pasted": (CP_BATCH_SIZE, None, None, None, None),
    "cp-batch-size-eight-a100s": (CP_BATCH_SIZE, 8, 8, None, None),
    "ray-headroom-as-pasted": (RAY_HEADROOM, None, None, None, None),
    "ray-headroom-four-actors": (RAY_HEADROOM, 4, 4, None, None),
    # contrasts
    "ray-oom-agent-exit-9-names-local-rank3": (
        RAY_OOM_AGENT_9,
        8,
        8,
        3,
        "host-oom-kill",
    ),
    "ray-oom-without-table-names-none": (RAY_OOM_NO_TABLE, 8, 8, None, None),
    "dsv4-rank6-exception-names-rank6": (
        DSV4_RANK6_EXCEPTION,
        8,
        8,
        6,
        "python-exception",
    ),
    "dsv4-rank2-exception-names-rank2": (
        DSV4_RANK2_EXCEPTION,
        8,
        8,
        2,
        "python-exception",
    ),
    "cp-batch-size-tagged-rank5-names-rank5": (CP_RANK5, 8, 8, 5, "python-exception"),
    "cp-batch-size-ranks-5-6-7-alike-names-none": (CP_RANKS_5_6_7, 8, 8, None, None),
    "ray-headroom-ray-oom-line-names-none": (RAY_HEADROOM_OOM, 4, 4, None, None),
}
BATCHED = Batched("b340", list(CASES))
_make = pasted_cases(CASES, NOW)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_newest_thread_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])


def _findings(lines: list[str], folder: Path, nproc: int | None) -> list[dict]:
    from k10s_forensics.analyze.runner import analyze

    return analyze(pasted(lines, folder, nproc, NOW, world=nproc))["findings"]


def _failures(lines: list[str], folder: Path, nproc: int | None) -> list[tuple]:
    return [
        (f["severity"], f["cause"], f["ranks"])
        for f in _findings(lines, folder, nproc)
        if f["rule"] == "rank-failure"
    ]


def test_ray_oom_killer_is_a_host_oom_of_no_rank(tmp_path):
    """Ray's ``Task was killed due to the node running low on memory`` reads as a host-oom-kill (warning) of no rank,
    with or without the table of eight equal actors: the killed lease's pid is no rank."""
    assert _failures(RAY_OOM_TABLE, tmp_path / "a", 8) == [
        ("warning", "host-oom-kill", [])
    ]
    assert _failures(RAY_OOM_NO_TABLE, tmp_path / "b", 8) == [
        ("warning", "host-oom-kill", [])
    ]
    assert _failures(RAY_HEADROOM_OOM, tmp_path / "c", 4) == [
        ("warning", "host-oom-kill", [])
    ]


def test_rank6_frames_without_exception_are_a_suspect(tmp_path):
    """Rank 6's traceback frames with no exception line hold rank 6 as an info suspect, nothing louder."""
    assert_info_suspect(_findings(DSV4_RANK6_HEAD, tmp_path, 8), 6)


def test_untagged_exception_and_memory_report(tmp_path):
    """The untagged one-line ``RuntimeError`` is a Python failure (warning) of no rank; the memory report and the
    driver's traceback out of ``ray.get`` are no failure at all."""
    assert _failures(CP_BATCH_SIZE, tmp_path / "a", 8) == [
        ("warning", "python-exception", [])
    ]
    assert _failures(RAY_HEADROOM, tmp_path / "b", 4) == []
