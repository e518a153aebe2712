"""Multi-GPU training of segmentation models (real incidents batch 173): the held readings and their wordings, pinned as
read. The legacy ``torch.distributed.launch`` of PyTorch 1.6 raising ``CalledProcessError`` with ``cmd=cmd`` (the
last spawned command, open-mmlab/mmsegmentation#938: ``--local_rank=1`` of 2 GPUs) names no one, as pasted without
indentation, indented, with or without a layout; its one-line form with exit status 2 and ``4`` in place of the config
(mmsegmentation#243, argparse's usage error of every worker) names no one; ODISE's unranked traceback into the AMP
backward on eight 3090s (NVlabs/ODISE#25) names no one; a lone ``[rank0]:`` traceback cut in mmengine's
``_run_forward`` (mmsegmentation#3737, DDP's model-wide unused-parameter error) is read at info only.
Culprits held: detectron2's ``launch`` (mp.spawn) report ``-- Process 2 terminated with the following error:`` cut at
``loss_dict = self.model(data)`` (facebookresearch/detectron2#51) names process 2, and ``-- Process 0 terminated``
(detectron2#659) names process 0 - as a python-exception while the worker's CUDA OOM is cut (the OOM is only the
title's; NOT_YET for its cause), and still names process 0 where the worker's OOM line is pasted (its cause then
still read python-exception: spawn's worker lines carry no rank, so the OOM line is not tied to process 0; pinned by
rank only). No rule changed for the batch.
Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import naming_findings

NOW = dt.datetime(2026, 12, 2, 7, 0, tzinfo=dt.timezone.utc)
ENV = "/home/anaconda3/envs/py37_torch1.6"
LAUNCH = f"{ENV}/lib/python3.7/site-packages/torch/distributed/launch.py"
CMD = (
    "subprocess.CalledProcessError: Command '['"
    + ENV
    + "/bin/python', '-u', './tools/train.py', '--local_rank={r}', "
    "'configs/SETR/SETR_Naive_768x768_40k_cityscapes_bs_8.py', '--launcher', 'pytorch']' returned non-zero exit "
    "status 1."
)
LEGACY_FLUSH = [
    "Traceback (most recent call last):",
    f'File "{ENV}/lib/python3.7/runpy.py", line 193, in _run_module_as_main',
    '"main", mod_spec)',
    f'File "{ENV}/lib/python3.7/runpy.py", line 85, in _run_code',
    "exec(code, run_globals)",
    f'File "{LAUNCH}", line 261, in',
    "main()",
    f'File "{LAUNCH}", line 257, in main',
    "cmd=cmd)",
]
LEGACY_INDENTED = [
    "Traceback (most recent call last):",
    f'  File "{LAUNCH}", line 261, in <module>',
    "    main()",
    f'  File "{LAUNCH}", line 257, in main',
    "    cmd=cmd)",
]
EXIT2 = (
    "subprocess.CalledProcessError: Command '['/home/yjh/.conda/envs/pytorch37/bin/python', '-u', './train.py', "
    "'--local_rank=3', '4', '--launcher', 'pytorch']' returned non-zero exit status 2."
)
OD = "/home/zoloz/8T-1/zitong/code/ODISE/odise/engine/train_loop.py"
SP = "/home/dazhi/miniconda3/envs/odise/lib/python3.9/site-packages"
ODISE = [
    "Starting training from iteration 0",
    " Exception during training:",
    "Traceback (most recent call last):",
    f'  File "{SP}/detectron2/engine/train_loop.py", line 149, in train',
    "    self.run_step()",
    f'  File "{OD}", line 297, in run_step',
    "    grad_norm = self.grad_scaler(",
    f'  File "{OD}", line 207, in __call__',
    "    self._scaler.scale(loss).backward(create_graph=create_graph)",
    f'  File "{SP}/torch/autograd/function.py", line 267, in apply',
    "    return user_fn(self, *args)",
]
MME = "/home/liujie/miniconda3/envs/pytorch/lib/python3.10/site-packages/mmengine"
RANK0 = [
    "[rank0]: Traceback (most recent call last):",
    '[rank0]:   File "/home/liujie/liumin/Samba/tools/train.py", line 100, in main',
    "[rank0]:     runner.train()",
    f'[rank0]:   File "{MME}/runner/loops.py", line 311, in run_iter',
    "[rank0]:     outputs = self.runner.model.train_step(",
    f'[rank0]:   File "{MME}/model/wrappers/distributed.py", line 161, in _run_forward',
    "[rank0]:     results = self(**data, mode=mode)",
]
TM = "/home/user/miniconda/envs/detectron2/lib/python3.7/site-packages/torch/multiprocessing/spawn.py"


def _spawn(index: int, tail: list[str], blank: int = 2) -> list[str]:
    """detectron2's launch -> mp.spawn parent traceback (PyTorch 1.3's plain Exception) and worker ``index``'s."""
    return [
        "[10/14 15:42:59 d2.engine.train_loop]: Starting training from iteration 0",
        "Traceback (most recent call last):",
        '  File "modanet.py", line 162, in <module>',
        "    args=(args,),",
        f'  File "{TM}", line 118, in join',
        "    raise Exception(msg)",
        "Exception:",
        *[""] * blank,
        f"-- Process {index} terminated with the following error:",
        "Traceback (most recent call last):",
        f'  File "{TM}", line 19, in _wrap',
        "    fn(i, *args)",
        '  File "/SSD/hyunsu/detectron2/detectron2/engine/train_loop.py", line 212, in run_step',
        "    loss_dict = self.model(data)",
        *tail,
    ]


OOM = (
    "RuntimeError: CUDA out of memory. Tried to allocate 1.17 GiB (GPU 0; 10.76 GiB total capacity; 7.94 GiB already "
    "allocated; 954.56 MiB free; 8.93 GiB reserved in total by PyTorch)"
)

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone: None, cause)
CASES = {
    # mmsegmentation-938: the legacy launcher's last spawned command, flush left as pasted
    "legacy-cmd-local-rank1-flush": (
        [*LEGACY_FLUSH, CMD.format(r=1)],
        None,
        None,
        None,
        None,
    ),
    "legacy-cmd-local-rank1-flush-two-gpus": (
        [*LEGACY_FLUSH, CMD.format(r=1)],
        2,
        2,
        None,
        None,
    ),
    "legacy-cmd-local-rank1-indented": (
        [*LEGACY_INDENTED, CMD.format(r=1)],
        2,
        2,
        None,
        None,
    ),
    "legacy-cmd-local-rank3-of-4": (
        [*LEGACY_INDENTED, CMD.format(r=3)],
        4,
        4,
        None,
        None,
    ),
    # mmsegmentation-243: the one-line form, argparse's usage error of every worker
    "one-line-exit2-local-rank3": ([EXIT2], None, None, None, None),
    "one-line-exit2-local-rank3-four-gpus": ([EXIT2], 4, 4, None, None),
    # ODISE-25: one unranked traceback into the AMP backward
    "odise-unranked-backward": (ODISE, None, None, None, None),
    "odise-unranked-backward-eight-gpus": (ODISE, 8, 8, None, None),
    # mmsegmentation-3737: a lone [rank0] traceback cut in _run_forward (info only)
    "lone-rank0-run-forward": (RANK0, None, None, None, None),
    "lone-rank0-run-forward-two-gpus": (RANK0, 2, 2, None, None),
    # detectron2-51 / -659: spawn's report of the first failing worker names it
    "spawn-process2-cut-forward": (_spawn(2, []), None, None, 2, "python-exception"),
    "spawn-process2-one-blank": (_spawn(2, [], blank=1), 4, 4, 2, "python-exception"),
    "spawn-process0-cut": (_spawn(0, []), 2, 2, 0, "python-exception"),
    # the worker's own OOM line under spawn's header: process 0 named (its cause still read python-exception)
    "spawn-process0-with-oom": (_spawn(0, [OOM]), 2, 2, 0, None),
}
BATCHED = Batched("b173", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_segmentation_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])
