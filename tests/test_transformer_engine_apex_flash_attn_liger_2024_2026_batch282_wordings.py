"""TransformerEngine, Liger-Kernel and lightning-thunder multi-GPU failures (real incidents batch 282), pinned as read.
Four controls, collected blind; two were read with a culprit as collected (NOT_YET, batch 282) and are pinned here as
read so a change of reading is seen: the tail of one rank's ``[rank3]:`` traceback in Liger's fused linear
cross-entropy, ``RuntimeError: size mismatch, got input (2), mat (2x4096), vec (65667072)`` (linkedin/Liger-Kernel#332:
FSDP's flattened ``lm_head`` shard handed to FLCE, every rank) names rank 3; the tail of ``[rank0]:``'s traceback in
the same kernel with autograd's ``Output 0 of ViewBackward0 is a view ... modified inplace`` (linkedin/Liger-Kernel#48:
FLCE with FSDP + PEFT ``modules_to_save``, every rank) named rank 0 (since session 60 only an info suspect: a lone
paste's autograd refusal of the program's graph, low_why lone-paste-autograd-graph). The other two name no one: rank 1's traceback
behind a launcher's ``1: `` prefix, cut before its ``AttributeError`` (Lightning-AI/lightning-thunder#1737: TE 2.0
removed ``get_fp8_workspace``), is only an info suspect; TE's untagged ``initialize_ub`` traceback ending in
``CUDA Error: operation not supported`` (NVIDIA/TransformerEngine#991: no CUDA Multicast on that driver, 8 processes)
is a failure of no rank. Scored 2/4 both ways as collected; no rule changed (measure only). Contrasts: without the
exception line the Liger tracebacks fall to info suspects; renumbered they name the new rank (the view/in-place one
as a suspect only, session 60); an OOM in rank 3's place names rank 3 (cuda-oom); the thunder traceback with its
``AttributeError`` restored names rank 1 (warning); TE's traceback under a ``[rank2]:`` tag names rank 2, and with an illegal-address error in place of the multicast one stays
no one's (cuda-error). Pasted logs through ``k10s import-logs``, batched.
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
    pasted_cases,
)
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 5, 3, 30, tzinfo=dt.timezone.utc)

FLCE_LM_HEAD = corpus_lines("Liger-Kernel-332-")
FLCE_VIEW_INPLACE = corpus_lines("Liger-Kernel-48-")
THUNDER_TE2 = corpus_lines("lightning-thunder-1737-")
TE_UB_MULTICAST = corpus_lines("TransformerEngine-991-")

#: rank 3's traceback with an OOM in place of the size mismatch
FLCE_LM_HEAD_OOM = FLCE_LM_HEAD[:-1] + [
    "[rank3]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 3 has a total capacity of "
    "79.15 GiB of which 1.05 GiB is free."
]
#: the same size mismatch reported by rank 5
FLCE_LM_HEAD_RANK5 = [line.replace("[rank3]", "[rank5]") for line in FLCE_LM_HEAD]
#: rank 0's view/in-place error reported by rank 1
FLCE_VIEW_RANK1 = [line.replace("[rank0]", "[rank1]") for line in FLCE_VIEW_INPLACE]
#: rank 1's cut traceback with the issue title's exception line restored, behind the same prefixes
THUNDER_TE2_ERROR = THUNDER_TE2 + [
    "1: [rank1]: AttributeError: 'TELinear' object has no attribute 'get_fp8_workspace'. Did you mean: "
    "'_fp8_workspaces'?"
]
#: TE's traceback under torch's ``[rank2]:`` tag
TE_UB_RANK2 = ["[rank2]: " + line for line in TE_UB_MULTICAST]
#: TE's traceback ending in an illegal-address CUDA error instead
TE_UB_ILLEGAL = TE_UB_MULTICAST[:-1] + [
    "RuntimeError: CUDA error: an illegal memory access was encountered"
]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # as collected, pasted and laid out as the threads say (today's reading of the two NOT_YET controls)
    "flce-lm-head-as-pasted": (FLCE_LM_HEAD, None, None, 3, "python-exception"),
    "flce-lm-head-four-ranks": (FLCE_LM_HEAD, 4, 4, 3, "python-exception"),
    # read right since session 60: autograd's view/in-place refusal in a lone paste is rank 0's suspect only (info)
    "flce-view-inplace-as-pasted": (FLCE_VIEW_INPLACE, None, None, None, None),
    "flce-view-inplace-two-ranks": (FLCE_VIEW_INPLACE, 2, 2, None, None),
    "thunder-te2-as-pasted": (THUNDER_TE2, None, None, None, None),
    "thunder-te2-two-nodes": (THUNDER_TE2, 8, 16, None, None),
    "te-ub-multicast-as-pasted": (TE_UB_MULTICAST, None, None, None, None),
    "te-ub-multicast-eight-gpus": (TE_UB_MULTICAST, 8, 8, None, None),
    # contrasts
    "flce-lm-head-without-error-names-none": (FLCE_LM_HEAD[:-1], 4, 4, None, None),
    "flce-lm-head-oom-names-rank3": (FLCE_LM_HEAD_OOM, 4, 4, 3, "cuda-oom"),
    "flce-lm-head-rank5-names-rank5": (FLCE_LM_HEAD_RANK5, 8, 8, 5, "python-exception"),
    "flce-view-inplace-without-error-names-none": (
        FLCE_VIEW_INPLACE[:-1],
        2,
        2,
        None,
        None,
    ),
    # renumbered, still one rank's lone copy: rank 1's suspect only (session 60)
    "flce-view-inplace-rank1-suspect-only": (FLCE_VIEW_RANK1, 2, 2, None, None),
    "thunder-te2-with-error-names-rank1": (
        THUNDER_TE2_ERROR,
        8,
        16,
        1,
        "python-exception",
    ),
    "te-ub-rank2-tag-names-rank2": (TE_UB_RANK2, 8, 8, 2, "python-exception"),
    "te-ub-illegal-address-names-none": (TE_UB_ILLEGAL, 8, 8, None, None),
}
BATCHED = Batched("b282", list(CASES))


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_te_liger_thunder_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(
        BATCHED.findings(key, tmp_path_factory, pasted_cases(CASES, NOW))
    )
    assert_one_rank(named, CASES[key][3], CASES[key][4])


def _analyze(
    lines: list[str], folder: Path, nproc: int | None, world: int | None
) -> list[dict]:
    from k10s_forensics.analyze.runner import analyze

    return analyze(pasted(lines, folder, nproc, NOW, world=world))["findings"]


def _failures(findings: list[dict]) -> list[tuple]:
    return [
        (f["severity"], f["cause"], f["ranks"])
        for f in findings
        if f["rule"] == "rank-failure"
    ]


def test_cut_thunder_traceback_is_an_info_suspect(tmp_path):
    """Rank 1's traceback behind the launcher's ``1: `` prefix, cut before its exception: rank 1 held as an info
    suspect, nothing louder; with or without the thread's two-node layout."""
    assert_info_suspect(_analyze(THUNDER_TE2, tmp_path / "a", None, None), 1)
    assert_info_suspect(_analyze(THUNDER_TE2, tmp_path / "b", 8, 16), 1)


def test_flce_tracebacks_without_exception_are_info_suspects(tmp_path):
    """Without their exception lines the two Liger tracebacks keep their rank only as an info suspect."""
    assert_info_suspect(_analyze(FLCE_LM_HEAD[:-1], tmp_path / "a", 4, 4), 3)
    assert_info_suspect(_analyze(FLCE_VIEW_INPLACE[:-1], tmp_path / "b", 2, 2), 0)


def test_untagged_te_traceback_is_a_failure_of_no_rank(tmp_path):
    """TE's untagged ``initialize_ub`` traceback reads as a Python failure (warning) of no rank; the illegal-address
    variant as a CUDA error of no rank."""
    assert _failures(_analyze(TE_UB_MULTICAST, tmp_path / "a", 8, 8)) == [
        ("warning", "python-exception", [])
    ]
    assert _failures(_analyze(TE_UB_ILLEGAL, tmp_path / "b", 8, 8)) == [
        ("warning", "cuda-error", [])
    ]
