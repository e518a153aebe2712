"""Multi-process jobs on shared or partitioned GPUs (real incidents batch 189): their wordings, pinned as read.
The culprit: HAMi vGPU on H200 where torch.multiprocessing.spawn's parent SIGTERMs the other child and reports
``process 1 terminated with signal SIGSEGV`` between HAMI-core's lines (Project-HAMi/volcano-vgpu-device-plugin#97):
rank 1, segfault, with and without HAMi's lines; process 0's copy names rank 0. Held controls: HAMI-core's
``Illegal device id`` for both vLLM TP workers before an unattributed ``Segfault encountered`` (Project-HAMi/HAMi#1853,
bare or ``(Worker_TPn pid=…)``-prefixed) and NCCL's ``Duplicate GPU detected : rank A and rank B both on CUDA device X``
(two ranks placed on one GPU: a placement error of the whole job) in every wording the batch met: two interleaved
barrier tracebacks (NVIDIA/Megatron-LM#661), a reversed paste (verl-project/verl#1096), Open MPI's ``[1,6]``-tagged
NCCL WARN (horovod/horovod#3569), srun's ``3:`` label on one copy or on every task's (clessig/atmorep#77), and the
variants PyTorch 2.x prints (``[rank3]:``-tagged, or before the agent's exit of that local rank) name no one.
Contrast: a lone rank's CUDA out of memory (a time-sliced GPU's neighbour took the memory) still names that rank.
No rule changed for the batch (all six met as collected; docs/rules.md, "Session 35: batch 189"). Pasted logs through
``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 2, 10, 0, tzinfo=dt.timezone.utc)


SPAWN = corpus_lines("volcano-vgpu-device-plugin-97-")
HAMI = corpus_lines("HAMi-1853-")
MEGATRON = corpus_lines("Megatron-LM-661-")
VERL = corpus_lines("verl-1096-")
HOROVOD = corpus_lines("horovod-3569-")
ATMOREP = corpus_lines("atmorep-77-")
SPAWN_BARE = [line for line in SPAWN if not line.startswith(("[HAMI-core", "检测到"))]
HAMI_TP = [
    "(Worker_TP1 pid=2245) [HAMI-core ERROR (pid:2245 thread=123595670289984 multiprocess_memory_limit.c:1255)]: "
    "Illegal device id: 28776",
    "(Worker_TP0 pid=2244) [HAMI-core ERROR (pid:2244 thread=133445224001088 multiprocess_memory_limit.c:1255)]: "
    "Illegal device id: 31069",
    "!!!!!!! Segfault encountered !!!!!!!",
]
DUP = [
    "torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/NCCLUtils.hpp:317, invalid usage "
    "(run with NCCL_DEBUG=WARN for details), NCCL version 2.21.5",
    "ncclInvalidUsage: This usually reflects invalid usage of NCCL library.",
    "Last error:",
    "Duplicate GPU detected : rank {r} and rank 0 both on CUDA device 3000",
]
AGENT = (
    "E1218 10:00:02.000000 140 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: 1) "
    "local_rank: {r} (pid: 200{r}) of binary: /usr/bin/python"
)
OOM = (
    "[rank3]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 3 has a total capacity of "
    "79.10 GiB of which 1.02 GiB is free. Process 41107 has 38.50 GiB memory in use. Including non-PyTorch memory, "
    "this process has 39.55 GiB memory in use."
)


def _dup(r: int, tag: str = "") -> list[str]:
    return [tag.format(r=r) + line.format(r=r) for line in DUP]


#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone: None for
#: none, the cause one of them must give)
CASES = {
    "spawn-process1-sigsegv-hami": (SPAWN, None, None, 1, "segfault"),
    "spawn-process1-sigsegv-bare": (SPAWN_BARE, None, None, 1, "segfault"),
    "spawn-process0-sigsegv": (
        [
            line.replace("process 1 terminated", "process 0 terminated")
            for line in SPAWN_BARE
        ],
        None,
        None,
        0,
        "segfault",
    ),
    "hami-illegal-device-id-both-workers": (HAMI, None, None, None, None),
    "hami-illegal-device-id-worker-prefixed": (HAMI_TP, 2, 2, None, None),
    "duplicate-gpu-megatron-interleaved": (MEGATRON, None, None, None, None),
    "duplicate-gpu-verl-reversed": (VERL, None, None, None, None),
    "duplicate-gpu-horovod-tagged": (HOROVOD, None, None, None, None),
    "duplicate-gpu-srun-one-copy": (ATMOREP, None, None, None, None),
    "duplicate-gpu-srun-every-task": (
        [x for r in (1, 2, 3) for x in _dup(r, "{r}: ")],
        4,
        8,
        None,
        None,
    ),
    "duplicate-gpu-rank-tagged": (_dup(3, "[rank{r}]: "), 4, 8, None, None),
    "duplicate-gpu-rank-tagged-agent-exit": (
        _dup(1, "[rank{r}]: ") + [AGENT.format(r=1)],
        2,
        2,
        None,
        None,
    ),
    # contrast: one rank's own out of memory (a time-sliced GPU's neighbour holding the memory) names that rank
    "lone-rank-oom-names-it": ([OOM, AGENT.format(r=3)], 4, 4, 3, "cuda-oom"),
}
BATCHED = Batched("b189", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world = CASES[key][:3]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_gpu_sharing_wordings_read_as_collected(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])
