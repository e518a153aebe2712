"""OCR and document-model training (real incidents batch 159): their wordings, pinned as read.
PaddleOCR / PaddleDetection under ``paddle.distributed.launch`` and an OCR model under ``torch.distributed.launch``.
Held culprits: the new launcher's ``Container rank N status failed ... code -6 log .../workerlog.N`` names trainer N,
aborted (PaddlePaddle/PaddleDetection#7475), and the legacy launcher's ``ABORT!!! Out of all 4 trainers, the trainer
process with rank=[1, 2, 3] was aborted.`` after one untagged pid's refused NCCL-id connects reads as those three
trainers failing together (PaddlePaddle/PaddleOCR#3394). Held controls, none naming a rank: rank 0's healthy
start-up with a two-trainer NCCL context and the user's own digit prints (PaddlePaddle/PaddleOCR#6988), the legacy
launcher's ``Local start N processes`` environment table for trainer 0 (PaddlePaddle/PaddleOCR#13791), the legacy
launcher's own traceback after ``can't find avilable port`` before any trainer starts
(PaddlePaddle/PaddleDetection#3463), and untagged ``invalid device ordinal`` tracebacks of several workers on a
machine with fewer GPUs than ``--nproc_per_node`` (rosinality/ocr-pytorch#1). Variants: other ranks and world sizes,
Linux paths, a third traceback, the container line with its ``env {...}`` tail. No rule changed for the batch (all
six met as collected). Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import naming_findings

NOW = dt.datetime(2026, 12, 2, 3, 0, tzinfo=dt.timezone.utc)


def _container(rank: int, code: int, env: bool = False) -> list[str]:
    """The new launcher's report of the first failed container (PaddleDetection-7475's shape)."""
    line = (
        f"Container rank {rank} status failed cmd ['/root/anaconda3/envs/pp37/bin/python', '-u', 'tools/train.py', "
        f"'-c', 'configs/mot/bytetrack/detector/yolox_x_24e_800x1440_mix_det.yml', '--eval', '--amp'] "
        f"code {code} log ppyoloe/workerlog.{rank} "
    )
    out = [
        "LAUNCH INFO 2022-12-08 02:04:51,548 Pod failed",
        "LAUNCH ERROR 2022-12-08 02:04:51,549 Container failed !!!",
        line,
    ]
    if env:
        out.append(
            "env {'CONDA_SHLVL': '2', 'LD_LIBRARY_PATH': '/usr/local/cuda-10.2/lib64', 'PADDLE_TRAINER_ID': "
            f"'{rank}', 'FLAGS_selected_gpus': '{rank}'}}"
        )
    return out


def _abort(ranks: list[int], world: int, connects: bool = True) -> list[str]:
    """The legacy launcher's summary, after one pid's refused NCCL-id connects (PaddleOCR-3394's shape)."""
    out = (
        [
            f"W0721 18:25:40.{236928 + 500334 * i}  6826 gen_comm_id_helper.cc:120] connect addr=127.0.0.1:36250 "
            f"failed {i + 1} times with reason: Connection refused retry after {0.5 * (i + 1):g} seconds"
            for i in range(2)
        ]
        if connects
        else []
    )
    return out + [
        "INFO 2021-07-21 18:25:47,709 launch_utils.py:327] terminate all the procs",
        f"ERROR 2021-07-21 18:25:47,709 launch_utils.py:584] ABORT!!! Out of all {world} trainers, the trainer process "
        f"with rank={ranks} was aborted. Please check its log.",
        "INFO 2021-07-21 18:25:50,714 launch_utils.py:327] terminate all the procs",
    ]


def _startup(rank: int, nranks: int) -> list[str]:
    """A PaddleOCR trainer's healthy start-up with the user's debug prints (PaddleOCR-6988's shape)."""
    return [
        f"[2022/07/25 15:19:22] ppocr INFO: train with paddle 2.3.1 and device Place(gpu:{rank})",
        "8888888888888888888888888",
        f"I0725 15:19:22.428663  4824 nccl_context.cc:83] init nccl context nranks: {nranks} local rank: {rank} "
        f"gpu id: {rank} ring id: 0",
        f"W0725 15:19:22.629635  4824 gpu_resources.cc:61] Please NOTE: device: {rank}, GPU Compute Capability: 6.1, "
        "Driver API Version: 11.7, Runtime API Version: 11.2",
        f"W0725 15:19:22.649430  4824 gpu_resources.cc:91] device: {rank}, cuDNN Version: 8.4.",
        "[2022/07/25 15:19:24] ppocr INFO: Initialize indexs of datasets:['/root/ccpd/train_det2.txt']",
        "89999999999999999999999999",
        "[2022/07/25 15:19:24] ppocr INFO: train dataloader has 72 iters",
        "[2022/07/25 15:19:24] ppocr INFO: valid dataloader has 500 iters",
    ]


def _table(n: int) -> list[str]:
    """The legacy launcher's debug table of the first process (PaddleOCR-13791's shape)."""
    ends = ",".join(f"127.0.0.1:{56923 + 11 * r}" for r in range(n))
    rows = [
        ("PADDLE_TRAINER_ID", "0"),
        ("PADDLE_CURRENT_ENDPOINT", "127.0.0.1:56923"),
        ("PADDLE_TRAINERS_NUM", str(n)),
        ("PADDLE_TRAINER_ENDPOINTS", ends),
        ("PADDLE_RANK_IN_NODE", "0"),
        ("PADDLE_LOCAL_DEVICE_IDS", "0"),
        ("PADDLE_WORLD_DEVICE_IDS", ",".join(map(str, range(n)))),
        ("FLAGS_selected_gpus", "0"),
    ]
    return [
        f"INFO 2024-08-30 08:43:07,589 launch_utils.py:561] Local start {n} processes. First process distributed "
        "environment info (Only For Debug): ",
        "    +" + "=" * 87 + "+",
        "    |                        Distributed Envs                      Value                    |",
        "    +" + "-" * 87 + "+",
    ] + [f"    |{k:>40}{v:^47}|" for k, v in rows]


def _launcher_crash(n: int) -> list[str]:
    """The legacy launcher failing in its own code before any trainer (PaddleDetection-3463's shape)."""
    ids = list(range(n))
    site = "/ai/conda/envs/paddle_py36/lib/python3.6/site-packages/paddle/distributed"
    return [
        "WARNING 2021-06-22 03:57:39,633 launch.py:357] Not found distinct arguments and compiled with cuda or xpu. "
        "Default use collective mode",
        "launch train in GPU mode!",
        f"INFO 2021-06-22 03:57:39,634 launch_utils.py:621] Change selected_gpus into reletive values. "
        f"--ips:{','.join(map(str, ids))} will change into relative_ips:{ids} according to your "
        f"CUDA_VISIBLE_DEVICES:{[str(i) for i in ids]}",
        "can't find avilable port and use the specified static port now!",
        "Traceback (most recent call last):",
        f'  File "{site}/launch.py", line 16, in <module>',
        "    launch.launch()",
        f'  File "{site}/fleet/launch.py", line 369, in launch',
        "    launch_collective(args)",
        f'  File "{site}/fleet/launch.py", line 241, in launch_collective',
        "    devices_per_proc)",
    ]


def _ordinal(n: int, windows: bool = True, last_error: bool = False) -> list[str]:
    """Untagged ``invalid device ordinal`` tracebacks of ``n`` workers (ocr-pytorch-1's shape)."""
    cuda = (
        "C:\\Users\\a\\.conda\\envs\\alir\\lib\\site-packages\\torch\\cuda\\__init__.py"
        if windows
        else "/home/a/miniconda3/lib/python3.8/site-packages/torch/cuda/__init__.py"
    )
    mod = (
        "..\\torch\\csrc\\cuda\\Module.cpp"
        if windows
        else "/pytorch/torch/csrc/cuda/Module.cpp"
    )
    out = [
        "python -m torch.distributed.launch --nproc_per_node=4 --master_port=8890 train.py --batch 4 data1s",
        "*****************************************",
        "Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system "
        "being overloaded, please further tune the variable for optimal performance in your application as needed.",
        "*****************************************",
    ]
    for i in range(n):
        out += [
            f"THCudaCheck FAIL file={mod} line=37 error=101 : invalid device ordinal",
            "Traceback (most recent call last):",
            '  File "train.py", line 148, in <module>',
            "    torch.cuda.set_device(args.local_rank)",
            f'  File "{cuda}", line 300, in set_device',
            "    torch._C._cuda_setDevice(device)",
        ]
        if i < n - 1 or last_error:
            out.append(
                f"RuntimeError: cuda runtime error (101) : invalid device ordinal at {mod}:37"
            )
    return out


#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone (None: a
#: control), the cause it must carry)
CASES = {
    # held culprit: the new launcher's first failed container, SIGABRT
    "container-rank0-code-minus6": (_container(0, -6), None, None, 0, "abort"),
    "container-rank2-code-minus6-env": (_container(2, -6, env=True), 4, 4, 2, "abort"),
    # held controls
    "rank0-startup-two-trainers": (_startup(0, 2), 2, 2, None, None),
    "rank1-startup-four-trainers": (_startup(1, 4), 4, 4, None, None),
    "legacy-env-table-two": (_table(2), 2, 2, None, None),
    "legacy-env-table-four": (_table(4), 4, 4, None, None),
    "legacy-launcher-crash-eight": (_launcher_crash(8), 8, 8, None, None),
    "legacy-launcher-crash-two": (_launcher_crash(2), None, None, None, None),
    "ordinal-two-untagged-windows": (_ordinal(2), 4, 4, None, None),
    "ordinal-three-untagged-linux": (
        _ordinal(3, windows=False, last_error=True),
        4,
        4,
        None,
        None,
    ),
    # the legacy summary naming every trainer stays a control (PaddleDetection-1775's shape)
    "legacy-abort-every-trainer": (_abort([0, 1], 2, connects=False), 2, 2, None, None),
}
BATCHED = Batched("b159", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_ocr_document_wordings_name_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])


@pytest.mark.parametrize("world", [None, 4, 8])
def test_legacy_abort_of_three_after_refused_connects_names_those_three(
    world, tmp_path
):
    """PaddleOCR-3394: the launcher's three aborted trainers are what is named (as the finding's ranks where the world
    is known, as ranks failing together where it is not: the corpus's culprits 1, 2, 3 either way); no other rank is
    named for the untagged pid's refused connects."""
    from k10s_forensics.analyze.runner import analyze

    bundle = pasted(_abort([1, 2, 3], world or 4), tmp_path, world, NOW, world=world)
    findings = analyze(bundle)["findings"]
    named = naming_findings(findings)
    assert all(f["ranks"] == [1, 2, 3] for f in named), [
        (f["rule"], f["ranks"]) for f in named
    ]
    together = [
        e.get("together_ranks")
        for f in findings
        if f["rule"] == "rank-failure"
        for e in f["evidence"]
    ]
    assert named or [1, 2, 3] in together, (
        together,
        [(f["rule"], f["ranks"]) for f in findings],
    )
