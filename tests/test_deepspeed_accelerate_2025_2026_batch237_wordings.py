"""DeepSpeed / Accelerate multi-GPU failures of 2025-2026 (real incidents batch 237), pinned as read. Three culprit
cases that are read as suspects only: the head of one rank's traceback with no exception line, rank 0 of 4 A800
(hiyouga/LlamaFactory#9313: an image-token ValueError from a sample cut by ``cutoff_len``), rank 5's frames into
DeepSpeed's ``wrapped_fn`` (hiyouga/LlamaFactory#7160), rank 2's container-timestamped traceback
(hiyouga/LlamaFactory#10241, Qwen3.5): each an info ``rank-failure`` (python-exception) naming that rank, no warning or
critical finding. Three controls that name no one: rank 1's frames into DeepSpeed's ``_broadcast_model`` on a WSL
desktop of mixed GPUs (huggingface/accelerate#3735: every multi-GPU run and ``accelerate test`` fail alike; an info
suspect only), rank 2's ``watchdog got stuck for 480 seconds`` under ZeRO-3 offload (hiyouga/LlamaFactory#6964: host
RAM, the whole job), rank 4's first-broadcast timeout ``SeqNum=1`` with nothing ever completed
(deepspeedai/DeepSpeedExamples#964: every option of the TP example fails the same). Scored 3/6 both ways as collected
(the three culprits missed at info, the three controls right); no rule changed (measure only).
Contrasts: the exception line the excerpt cut (``ValueError: Image features and image tokens do not match``) or the
launcher's ``failed (exitcode: 1) local_rank: 0`` makes the suspect a named culprit (warning); a lone
``torch.OutOfMemoryError`` on rank 1 makes the broadcast control name rank 1 (critical, cuda-oom); a SIGKILL of
local rank 2 names it (host-oom-kill); rank 0 timing out on the same first broadcast reads as no single culprit.
Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt

import pytest

from bundle_batch import Batched, assert_info_suspect, assert_one_rank, pasted_cases, pasted_findings
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 4, 6, 0, tzinfo=dt.timezone.utc)

CUTOFF_RANK0 = corpus_lines("LlamaFactory-9313-")
NVTX_RANK5 = corpus_lines("LlamaFactory-7160-")
STAMPED_RANK2 = corpus_lines("LlamaFactory-10241-")
WSL_BROADCAST = corpus_lines("accelerate-3735-")
OFFLOAD_STUCK = corpus_lines("LlamaFactory-6964-")
TP_FIRST_BROADCAST = corpus_lines("DeepSpeedExamples-964-")

#: the exception line each culprit's excerpt cut, as the titles quote it
RANK0_VALUE_ERROR = CUTOFF_RANK0 + [
    "[rank0]: ValueError: Image features and image tokens do not match: tokens: 1468, features 1936"]
RANK5_VALUE_ERROR = NVTX_RANK5 + [
    "[rank5]: ValueError: Image features and image tokens do not match: tokens: 1468, features 1936"]
RANK2_VALUE_ERROR = STAMPED_RANK2 + [
    "2026-03-03T19:57:27.237600000+08:00 [rank2]: ValueError: Image features and image tokens do not match, "
    "tokens: 8422, features: 8779"]
#: the launcher's own record of rank 0's exit instead of the exception line
RANK0_LAUNCHER_EXIT = CUTOFF_RANK0 + [
    "E1021 01:40:00.000000 1234 torch/distributed/elastic/multiprocessing/api.py:874] failed (exitcode: 1) "
    "local_rank: 0 (pid: 4321) of binary: /usr/bin/python"]
#: rank 1's broadcast ending in its own CUDA out-of-memory: the lone-rank OOM shape
RANK1_OOM = WSL_BROADCAST + [
    "[rank1]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB. GPU 1 has a total capacity "
    "of 15.93 GiB of which 0 bytes is free."]
#: the launcher SIGKILLing local rank 2 after its watchdog got stuck: a kill of one rank
RANK2_SIGKILLED = OFFLOAD_STUCK + [
    "E0217 04:41:02.000000 140000 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: -9) "
    "local_rank: 2 (pid: 51234) of binary: /opt/conda/bin/python"]
#: rank 0 timing out on the same first broadcast as rank 4
TWO_RANKS_FIRST_BROADCAST = TP_FIRST_BROADCAST + [
    line.replace("rank4", "rank0").replace("Rank 4", "Rank 0") for line in TP_FIRST_BROADCAST[1:]]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # the three culprits, as pasted: suspects at info, no named culprit
    "cutoff-rank0-as-pasted": (CUTOFF_RANK0, None, None, None, None),
    "cutoff-rank0-one-node-of-4": (CUTOFF_RANK0, 4, 4, None, None),
    "nvtx-rank5-as-pasted": (NVTX_RANK5, None, None, None, None),
    "stamped-rank2-as-pasted": (STAMPED_RANK2, None, None, None, None),
    # controls, as pasted and laid out as the threads say
    "wsl-broadcast-as-pasted": (WSL_BROADCAST, None, None, None, None),
    "wsl-broadcast-three-gpus": (WSL_BROADCAST, 3, 3, None, None),
    "offload-stuck-as-pasted": (OFFLOAD_STUCK, None, None, None, None),
    "offload-stuck-one-node-of-8": (OFFLOAD_STUCK, 8, 8, None, None),
    "tp-first-broadcast-as-pasted": (TP_FIRST_BROADCAST, None, None, None, None),
    # contrasts
    "rank0-value-error-names-rank0": (RANK0_VALUE_ERROR, 4, 4, 0, "python-exception"),
    "rank5-value-error-names-rank5": (RANK5_VALUE_ERROR, None, None, 5, "python-exception"),
    "rank2-stamped-value-error-names-rank2": (RANK2_VALUE_ERROR, None, None, 2, "python-exception"),
    "rank0-launcher-exit-names-rank0": (RANK0_LAUNCHER_EXIT, 4, 4, 0, "python-exception"),
    "rank1-oom-names-rank1": (RANK1_OOM, None, None, 1, "cuda-oom"),
    "rank2-sigkilled-names-rank2": (RANK2_SIGKILLED, 8, 8, 2, "host-oom-kill"),
    "two-ranks-first-broadcast-names-none": (TWO_RANKS_FIRST_BROADCAST, None, None, None, None),
}
BATCHED = Batched("b237", list(CASES))

#: the rank an info-level ``rank-failure`` (python-exception) holds as a suspect in each input read so
SUSPECTS = {
    "cutoff-rank0-as-pasted": 0,
    "cutoff-rank0-one-node-of-4": 0,
    "nvtx-rank5-as-pasted": 5,
    "stamped-rank2-as-pasted": 2,
    "wsl-broadcast-as-pasted": 1,
    "wsl-broadcast-three-gpus": 1,
}


_make = pasted_cases(CASES, NOW)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_deepspeed_accelerate_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])


@pytest.mark.parametrize("key", BATCHED.params(list(SUSPECTS), name=str))
def test_a_traceback_without_its_exception_line_is_a_suspect_at_info(key, tmp_path_factory):
    """One rank's traceback frames with no exception line: an info rank-failure holding that rank, nothing louder."""
    assert_info_suspect(BATCHED.findings(key, tmp_path_factory, _make), SUSPECTS[key])


def test_the_stuck_watchdog_and_the_first_broadcast_say_nothing(tmp_path):
    """Rank 2's heartbeat-monitor warning makes no finding at all; rank 4's lone first-broadcast timeout made none as
    collected, and since session 57 is the job's hang at info, of no rank (one rank's wait alone)."""
    findings = pasted_findings(OFFLOAD_STUCK, tmp_path / "0", 8, 8, NOW)
    assert findings == [], [(f["rule"], f["severity"], f["ranks"]) for f in findings]
    findings = pasted_findings(TP_FIRST_BROADCAST, tmp_path / "1", None, None, NOW)
    assert [(f["rule"], f["severity"], f["cause"], f["ranks"]) for f in findings] == [("nccl-hang", "info", "no-single-culprit", [])]


def test_two_ranks_on_the_first_broadcast_are_no_single_culprit(tmp_path):
    """Ranks 4 and 0 both timing out on SeqNum 1: a hang read as such, with no rank held."""

    findings = pasted_findings(TWO_RANKS_FIRST_BROADCAST, tmp_path, None, None, NOW)
    got = [(f["rule"], f["cause"], f["ranks"]) for f in findings]
    assert got == [("nccl-hang", "no-single-culprit", [])], got
