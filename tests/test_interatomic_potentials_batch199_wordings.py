"""Multi-GPU training of machine-learned interatomic potentials and materials models (real incidents batch 199): their
wordings, pinned as read. Held controls: MACE's run_train.py under torchrun inside an salloc allocation, workers'
tracebacks interleaved from ``init_distributed(args)`` into its SLURM-variable reader (ACEsuit/mace#1504; also after
torchrun's banner and with two ``KeyError`` lines after them), two processes' tracebacks interleaved building DGL's
``DistributedSampler`` at ``dist.get_world_size()`` (materialyzeai/matgl#195; also with both copies' ``ValueError`` of
the missing default process group), the torchrun agent's own traceback into ``agent.run()`` (MDIL-SNU/SevenNet#63;
also ending in its ``RendezvousTimeoutError``), NequIP's ddp-branch launch with its banner and per-worker version
warnings (mir-group/nequip#449), MACE's ``[rank1]:`` validation traceback cut before its error in a world of 12
(aiida-trieste-developers/aiida-trains-pot#34: an info finding at most) and DeePMD-kit's horovodrun ``[1,1]<stderr>:``
banner on ``gpu:0`` (deepmodeling/deepmd-kit#1090) name no one. Contrasts: the same ``[rank1]:`` traceback ending in
its own CUDA out-of-memory error names rank 1 (cuda-oom). No rule changed for the batch (all six met as collected).
Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 2, 12, 0, tzinfo=dt.timezone.utc)


SLURM_ENV = corpus_lines("mace-1504-")
SAMPLER = corpus_lines("matgl-195-")
AGENT = corpus_lines("SevenNet-63-")
NEQUIP = corpus_lines("nequip-449-")
VALID = corpus_lines("aiida-trains-pot-34-")
HOROVOD = corpus_lines("deepmd-kit-1090-")
BANNER = [
    "W0619 10:02:11.512000 2231 torch/distributed/run.py:792] ",
    "W0619 10:02:11.512000 2231 torch/distributed/run.py:792] " + "*" * 41,
    "W0619 10:02:11.512000 2231 torch/distributed/run.py:792] Setting OMP_NUM_THREADS environment variable for each "
    "process to be 1 in default, to avoid your system being overloaded, please further tune the variable for optimal "
    "performance in your application as needed. ",
    "W0619 10:02:11.512000 2231 torch/distributed/run.py:792] " + "*" * 41,
]
KEYERROR = "KeyError: 'SLURM_NTASKS_PER_NODE'"
NO_PG = "ValueError: Default process group has not been initialized, please make sure to call init_process_group."
RDZV = "torch.distributed.elastic.rendezvous.api.RendezvousTimeoutError"
OOM = (
    "[rank1]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.13 GiB. GPU 1 has a total capacity of "
    "63.43 GiB of which 1.02 GiB is free. Including non-PyTorch memory, this process has 62.40 GiB memory in use."
)

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # mace-1504's shape: every worker fails alike in MACE's SLURM-variable reader under torchrun
    "slurm-env-interleaved-as-pasted": (SLURM_ENV, None, None, None, None),
    "slurm-env-interleaved-layout-4": (SLURM_ENV, 4, 4, None, None),
    "slurm-env-interleaved-after-banner": (BANNER + SLURM_ENV, 4, 4, None, None),
    "slurm-env-interleaved-two-keyerrors": (
        SLURM_ENV + [KEYERROR, KEYERROR],
        4,
        4,
        None,
        None,
    ),
    # matgl-195's shape: two processes interleaved building the distributed sampler
    "dist-sampler-interleaved-as-pasted": (SAMPLER, None, None, None, None),
    "dist-sampler-interleaved-layout-2": (SAMPLER, 2, 2, None, None),
    "dist-sampler-interleaved-two-valueerrors": (
        SAMPLER + [NO_PG, NO_PG],
        2,
        2,
        None,
        None,
    ),
    # SevenNet-63's shape: the agent's own traceback, no worker output
    "agent-run-traceback-as-pasted": (AGENT, None, None, None, None),
    "agent-run-traceback-layout-2": (AGENT, 2, 2, None, None),
    "agent-run-traceback-rendezvous-timeout": (AGENT + [RDZV], 2, 2, None, None),
    # nequip-449's shape: the launch, the banner and each worker's version warning
    "ddp-branch-startup-as-pasted": (NEQUIP, None, None, None, None),
    "ddp-branch-startup-layout-2": (NEQUIP, 2, 2, None, None),
    "ddp-branch-startup-both-warnings": (NEQUIP + NEQUIP[6:8], 2, 2, None, None),
    # aiida-trains-pot-34's shape: rank 1's validation traceback cut before its error
    "rank1-validation-cut-as-pasted": (VALID, None, None, None, None),
    "rank1-validation-cut-layout-4x3": (VALID, 4, 12, None, None),
    # deepmd-kit-1090's shape: a horovodrun process's banner on gpu:0
    "horovod-banner-gpu0-as-pasted": (HOROVOD, None, None, None, None),
    "horovod-banner-gpu0-layout-4": (HOROVOD, 4, 4, None, None),
    # contrast: the same rank-1 traceback ending in its own CUDA out-of-memory error
    "rank1-validation-oom-contrast": (VALID + [OOM], 4, 12, 1, "cuda-oom"),
}
BATCHED = Batched("b199", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_interatomic_potentials_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])
