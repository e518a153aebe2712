"""Community diffusion trainers (kohya sd-scripts / kohya_ss, musubi-tuner; real incidents batch 204): their
wordings, pinned as read. Held culprits: the torch-elastic agent's SIGTERM of three workers glued to sd-scripts'
``caching latents...`` bar before ``failed (exitcode: -9) local_rank: 2`` (bmaltais/kohya_ss#2484), as pasted, with a
layout of 4 and for another local rank, names that rank, host-oom-kill; accelerate's ChildFailedError table naming
``rank : 0 (local_rank: 0)``, exit 1, ``<NO_OTHER_FAILURES>`` (kohya-ss/sd-scripts#892) names rank 0,
python-exception. Held controls: ranks 0, 2 and 3's wrapped ``using GPU N to perform barrier`` warnings after their
tqdm bars (bmaltais/kohya_ss#2933; also without rank 3's), rank 0's lone ``[rank0]:`` traceback into the DDP
wrapper's ``__getattr__`` cut before its exception (kohya-ss/musubi-tuner#672) and two processes' interleaved
``text_encoder.text_model`` tracebacks (kohya-ss/sd-scripts#1330) name no one. The miss as read (NOT_YET in
tests/corpus_not_yet_s36.py): rank 0's lone ``AttributeError: 'DistributedDataParallel' object has no attribute
'train_blocks'`` (kohya-ss/sd-scripts#1551, every rank alike by the thread) names rank 0, python-exception. Contrast:
the same two lines from ranks 0 and 1 alike name no one. No rule changed for the batch (docs/rules.md, "Session 36:
batch 204"). Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 2, 12, 0, tzinfo=dt.timezone.utc)


CACHE = corpus_lines("kohya_ss-2484-")
TABLE = corpus_lines("sd-scripts-892-")
BARRIER = corpus_lines("kohya_ss-2933-")
QWEN = corpus_lines("musubi-tuner-672-")
TWO = corpus_lines("sd-scripts-1330-")
SPLIT = corpus_lines("sd-scripts-1551-")


def _local0(lines: list[str]) -> list[str]:
    """The agent's lines with local rank 0 (pid 1242468) the -9 worker and 1242470 among the SIGTERMed."""
    out = []
    for x in lines:
        x = x.replace("local_rank: 2 (pid: 1242470)", "local_rank: 0 (pid: 1242468)")
        out.append(x.replace("Sending process 1242468", "Sending process 1242470"))
    return out


#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # kohya_ss-2484's shape: SIGTERMs glued to the caching bar, then one worker's -9
    "caching-sigkill-local-rank2-as-pasted": (CACHE, None, None, 2, "host-oom-kill"),
    "caching-sigkill-local-rank2-layout-4": (CACHE, 4, 4, 2, "host-oom-kill"),
    "caching-sigkill-local-rank0-layout-4": (
        _local0(CACHE),
        4,
        4,
        0,
        "host-oom-kill",
    ),
    # sd-scripts-892's shape: the launcher's table naming rank 0 alone
    "childfailed-rank0-no-other-as-pasted": (TABLE, None, None, 0, "python-exception"),
    "childfailed-rank0-no-other-layout-2": (TABLE, 2, 2, 0, "python-exception"),
    # kohya_ss-2933's shape: every rank's start-up barrier warning, wrapped, after its bar
    "barrier-warnings-as-pasted": (BARRIER, None, None, None, None),
    "barrier-warnings-layout-4": (BARRIER, 4, 4, None, None),
    "barrier-warnings-without-rank3": (BARRIER[:5], 4, 4, None, None),
    # musubi-tuner-672's shape: a lone rank-0 traceback cut before its exception
    "qwen-lone-rank0-cut-as-pasted": (QWEN, None, None, None, None),
    "qwen-lone-rank0-cut-layout-2": (QWEN, 2, 2, None, None),
    # sd-scripts-1330's shape: two processes' identical tracebacks interleaved
    "text-model-interleaved-as-pasted": (TWO, None, None, None, None),
    "text-model-interleaved-layout-2": (TWO, 2, 2, None, None),
    # rank 0's lone DDP AttributeError, every rank's by the thread: read right since session 61 (a suspect at info,
    # low_why lone-paste-program-structure: an attribute asked of the DDP wrapper)
    "split-mode-lone-rank0-as-pasted": (SPLIT, None, None, None, None),
    "split-mode-lone-rank0-layout-2": (SPLIT, 2, 2, None, None),
    # contrast: the same lines from ranks 0 and 1 alike
    "split-mode-ranks-0-and-1-alike": (
        SPLIT + [x.replace("[rank0]", "[rank1]") for x in SPLIT],
        2,
        2,
        None,
        None,
    ),
}
BATCHED = Batched("b204", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_diffusion_trainers_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])
