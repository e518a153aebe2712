"""Hugging Face Trainer-family multi-GPU failures of 2025-2026 (real incidents batch 248), pinned as read. Two culprit
cases that are read as suspects only, each the head of rank 0's traceback with no exception line: rank 0 building
TRL's in-process vLLM engine on 8 H100 (huggingface/trl#2688: that engine ran its device out of memory, fixed by a
lower ``vllm_gpu_memory_utilization``) and rank 0's four-line traceback in GRPO's vLLM server mode
(huggingface/trl#3622: a ``ConnectionError`` during the weight sync, which only the main process does): each an info
``rank-failure`` (python-exception) holding rank 0, no warning or critical finding. Three controls that name no one:
rank 1's traceback into ``accelerator.prepare(self.optimizer)`` under TP + FSDP2 (huggingface/transformers#43226:
a Trainer code path every rank takes, fixed by the PR; an info suspect only), rank 0's ``watchdog got stuck for 480
seconds`` in open-r1 GRPO on 8 GPUs (huggingface/open-r1#478: "solved with the latest trl release") and rank 1's
1200-second one in a 2-GPU SFT (huggingface/open-r1#389). Scored 3/5 both ways as collected (the two culprits missed
at info, the three controls right); no rule changed (measure only).
Contrasts: the exception line each culprit's excerpt cut (``torch.OutOfMemoryError`` on rank 0, the vLLM client's
``ConnectionError``) or the launcher's ``failed (exitcode: 1) local_rank: 0`` makes the suspect a named culprit;
the ValueError line the TP excerpt cut makes the control name rank 1 (the lone-rank trap), and rank 0 raising the
same ValueError reads as no single culprit; both 2-GPU ranks stuck alike still say nothing.
Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt

import pytest

from bundle_batch import Batched, assert_info_suspect, assert_one_rank, pasted_cases, pasted_findings
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 4, 9, 0, tzinfo=dt.timezone.utc)

VLLM_INIT_RANK0 = corpus_lines("trl-2688-")
SERVER_RANK0 = corpus_lines("trl-3622-")
FSDP2_TP_RANK1 = corpus_lines("transformers-43226-")
GRPO_STUCK_RANK0 = corpus_lines("open-r1-478-")
SFT_STUCK_RANK1 = corpus_lines("open-r1-389-")

FSDP2_VALUE_ERROR = ("ValueError: When using FSDP2, a model and optimizer must be passed together to "
                     "`Accelerator.prepare()` as the optimizer needs to have its parameters modified after the model "
                     "is converted.")

#: the exception line the vLLM traceback was cut before, as the thread reports it (an OOM on rank 0's vLLM device)
VLLM_OOM = VLLM_INIT_RANK0 + [
    "[rank0]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.75 GiB. GPU 7 has a total capacity of "
    "79.10 GiB of which 1.02 GiB is free."]
#: the launcher's own record of rank 0's exit instead of the exception line
VLLM_LAUNCHER_EXIT = VLLM_INIT_RANK0 + [
    "E0130 05:50:20.000000 1234 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: 1) "
    "local_rank: 0 (pid: 4321) of binary: /usr/bin/python"]
#: the vLLM client's error the description quotes, on rank 0's traceback
SERVER_CONNECTION_ERROR = SERVER_RANK0 + [
    "[rank0]: requests.exceptions.ConnectionError: ('Connection aborted.', RemoteDisconnected('Remote end closed "
    "connection without response'))"]
#: the ValueError line the excerpt window cut from rank 1's traceback: a lone rank's exception
FSDP2_RANK1_RAISES = FSDP2_TP_RANK1 + [f"[rank1]: {FSDP2_VALUE_ERROR}"]
#: rank 0 raising the same ValueError through the same frames: two ranks alike
FSDP2_BOTH_RAISE = FSDP2_RANK1_RAISES + [line.replace("[rank1]", "[rank0]") for line in FSDP2_RANK1_RAISES]
#: rank 0's heartbeat line next to rank 1's in the 2-GPU SFT
SFT_BOTH_STUCK = SFT_STUCK_RANK1 + [
    SFT_STUCK_RANK1[0].replace("[rank1]", "[rank0]").replace("Rank 1]", "Rank 0]").replace("17:54:38.780558231",
                                                                                          "17:54:38.912345678")]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # the two culprits, as pasted: suspects at info, no named culprit
    "vllm-init-rank0-as-pasted": (VLLM_INIT_RANK0, None, None, None, None),
    "vllm-init-rank0-seven-trainers": (VLLM_INIT_RANK0, 7, 7, None, None),
    "server-rank0-as-pasted": (SERVER_RANK0, None, None, None, None),
    # controls, as pasted and laid out as the threads say
    "fsdp2-tp-rank1-as-pasted": (FSDP2_TP_RANK1, None, None, None, None),
    "fsdp2-tp-rank1-two-ranks": (FSDP2_TP_RANK1, 2, 2, None, None),
    "grpo-stuck-rank0-as-pasted": (GRPO_STUCK_RANK0, None, None, None, None),
    "grpo-stuck-rank0-one-node-of-8": (GRPO_STUCK_RANK0, 8, 8, None, None),
    "sft-stuck-rank1-as-pasted": (SFT_STUCK_RANK1, None, None, None, None),
    "sft-stuck-rank1-two-gpus": (SFT_STUCK_RANK1, 2, 2, None, None),
    # contrasts
    "vllm-oom-line-names-rank0": (VLLM_OOM, None, None, 0, "cuda-oom"),
    "vllm-launcher-exit-names-rank0": (VLLM_LAUNCHER_EXIT, 7, 7, 0, "python-exception"),
    "server-connection-error-names-rank0": (SERVER_CONNECTION_ERROR, None, None, 0, "python-exception"),
    "fsdp2-value-error-names-rank1": (FSDP2_RANK1_RAISES, None, None, 1, "python-exception"),
    "fsdp2-both-ranks-name-none": (FSDP2_BOTH_RAISE, None, None, None, None),
    "sft-both-stuck-name-none": (SFT_BOTH_STUCK, 2, 2, None, None),
}
BATCHED = Batched("b248", list(CASES))

#: the rank an info-level ``rank-failure`` (python-exception) holds as a suspect in each input read so
SUSPECTS = {
    "vllm-init-rank0-as-pasted": 0,
    "vllm-init-rank0-seven-trainers": 0,
    "server-rank0-as-pasted": 0,
    "fsdp2-tp-rank1-as-pasted": 1,
    "fsdp2-tp-rank1-two-ranks": 1,
}

_make = pasted_cases(CASES, NOW)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_hf_trainer_family_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])


@pytest.mark.parametrize("key", BATCHED.params(list(SUSPECTS), name=str))
def test_a_traceback_without_its_exception_line_is_a_suspect_at_info(key, tmp_path_factory):
    """One rank's traceback frames with no exception line: an info rank-failure holding that rank, nothing louder."""
    assert_info_suspect(BATCHED.findings(key, tmp_path_factory, _make), SUSPECTS[key])


def test_the_stuck_watchdogs_say_nothing(tmp_path):
    """Rank 0's 480-second and rank 1's 1200-second heartbeat-monitor lines make no finding at all, alone or both."""
    for i, (lines, nproc) in enumerate(((GRPO_STUCK_RANK0, 8), (SFT_STUCK_RANK1, 2), (SFT_BOTH_STUCK, 2))):
        findings = pasted_findings(lines, tmp_path / str(i), nproc, nproc, NOW)
        assert findings == [], [(f["rule"], f["severity"], f["ranks"]) for f in findings]


def test_the_oom_line_makes_rank0_the_culprit(tmp_path):
    """Rank 0's vLLM traceback ending in its own CUDA out-of-memory: a cuda-oom finding naming rank 0 (at warning: the paste
    holds rank 0's lines only, session 45)."""
    findings = pasted_findings(VLLM_OOM, tmp_path, None, None, NOW)
    named = [(f["severity"], f["cause"], f["ranks"]) for f in naming_findings(findings)]
    assert named and all(r == [0] for _, _, r in named), named
    assert ("warning", "cuda-oom", [0]) in named, named


def test_two_ranks_raising_alike_are_no_single_culprit(tmp_path):
    """Ranks 1 and 0 raising the same FSDP2 ValueError: a rank-failure that holds no rank."""
    findings = pasted_findings(FSDP2_BOTH_RAISE, tmp_path, None, None, NOW)
    failures = [(f["rule"], f["cause"], f["ranks"]) for f in findings if f["rule"] == "rank-failure"]
    assert failures == [("rank-failure", "python-exception", [])], failures
    assert naming_findings(findings) == [], [(f["rule"], f["ranks"]) for f in findings]
