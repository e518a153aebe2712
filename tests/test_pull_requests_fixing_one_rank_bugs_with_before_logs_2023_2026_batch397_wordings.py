"""Pull requests fixing one-rank bugs, with the failing log shown before the fix, 2023-2026 (real incidents batch
397), pinned as read. Four threads collected blind (a fix PR, or the issue it closes): one control, three with a lone
culprit. Two were read right as collected: ranks 2 and 3's same ``[rank2]: TypeError: 'NoneType' object is not
iterable`` out of ``caching_allocator_warmup`` (huggingface/transformers#37663, fixed by #37708: Qwen2.5-Omni left
``_tp_plan`` None, every rank's ``from_pretrained`` raises alike) is a python-exception warning of no rank, as pasted
or as 4 ranks; the last rank's bottom-up ``[rank15]:   ValueError: Path is not a file:
'/xxx/latest_checkpointed_iteration.txt'`` from wandb's ``add_file`` (NVIDIA/Megatron-LM#1653, fix PR #1654: only
the last rank runs the wandb finalize and reads rank 0's tracker file before it is written) names rank 15 (warning,
medium). Two are NOT_YET as collected and pinned as read, with no finding at all: the PR's two bare lines
``socketProgress: Connection closed by remote peer`` / ``SIGABRT on rank 0`` (kyuz0/amd-strix-halo-llm-finetuning#6:
rank 1 skipped FSDP's collective ``save_model()`` and exited, rank 0 aborted with its peer gone; truth rank 1), and
cascadia's own trace where rank 1 ``moved on`` to ``seq=1120`` while rank 0 ``awaiting tokens seq=1119`` shows
``(nothing further)`` (labscommunity/cascadia#122, fix PR #128: rank 0 starved its own tokio I/O driver; truth rank
0, lagging). Scored 2/4 both ways as collected. Contrasts: rank 2's tail alone names rank 2; the TypeError untagged
names no one; rank 0's copy of the ValueError beside rank 15's names no one; the ValueError untagged, the two bare
lines tagged ``[rank0]:``, either bare line alone, cascadia's trace tagged ``[rankN]:`` or rank 0's lines alone name no
one. Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted, pasted_findings
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 6, 5, 0, tzinfo=dt.timezone.utc)

TP_PLAN_NONE = corpus_lines("transformers-37663-")
LAST_RANK_WANDB = corpus_lines("Megatron-LM-1653-")
FSDP_SAVE_MAIN_ONLY = corpus_lines("amd-strix-halo-llm-finetuning-6-")
PACKED_WEDGE = corpus_lines("cascadia-122-")

#: rank 2's tail alone, without rank 3's traceback head after it
TP_PLAN_NONE_RANK2_ONLY = [line for line in TP_PLAN_NONE if line.startswith("[rank2]")]
#: the same two tracebacks without the rank tags (a paste of the untagged console)
TP_PLAN_NONE_UNTAGGED = [line.replace("[rank2]: ", "").replace("[rank3]: ", "") for line in TP_PLAN_NONE]
#: rank 0's copy of the same ValueError beside the last rank's: every rank's fault, not one's
LAST_RANK_WANDB_TWO_COPIES = [line.replace("[rank15]", "[rank0]") for line in LAST_RANK_WANDB] + LAST_RANK_WANDB
#: the last rank's lines without the tag
LAST_RANK_WANDB_UNTAGGED = [line.replace("[rank15]: ", "") for line in LAST_RANK_WANDB]
#: the PR's two bare lines tagged as rank 0's console (the victim's)
FSDP_SAVE_TAGGED_RANK0 = ["[rank0]: " + line for line in FSDP_SAVE_MAIN_ONLY]
#: cascadia's trace with torch-style tags in front of its own ``rank N`` prefix
PACKED_WEDGE_TAGGED = [f"[rank{line[5]}]: {line}" if line.startswith("rank ") else line for line in PACKED_WEDGE]
#: rank 0's three lines alone, without rank 1's ``moved on`` before them
PACKED_WEDGE_RANK0_ONLY = [line for line in PACKED_WEDGE if line.startswith("rank 0")]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # as collected, pasted and laid out as the threads say
    "tp-plan-none-as-pasted": (TP_PLAN_NONE, None, None, None, None),
    "tp-plan-none-four-ranks": (TP_PLAN_NONE, 4, 4, None, None),
    "last-rank-wandb-as-pasted": (LAST_RANK_WANDB, None, None, 15, "python-exception"),
    "last-rank-wandb-two-nodes": (LAST_RANK_WANDB, 8, 16, 15, "python-exception"),
    # NOT_YET as collected (truth rank 1 and rank 0), pinned as read: no one
    "fsdp-save-main-only-as-pasted": (FSDP_SAVE_MAIN_ONLY, None, None, None, None),
    "fsdp-save-main-only-two-nodes": (FSDP_SAVE_MAIN_ONLY, 1, 2, None, None),
    "packed-wedge-as-pasted": (PACKED_WEDGE, None, None, None, None),
    "packed-wedge-two-stages": (PACKED_WEDGE, 1, 2, None, None),
    # variants that must not name anyone
    "tp-plan-none-untagged-names-none": (TP_PLAN_NONE_UNTAGGED, None, None, None, None),
    "last-rank-wandb-two-copies-names-none": (LAST_RANK_WANDB_TWO_COPIES, 8, 16, None, None),
    "last-rank-wandb-untagged-names-none": (LAST_RANK_WANDB_UNTAGGED, None, None, None, None),
    "fsdp-save-tagged-rank0-names-none": (FSDP_SAVE_TAGGED_RANK0, 1, 2, None, None),
    "fsdp-save-sigabrt-line-alone-names-none": (FSDP_SAVE_MAIN_ONLY[1:], 1, 2, None, None),
    "fsdp-save-socket-line-alone-names-none": (FSDP_SAVE_MAIN_ONLY[:1], 1, 2, None, None),
    "packed-wedge-tagged-names-none": (PACKED_WEDGE_TAGGED, 1, 2, None, None),
    "packed-wedge-rank0-only-names-none": (PACKED_WEDGE_RANK0_ONLY, 1, 2, None, None),
    # a contrast that must name a rank
    "tp-plan-none-rank2-only-names-rank2": (TP_PLAN_NONE_RANK2_ONLY, 4, 4, 2, "python-exception"),
}
BATCHED = Batched("b397", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_fix_pr_before_log_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])


def _gist(lines: list[str], folder: Path, nproc: int | None, world: int | None) -> list[tuple]:
    return [(f["rule"], f["severity"], f["cause"], f["ranks"]) for f in pasted_findings(lines, folder, nproc, world, NOW)]


def test_same_typeerror_on_two_ranks_is_a_rankless_python_exception(tmp_path):
    """transformers#37663 as collected: rank 3's traceback head after rank 2's full tail makes two failing ranks of
    the same library call, no single culprit."""
    assert _gist(TP_PLAN_NONE, tmp_path / "a", None, None) == [("rank-failure", "warning", "python-exception", [])]
    assert _gist(TP_PLAN_NONE, tmp_path / "b", 4, 4) == [("rank-failure", "warning", "python-exception", [])]


def test_last_rank_wandb_valueerror_names_rank15(tmp_path):
    """Megatron-LM#1653 as collected: the bottom-up tail of rank 15 alone names it, medium ('the paste holds this
    rank's lines only'), which the thread settles: only the last rank runs the wandb finalize."""
    findings = pasted_findings(LAST_RANK_WANDB, tmp_path, 8, 16, NOW)
    assert [(f["rule"], f["severity"], f["cause"], f["ranks"]) for f in findings] == [
        ("rank-failure", "warning", "python-exception", [15])
    ]
    assert findings[0]["confidence"] == "medium"


def test_not_yet_threads_give_no_finding(tmp_path):
    """The two NOT_YET threads as collected give no finding at all (tests/corpus_not_yet_s63.py): the PR's bare
    ``SIGABRT on rank 0`` (truth rank 1, which left the collective) and cascadia's ``rank 0 ... (nothing further)``
    one sequence number behind rank 1 (truth rank 0, lagging)."""
    assert _gist(FSDP_SAVE_MAIN_ONLY, tmp_path / "a", 1, 2) == []
    assert _gist(PACKED_WEDGE, tmp_path / "b", 1, 2) == []
