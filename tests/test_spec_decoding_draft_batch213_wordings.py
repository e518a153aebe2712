"""Multi-GPU training of speculative-decoding draft models (real incidents batch 213): their wordings, pinned as read.
Held controls, none named: SpecForge's gpt-oss-120b online EAGLE-3 whose paste is rank 2's ``[rank2]:`` traceback tail
into SGLang's ``ServerArgs(`` (sgl-project/SpecForge#326), its two-node ``prepare_hidden_states.py`` with ``--tp-size 16``
whose rank 11 prints space-padded frames into ``load_model(...)`` (#154), its offline EAGLE-3 training whose rank 4's
traceback head stops in the DataLoader (#217), TensorRT-Model-Optimizer's MLA EAGLE review whose doubly quoted
``> > [rank7]:`` trainer traceback reaches ``compute_loss(`` (NVIDIA/Model-Optimizer#689), and Medusa head training's
untagged traceback head (FasterDecoding/Medusa#45); each cut before its exception, as pasted and in layouts of 8 and
8 x 2. The miss as read (NOT_YET): SpecForge#58's quoted ``> [rank3]: ValueError: Architecture Qwen3MoeForCausalLM not
supported`` named rank 3 (python-exception), the lone-rank exception shape; since session 60 it is rank 3's suspect
only (info, lone-paste-setup-refusal: a lone setup refusal); the same line from ranks 0-3 alike names no one. No rule changed for the batch (measure only). Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 2, 12, 0, tzinfo=dt.timezone.utc)


SERVERARGS = corpus_lines("SpecForge-326-")
TP16 = corpus_lines("SpecForge-154-")
OFFLINE = corpus_lines("SpecForge-217-")
ARCH = corpus_lines("SpecForge-58-")
MLA = corpus_lines("Model-Optimizer-689-")
MEDUSA = corpus_lines("Medusa-45-")

#: the reviewer's traceback without the reply's two levels of markdown quoting
MLA_UNQUOTED = [line.removeprefix("> > ") for line in MLA]
#: rank 3's line without the quote, and the same line from every rank of a tp4 job
_ARCH = ARCH[0].removeprefix("> ")
ARCH_UNQUOTED = [_ARCH]
ARCH_ALL_FOUR = [_ARCH.replace("[rank3]:", f"[rank{r}]:") for r in (3, 0, 1, 2)]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # SpecForge-326's shape: rank 2's ServerArgs traceback tail, cut before the exception
    "serverargs-rank2-cut-as-pasted": (SERVERARGS, None, None, None, None),
    "serverargs-rank2-cut-layout-8": (SERVERARGS, 8, 8, None, None),
    # SpecForge-154's shape: rank 11's space-padded load_model frames on the second node
    "tp16-rank11-padded-as-pasted": (TP16, None, None, None, None),
    "tp16-rank11-padded-layout-8x2": (TP16, 8, 16, None, None),
    # SpecForge-217's shape: rank 4's DataLoader traceback head
    "offline-rank4-loader-cut-as-pasted": (OFFLINE, None, None, None, None),
    "offline-rank4-loader-cut-layout-8": (OFFLINE, 8, 8, None, None),
    # Model-Optimizer-689's shape: rank 7's quoted trainer traceback, and without the quoting
    "mla-rank7-quoted-cut-as-pasted": (MLA, None, None, None, None),
    "mla-rank7-quoted-cut-layout-8": (MLA, 8, 8, None, None),
    "mla-rank7-unquoted-cut-layout-8": (MLA_UNQUOTED, 8, 8, None, None),
    # Medusa-45's shape: an untagged traceback head from an 8-process torchrun run
    "medusa-untagged-head-as-pasted": (MEDUSA, None, None, None, None),
    "medusa-untagged-head-layout-8": (MEDUSA, 8, 8, None, None),
    # the miss (NOT_YET until session 60): rank 3's lone ValueError named rank 3; since session 60 a lone setup
    # refusal (`Architecture ... not supported`) is rank 3's suspect only (info, lone-paste-setup-refusal)
    "arch-rank3-quoted-as-pasted": (ARCH, None, None, None, None),
    "arch-rank3-unquoted-layout-4": (ARCH_UNQUOTED, 4, 4, None, None),
    # the same ValueError from ranks 0-3 alike: no one
    "arch-all-four-ranks-layout-4": (ARCH_ALL_FOUR, 4, 4, None, None),
}
BATCHED = Batched("b213", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_spec_decoding_draft_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])
