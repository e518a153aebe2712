"""Multi-process training of scientific models (real incidents batch 143): the family's shapes, pinned as read.
nnU-Net v1's DDP trainer under the legacy launcher (MIC-DKFZ/nnUNet#856): the PyTorch 1.9/1.10 agent's ``failed
(exitcode: 1) local_rank: 2`` followed by ``Worker group FAILED. 3/3 attempts left; will restart worker group`` and the
restarted group's topology block names the failed rank alone (the block's ``local_ranks=[0, 1, 2, 3]`` is no failure).
The controls: MONAI Label's Ignite engine logging DDP's reducer error for a block of parameters the network never uses
(Project-MONAI/MONAILabel#492: ``Current run is terminating due to exception: Expected to have finished reduction ...``,
``did not receive grad for rank 0``) is a logger's record, not a raised exception, and names no one; MONAI's BraTS
tutorial whose argparse rejects the launcher's ``--local-rank=0`` in every worker (Project-MONAI/tutorials#1665); an
``mp.spawn`` parent traceback cut before any process's error (Project-MONAI/MONAI#5291). Contrast: the reducer's
message under a raised ``RuntimeError`` still gives that exception the rank it names (batch 110's reading). No rule
changed for the batch (all five met as collected). Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import naming_findings

NOW = dt.datetime(2026, 12, 1, 23, 0, tzinfo=dt.timezone.utc)
AGENT = "torch.distributed.elastic.agent.server.api"


def _legacy_restart(rank: int, prefixed: bool) -> list[str]:
    """The PyTorch 1.9/1.10 agent's report of a failed worker and the restart of its group (nnUNet-856's shape)."""
    head = "ERROR:torch.distributed.elastic.multiprocessing.api:" if prefixed else ""
    return [
        f"{head}failed (exitcode: 1) local_rank: {rank} (pid: 68788) of binary: /home/u/anaconda3/envs/seg/bin/python",
        "ERROR:torch.distributed.elastic.agent.server.local_elastic_agent:[default] Worker group failed",
        f"INFO:{AGENT}:[default] Worker group FAILED. 3/3 attempts left; will restart worker group",
        f"INFO:{AGENT}:[default] Stopping worker group",
        f"INFO:{AGENT}:[default] Rendezvous'ing worker group",
        f"INFO:{AGENT}:[default] Rendezvous complete for workers. Result:",
        "  restart_count=1",
        "  master_addr=127.0.0.1",
        "  master_port=1234",
        "  group_rank=0",
        "  group_world_size=1",
        "  local_ranks=[0, 1, 2, 3]",
        "  role_ranks=[0, 1, 2, 3]",
        "  global_ranks=[0, 1, 2, 3]",
        "  role_world_sizes=[4, 4, 4, 4]",
        "  global_world_sizes=[4, 4, 4, 4]",
        "",
        f"INFO:{AGENT}:[default] Starting worker group",
    ]


REDUCER_MESSAGE = [
    "making sure all `forward` function outputs participate in calculating loss.",
    "If you already have done the above, then the distributed data parallel module wasn't able to locate the output "
    "tensors in the return value of your module's `forward` function.",
    "Parameter indices which did not receive grad for rank 0: 35 36 37 38 39 40 41 42",
]
REDUCER_HEAD = (
    "Expected to have finished reduction in the prior iteration before starting a new one. This error indicates that "
    "your module has parameters that were not used in producing loss. You can enable unused parameter detection by "
    "passing the keyword argument `find_unused_parameters=True` to `torch.nn.parallel.DistributedDataParallel`, and by"
)


def _ignite(level: str) -> list[str]:
    """MONAILabel-492's shape: Ignite's engine logs the reducer error as a record (``[ERROR]`` or ``ERROR:``)."""
    eng = "ignite.engine.engine.SupervisedTrainer"
    if level == "bracket":
        first = f"[2021-11-05 02:42:14.748][ERROR]({eng}) - Current run is terminating due to exception: {REDUCER_HEAD}"
        start = f"[2021-11-05 02:42:07.260][ INFO]({eng}) - Epoch: 1/20, Iter: 1/2 -- train_loss: 0.9693"
    else:
        first = f"2021-11-05 02:42:14,748 - {eng} - ERROR - Current run is terminating due to exception: {REDUCER_HEAD}"
        start = f"2021-11-05 02:42:07,260 - {eng} - INFO - Epoch: 1/20, Iter: 1/2 -- train_loss: 0.9693"
    return [start, first] + REDUCER_MESSAGE


ARGPARSE = [
    "usage: brats_training_ddp.py [-h] [-d DIR] [--local_rank LOCAL_RANK]",
    "                             [--epochs N] [--lr LR] [-b BATCH_SIZE]",
    "                             [--network {UNet,SegResNet}]",
    "brats_training_ddp.py: error: unrecognized arguments: --local-rank=0",
    "[2024-03-16 03:30:01,302] torch.distributed.elastic.multiprocessing.api: [ERROR] failed (exitcode: 2) "
    "local_rank: 0 (pid: 380) of binary: /usr/bin/python",
]
SPAWN_CUT = [
    "rank 0",
    "rank 1",
    "2022-10-08 10:13:59,005 - Rank 1: Completed store-based barrier for key:store_based_barrier_key:1 with 2 nodes.",
    "2022-10-08 10:13:59,005 - Rank 0: Completed store-based barrier for key:store_based_barrier_key:1 with 2 nodes.",
    "Traceback (most recent call last):",
    '  File "test_ddp.py", line 13, in main',
    "    torch.multiprocessing.spawn(main_worker, nprocs=ngpus_per_node, args=(ngpus_per_node,))",
    '  File "/opt/conda/lib/python3.8/site-packages/torch/multiprocessing/spawn.py", line 198, in start_processes',
    "    while not context.join():",
]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone: None)
CASES = {
    # nnUNet-856's shape: the agent's failed worker, then the restarted group's topology
    "legacy-agent-restart-rank2": (_legacy_restart(2, True), 4, 4, 2),
    "legacy-agent-restart-rank3-unprefixed": (_legacy_restart(3, False), 4, 4, 3),
    # the restart block alone (the failure line cut off): its rank lists name no one
    "restart-topology-only": (_legacy_restart(2, True)[1:], 4, 4, None),
    # MONAILabel-492's shape: the reducer error as a logger's record, two logger formats
    "ignite-reducer-record-bracket": (_ignite("bracket"), None, None, None),
    "ignite-reducer-record-dashes": (_ignite("dashes"), None, None, None),
    # tutorials-1665's shape: every worker's argparse rejects the launcher's flag
    "argparse-local-rank": (ARGPARSE, None, None, None),
    # MONAI-5291's shape: both ranks initialised, the parent's spawn traceback cut before any process's error
    "spawn-parent-traceback-cut": (SPAWN_CUT, 2, 2, None),
    # contrast: the same reducer message under a raised RuntimeError is that exception's rank
    "raised-reducer-rank0": (
        [
            "Traceback (most recent call last):",
            '  File "train.py", line 88, in <module>',
            f"RuntimeError: {REDUCER_HEAD}",
        ]
        + REDUCER_MESSAGE,
        None,
        None,
        0,
    ),
}
BATCHED = Batched("b143", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_science_model_shapes_name_only_a_failed_rank(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3])
