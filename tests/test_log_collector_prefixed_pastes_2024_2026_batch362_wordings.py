"""Pastes whose every line carries the prefix of the tool that gathered them, 2024-2026 (real incidents batch 362),
pinned as read. Three controls, collected blind, all read right both ways as collected (no NOT_YET): one Ray worker's
``(WorkerDict pid=859188) RuntimeError: CUDA error: an illegal memory access was encountered`` in verl's SGLang async
rollout (verl-project/verl#1611: a fault of that verl/SGLang version, gone with later releases) is a cuda-error warning
of no rank; one vLLM engine actor's ``(LLMRayActor pid=392797) torch.cuda.DeferredCudaCallError: ... device >= 0 &&
device < num_gpus INTERNAL ASSERT FAILED ... device=1`` (OpenRLHF/OpenRLHF#866: a TP=2 worker asked for a device its
process cannot see) is a cuda-error warning of no rank (a python-exception until session 59); pdsh's host-prefixed DeepSpeed launcher line ``10.252.32.12:
... process 3357036 spawned with command: [..., '--local_rank=0', ...yaml]`` (hiyouga/LlamaFactory#6075: every rank's
argparse failure, the launcher putting ``--local_rank`` before the YAML path) is nothing. As pasted, laid out as the
threads say, with Ray's ``pid=N, ip=...`` form or its ANSI colours, or with a second engine's alike copy: the same.
Contrasts: a collector prefix that *is* a rank names it (srun ``--label`` ``3: ``, mpirun ``--tag-output`` ``[1,3]<stderr>:``,
a ``[rank3]:`` tag inside the Ray prefix, a pdsh host line holding ``[rank9]:``'s ECC error); the thread's untagged
argparse error after the spawn line is an exit-2 warning of no rank. Measured only: no rule changed.
Ray's ``[repeated 7x across cluster]`` on rank 3's exception line (its log dedup masks numbers, so the line stands for
eight workers' alike errors) names no one since session 59 (it named rank 3 alone when collected). Since session 59 too
the ``DeferredCudaCallError`` of CUDA initialisation is read as ``CUDA error: invalid device ordinal`` is, a cuda-error
(tests/test_wrapped_failure_wordings.py). Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted, pasted_findings
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 6, 5, 0, tzinfo=dt.timezone.utc)

WORKERDICT_IMA = corpus_lines("verl-1611-")
LLMRAYACTOR_DEVICE1 = corpus_lines("openrlhf-866-")
PDSH_SPAWN = corpus_lines("llamafactory-6075-")

_IMA_PID = "(WorkerDict pid=859188) "
_DEV_PID = "(LLMRayActor pid=392797) "
ARGPARSE_ERROR = "train.py: error: the following arguments are required: --output_dir/--output-dir"


def _retagged(lines: list[str], pid: str, tag: str) -> list[str]:
    """``pid``'s lines with its Ray prefix replaced by another collector's ``tag`` (the other workers' lines kept)."""
    return [tag + line[len(pid):] if line.startswith(pid) else line for line in lines]


#: Ray's other prefix form (``pid=N, ip=...``, a worker on another node), and its ANSI colours as a terminal shows them
WORKERDICT_IMA_IP = [line.replace("pid=859188)", "pid=859188, ip=10.0.0.7)") for line in WORKERDICT_IMA]
WORKERDICT_IMA_ANSI = ["\x1b[36m" + line.replace(") ", ")\x1b[0m ", 1) if line.startswith("(") else line
                       for line in WORKERDICT_IMA]
LLMRAYACTOR_DEVICE1_IP = [line.replace("pid=392797)", "pid=392797, ip=10.1.2.3)") for line in LLMRAYACTOR_DEVICE1]
#: the second engine's alike copy (another pid)
LLMRAYACTOR_TWO_ENGINES = LLMRAYACTOR_DEVICE1 + [line.replace("392797", "392798") for line in LLMRAYACTOR_DEVICE1]
#: the thread's other block (the argparse failure) after the spawn line, untagged and pdsh-tagged
PDSH_SPAWN_ARGPARSE = PDSH_SPAWN + [ARGPARSE_ERROR]
PDSH_SPAWN_ARGPARSE_TAGGED = PDSH_SPAWN + ["10.252.32.12: " + ARGPARSE_ERROR]
#: contrasts: collector prefixes that are ranks
IMA_SRUN_LABEL_3 = _retagged(WORKERDICT_IMA, _IMA_PID, "3: ")
IMA_MPIRUN_TAG_3 = _retagged(WORKERDICT_IMA, _IMA_PID, "[1,3]<stderr>:")
IMA_RANK3_IN_RAY = [line.replace(_IMA_PID, _IMA_PID + "[rank3]: ") for line in WORKERDICT_IMA]
DEVICE1_SRUN_LABEL_1 = _retagged(LLMRAYACTOR_DEVICE1, _DEV_PID, "1: ")
PDSH_RANK9_ECC = PDSH_SPAWN + [
    "10.252.32.13: [rank9]: Traceback (most recent call last):",
    '10.252.32.13: [rank9]:   File "src/train.py", line 28, in <module>',
    "10.252.32.13: [rank9]: RuntimeError: CUDA error: uncorrectable ECC error encountered",
]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # as collected, pasted and laid out as the threads say
    "workerdict-ima-as-pasted": (WORKERDICT_IMA, None, None, None, None),
    "workerdict-ima-eight-gpus": (WORKERDICT_IMA, 8, 8, None, None),
    "llmrayactor-device1-as-pasted": (LLMRAYACTOR_DEVICE1, None, None, None, None),
    "llmrayactor-device1-tp2": (LLMRAYACTOR_DEVICE1, 2, 2, None, None),
    "pdsh-spawn-as-pasted": (PDSH_SPAWN, None, None, None, None),
    "pdsh-spawn-two-nodes-of-eight": (PDSH_SPAWN, 8, 16, None, None),
    # variants that must not change it
    "workerdict-ima-with-ip": (WORKERDICT_IMA_IP, None, None, None, None),
    "workerdict-ima-ansi": (WORKERDICT_IMA_ANSI, None, None, None, None),
    "llmrayactor-device1-with-ip": (LLMRAYACTOR_DEVICE1_IP, None, None, None, None),
    "llmrayactor-two-engines-alike": (LLMRAYACTOR_TWO_ENGINES, None, None, None, None),
    "pdsh-spawn-then-argparse-error": (PDSH_SPAWN_ARGPARSE, 8, 16, None, None),
    "pdsh-spawn-then-tagged-argparse-error": (PDSH_SPAWN_ARGPARSE_TAGGED, 8, 16, None, None),
    # contrasts: a prefix that is a rank names it
    "ima-srun-label-3-names-rank3": (IMA_SRUN_LABEL_3, 8, 8, 3, "cuda-error"),
    "ima-mpirun-tag-3-names-rank3": (IMA_MPIRUN_TAG_3, 8, 8, 3, "cuda-error"),
    "ima-rank3-inside-ray-prefix-names-rank3": (IMA_RANK3_IN_RAY, 8, 8, 3, "cuda-error"),
    "device1-srun-label-1-names-rank1": (DEVICE1_SRUN_LABEL_1, 2, 2, 1, "cuda-error"),
    "pdsh-host-rank9-ecc-names-rank9": (PDSH_RANK9_ECC, 8, 16, 9, "cuda-error"),
}
BATCHED = Batched("b362", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_log_collector_prefixed_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])


def _gist(lines: list[str], folder: Path, nproc: int | None, world: int | None) -> list[tuple]:
    return [(f["rule"], f["severity"], f["cause"], f["ranks"]) for f in pasted_findings(lines, folder, nproc, world, NOW)]


def test_lone_ray_worker_illegal_memory_access_is_a_cuda_error_of_no_rank(tmp_path):
    """verl#1611 as pasted and with Ray's ``ip=`` form: the one failing worker's pid prefix is not a rank; its CUDA
    error is said (warning) with no rank."""
    want = [("rank-failure", "warning", "cuda-error", [])]
    assert _gist(WORKERDICT_IMA, tmp_path / "a", None, None) == want
    assert _gist(WORKERDICT_IMA_IP, tmp_path / "b", 8, 8) == want


def test_deferred_cuda_call_error_is_read_as_the_invalid_device_ordinal_of_no_rank(tmp_path):
    """OpenRLHF#866: the ``DeferredCudaCallError`` of CUDA initialisation (``device=1`` beyond the devices its process
    sees) is a cuda-error warning of no rank, as one engine or two, as the plain ``CUDA error: invalid device ordinal``
    under the same prefix is (a python-exception until session 59)."""
    want = [("rank-failure", "warning", "cuda-error", [])]
    assert _gist(LLMRAYACTOR_DEVICE1, tmp_path / "a", None, None) == want
    assert _gist(LLMRAYACTOR_TWO_ENGINES, tmp_path / "b", 2, 2) == want
    ordinal = [_DEV_PID + "RuntimeError: CUDA error: invalid device ordinal"]
    assert _gist(ordinal, tmp_path / "c", None, None) == [("rank-failure", "warning", "cuda-error", [])]


def test_pdsh_spawn_line_is_nothing_and_the_argparse_error_an_exit_of_no_rank(tmp_path):
    """LlamaFactory#6075: the host-prefixed spawn line (``--local_rank=0`` inside a command) is no finding; the thread's
    argparse error after it, untagged or host-tagged, is an exit-2 warning of no rank."""
    assert _gist(PDSH_SPAWN, tmp_path / "a", 8, 16) == []
    for folder, lines in ((tmp_path / "b", PDSH_SPAWN_ARGPARSE), (tmp_path / "c", PDSH_SPAWN_ARGPARSE_TAGGED)):
        assert _gist(lines, folder, 8, 16) == [("rank-failure", "warning", "exit-2", [])]


def test_ray_dedup_tail_on_a_ranked_line_names_no_one(tmp_path):
    """Ray's log dedup masks numbers, so ``[repeated 7x across cluster]`` on rank 3's exception line stands for eight
    workers' alike lines: no single culprit (session 59, tests/test_ray_repeated_across_cluster.py); without the tail
    it names rank 3. Without a rank in the line the dedup tail changes nothing (no rank)."""
    ray = "(RayTrainWorker pid=4410, ip=10.0.0.7) [rank3]: "
    lines = [ray + "Traceback (most recent call last):", ray + '  File "train.py", line 9, in <module>',
             ray + "RuntimeError: CUDA error: an illegal memory access was encountered"]
    repeated = lines[:-1] + [lines[-1] + " [repeated 7x across cluster]"]
    assert _gist(lines, tmp_path / "a", 8, 8) == [("rank-failure", "warning", "cuda-error", [3])]
    assert _gist(repeated, tmp_path / "b", 8, 8) == [("rank-failure", "warning", "cuda-error", [])]
    unranked = [_IMA_PID + "RuntimeError: CUDA error: an illegal memory access was encountered [repeated 7x across cluster]"]
    assert _gist(unranked, tmp_path / "c", None, None) == [("rank-failure", "warning", "cuda-error", [])]
