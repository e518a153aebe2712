"""Multi-process training of weather, climate and Earth-observation models (real incidents batch 157): the readings.
The culprit: WeatherGenerator on JUWELS Booster (ecmwf/WeatherGenerator#1572) whose srun-labelled task 1 raises
``RuntimeError: DataLoader worker (pid N) is killed by signal: Aborted.`` out of its validation loop names rank 1
(as the rank's own RuntimeError, python-exception, since session 69: a loader worker's ``Aborted`` is no ``abort`` of
the rank's process, tests/test_dataloader_worker_own_crash.py; ``abort`` until then). The controls: ranks 1 and 2 timing
out in the same ALLREDUCE under ``srun --label`` (ecmwf/WeatherGenerator#433: every batch job on three systems), a
lone rank's watchdog on a one-element ALLREDUCE (NVIDIA/physicsnemo#691: GraphCast on 24 GB GPUs), a lone
``[rank0]:`` traceback cut before its exception where the author says every rank raised (NVIDIA/makani#67), and NCCL's
``Cuda failure 1 'invalid argument'`` over one unlabelled traceback (NVIDIA/physicsnemo#539: ``-np 3`` fails, ``-np 2``
works): none names a rank at warning or above. Contrast: rank 3 absent from three waiters' timeouts on one SeqNum of a
world of 4 is still named. No rule changed for the batch. Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import naming_findings

NOW = dt.datetime(2026, 12, 2, 3, 0, tzinfo=dt.timezone.utc)
WG = "/p/scratch/weatherai/slurm/slurm_weathergen_bc8oxat3_dir/WeatherGenerator"


def _worker_aborted(tag: str) -> list[str]:
    """WeatherGenerator-1572's shape: the loader's signal handler raises in rank 1, chained into its validation."""
    body = [
        '  File "/p/software/juwelsbooster/stages/2025/software/Python/3.12.3-GCCcore-13.3.0/lib/python3.12/'
        'threading.py", line 359, in wait',
        "    gotit = waiter.acquire(True, timeout)",
        f'  File "{WG}/.venv/lib/python3.12/site-packages/torch/utils/data/_utils/signal_handling.py", line 73, '
        "in handler",
        "    _error_if_any_worker_fails()",
        "RuntimeError: DataLoader worker (pid 1901937) is killed by signal: Aborted. ",
        "",
        "The above exception was the direct cause of the following exception:",
        "",
        "Traceback (most recent call last):",
        f'  File "{WG}/src/weathergen/run_train.py", line 178, in train_with_args',
        "    trainer.run(cf, devices)",
        f'  File "{WG}/src/weathergen/train/trainer.py", line 498, in validate',
        "    for bidx, batch in enumerate(dataset_val_iter):",
    ]
    return [f"{tag}{line}" for line in body]


def _watchdog(
    r: int, seq: int, label: bool, numel: int = 11, ms: int = 240000
) -> list[str]:
    """WeatherGenerator-433's shape: PyTorch 2.6's watchdog pair for rank ``r``, srun-labelled or not."""
    pg = f"[PG ID 0 PG GUID 0(default_pg) Rank {r}]"
    out = [
        f"[rank{r}]:[E702 12:22:50.{103110475 + r} ProcessGroupNCCL.cpp:629] [Rank {r}] Watchdog caught collective "
        f"operation timeout: WorkNCCL(SeqNum={seq}, OpType=ALLREDUCE, NumelIn={numel}, NumelOut={numel}, "
        f"Timeout(ms)={ms}) ran for {ms + 57 * r} milliseconds before timing out.",
        f"[rank{r}]:[E702 12:22:50.{186106643 + r} ProcessGroupNCCL.cpp:2168] {pg}  failure detected by watchdog at "
        f"work sequence id: {seq} PG status: last enqueued work: {seq}, last completed work: {seq - 1}",
    ]
    return [f"{r}: {line}" for line in out] if label else out


#: physicsnemo-691's shape: PyTorch 2.4's lone waiter on a one-element ALLREDUCE (a barrier)
BARRIER_RANK3 = [
    "[rank3]:[E1016 03:33:45.317536384 ProcessGroupNCCL.cpp:568] [Rank 3] Watchdog caught collective operation "
    "timeout: WorkNCCL(SeqNum=50, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600011 "
    "milliseconds before timing out.",
    "[rank3]:[E1016 03:33:45.319844411 ProcessGroupNCCL.cpp:1583] [PG 0 Rank 3] Exception (either an error or "
    "timeout) detected by watchdog at work: 50, last enqueued NCCL work: 50, last completed NCCL work: 49.",
    "[rank3]:[E1016 03:33:45.319862434 ProcessGroupNCCL.cpp:1628] [PG 0 Rank 3] Timeout at NCCL work: 50, last "
    "enqueued NCCL work: 50, last completed NCCL work: 49.",
    "[rank3]:[E1016 03:33:45.319870659 ProcessGroupNCCL.cpp:582] [Rank 3] Some NCCL operations have failed or timed "
    "out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete "
    "data.",
]
#: makani-67's shape: rank 0's traceback, cut before its exception
MK = "/envs/makani/lib/python3.12/site-packages/torch/nn/modules/module.py"
RANK0_CUT = [
    "[rank0]: Traceback (most recent call last):",
    '[rank0]:   File "/makani/makani/train.py", line 197, in <module>',
    "[rank0]:     trainer.train()",
    '[rank0]:   File "/makani/makani/utils/training/deterministic_trainer.py", line 515, in train_one_epoch',
    "[rank0]:     loss = self.loss_obj(pred, tar)",
    "[rank0]:            ^^^^^^^^^^^^^^^^^^^^^^^^",
    f'[rank0]:   File "{MK}", line 1751, in _wrapped_call_impl',
    "[rank0]:     return self._call_impl(*args, **kwargs)",
]
#: physicsnemo-539's shape: NCCL's CUDA refusal over one unlabelled Hydra-wrapped traceback
HY = "/usr/local/lib/python3.10/dist-packages/hydra"
CUDA_INVALID = [
    "```shell",
    "Cuda failure 1 'invalid argument'",
    "Traceback (most recent call last):",
    '  File "/graphcast/train_graphcast_2to1.py", line 523, in <module>',
    "    main()",
    f'  File "{HY}/main.py", line 94, in decorated_main',
    "    _run_hydra(",
    f'  File "{HY}/_internal/utils.py", line 223, in run_and_report',
    "    raise ex",
]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone: None)
CASES = {
    # the culprit: srun's label, PyTorch's rank tag, both, and with the JUWELS node's four tasks
    "worker-aborted-srun-label": (_worker_aborted("1: "), None, None, 1),
    "worker-aborted-rank-tag": (_worker_aborted("[rank1]: "), None, None, 1),
    "worker-aborted-srun-and-tag": (_worker_aborted("1: [rank1]: "), None, None, 1),
    "worker-aborted-four-tasks": (_worker_aborted("1: "), 4, 4, 1),
    # the controls: two srun-labelled waiters on one SeqNum, unlabelled, with a layout of 4
    "two-waiters-srun-label": (
        _watchdog(1, 52, True) + _watchdog(2, 52, True),
        None,
        None,
        None,
    ),
    "two-waiters-unlabelled": (
        _watchdog(1, 52, False) + _watchdog(2, 52, False),
        None,
        None,
        None,
    ),
    "two-waiters-world4": (_watchdog(1, 52, True) + _watchdog(2, 52, True), 4, 4, None),
    "two-waiters-interleaved": (
        [
            x
            for pair in zip(_watchdog(1, 52, True), _watchdog(2, 52, True))
            for x in pair
        ],
        None,
        None,
        None,
    ),
    "lone-barrier-waiter": (BARRIER_RANK3, None, None, None),
    "lone-barrier-waiter-fenced": (["```"] + BARRIER_RANK3 + ["```"], None, None, None),
    "lone-barrier-waiter-world4": (BARRIER_RANK3, 4, 4, None),
    "rank0-traceback-cut": (RANK0_CUT, None, None, None),
    "rank0-traceback-cut-fenced": (["```"] + RANK0_CUT, None, None, None),
    "rank0-traceback-cut-world8": (RANK0_CUT, 8, 8, None),
    "cuda-invalid-argument-unlabelled": (CUDA_INVALID, None, None, None),
    "cuda-invalid-argument-np3": (CUDA_INVALID, 3, 3, None),
    # contrast: three waiters of a world of 4 on one SeqNum name the rank never shown
    "three-waiters-rank3-absent": (
        [x for r in (0, 1, 2) for x in _watchdog(r, 52, True, numel=4096, ms=600000)],
        4,
        4,
        3,
    ),
}
BATCHED = Batched("b157", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_earth_weather_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3])
