"""Config- and environment-caused multi-GPU failures every rank hits alike (real incidents batch 333), pinned as read.
Five controls, collected blind; three are read as a failure of no rank, two are read with rank 0 named as collected
(NOT_YET, batch 333) and pinned here as read so a change of reading is seen. Read right: rank 2's ``all_reduce``
``DistBackendError`` ending ``Cuda failure 802 'system not yet initialized'`` before rank 0's traceback head
(NVIDIA/nccl#1769: NVLS on a GB200 node, every rank; ``NCCL_NVLS_ENABLE=0`` fixes it) is a cuda-error of no rank;
FunASR's unranked ``smart_remove`` traceback ending ``FileNotFoundError`` (modelscope/FunASR#2557: every rank removes
the same old checkpoint) is a python-exception of no rank; ``[rank1]:``'s traceback head with no exception line
(huggingface/trl#2787) holds rank 1 as an info suspect only. Named: ``[rank0]: TypeError:
AsyncRLGRPOTrainer.get_batch_samples() takes 3 positional arguments but 4 were given`` (OpenBMB/AgentCPM-GUI#51: a
transformers-version signature mismatch, every rank) names rank 0; two identical unranked ``ModuleNotFoundError: No
module named 'llamafactory'`` tracebacks and the agent's ``failed (exitcode: 1) local_rank: 0`` (hiyouga/LlamaFactory#4035:
the package missing from the environment, both workers) name rank 0. Scored 3/5 both ways as collected (9f8b4ee7); no
rule changed (measure only). Contrasts: rank 2's traceback ending in an illegal memory access names rank 2 (cuda-error)
and in a CUDA OOM names rank 2 (cuda-oom); the FunASR traceback under ``[rank3]:`` names rank 3; the TypeError under
``[rank5]:`` names rank 5, and without its exception line rank 0 is only an info suspect; an exception line under
``[rank1]:``'s head names rank 1; without the agent's line the two tracebacks name no one, its ``local_rank: 1`` names
rank 1 and its ``exitcode: -9`` for local rank 1 names rank 1 (host-oom-kill). Pasted logs through ``k10s import-logs``,
batched.
Since session 56 the signature TypeError names no one (every rank's, common mode), under any rank tag.
Since session 57 LlamaFactory#4035 is read right: the same uncaught exception printed twice with no rank tag is two
processes' alike (common mode), whichever local rank the agent reports; one copy of it still names rank 0.
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
    pasted_findings,
)
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 5, 21, 0, tzinfo=dt.timezone.utc)

NVLS_802 = corpus_lines("nccl-1769-")
SMART_REMOVE = corpus_lines("FunASR-2557-")
BATCH_SAMPLES = corpus_lines("AgentCPM-GUI-51-")
RANK1_HEAD = corpus_lines("trl-2787-")
NO_MODULE = corpus_lines("LlamaFactory-4035-")

#: rank 2's frames into ``all_reduce`` (its first 8 lines) ending in a CUDA error of its own
NVLS_RANK2_ILLEGAL = NVLS_802[:8] + [
    "[rank2]: RuntimeError: CUDA error: an illegal memory access was encountered"
]
#: rank 2's frames ending in its own CUDA OOM
NVLS_RANK2_OOM = NVLS_802[:8] + [
    "[rank2]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 2 has a total capacity of "
    "79.10 GiB of which 1.50 GiB is free."
]
#: the FunASR traceback as rank 3's (every line under ``[rank3]:``)
SMART_REMOVE_RANK3 = ["[rank3]: " + line.rstrip() for line in SMART_REMOVE]
#: the TypeError traceback as rank 5's
BATCH_SAMPLES_RANK5 = [line.replace("[rank0]", "[rank5]") for line in BATCH_SAMPLES]
#: rank 0's frames without the TypeError line
BATCH_SAMPLES_NO_ERROR = BATCH_SAMPLES[:-1]
#: rank 1's traceback head ending in an exception line
RANK1_WITH_ERROR = RANK1_HEAD + [
    "[rank1]: FileNotFoundError: [Errno 2] No such file or directory: 'outputs/checkpoint-100'"
]
#: the two tracebacks without the agent's ``failed (exitcode: 1) local_rank: 0`` (and what follows it)
NO_MODULE_NO_AGENT = NO_MODULE[:14]
#: one worker's traceback only (the second copy dropped), then the agent's line for local rank 0
NO_MODULE_ONE_COPY = NO_MODULE[:10] + NO_MODULE[14:]
#: the agent reporting local rank 1 first
NO_MODULE_AGENT_RANK1 = [
    line.replace("local_rank: 0", "local_rank: 1") for line in NO_MODULE
]
#: the agent reporting local rank 1 killed (``exitcode: -9``) in place of rank 0's exit 1
NO_MODULE_SIGKILL_RANK1 = (
    NO_MODULE[:14]
    + [
        "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: -9) local_rank: 1 (pid: 16477) of binary: "
        "/dockerdata/anaconda3/bin/python"
    ]
    + NO_MODULE[15:]
)

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # as collected, pasted and laid out as the threads say
    "nvls-802-as-pasted": (NVLS_802, None, None, None, None),
    "nvls-802-four-gpus": (NVLS_802, 4, 4, None, None),
    "smart-remove-as-pasted": (SMART_REMOVE, None, None, None, None),
    "smart-remove-two-gpus": (SMART_REMOVE, 2, 2, None, None),
    # today's reading of the two NOT_YET controls
    # a signature TypeError is every rank's since session 56 (common mode): named rank 0 before
    "batch-samples-as-pasted": (BATCH_SAMPLES, None, None, None, None),
    "batch-samples-eight-gpus": (BATCH_SAMPLES, 8, 8, None, None),
    "rank1-head-as-pasted": (RANK1_HEAD, None, None, None, None),
    "rank1-head-seven-ranks": (RANK1_HEAD, 7, 7, None, None),
    "no-module-as-pasted": (NO_MODULE, None, None, None, None),
    "no-module-two-gpus": (NO_MODULE, 2, 2, None, None),
    # contrasts
    "nvls-rank2-illegal-access-names-rank2": (
        NVLS_RANK2_ILLEGAL,
        4,
        4,
        2,
        "cuda-error",
    ),
    "nvls-rank2-oom-names-rank2": (NVLS_RANK2_OOM, 4, 4, 2, "cuda-oom"),
    "smart-remove-rank3-names-rank3": (SMART_REMOVE_RANK3, 4, 4, 3, "python-exception"),
    "batch-samples-rank5-names-none": (
        BATCH_SAMPLES_RANK5,
        8,
        8,
        None,
        None,
    ),
    "batch-samples-without-error-names-none": (
        BATCH_SAMPLES_NO_ERROR,
        8,
        8,
        None,
        None,
    ),
    "rank1-head-with-error-names-rank1": (
        RANK1_WITH_ERROR,
        7,
        7,
        1,
        "python-exception",
    ),
    "no-module-without-agent-names-none": (NO_MODULE_NO_AGENT, 2, 2, None, None),
    "no-module-agent-rank1-names-none": (NO_MODULE_AGENT_RANK1, 2, 2, None, None),
    "no-module-one-copy-agent-names-rank0": (
        NO_MODULE_ONE_COPY,
        2,
        2,
        0,
        "python-exception",
    ),
    "no-module-sigkill-rank1-names-rank1": (
        NO_MODULE_SIGKILL_RANK1,
        2,
        2,
        1,
        "host-oom-kill",
    ),
}
BATCHED = Batched("b333", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_config_and_environment_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])


def _failures(lines: list[str], folder: Path, nproc: int | None) -> list[tuple]:
    findings = pasted_findings(lines, folder, nproc, nproc, NOW)
    return [
        (f["severity"], f["cause"], f["ranks"])
        for f in findings
        if f["rule"] == "rank-failure"
    ]


def test_nvls_802_is_a_cuda_error_of_no_rank(tmp_path):
    """Rank 2's NCCL ``unhandled cuda error`` ending ``Cuda failure 802`` reads as a CUDA error (warning) of no rank:
    a collective's error, not rank 2's own."""
    assert _failures(NVLS_802, tmp_path, 4) == [("warning", "cuda-error", [])]


def test_unranked_smart_remove_is_a_python_failure_of_no_rank(tmp_path):
    assert _failures(SMART_REMOVE, tmp_path, 2) == [("warning", "python-exception", [])]


def test_traceback_head_holds_its_rank_as_a_suspect_only(tmp_path):
    """``[rank1]:``'s traceback with no exception line, and rank 0's without its TypeError: each rank an info
    suspect, nothing louder."""
    assert_info_suspect(pasted_findings(RANK1_HEAD, tmp_path / "a", 7, 7, NOW), 1)
    assert_info_suspect(
        pasted_findings(BATCH_SAMPLES_NO_ERROR, tmp_path / "b", 8, 8, NOW), 0
    )
