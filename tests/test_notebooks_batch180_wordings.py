"""Multi-process training launched from notebooks (real incidents batch 180): their wordings, pinned as read.
A spawned process killed with SIGKILL on a Colab or Kaggle VM (Lightning-AI/pytorch-lightning#1590: the lone
pre-``ProcessExitedException`` ``Exception: process 0 terminated with signal SIGKILL``) names that process, host-oom-kill,
bare, under a Jupyter cell's traceback header, in today's wording and at another index. Controls that name no one:
torchrun's ChildFailedError from a Kaggle 2 x T4 cell listing both ranks with exit code 1 in the same second
(huggingface/autotrain-advanced#195), with or without the layout; Lightning's ``ddp_notebook`` whose two ranks register
and the cell then shows ``ProcessRaisedException`` from ``trainer.fit`` (Lightning-AI/pytorch-lightning#16136);
accelerate's ``notebook_launcher`` cell traceback through ``start_processes(..., start_method="fork")`` cut before the
failed process (huggingface/accelerate#940); the elastic agent's fork report whose worker shows ``Cannot re-initialize
CUDA in forked subprocess`` (accelerate-3524's shape). The missed culprit as read (NOT_YET_S35): a Kaggle TPU cell's
``xmp.spawn`` traceback cut before its last line (huggingface/transformers#3660) names no one, its process being only
in the title. No rule changed for the batch.
Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import naming_findings

NOW = dt.datetime(2026, 12, 2, 9, 0, tzinfo=dt.timezone.utc)
RULE = "-" * 75
CELL = [
    RULE,
    "Exception                                 Traceback (most recent call last)",
    "<ipython-input-22-ab45ae238b6a> in <module>()",
    "     41 args = parser.parse_args(cmd_args)",
    "     42 ",
    "---> 43 main(args)",
    "",
    "5 frames",
]
OLD_KILL = ["Exception: process 0 terminated with signal SIGKILL"]
NEW_KILL = [
    "torch.multiprocessing.spawn.ProcessExitedException: process 0 terminated with signal SIGKILL"
]
OLD_KILL3 = ["Exception: process 3 terminated with signal SIGKILL"]


def _child(rank: int, pid: int) -> list[str]:
    return [
        "  time      : 2023-08-10_03:52:11",
        "  host      : 2f3abb58b8ea",
        f"  rank      : {rank} (local_rank: {rank})",
        f"  exitcode  : 1 (pid: {pid})",
        "  error_file: <N/A>",
        "  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html",
    ]


TWO_T4 = (
    [
        "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ",
        "=" * 60,
        "autotrain.trainers.clm FAILED",
    ]
    + ["-" * 60, "Failures:", "[1]:"]
    + _child(1, 371)
    + ["-" * 60, "Root Cause (first observed failure):", "[0]:"]
    + _child(0, 370)
    + ["=" * 60]
)
SITE = "/opt/conda/envs/pytorch/lib/python3.9/site-packages"
DDP_NOTEBOOK = [
    "GPU available: True (cuda), used: True",
    "TPU available: False, using: 0 TPU cores",
    "9454 2071",
    "Initializing distributed: GLOBAL_RANK: 0, MEMBER: 1/2",
    "Initializing distributed: GLOBAL_RANK: 1, MEMBER: 2/2",
    "-" * 100,
    "distributed_backend=nccl",
    "All distributed processes registered. Starting with 2 processes",
    "-" * 100,
    "",
    RULE,
    "ProcessRaisedException                    Traceback (most recent call last)",
    "Cell In [8], line 28",
    "---> 28 trainer.fit(estimator, train_loader, val_loader)",
    "",
    f"File {SITE}/pytorch_lightning/trainer/trainer.py:603, in Trainer.fit(self, model, train_dataloaders, "
    "val_dataloaders, datamodule, ckpt_path)",
]
LAUNCHER = [
    "File ~/python3.8/site-packages/accelerate/launchers.py:122, in notebook_launcher(function, args, num_processes, "
    "use_fp16, mixed_precision, use_port)",
    '    121         print(f"Launching training on {num_processes} GPUs.")',
    '--> 122         start_processes(launcher, args=args, nprocs=num_processes, start_method="fork")',
    "",
    "File ~python3.8/site-packages/torch/multiprocessing/spawn.py:198, in start_processes(fn, args, nprocs, join, "
    "daemon, start_method)",
    "    197 # Loop on join until it returns True or raises an exception.",
    "--> 198 while not context.join():",
    "    199     pass",
]
E = "E0422 05:07:49.013000 204 torch/distributed/elastic/multiprocessing/api.py:732] "
DIST = "/usr/local/lib/python3.11/dist-packages/torch"
FORK_REINIT = [
    E
    + "failed (exitcode: 1) local_rank: 0 (pid: 240) of fn: dummy_fn (start_method: fork)",
    E + "Traceback (most recent call last):",
    E + f'  File "{DIST}/multiprocessing/spawn.py", line 215, in join',
    E + "    raise ProcessRaisedException(msg, error_index, failed_process.pid)",
    E + "torch.multiprocessing.spawn.ProcessRaisedException: ",
    E,
    E + "-- Process 0 terminated with the following error:",
    E + "Traceback (most recent call last):",
    E + f'  File "{DIST}/cuda/__init__.py", line 305, in _lazy_init',
    E + "    raise RuntimeError(",
    E
    + "RuntimeError: Cannot re-initialize CUDA in forked subprocess. To use CUDA with multiprocessing, you must use "
    "the 'spawn' start method",
]
XMP = "/opt/conda/lib/python3.6/site-packages"
XMP_CELL = [
    RULE,
    "Exception                                 Traceback (most recent call last)",
    "<timed exec> in <module>",
    "",
    f"{XMP}/torch_xla/distributed/xla_multiprocessing.py in spawn(fn, args, nprocs, join, daemon, start_method)",
    "    180         join=join,",
    "--> 182         start_method=start_method)",
    "",
    f"{XMP}/torch/multiprocessing/spawn.py in start_processes(fn, args, nprocs, join, daemon, start_method)",
    "    156 ",
]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone: None,
#: the cause one of them must give)
CASES = {
    # pytorch-lightning-1590's shape: the old spawn wording of a SIGKILL'd process, bare and in a cell
    "colab-old-process0-sigkill": (OLD_KILL, None, None, 0, "host-oom-kill"),
    "colab-old-process0-sigkill-eight": (OLD_KILL, 8, 8, 0, "host-oom-kill"),
    "colab-old-process0-sigkill-cell": (
        CELL + OLD_KILL,
        None,
        None,
        0,
        "host-oom-kill",
    ),
    "colab-new-process0-sigkill-cell": (CELL + NEW_KILL, 8, 8, 0, "host-oom-kill"),
    "colab-old-process3-sigkill": (OLD_KILL3, 8, 8, 3, "host-oom-kill"),
    # autotrain-advanced-195's shape: both ranks of a Kaggle 2 x T4 cell exit 1 in the same second
    "kaggle-two-t4-both-exit1": (TWO_T4, 2, 2, None, None),
    "kaggle-two-t4-both-exit1-no-layout": (TWO_T4, None, None, None, None),
    # pytorch-lightning-16136's shape: two ranks register, the cell's ProcessRaisedException, the process cut
    "ddp-notebook-two-ranks-cell": (DDP_NOTEBOOK, 2, 2, None, None),
    "ddp-notebook-two-ranks-cell-no-layout": (DDP_NOTEBOOK, None, None, None, None),
    # accelerate-940's shape: notebook_launcher's fork cell traceback, cut before the failed process
    "notebook-launcher-fork-cell-cut": (LAUNCHER, 2, 2, None, None),
    # accelerate-3524's shape: the agent's fork report with the worker's re-initialisation error
    "notebook-launcher-fork-reinit": (FORK_REINIT, 2, 2, None, None),
    # the missed culprit as read (NOT_YET_S35): transformers-3660's xmp.spawn cell cut before its last line
    "kaggle-tpu-xmp-cell-cut": (XMP_CELL, None, None, None, None),
    "kaggle-tpu-xmp-cell-cut-eight": (XMP_CELL, 8, 8, None, None),
}
BATCHED = Batched("b180", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_notebook_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])
