"""Newest threads, late Nov-Dec 2026, any repo, second pass (real incidents batch 396), pinned as read. Three controls,
collected blind (the stored corpus holds almost nothing opened or settled after mid-September 2026, so the newest
settled threads with a pasted multi-GPU log were taken); all three read right as collected, both ways. The head of a
vLLM engine's ``Unexpected error from cudaGetDeviceCount() ... Error 802: system not yet initialized`` traceback after
worker pid 78102 reports ready (gpustack/gpustack#1254: nvidia-fabricmanager not installed on the NVSwitch host; the
commenter: installing it resolved the issue), the one-line ``Cuda error
/workspace/csrc/custom_all_reduce.cuh:143 'invalid resource handle'`` that aborts both ranks of a TP=2 group split
across two GB200 nodes (vllm-project/vllm#52778: the custom all-reduce opens node-local CUDA IPC handles across
nodes), and one untagged vLLM worker's ``WorkerProc failed to start.`` traceback head into ``init_device``
(huggingface/huggingface_hub#4128: Fabric Manager never reached ``Completed`` on the h200x4 hosts, all four GPUs alike;
the infra team mitigated it) give no finding at all, as pasted or laid out as the threads say: no one named, the
right reading for a control, though no cause is surfaced either (the vLLM ``Cuda error <file>:<line> '<msg>'``
CUDACHECK line is not read as an error; Error 802, where it reads, is a python-exception). Contrasts: the Error 802
``RuntimeError`` tagged by one rank, or the worker traceback with it tagged by two ranks, name no one (a rankless
python-exception warning); the ``invalid resource handle`` as a ``RuntimeError`` of both ranks names no one, of rank 1
alone names rank 1 (cuda-error); rank 3's own CUDA OOM after the Error 802 lines names rank 3 (cuda-oom); the worker
traceback tagged ``[rank2]:`` alone holds rank 2 as an info suspect only. Pasted logs through ``k10s import-logs``,
batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted, pasted_findings
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 6, 5, 0, tzinfo=dt.timezone.utc)

ERR802_ENGINE = corpus_lines("gpustack-1254-")
CROSS_NODE_IPC = corpus_lines("vllm-52778-")
WORKER_INIT = corpus_lines("huggingface-hub-4128-")

ERR802 = (
    "RuntimeError: Unexpected error from cudaGetDeviceCount(). Did you run some cuda functions before calling "
    "NumCudaDevices() that might have already set an error? Error 802: system not yet initialized"
)
#: the Error 802 as a RuntimeError tagged by rank 1 alone (a host state every GPU shares)
ERR802_RANK1 = [f"[rank1]: {ERR802}"]
#: the worker traceback with its Error 802 line, copied by rank 2 and by rank 0
WORKER_INIT_802 = [line.strip() for line in WORKER_INIT] + [
    f"(Worker pid=1332) ERROR 04-20 11:52:25 [multiproc_executor.py:870] {ERR802}"
]
WORKER_INIT_802_TWO_RANKS = [f"[rank2]: {line}" for line in WORKER_INIT_802] + [
    f"[rank0]: {line}" for line in WORKER_INIT_802
]
#: the worker traceback head tagged by rank 2 alone (frames, no exception line)
WORKER_INIT_RANK2 = [f"[rank2]: {line}" for line in WORKER_INIT]
#: the invalid handle as a RuntimeError of both ranks, then of rank 1 alone
IPC_BOTH = [f"[rank{r}]: RuntimeError: CUDA error: invalid resource handle" for r in (0, 1)]
IPC_RANK1 = IPC_BOTH[1:]
#: rank 3's own CUDA OOM after the engine's Error 802 lines
ERR802_RANK3_OOM = ERR802_ENGINE + [
    "[rank3]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB. GPU 3 has a total capacity of "
    "79.10 GiB of which 3.06 MiB is free.",
]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # as collected, pasted and laid out as the threads say: nothing said
    "err802-engine-as-pasted": (ERR802_ENGINE, None, None, None, None),
    "err802-engine-two-processes": (ERR802_ENGINE, 2, 2, None, None),
    "cross-node-ipc-as-pasted": (CROSS_NODE_IPC, None, None, None, None),
    "cross-node-ipc-two-nodes": (CROSS_NODE_IPC, 1, 2, None, None),
    "worker-init-as-pasted": (WORKER_INIT, None, None, None, None),
    "worker-init-four-gpus": (WORKER_INIT, 4, 4, None, None),
    # variants that must not name anyone
    "err802-rank1-tagged-names-none": (ERR802_RANK1, 4, 4, None, None),
    "worker-init-802-two-ranks-names-none": (WORKER_INIT_802_TWO_RANKS, 4, 4, None, None),
    "ipc-error-both-ranks-names-none": (IPC_BOTH, 1, 2, None, None),
    "worker-init-rank2-tagged-names-none": (WORKER_INIT_RANK2, 4, 4, None, None),
    # contrasts that must name a rank
    "ipc-error-rank1-only-names-rank1": (IPC_RANK1, 1, 2, 1, "cuda-error"),
    "err802-then-rank3-oom-names-rank3": (ERR802_RANK3_OOM, 4, 4, 3, "cuda-oom"),
}
BATCHED = Batched("b396", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_newest_threads_second_pass_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])


def _gist(lines: list[str], folder: Path, nproc: int | None, world: int | None) -> list[tuple]:
    return [(f["rule"], f["severity"], f["cause"], f["ranks"]) for f in pasted_findings(lines, folder, nproc, world, NOW)]


def test_the_three_controls_as_collected(tmp_path):
    """As collected, laid out or not, no one named (right for three controls). Since session 63 the Error 802 engine line
    with no ``RuntimeError:`` head and the CUDACHECK ``Cuda error <file>:<line> '<msg>'`` line with no ``Failed:`` are read:
    a cuda-error warning of no rank (the node's CUDA not ready; vLLM's custom all-reduce refused alike by every worker);
    the worker traceback stops before its exception and still says nothing."""
    for i, (lines, nproc, world, want) in enumerate(
        [
            (ERR802_ENGINE, None, None, [("rank-failure", "warning", "cuda-error", [])]),
            (ERR802_ENGINE, 2, 2, [("rank-failure", "warning", "cuda-error", [])]),
            (CROSS_NODE_IPC, None, None, [("rank-failure", "warning", "cuda-error", [])]),
            (CROSS_NODE_IPC, 1, 2, [("rank-failure", "warning", "cuda-error", [])]),
            (WORKER_INIT, None, None, []),
            (WORKER_INIT, 4, 4, []),
        ]
    ):
        assert _gist(lines, tmp_path / str(i), nproc, world) == want, i


def test_error_802_is_a_rankless_python_exception(tmp_path):
    """Error 802 (``system not yet initialized``: the host's Fabric Manager not up) tagged by one rank, or by two,
    names no one — a host state — but is read as a python-exception, not a cuda-error (as read now)."""
    assert _gist(ERR802_RANK1, tmp_path / "a", 4, 4) == [("rank-failure", "warning", "python-exception", [])]
    assert _gist(WORKER_INIT_802_TWO_RANKS, tmp_path / "b", 4, 4) == [
        ("rank-failure", "warning", "python-exception", [])
    ]


def test_lone_worker_traceback_head_is_a_suspect_only(tmp_path):
    """The worker's frames tagged by rank 2 alone, with no exception line: rank 2 an info suspect, confidence low."""
    findings = pasted_findings(WORKER_INIT_RANK2, tmp_path, 4, 4, NOW)
    assert [(f["rule"], f["severity"], f["cause"], f["ranks"]) for f in findings] == [
        ("rank-failure", "info", "python-exception", [2])
    ]
    assert findings[0]["confidence"] == "low"


def test_invalid_resource_handle_names_the_lone_rank_only(tmp_path):
    """As a ``RuntimeError: CUDA error: invalid resource handle`` the error is a cuda-error: of both ranks no one, of
    rank 1 alone rank 1 (warning, medium)."""
    assert _gist(IPC_BOTH, tmp_path / "a", 1, 2) == [("rank-failure", "warning", "cuda-error", [])]
    assert _gist(IPC_RANK1, tmp_path / "b", 1, 2) == [("rank-failure", "warning", "cuda-error", [1])]
