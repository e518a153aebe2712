"""Ray Train / Ray-based RL post-training failures (real incidents batch 277), pinned as read.
One culprit and four controls, collected blind, all read right as collected (5/5 both ways, no control named). The
culprit: Ray Train V2's driver message ``Training failed due to worker errors:`` with a ``[Rank 0]`` header over a
``ValueError`` (ray-project/ray#51199, the test's ``_error_func_rank_0``) names rank 0 as pasted; as collected only
because the paste was read as rank 0's (laid out as four workers, or renumbered ``[Rank 2]``, no rank was named). Since
session 50 the header is read as Ray Train's ``[Rank 1 Error Snippet]:`` is (log_owners.OWNER_HEADER): the error under it
is that rank's, so four workers name rank 0 and ``[Rank 2]`` names rank 2; ``[Rank 0, 3]:`` (workers failing alike)
names no one; the same traceback under ``[rank0]:`` prefixes names rank 0. The
controls read as nothing at all: a vLLM 0.16 engine core's ``Invocation of collective_rpc method failed`` inside an
OpenRLHF ``LLMRayActor`` (OpenRLHF/OpenRLHF#1193, a version mismatch), the Ray driver's ``Unhandled error`` from one
verl ``WorkerDict`` down to vLLM's ``wake_up()`` (verl-project/verl#302, ``gpu_memory_utilization`` too high on every
worker), the raylet's ``1 Workers (tasks / actors) killed due to memory pressure (OOM)`` (NoisyRollout#7, host RAM
growing over training; since session 50 a host OOM kill of no rank) and a NeMo-RL ``VllmGenerationWorker.wake_up()`` unhandled error (NVIDIA-NeMo/RL#1137).
Contrasts: vLLM's ``CUDA Error: out of memory at .../cumem_allocator.cpp:62`` reads as a CUDA OOM of no rank and Ray's
``Task was killed due to the node running low on memory`` as a host OOM kill of no rank (session 50; as collected both
were plain Python exceptions); a
``[rank3]: torch.OutOfMemoryError`` line names rank 3 (cuda-oom); an OOM under a ``repr=MegatronPolicyWorker[rank=5]``
unhandled error is a critical cuda-oom of no rank. Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 5, 0, 30, tzinfo=dt.timezone.utc)

TRAIN_V2_RANK_0 = corpus_lines("ray-51199-")
COLLECTIVE_RPC = corpus_lines("OpenRLHF-1193-")
WAKE_UP_UNHANDLED = corpus_lines("verl-302-")
RAYLET_MEMORY_KILL = corpus_lines("NoisyRollout-7-")
GENERATION_WAKE_UP = corpus_lines("NeMo-RL-1137-")

#: the driver's message with the worker header renumbered: ``[Rank 2]`` over rank 2's traceback
TRAIN_V2_RANK_2 = [
    line.replace("[Rank 0]", "[Rank 2]").replace("rank_0", "rank_2")
    for line in TRAIN_V2_RANK_0
]
#: the header of two workers failing alike (Ray groups identical errors): ``[Rank 0, 3]:``
TRAIN_V2_RANKS_0_3 = [line.replace("[Rank 0]", "[Rank 0, 3]:") for line in TRAIN_V2_RANK_0]
#: rank 0's traceback as a launcher would tag it, ``[rank0]:`` on every line, without the driver's header
TRAIN_V2_TAGGED = ["[rank0]: " + line for line in TRAIN_V2_RANK_0[2:]]
#: the engine core's traceback ending in an exception line of its own
COLLECTIVE_RPC_RAISED = COLLECTIVE_RPC + [
    "(LLMRayActor pid=585804) (EngineCore_DP0 pid=586112) ERROR 03-05 00:25:45 [core.py:1094] "
    "AttributeError: 'Worker' object has no attribute 'update_weight'"
]
#: the driver's traceback with the allocator's message the issue title quotes
CUMEM_OOM = WAKE_UP_UNHANDLED + [
    "(main_task pid=1748945) RuntimeError: CUDA Error: out of memory at /workspace/csrc/cumem_allocator.cpp:62"
]
#: the driver's traceback followed by rank 3's own torch OOM
RANK_3_TORCH_OOM = WAKE_UP_UNHANDLED + [
    "(WorkerDict pid=1751030) [rank3]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. "
    "GPU 3 has a total capacity of 79.11 GiB of which 1.00 GiB is free."
]
#: the raylet's summary followed by Ray's exception for the killed task
TASK_KILLED = RAYLET_MEMORY_KILL + [
    "ray.exceptions.OutOfMemoryError: Task was killed due to the node running low on memory."
]
#: the unhandled error of a policy worker that carries its rank in its repr, ending in a torch OOM
POLICY_RANK_5_OOM = [
    line.replace("repr=VllmGenerationWorker)", "repr=MegatronPolicyWorker[rank=5])")
    for line in GENERATION_WAKE_UP
] + [
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.00 GiB. "
    "GPU 0 has a total capacity of 79.11 GiB of which 10.00 MiB is free."
]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # as collected, pasted and laid out as the threads say
    "train-v2-rank0-as-pasted": (TRAIN_V2_RANK_0, None, None, 0, "python-exception"),
    "collective-rpc-as-pasted": (COLLECTIVE_RPC, None, None, None, None),
    "wake-up-unhandled-as-pasted": (WAKE_UP_UNHANDLED, None, None, None, None),
    "wake-up-unhandled-eight-gpus": (WAKE_UP_UNHANDLED, 8, 8, None, None),
    "raylet-memory-kill-as-pasted": (RAYLET_MEMORY_KILL, None, None, None, None),
    "raylet-memory-kill-eight-gpus": (RAYLET_MEMORY_KILL, 8, 8, None, None),
    "generation-wake-up-as-pasted": (GENERATION_WAKE_UP, None, None, None, None),
    # contrasts (and today's gaps)
    # laid out as four workers, the ``[Rank 0]`` header still names rank 0: the error under it is that rank's
    "train-v2-rank0-four-workers-names-rank0": (TRAIN_V2_RANK_0, 4, 4, 0, "python-exception"),
    "train-v2-rank2-header-names-rank2": (TRAIN_V2_RANK_2, 4, 4, 2, "python-exception"),
    "train-v2-ranks-0-3-alike-names-none": (TRAIN_V2_RANKS_0_3, 4, 4, None, None),
    "train-v2-tagged-lines-names-rank0": (TRAIN_V2_TAGGED, 4, 4, 0, "python-exception"),
    "collective-rpc-raised-names-none": (COLLECTIVE_RPC_RAISED, None, None, None, None),
    "cumem-oom-names-none": (CUMEM_OOM, 8, 8, None, None),
    "rank3-torch-oom-names-rank3": (RANK_3_TORCH_OOM, 8, 8, 3, "cuda-oom"),
    "task-killed-names-none": (TASK_KILLED, 8, 8, None, None),
    # the repr's ``[rank=5]`` is not tied to the OOM below it
    "policy-rank5-oom-names-none": (POLICY_RANK_5_OOM, None, None, None, None),
}
BATCHED = Batched("b277", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_ray_rl_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])


def _findings(lines: list[str], folder: Path, nproc: int | None) -> list[tuple]:
    from k10s_forensics.analyze.runner import analyze

    findings = analyze(pasted(lines, folder, nproc, NOW, world=nproc))["findings"]
    return [(f["rule"], f["severity"], f["cause"], f["ranks"]) for f in findings]


@pytest.mark.parametrize(
    "lines",
    [COLLECTIVE_RPC, WAKE_UP_UNHANDLED, GENERATION_WAKE_UP],
    ids=[
        "collective-rpc",
        "wake-up-unhandled",
        "generation-wake-up",
    ],
)
def test_controls_read_as_nothing(lines, tmp_path):
    """Three controls as pasted give no finding at all: no exception line is in their excerpts."""
    assert _findings(lines, tmp_path, None) == []


def test_raylet_memory_pressure_summary_is_a_host_oom_kill_of_no_rank(tmp_path):
    """The raylet's ``1 Workers (tasks / actors) killed due to memory pressure (OOM)`` is Ray's memory monitor killing a
    worker for the node's host memory, which worker not said: a host OOM kill of no rank (session 50; as collected, no
    finding); with no worker killed (``0 Workers … killed``) it is nothing."""
    assert _findings(RAYLET_MEMORY_KILL, tmp_path / "a", None) == [
        ("rank-failure", "warning", "host-oom-kill", [])
    ]
    none_killed = [line.replace("1 Workers (tasks", "0 Workers (tasks") for line in RAYLET_MEMORY_KILL]
    assert _findings(none_killed, tmp_path / "b", None) == []


def test_train_v2_header_names_the_rank_of_the_error_under_it(tmp_path):
    """The ``[Rank 0]`` header makes the ``ValueError`` under it rank 0's, as pasted and laid out as four workers; two
    ranks under one header (``[Rank 0, 3]:``) are a failure of no single rank."""
    assert _findings(TRAIN_V2_RANK_0, tmp_path / "a", None) == [
        ("rank-failure", "warning", "python-exception", [0])
    ]
    assert _findings(TRAIN_V2_RANK_0, tmp_path / "b", 4) == [
        ("rank-failure", "warning", "python-exception", [0])
    ]
    assert _findings(TRAIN_V2_RANKS_0_3, tmp_path / "c", 4) == [
        ("rank-failure", "warning", "python-exception", [])
    ]


def test_oom_wordings_read_as_their_memory(tmp_path):
    """vLLM's cumem allocator OOM is a CUDA OOM and Ray's memory-monitor kill a host OOM kill, both of no rank (the
    driver's and the raylet's lines name none)."""
    assert _findings(CUMEM_OOM, tmp_path / "a", 8) == [
        ("oom-cascade", "critical", "cuda-oom", [])
    ]
    assert _findings(TASK_KILLED, tmp_path / "b", 8) == [
        ("rank-failure", "warning", "host-oom-kill", [])
    ]


def test_policy_repr_rank_is_not_tied_to_its_oom(tmp_path):
    """A torch OOM under ``repr=MegatronPolicyWorker[rank=5]`` is a critical cuda-oom of no rank."""
    assert _findings(POLICY_RANK_5_OOM, tmp_path, None) == [
        ("oom-cascade", "critical", "cuda-oom", [])
    ]
