"""Multi-GPU evaluation runs launched beside training (real incidents batch 192): their wordings, pinned as read (the
batch was measured only; no parser or rule changed). Held controls: VLMEvalKit under torchrun where both ranks fail
NCCL's set-up with ``Cuda failure 217 'peer access is not supported between these two devices'`` (run.py's GPU
reassignment puts both on GPU 0, open-compass/VLMEvalKit#1036), VLMEvalKit's Qwen2.5-VL on MMMath whose unranked
attention reshape error precedes NCCL's teardown of comm ranks 1 and 3 (#975), and GPT-NeoX's evaluate.py whose
processes' identical tracebacks interleave with no rank (EleutherAI/lm-evaluation-harness#884): none names a rank.

The misses as read (tests/corpus_not_yet_s35.py): the torch-elastic agent's SIGTERM list leaving one worker's pid out,
its failed line cut (abdelfattah-lab/xKV#9, MCG-NJU/Video-o3#1), names no one; the agent's lone ``failed (exitcode: 1)
local_rank: 2`` over accelerate's traceback (fanegg/Human3R#4, a control) names local rank 2, the corpus's lone-failure
culprit shape. Contrasts: the same SIGTERM lists followed by the agent's failed line with the signal name the worker
(SIGFPE: rank 2; SIGKILL: rank 1). Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 2, 10, 0, tzinfo=dt.timezone.utc)


PEER = corpus_lines("VLMEvalKit-1036-")
RESHAPE = corpus_lines("VLMEvalKit-975-")
NEOX = corpus_lines("lm-evaluation-harness-884-")
XKV = corpus_lines("xKV-9-")
VIDEO = corpus_lines("Video-o3-1-")
HUMAN = corpus_lines("Human3R-4-")
AGENT = "torch/distributed/elastic/multiprocessing/api.py"
XKV_FAILED = (
    f"E0620 12:45:47.480000 140558389405504 {AGENT}:833] failed (exitcode: -8) local_rank: 2 (pid: 3282852) of "
    "binary: /opt/conda/bin/python"
)
VIDEO_FAILED = (
    f"E0305 08:16:22.480000 327458 {AGENT}:869] failed (exitcode: -9) local_rank: 1 (pid: 327473) of binary: "
    "/opt/conda/bin/python"
)

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # VLMEvalKit-1036's shape: both ranks' NCCL peer-access failure
    "peer-access-217-both-ranks-as-pasted": (PEER, None, None, None, None),
    "peer-access-217-both-ranks-layout-2": (PEER, 2, 2, None, None),
    # VLMEvalKit-975's shape: an unranked reshape error, NCCL's teardown of comm ranks 1 and 3
    "attn-reshape-unranked-teardown-as-pasted": (RESHAPE, None, None, None, None),
    "attn-reshape-unranked-teardown-layout-4": (RESHAPE, 4, 4, None, None),
    # lm-evaluation-harness-884's shape: interleaved identical tracebacks, no rank, no error line
    "neox-eval-interleaved-tracebacks-as-pasted": (NEOX, None, None, None, None),
    "neox-eval-interleaved-tracebacks-layout-6": (NEOX, 6, 12, None, None),
    # the misses as read: the agent's SIGTERM list with one pid left out, the failed line cut
    "xkv-sigterm-gap-as-pasted": (XKV, None, None, None, None),
    "xkv-sigterm-gap-layout-8": (XKV, 8, 8, None, None),
    "video-sigterm-gap-as-pasted": (VIDEO, None, None, None, None),
    "video-sigterm-gap-layout-8": (VIDEO, 8, 8, None, None),
    # Human3R-4 (a control) as read: the agent's lone failed line names its local rank
    "human3r-agent-lone-failed-local-rank2": (HUMAN, None, None, 2, "python-exception"),
    # contrasts: the agent's failed line with its signal names the worker
    "xkv-sigterm-gap-then-sigfpe-failed-line": (XKV + [XKV_FAILED], 8, 8, 2, "sigfpe"),
    "video-sigterm-gap-then-sigkill-failed-line": (
        VIDEO + [VIDEO_FAILED],
        8,
        8,
        1,
        "host-oom-kill",
    ),
}
BATCHED = Batched("b192", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_eval_harness_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])
