"""Protein / biomolecular structure model training (real incidents batch 200): their wordings, pinned as read.
Held culprit: rank 1's ``[rank1]:`` frames in Boltz's ``loss/confidence.py`` ending in its own ``RuntimeError: The
expanded size of the tensor (69) must match the existing size (408)`` (jwohlwend/boltz#216), as pasted, with a layout
of 2 or 8 and under another rank's tag, names that rank, python-exception. Held controls: Boltz's unranked ``Featurizer
failed on <pdb> ... Skipping.`` warnings glued to tqdm tails (jwohlwend/boltz#184; also without the tails), Uni-Core's
start-up log and two processes' identical interleaved tracebacks (deepmodeling/Uni-Mol#18) and four processes' alike
dataset start-up lines after a torchrun command (NVIDIA-BioNeMo/boltz-cp#2) name no one. The miss as read (NOT_YET in
tests/corpus_not_yet_s36.py): rank 0's Protenix evaluation traceback cut before its exception (bytedance/Protenix#40,
the OOM in the title only) names no one at warning. Contrasts: the same frames ending in rank 0's own
``torch.OutOfMemoryError`` name rank 0, cuda-oom; the Boltz error printed by rank 0 and rank 1 alike names no one. No
rule changed for the batch (docs/rules.md, "Session 36: batch 200"). Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 2, 12, 0, tzinfo=dt.timezone.utc)


FRAMES = corpus_lines("boltz-216-")
EVAL = corpus_lines("Protenix-40-")
FEAT = corpus_lines("boltz-184-")
UNIMOL = corpus_lines("Uni-Mol-18-")
CP = corpus_lines("boltz-cp-2-")
OOM0 = (
    "[rank0]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 18.00 GiB. GPU 0 has a total capacity of "
    "79.15 GiB of which 6.12 GiB is free. Including non-PyTorch memory, this process has 73.02 GiB memory in use."
)

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # boltz-216's shape: one rank's own exception in its tagged frames
    "boltz-rank1-frames-error-as-pasted": (FRAMES, None, None, 1, "python-exception"),
    "boltz-rank1-frames-error-layout-2": (FRAMES, 2, 2, 1, "python-exception"),
    "boltz-rank1-frames-error-layout-8": (FRAMES, 8, 8, 1, "python-exception"),
    "boltz-rank5-frames-error-layout-8": (
        [x.replace("[rank1]", "[rank5]") for x in FRAMES],
        8,
        8,
        5,
        "python-exception",
    ),
    # boltz-184's shape: the featurizer's skip warnings, untagged, with or without the progress tails
    "featurizer-skips-as-pasted": (FEAT, None, None, None, None),
    "featurizer-skips-layout-4": (FEAT, 4, 4, None, None),
    "featurizer-skips-no-tqdm-tails": (
        [x.split("|")[0].strip() for x in FEAT],
        4,
        4,
        None,
        None,
    ),
    # Uni-Mol-18's shape: start-up, rank 0's barrier, two identical tracebacks interleaved and cut
    "unicore-interleaved-as-pasted": (UNIMOL, None, None, None, None),
    "unicore-interleaved-layout-8": (UNIMOL, 8, 8, None, None),
    # boltz-cp-2's shape: the command and four processes' alike start-up lines
    "boltz-cp-start-as-pasted": (CP, None, None, None, None),
    "boltz-cp-start-layout-4": (CP, 4, 4, None, None),
    # the miss as read (NOT_YET): a cut rank-0 traceback, the OOM only in the title
    "protenix-eval-rank0-cut-as-pasted": (EVAL, None, None, None, None),
    "protenix-eval-rank0-cut-layout-8": (EVAL, 8, 8, None, None),
    # contrasts: the frames ending in rank 0's own OOM; the Boltz error on two ranks alike
    "protenix-eval-rank0-own-oom": (EVAL + [OOM0], 8, 8, 0, "cuda-oom"),
    "boltz-ranks-0-and-1-alike": (
        [x.replace("[rank1]", "[rank0]") for x in FRAMES] + FRAMES,
        2,
        2,
        None,
        None,
    ),
}
BATCHED = Batched("b200", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_protein_structure_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])
