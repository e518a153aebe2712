"""Multi-GPU runs of the classic NLP frameworks (real incidents batch 215): their wordings, pinned as read. Misses, left
NOT_YET: Open MPI's ``mpirun noticed that process rank 7 ... exited on signal 11 (Segmentation fault).`` from GluonNLP's
Horovod BERT pre-training on MXNet 1.7 (dmlc/gluon-nlp#1508; every rank alike per the maintainer) names rank 7,
segfault, as pasted and in a layout of 8; spawn's ``-- Process 1 terminated with the following error:`` with the head
of process 1's traceback from ClassKG (zhanglu-cst/ClassKG#3; the EOFError never placed) names process 1,
python-exception. Held controls: AllenNLP's spawn traceback after the loader workers' ``ModuleNotFoundError``
(allenai/allennlp#4428), a Hugging Face ``main_process_first()`` barrier traceback during tokenization
(NVIDIA/nccl#865) and fastai v1's validate/collate traceback on two GPUs (fastai/fastai#1866) name no one at warning,
as pasted and in their layouts. No rule changed for the batch (measure only). Pasted logs through
``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 2, 14, 0, tzinfo=dt.timezone.utc)

MPIRUN_SEGV = corpus_lines("gluon-nlp-1508-")
ALLENNLP_SPAWN = corpus_lines("allennlp-4428-")
HF_BARRIER = corpus_lines("nccl-865-")
FASTAI_VALIDATE = corpus_lines("fastai-1866-")
SPAWN_PROCESS_1 = corpus_lines("ClassKG-3-")

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # misses as read (NOT_YET): the lone-rank shapes name their rank although the threads say every rank alike
    "mpirun-rank7-segv-as-pasted-miss": (MPIRUN_SEGV, None, None, 7, "segfault"),
    "mpirun-rank7-segv-layout-8-miss": (MPIRUN_SEGV, 8, 8, 7, "segfault"),
    "spawn-process-1-head-as-pasted-miss": (
        SPAWN_PROCESS_1,
        None,
        None,
        1,
        "python-exception",
    ),
    # held controls
    "allennlp-spawn-module-not-found-as-pasted": (
        ALLENNLP_SPAWN,
        None,
        None,
        None,
        None,
    ),
    "allennlp-spawn-module-not-found-layout-2": (ALLENNLP_SPAWN, 2, 2, None, None),
    "hf-main-process-first-barrier-as-pasted": (HF_BARRIER, None, None, None, None),
    "hf-main-process-first-barrier-layout-2": (HF_BARRIER, 2, 2, None, None),
    "fastai-validate-collate-as-pasted": (FASTAI_VALIDATE, None, None, None, None),
    "fastai-validate-collate-layout-2": (FASTAI_VALIDATE, 2, 2, None, None),
}
BATCHED = Batched("b215", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_classic_nlp_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])
