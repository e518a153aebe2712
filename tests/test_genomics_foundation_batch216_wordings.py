"""Multi-GPU training of genomics and single-cell foundation models (real incidents batch 216): their wordings, pinned
as read. Miss, left NOT_YET: scBERT-style pretraining with sc-foundation-eval's ``dist_pretrain.py`` whose one
untagged ``RuntimeError: CUDA out of memory. ... (GPU 3; ...)`` follows the master's epoch summary
(clinicalml/sc-foundation-eval#3): oom-cascade, cuda-oom, naming no rank, as pasted and in a layout of 4 (the device
index is not a rank; RWKV5-LM-LoRA-2's and fairseq-4352's reason); the contrast with the OOM under a ``[rank3]:``
tag names rank 3, cuda-oom. Held controls: Evo 2 on four RTX 4090s whose devices 1-3 all log NCCL's ``Cuda failure
'an illegal memory access was encountered'`` (ArcInstitute/evo2#153), srun task 0's Evo2 frames under pipeline
parallel > 1 (NVIDIA-BioNeMo/bionemo-recipes#815), rank 0's late one-element ALLGATHER watchdog timeout on two GPUs
(scverse/scvi-tools#2635) and HyenaDNA's Hydra error with one untagged traceback on four devices
(kuleshov-group/caduceus#20) name no one, as pasted and in their layouts. No rule changed for the batch (measure
only). Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 2, 15, 0, tzinfo=dt.timezone.utc)


GPU3_OOM = corpus_lines("sc-foundation-eval-3-")
EVO2_4090 = corpus_lines("evo2-153-")
EVO2_PP2 = corpus_lines("bionemo-recipes-815-")
RANK0_ALLGATHER = corpus_lines("scvi-tools-2635-")
HYENA_HYDRA = corpus_lines("caduceus-20-")

#: the same OOM as rank 3's own tagged line (torchrun's `[rankN]:` prefix)
GPU3_OOM_TAGGED = [
    f"[rank3]: {line}" if "out of memory" in line else line for line in GPU3_OOM
]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # sc-foundation-eval-3's shape (NOT_YET): one untagged OOM whose only index is the CUDA device
    "untagged-oom-gpu3-as-pasted": (GPU3_OOM, None, None, None, None),
    "untagged-oom-gpu3-layout-4": (GPU3_OOM, 4, 4, None, None),
    # the contrast: the same OOM as rank 3's own tagged line
    "rank3-tagged-oom-layout-4": (GPU3_OOM_TAGGED, 4, 4, 3, "cuda-oom"),
    # evo2-153's shape: devices 1-3 alike, NCCL's Cuda failure and rank 2's traceback head
    "four-4090-illegal-access-alike-as-pasted": (EVO2_4090, None, None, None, None),
    "four-4090-illegal-access-alike-layout-4": (EVO2_4090, 4, 4, None, None),
    # bionemo-recipes-815's shape: srun task 0's frames, no exception
    "srun-task0-frames-only-as-pasted": (EVO2_PP2, None, None, None, None),
    "srun-task0-frames-only-layout-8x2": (EVO2_PP2, 8, 16, None, None),
    # scvi-tools-2635's shape: rank 0's own late ALLGATHER timeout, the other rank unseen
    "rank0-allgather-timeout-as-pasted": (RANK0_ALLGATHER, None, None, None, None),
    "rank0-allgather-timeout-layout-2": (RANK0_ALLGATHER, 2, 2, None, None),
    # caduceus-20's shape: Hydra's error line and one untagged traceback head
    "hydra-untagged-traceback-as-pasted": (HYENA_HYDRA, None, None, None, None),
    "hydra-untagged-traceback-layout-4": (HYENA_HYDRA, 4, 4, None, None),
}
BATCHED = Batched("b216", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_genomics_foundation_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])
