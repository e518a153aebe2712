"""Image backbones and self-supervised vision training (real incidents batch 155): their wordings, pinned as read.
srun's end-of-step report where one task exits 1 and Slurm kills the rest (facebookresearch/deit#102: ``task 5:
Exited with exit code 1`` before fifteen ``Killed``, tasks grouped by host and out of order) names that task, on
either node; Open MPI's ``[jobid,rank]<stderr>`` tag on a DataLoader traceback ending in PIL's refusal of one image
(facebookresearch/deit#76: ``[1,0]`` is rank 0; with or without ``--timestamp-output``, Pillow's newer
``UnidentifiedImageError`` and a truncated JPEG) names the tagged rank; torch-elastic's lone ``failed (exitcode: 1)
local_rank: 2`` (thuml/Flowformer#8, trailing spaces kept; PyTorch 2.x's glog wording after SIGTERMs) names local rank
2. Held controls: a lone PyTorch <= 1.10 BROADCAST watchdog waiter with the paste's mid-word wrapping
(Sense-X/UniFormer#33), ``invalid device ordinal`` from a launch of more processes than visible GPUs, unprefixed or
``[rankN]:``-prefixed (FlyEgle/MAE-pytorch#13), and an argparse exit 2 shown only as failure-table entry [1] or with
the root cause [0] (open-mmlab/mmpretrain#771) name no one. Contrasts: every task exiting 1 in srun's report, and
every rank's tag on the same image error, name no one. No rule changed for the batch (all six met as collected).
Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import naming_findings

NOW = dt.datetime(2026, 12, 2, 3, 0, tzinfo=dt.timezone.utc)
IMG = "imagenet/raw-data/train/n01667778/n01667778_6494.JPEG"
CANCEL = "slurmstepd: error: *** STEP 43575862.0 ON {host} CANCELLED AT 2021-07-14T08:00:36 ***"


def _srun(first: str, killed: list[str], host: str = "learnfair0824") -> list[str]:
    """deit-102's shape: one task's exit status, the step's teardown, the other tasks Killed."""
    head = [
        first,
        "srun: launch/slurm: _step_signal: Terminating StepId=43575862.0",
        CANCEL.format(host=host),
    ]
    return head + killed + ["srun: Force Terminated StepId=43575862.0"]


KILLED_BUT_5 = [
    "srun: error: learnfair0824: tasks 3,7: Killed",
    "srun: error: learnfair0833: task 8: Killed",
    "srun: error: learnfair0824: task 1: Killed",
    "srun: error: learnfair0824: tasks 0,2,6: Killed",
    "srun: error: learnfair0833: tasks 9-10,12-15: Killed",
    "srun: error: learnfair0824: task 4: Killed",
    "srun: error: learnfair0833: task 11: Killed",
]
KILLED_BUT_12 = [
    "srun: error: learnfair0824: tasks 0-7: Killed",
    "srun: error: learnfair0833: tasks 8-11,13-15: Killed",
]
SRUN_ALL_EXIT = [
    "srun: error: learnfair0824: tasks 0-7: Exited with exit code 1",
    "srun: error: learnfair0833: tasks 8-15: Exited with exit code 1",
]


def _ompi(rank: int, stamp: bool = True, err: str | None = None) -> list[str]:
    """deit-76's shape: the end of a DataLoader traceback re-raised in one Open MPI rank, every line tagged."""
    err = (
        err or f"OSError: cannot identify image file <_io.BufferedReader name='{IMG}'>"
    )
    folder = "/opt/conda/lib/python3.6/site-packages/torchvision-0.2.1-py3.6.egg/torchvision/datasets/folder.py"
    body = [
        f'  File "{folder}", line 147, in default_loader',
        "    return pil_loader(path)",
        f'  File "{folder}", line 129, in pil_loader',
        "    img = Image.open(f)",
        '  File "/opt/conda/lib/python3.6/site-packages/PIL/Image.py", line 2622, in open',
        "    % (filename if filename else fp))",
        err,
    ]
    lead = "2021-03-10T13:22:37.483Z: " if stamp else ""
    return [f"{lead}[1,{rank}]<stderr>:{line}" for line in body]


AGENT_OLD = [
    "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: 1) local_rank: 2 (pid: 11410) of binary: "
    "/opt/conda/bin/python           ",
    "ERROR:torch.distributed.elastic.agent.server.local_elastic_agent:[default] Worker group failed",
]
API = "site-packages/torch/distributed/elastic/multiprocessing/api.py"
AGENT_NEW = [
    f"W1227 10:14:02.{118 + p}000 11402 {API}:897] Sending process {p} closing signal SIGTERM"
    for p in (11408, 11409, 11411)
] + [
    f"E1227 10:14:02.604000 11402 {API}:869] failed (exitcode: 1) local_rank: 2 (pid: 11410) of binary: /opt/conda/bin/python"
]
TEARDOWN = (
    "[E ProcessGroupNCCL.cpp:325] Some NCCL operations have failed or timed out. Due to the asynchronous nature of "
    "CUDA kernels, subsequent GPU operations might run on corrupted/incom"
)
WAITER = [
    TEARDOWN,
    "plete data. To avoid this inconsistency, we are taking the entire process down.",
    "terminate called after throwing an instance of 'std::runtime_error'",
    "  what():  [Rank 1] Watchdog caught collective operation timeout: WorkNCCL(OpType=BROADCAST, Timeout(ms)=1800000) "
    "ran for 1802691 milliseconds before timing out.",
    TEARDOWN,
]


def _ordinal(ranks: list[int], prefixed: bool) -> list[str]:
    """MAE-pytorch-13's shape: eight processes on two visible GPUs, local ranks >= 2 failing set_device."""
    out = [
        "CUDA_VISIBLE_DEVICES=0,1 python -W ignore -m torch.distributed.launch --nproc_per_node 8 train_mae.py"
    ]
    out += [f"rank: {r} / 2" for r in (1, 4, 0, 3, 5, 2, 6, 7)]
    for r in ranks:
        p = f"[rank{r}]: " if prefixed else ""
        out += [
            f"{p}Traceback (most recent call last):",
            f'{p}  File "train_mae.py", line 205, in main_worker',
            f"{p}    torch.cuda.set_device(args.local_rank)",
            f"{p}RuntimeError: CUDA error: invalid device ordinal",
        ]
    return out


USAGE = [
    "usage: train.py [-h] [--work-dir WORK_DIR] [--resume-from RESUME_FROM]",
    "                [--no-validate]",
    "                [--device DEVICE | --gpus GPUS | --gpu-ids GPU_IDS [GPU_IDS ...]",
    "                | --gpu-id GPU_ID] [--seed SEED] [--diff-seed]",
    "train.py: error: unrecognized arguments: --local_rank=1",
]
RULE = "------------------------------------------------------------"
TABLE_HEAD = [
    "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ",
    "============================================================",
    "tools/train.py FAILED",
    RULE,
    "Failures:",
]


def _entry(r: int, traceback: bool = True) -> list[str]:
    out = [
        f"[{r}]:",
        "  time      : 2022-04-07_18:08:41",
        "  host      : node001.cm.cluster",
        f"  rank      : {r} (local_rank: {r})",
        f"  exitcode  : 2 (pid: {56772 + r})",
        "  error_file: <N/A>",
    ]
    return out + (
        [
            "  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html"
        ]
        * traceback
    )


def _table(full: bool) -> list[str]:
    """mmpretrain-771's shape: entry [1] where the excerpt ends, or the whole table with the root cause [0]."""
    if not full:
        return TABLE_HEAD + _entry(1, traceback=False)
    body = [x for r in range(1, 8) for x in _entry(r)]
    return (
        TABLE_HEAD
        + body
        + [RULE, "Root Cause (first observed failure):"]
        + _entry(0)
        + ["=" * 60]
    )


#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # deit-102's shape: the task that exited first, on the first node and on the second
    "srun-task5-fifteen-killed": (
        _srun(
            "srun: error: learnfair0824: task 5: Exited with exit code 1", KILLED_BUT_5
        ),
        8,
        16,
        5,
        "python-exception",
    ),
    "srun-task5-no-layout": (
        _srun(
            "srun: error: learnfair0824: task 5: Exited with exit code 1", KILLED_BUT_5
        ),
        None,
        None,
        5,
        None,
    ),
    "srun-task12-second-node": (
        _srun(
            "srun: error: learnfair0833: task 12: Exited with exit code 1",
            KILLED_BUT_12,
            "learnfair0833",
        ),
        8,
        16,
        12,
        "python-exception",
    ),
    # deit-76's shape: the tagged rank's image error, in Open MPI's wordings and Pillow's
    "ompi-rank0-image": (_ompi(0), None, None, 0, "python-exception"),
    "ompi-rank0-image-no-timestamps": (
        _ompi(0, stamp=False),
        None,
        None,
        0,
        "python-exception",
    ),
    "ompi-rank3-image-layout": (_ompi(3), 4, 8, 3, "python-exception"),
    "ompi-rank0-unidentified-image-error": (
        _ompi(
            0,
            err=f"PIL.UnidentifiedImageError: cannot identify image file <_io.BufferedReader name='{IMG}'>",
        ),
        None,
        None,
        0,
        None,
    ),
    "ompi-rank2-truncated-jpeg": (
        _ompi(2, err="OSError: image file is truncated (3440 bytes not processed)"),
        None,
        None,
        2,
        None,
    ),
    # Flowformer-8's shape: the agent's lone exit 1, old logging and PyTorch 2.x's glog lines after SIGTERMs
    "agent-local-rank2-exit1": (AGENT_OLD, None, None, 2, "python-exception"),
    "agent-local-rank2-exit1-glog": (AGENT_NEW, 4, 4, 2, "python-exception"),
    # held controls: a lone waiter, a launch of more processes than GPUs, an argparse exit of every worker
    "lone-rank1-broadcast-waiter-wrapped": (WAITER, None, None, None, None),
    "invalid-ordinal-unprefixed": (
        _ordinal([2, 3, 4], prefixed=False),
        8,
        8,
        None,
        None,
    ),
    "invalid-ordinal-six-prefixed": (
        _ordinal([2, 3, 4, 5, 6, 7], prefixed=True),
        8,
        8,
        None,
        None,
    ),
    "invalid-ordinal-one-prefixed": (_ordinal([5], prefixed=True), 8, 8, None, None),
    "argparse-table-entry1-only": (_table(full=False), 8, 8, None, None),
    "argparse-usage-and-entry1": (USAGE + _table(full=False), 8, 8, None, None),
    "argparse-usage-full-table-root0": (USAGE + _table(full=True), 8, 8, None, None),
    # contrasts: every task's exit in srun's report, every rank's tag on the same image error
    "srun-every-task-exit1": (SRUN_ALL_EXIT, 8, 16, None, None),
    "ompi-every-rank-same-image": (
        [x for r in range(4) for x in _ompi(r)],
        4,
        4,
        None,
        None,
    ),
}
BATCHED = Batched("b155", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_vision_backbones_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])
