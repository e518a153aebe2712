"""torch.compile / Inductor / Triton failures in multi-GPU training (real incidents batch 345), pinned as read.
Four controls, collected blind; three were read right as collected and one with a culprit (NOT_YET, batch 345), all
pinned here so a change of reading is seen. DeepSpeed DeepCompile's ZeRO-1 pass leaving an ``aten.randn`` Inductor
cannot lower (deepspeedai/DeepSpeed#7522: ``InductorError: LoweringException``, every rank) names rank 0, the only
rank pasted. moshi-finetune's ``[rank2]: Traceback`` head cut before its exception (kyutai-labs/moshi-finetune#20:
torch.compile failing on every rank) is an info suspect, no culprit. Rank 6's Triton ``ptxas fatal : Value 'sm_100'
is not defined`` on B200 (mlcommons/training#826: the image's ptxas predates Blackwell) is read as nothing at all:
its lines carry a launcher prefix whose role name starts with a digit, ``0000-steps/0 [default6]:[rank6]:``, and no
such line is read (``trainer/0`` or no prefix is). SpecForge's one-line paste of rank 3's ``No valid triton configs.
OutOfMemoryError: out of resource: triton_tem_fused_0 Required: 107008 Hardware limit:101376`` (sgl-project/SpecForge
#194: shared memory of the GPU model, every rank) starts with a frame, so it is an info suspect, and Triton's
"OutOfMemoryError" is not read as a CUDA OOM. Scored 3/4 both ways as collected; no rule changed (measure only).
Contrasts: without the ``InductorError`` line rank 0 is a suspect only; the DeepCompile tail under ``[rank5]`` names
rank 5; moshi's head with an exception line names rank 2; the B200 tail without its job prefix, or under
``trainer/0``, names rank 6; the SpecForge paste split at its ``[rank3]:`` tags names rank 3; a real CUDA OOM on
rank 3 names rank 3 (cuda-oom). Pasted logs through ``k10s import-logs``, batched.
Since session 57 (the batch's suggestion and the corpus' compile failures): a role prefix may start with a digit, so the
B200 lines are read; and a compiler's refusal of the program (Inductor's, Dynamo's, Triton's, ptxas') is every rank's
(common mode): DeepSpeed#7522 names no one, nor do its ``[rank5]`` copy, moshi's head with an ``InductorError``, the
B200 tail under any prefix or the SpecForge paste split at its tags; moshi's head with a ``KeyError`` still names rank 2.
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

NOW = dt.datetime(2026, 12, 5, 22, 40, tzinfo=dt.timezone.utc)

DEEPCOMPILE_LOWERING = corpus_lines("deepspeed-7522-")
MOSHI_HEAD = corpus_lines("moshi-finetune-20-")
B200_PTXAS = corpus_lines("mlcommons-training-826-")
SPECFORGE_ONE_LINE = corpus_lines("specforge-194-")

#: the DeepCompile tail without its ``torch._inductor.exc.InductorError: LoweringException`` line: frames only
DEEPCOMPILE_NO_ERROR = [
    line for line in DEEPCOMPILE_LOWERING if "InductorError" not in line
]
#: the same tail reported by rank 5 of 8
DEEPCOMPILE_RANK5 = [
    line.replace("[rank0]", "[rank5]") for line in DEEPCOMPILE_LOWERING
]
#: moshi's head completed with the backward call and an Inductor exception line of rank 2
MOSHI_WITH_ERROR = MOSHI_HEAD + [
    "[rank2]:     mb_loss.backward()",
    "[rank2]: torch._inductor.exc.InductorError: RuntimeError: compile failed",
]
#: moshi's head with an exception of the script's own (no compiler's)
MOSHI_WITH_OTHER_ERROR = MOSHI_HEAD + [
    "[rank2]:     mb_loss.backward()",
    "[rank2]: KeyError: 'input_ids'",
]
#: the B200 tail without the launcher's ``0000-steps/0 `` job prefix (``[default6]:[rank6]:`` left)
B200_NO_JOB_PREFIX = [line.replace("0000-steps/0 ", "") for line in B200_PTXAS]
#: the same tail under a role name that starts with a letter
B200_TRAINER_PREFIX = [
    line.replace("0000-steps/0 ", "trainer/0 ") for line in B200_PTXAS
]
#: SpecForge's paste with a line break restored before each ``[rank3]:`` tag
SPECFORGE_SPLIT = SPECFORGE_ONE_LINE[0].replace(" [rank3]:", "\n[rank3]:").split("\n")
#: a real CUDA OOM of rank 3 in place of Triton's shared-memory "OutOfMemoryError"
SPECFORGE_CUDA_OOM = [
    "[rank3]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.02 GiB. GPU 3 has a "
    "total capacity of 47.40 GiB of which 30.69 MiB is free."
]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # as collected, pasted and laid out as the threads say (today's reading)
    "deepcompile-lowering-as-pasted": (DEEPCOMPILE_LOWERING, None, None, None, None),
    "moshi-traceback-head-as-pasted": (MOSHI_HEAD, None, None, None, None),
    "b200-ptxas-as-pasted": (B200_PTXAS, None, None, None, None),
    "specforge-one-line-as-pasted": (SPECFORGE_ONE_LINE, None, None, None, None),
    "specforge-one-line-eight-gpus": (SPECFORGE_ONE_LINE, 8, 8, None, None),
    # contrasts
    "deepcompile-without-error-names-none": (
        DEEPCOMPILE_NO_ERROR,
        None,
        None,
        None,
        None,
    ),
    "deepcompile-rank5-names-none": (DEEPCOMPILE_RANK5, 8, 8, None, None),
    "moshi-with-error-names-none": (MOSHI_WITH_ERROR, 4, 4, None, None),
    "moshi-with-other-error-names-rank2": (MOSHI_WITH_OTHER_ERROR, 4, 4, 2, "python-exception"),
    "b200-without-job-prefix-names-none": (B200_NO_JOB_PREFIX, 8, 8, None, None),
    "b200-trainer-prefix-names-none": (B200_TRAINER_PREFIX, 8, 8, None, None),
    "specforge-split-names-none": (SPECFORGE_SPLIT, 8, 8, None, None),
    "specforge-cuda-oom-names-rank3": (SPECFORGE_CUDA_OOM, 8, 8, 3, "cuda-oom"),
}
BATCHED = Batched("b345", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_compile_inductor_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])


@pytest.mark.parametrize(
    ("lines", "rank"),
    [(MOSHI_HEAD, 2), (SPECFORGE_ONE_LINE, 3), (DEEPCOMPILE_NO_ERROR, 0)],
    ids=["moshi-head", "specforge-one-line", "deepcompile-frames"],
)
def test_frames_without_exception_are_a_suspect(lines, rank, tmp_path):
    """A rank's frames with no exception line of its own (moshi's cut head; SpecForge's paste whose exception shares
    one physical line with the frames before it) hold that rank as an info suspect, nothing louder."""
    assert_info_suspect(pasted_findings(lines, tmp_path, None, None, NOW), rank)


def test_digit_led_role_prefix_is_read(tmp_path):
    """``0000-steps/0 [default6]:[rank6]:`` lines were not read at all as collected; since session 57 the role prefix may
    start with a digit, so they read as they do under ``trainer/0``: a compiler's refusal, every rank's (a warning of no
    rank: common mode)."""
    gist = [(f["rule"], f["severity"], f["cause"], f["ranks"]) for f in pasted_findings(B200_PTXAS, tmp_path / "a", 8, 8, NOW)]
    assert gist == [("rank-failure", "warning", "python-exception", [])]
    assert naming_findings(pasted_findings(B200_TRAINER_PREFIX, tmp_path / "b", 8, 8, NOW)) == []
