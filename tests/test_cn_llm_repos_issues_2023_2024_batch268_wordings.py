"""Chinese LLM repositories' multi-GPU fine-tuning failures, 2023-2024 (real incidents batch 268), pinned as read.
Two culprits: rank 5 of a GLM-4V resume whose ``[rank5]:`` OOM shows another process holding 28 GiB of its card, then
torchrun's SIGTERMs (zai-org/GLM-4#408, named: rank 5, cuda-oom); the one untagged ``torch.cuda.OutOfMemoryError``
``(GPU 0; ... 4.05 GiB already allocated; 13.00 MiB free ...)`` of a Baichuan2 run on two 3090s whose first card holds
another model (baichuan-inc/Baichuan2#208: rank 0 by the thread; read as an OOM naming no rank, the batch's miss,
listed in NOT_YET). Three controls that name no one: DeepSpeed's ``Killing subprocess`` list when Yi's workers exhaust
host RAM at load (01-ai/Yi#152); DeepSpeed's last-spawned ``'--local_rank=7' ... exits with return code = 1`` of an
8 x 3090 CogVLM LoRA whose batch size overflows every card (zai-org/CogVLM#121); an interleaved untagged ``GPU 4`` OOM
whose ``Process 701751`` is the worker itself (zai-org/CogVLM2#67: every card too small). Scored 4/5 both ways as
collected; no rule changed (measure only).
Contrasts: the Baichuan2 line tagged ``[rank0]:`` names rank 0; GLM-4's lines untagged name no one, retagged
``[rank2]:`` name rank 2; DeepSpeed's launcher with one subprocess names that rank (Yi: host-oom-kill at -9, CogVLM:
python-exception at 1) while its ERROR line after several kills names none; CogVLM2's OOM tagged ``[rank4]:`` names
rank 4. Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted, pasted_findings
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 4, 21, 30, tzinfo=dt.timezone.utc)

GPU0_HELD = corpus_lines("Baichuan2-208-")
RESUME_RANK5 = corpus_lines("GLM-4-408-")
HOST_RAM_KILLS = corpus_lines("Yi-152-")
LAST_CMD_RANK7 = corpus_lines("CogVLM-121-")
EVERY_CARD_OOM = corpus_lines("CogVLM2-67-")

#: the Baichuan2 OOM on a line its rank tags (``[rank0]:``), as torch >= 2.4 prints a rank's exception
GPU0_TAGGED = ["[rank0]: " + GPU0_HELD[0]]
#: GLM-4's lines without the ``[rank5]:`` prefix: the device index is blank (``GPU  has``), nothing names a rank
RESUME_UNTAGGED = [line.replace("[rank5]: ", "") for line in RESUME_RANK5]
#: the same lines tagged by another rank
RESUME_RANK2 = [line.replace("[rank5]", "[rank2]") for line in RESUME_RANK5]
#: DeepSpeed's ERROR line after the five kills: the last-spawned command with the failing process's return code
KILLS_THEN_ERROR = HOST_RAM_KILLS + [
    "[2023-11-21 20:42:22,760] [ERROR] [launch.py:321:sigkill_handler] ['/root/anaconda3/envs/testCase/bin/python', "
    "'-u', 'main.py', '--local_rank=7'] exits with return code = -9"]
#: one subprocess killed: the printed command is the failing process's own
ONE_KILL_SIGKILL = HOST_RAM_KILLS[:2] + [
    "[2023-11-21 20:42:22,760] [ERROR] [launch.py:321:sigkill_handler] ['/root/anaconda3/envs/testCase/bin/python', "
    "'-u', 'main.py', '--local_rank=0'] exits with return code = -9"]
ONE_KILL_EXIT1 = ["[2023-11-25 01:35:17,100] [INFO] [launch.py:315:sigkill_handler] Killing subprocess 13266",
                  LAST_CMD_RANK7[0].replace("'--local_rank=7'", "'--local_rank=0'")]
#: CogVLM2's OOM line tagged by its rank
EVERY_CARD_TAGGED = [("[rank4]: " + line) if line.startswith("torch.cuda") else line for line in EVERY_CARD_OOM]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # culprits, as pasted and laid out as the threads say
    "resume-rank5-as-pasted": (RESUME_RANK5, None, None, 5, "cuda-oom"),
    "resume-rank5-one-node-of-8": (RESUME_RANK5, 8, 8, 5, "cuda-oom"),
    "resume-rank5-oom-alone": (RESUME_RANK5[:3], None, None, 5, "cuda-oom"),
    # the miss, as read (NOT_YET): an untagged GPU 0 OOM names no rank
    "gpu0-held-as-pasted": (GPU0_HELD, None, None, None, None),
    "gpu0-held-two-3090s": (GPU0_HELD, 2, 2, None, None),
    # controls
    "host-ram-kills-as-pasted": (HOST_RAM_KILLS, None, None, None, None),
    "host-ram-kills-one-node-of-8": (HOST_RAM_KILLS, 8, 8, None, None),
    "last-cmd-rank7-as-pasted": (LAST_CMD_RANK7, None, None, None, None),
    "last-cmd-rank7-one-node-of-8": (LAST_CMD_RANK7, 8, 8, None, None),
    "every-card-oom-as-pasted": (EVERY_CARD_OOM, None, None, None, None),
    "every-card-oom-line-alone": (EVERY_CARD_OOM[1:2], None, None, None, None),
    # contrasts
    "gpu0-tagged-names-rank0": (GPU0_TAGGED, 2, 2, 0, "cuda-oom"),
    "resume-untagged-names-none": (RESUME_UNTAGGED, None, None, None, None),
    "resume-rank2-names-rank2": (RESUME_RANK2, None, None, 2, "cuda-oom"),
    "kills-then-error-names-none": (KILLS_THEN_ERROR, None, None, None, None),
    "one-kill-sigkill-names-rank0": (ONE_KILL_SIGKILL, None, None, 0, "host-oom-kill"),
    "one-kill-exit1-names-rank0": (ONE_KILL_EXIT1, None, None, 0, "python-exception"),
    "every-card-tagged-names-rank4": (EVERY_CARD_TAGGED, None, None, 4, "cuda-oom"),
}
BATCHED = Batched("b268", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_cn_llm_repos_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])


def _loud(findings: list[dict]) -> list[tuple]:
    return [(f["rule"], f["severity"], f.get("cause"), f["ranks"]) for f in findings
            if f["severity"] in ("critical", "warning")]


def test_gpu0_held_reads_as_an_oom_naming_no_rank(tmp_path):
    """The batch's miss as it stands: the lone untagged GPU 0 OOM is an OOM finding (cuda-oom) that holds no rank."""
    loud = _loud(pasted_findings(GPU0_HELD, tmp_path, 2, 2, NOW))
    assert loud and all(cause == "cuda-oom" and not ranks for _, _, cause, ranks in loud), loud


def test_launcher_error_after_several_kills_is_host_oom_kill_of_no_rank(tmp_path):
    """DeepSpeed's `exits with return code = -9` after five kills reads as a SIGKILL (host-oom-kill) that names no
    rank: its `--local_rank=7` is the last command spawned, not the process that died."""
    loud = _loud(pasted_findings(KILLS_THEN_ERROR, tmp_path, None, None, NOW))
    assert [(rule, cause, ranks) for rule, _, cause, ranks in loud] == [("rank-failure", "host-oom-kill", [])], loud


def test_kill_list_alone_is_silent(tmp_path):
    """The `Killing subprocess` lines with no ERROR line raise nothing loud: no rank, no cause to report."""
    assert _loud(pasted_findings(HOST_RAM_KILLS, tmp_path, 8, 8, NOW)) == []
