"""Dense-prediction training (depth, flow/stereo, dense segmentation; real incidents batch 208): their wordings, pinned
as read. Held controls, all naming no one: Lightning's DDP start-up of two ranks (``Initializing distributed:
GLOBAL_RANK: N, MEMBER: k/2``) before an OOM beyond the excerpt (JiawangBian/sc_depth_pl#46); the ``mp.spawn`` parent's
traceback cut at ``torch.multiprocessing.spawn.ProcessRaisedException:`` after the start-up prints of the process on
``cuda:0`` (cnexah/VA-DepthNet#11); rank 0's store-based barrier time-out with ``world_size=8, worker_count=1`` and the
agent's ``failed (exitcode: 1) local_rank: 0`` (LiheYoung/UniMatch#50: the waiter, not the fault); two processes' alike
NCCL INFO socket start-up (LiheYoung/UniMatch#121); torch.distributed.launch's own traceback to ``ChildFailedError:`` and
the ``FAILED`` banner, the failures table cut (Tai-Wang/Depth-from-Motion#13). Each as pasted and in layouts the threads
allow. Contrast: the same spawn traceback completed by ``-- Process 1 terminated with the following error:`` and that
process's own CUDA OOM names process 1, cuda-oom (python-exception before session 36's spawn fix). No rule changed for the batch (measure only; all five met as collected).
Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 2, 12, 0, tzinfo=dt.timezone.utc)


LIGHTNING = corpus_lines("sc_depth_pl-46-")
SPAWN = corpus_lines("VA-DepthNet-11-")
STORE = corpus_lines("UniMatch-50-")
NCCL_INFO = corpus_lines("UniMatch-121-")
LAUNCHER = corpus_lines("Depth-from-Motion-13-")

#: the spawn traceback completed by the failed process's own CUDA OOM (the part VA-DepthNet-11's excerpt cuts)
SPAWN_PROCESS1_OOM = SPAWN + [
    "",
    "-- Process 1 terminated with the following error:",
    "Traceback (most recent call last):",
    '  File "/home/ouc/anaconda3/envs/midas-py310/lib/python3.10/site-packages/torch/multiprocessing/spawn.py",'
    " line 69, in _wrap",
    "    fn(i, *args)",
    '  File "/data2/gwx/MonoDepthEst/VA-DepthNet/vadepthnet/train.py", line 290, in main_worker',
    "    loss.backward()",
    "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB (GPU 1; 23.69 GiB total capacity;"
    " 20.12 GiB already allocated; 1.51 GiB free; 21.20 GiB reserved in total by PyTorch)",
]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # sc_depth_pl-46's shape: Lightning's DDP start-up of two ranks, the failure beyond the excerpt
    "lightning-ddp-start-two-ranks-as-pasted": (LIGHTNING, None, None, None, None),
    "lightning-ddp-start-two-ranks-layout-2": (LIGHTNING, 2, 2, None, None),
    # VA-DepthNet-11's shape: the spawn parent's traceback cut before the process is named
    "spawn-parent-traceback-cut-as-pasted": (SPAWN, None, None, None, None),
    "spawn-parent-traceback-cut-layout-4": (SPAWN, 4, 4, None, None),
    # UniMatch-50's shape: rank 0 waited at the store barrier for seven who never came
    "store-barrier-worker-count-1-of-8-as-pasted": (STORE, None, None, None, None),
    "store-barrier-worker-count-1-of-8-world-8": (STORE, None, 8, None, None),
    "store-barrier-worker-count-1-of-8-layout-8x1": (STORE, 8, 8, None, None),
    # UniMatch-121's shape: two processes' alike NCCL INFO socket start-up
    "nccl-info-socket-start-two-procs-as-pasted": (NCCL_INFO, None, None, None, None),
    "nccl-info-socket-start-two-procs-layout-2": (NCCL_INFO, 2, 2, None, None),
    # Depth-from-Motion-13's shape: the launcher's own traceback, the failures table cut
    "launcher-childfailed-banner-cut-as-pasted": (LAUNCHER, None, None, None, None),
    "launcher-childfailed-banner-cut-layout-8": (LAUNCHER, 8, 8, None, None),
    # contrast: the spawn traceback completed by process 1's own CUDA OOM names process 1, cuda-oom (python-exception
    # before session 36's spawn fix: docs/rules.md, "Session 36: spawn's OOM")
    "spawn-process1-oom-contrast": (SPAWN_PROCESS1_OOM, 4, 4, 1, "cuda-oom"),
    "spawn-process1-oom-contrast-as-pasted": (SPAWN_PROCESS1_OOM, None, None, 1, "cuda-oom"),
}
BATCHED = Batched("b208", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_dense_prediction_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])
