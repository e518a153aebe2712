"""Multi-GPU fine-tuning and pre-training of speech recognition models (real incidents batch 202): their wordings,
pinned as read. Held controls: NeMo FastConformer's watchdog reports wrapped at 183 columns, ranks 2 and 1 in a
BROADCAST at SeqNum 532339 and rank 0 in an _ALLGATHER_BASE at 532341 (NVIDIA-NeMo/Speech#13562; as pasted, unwrapped
and in a layout of 4: an info finding at most), rank 1's lone BROADCAST watchdog glued to the tqdm bar with its heartbeat
lines (NVIDIA-NeMo/Speech#9563; wrapped, unwrapped, alone or in a layout of 2), two fairseq wav2vec 2.0 processes' store
barrier and NCCL set-up (facebookresearch/fairseq#4073), icefall's ``mp.spawn`` parent interrupted by Ctrl-C in a hang
(k2-fsa/icefall#1156), ``torch.distributed.launch``'s traceback and ChildFailedError head with no table
(speechbrain/speechbrain#2868; also with its dashed line) and icefall ranks 2 and 0 logging the same collapsed grad
scale before the spawn parent's traceback (k2-fsa/icefall#1463) name no one. Contrasts: the same three NeMo waiters all
in BROADCAST 532339 in a world of 4 name the absent rank 3 (never-joined); the launcher report followed by a root-cause
table of rank 1 alone names rank 1 (python-exception). No rule changed for the batch (all six met as collected).
Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 2, 12, 0, tzinfo=dt.timezone.utc)


SKEW = corpus_lines("NeMo-Speech-13562-")
SKEW_UNWRAPPED = [SKEW[i] + SKEW[i + 1].rstrip() for i in (0, 2, 4)]
SAME_SEQ = [
    line.replace(
        "SeqNum=532341, OpType=_ALLGATHER_BASE, NumelIn=513, NumelOut=2052",
        "SeqNum=532339, OpType=BROADCAST, NumelIn=5164000, NumelOut=5164000",
    )
    for line in SKEW_UNWRAPPED
]
LONE = corpus_lines("NeMo-Speech-9563-")
LONE_UNWRAPPED = [LONE[0] + LONE[1] + LONE[2]] + LONE[3:]
FAIRSEQ = corpus_lines("fairseq-4073-")
CTRL_C = corpus_lines("icefall-1156-")
LAUNCH = corpus_lines("speechbrain-2868-")
GRAD_SCALE = corpus_lines("icefall-1463-")
DASHES = "-" * 60
ROOT_CAUSE_RANK1 = [
    DASHES,
    "Failures:",
    "  <NO_OTHER_FAILURES>",
    DASHES,
    "Root Cause (first observed failure):",
    "[0]:",
    "  time      : 2025-03-10_14:02:11",
    "  host      : gpu-node-12",
    "  rank      : 1 (local_rank: 1)",
    "  exitcode  : 1 (pid: 81234)",
    "  error_file: <N/A>",
    "  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html",
    "=" * 60,
]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # NeMo-Speech-13562's shape: ranks 2 and 1 in a BROADCAST, rank 0 two collectives on, rank 3 absent
    "seq-skew-watchdogs-as-pasted": (SKEW, None, None, None, None),
    "seq-skew-watchdogs-layout-4": (SKEW, 4, 4, None, None),
    "seq-skew-watchdogs-unwrapped": (SKEW_UNWRAPPED, None, None, None, None),
    "seq-skew-watchdogs-unwrapped-layout-4": (SKEW_UNWRAPPED, 4, 4, None, None),
    "seq-skew-two-broadcast-waiters-layout-4": (SKEW_UNWRAPPED[:2], 4, 4, None, None),
    # NeMo-Speech-9563's shape: rank 1's lone BROADCAST watchdog after tqdm, then its heartbeat monitor
    "lone-broadcast-heartbeat-as-pasted": (LONE, None, None, None, None),
    "lone-broadcast-heartbeat-layout-2": (LONE, 2, 2, None, None),
    "lone-broadcast-heartbeat-unwrapped-layout-2": (LONE_UNWRAPPED, 2, 2, None, None),
    "lone-broadcast-watchdog-only-layout-2": (LONE_UNWRAPPED[:1], 2, 2, None, None),
    # fairseq-4073's shape: two processes' barrier and NCCL set-up, nothing failing
    "two-rank-nccl-setup-as-pasted": (FAIRSEQ, None, None, None, None),
    "two-rank-nccl-setup-layout-2": (FAIRSEQ, 2, 2, None, None),
    # icefall-1156's shape: the spawn parent's Ctrl-C traceback and its atexit join
    "spawn-parent-ctrl-c-as-pasted": (CTRL_C, None, None, None, None),
    "spawn-parent-ctrl-c-layout-2": (CTRL_C, 2, 2, None, None),
    # speechbrain-2868's shape: the launcher's traceback and the ChildFailedError head, no table
    "launch-childfailed-head-as-pasted": (LAUNCH, None, None, None, None),
    "launch-childfailed-head-with-dashes": (LAUNCH + [DASHES], None, None, None, None),
    # icefall-1463's shape: two ranks' identical collapsed grad scale, the spawn parent's traceback cut
    "grad-scale-two-ranks-as-pasted": (GRAD_SCALE, None, None, None, None),
    "grad-scale-two-ranks-layout-4": (GRAD_SCALE, 4, 4, None, None),
    # contrasts: every pasted waiter in the same collective; the agent's table of one failed rank
    "same-broadcast-three-of-four-contrast": (SAME_SEQ, 4, 4, 3, "never-joined"),
    "launch-root-cause-rank1-contrast": (
        LAUNCH + ROOT_CAUSE_RANK1,
        2,
        2,
        1,
        "python-exception",
    ),
}
BATCHED = Batched("b202", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_asr_speech_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])
