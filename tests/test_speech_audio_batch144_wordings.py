"""Speech and audio training launches (real incidents batch 144, docs/rules.md "Session 32: batch 144"): the readings
the batch held, pinned with their wording variants. A spawned worker's Windows exit status (an NTSTATUS such as
``3221225620``, 0xC0000094) names that worker as an exit of its own, as a Unix status does; a trainer's per-rank
progress lines (WeNet's ``DEBUG TRAIN Batch 0/0 ... rank N``, ``INFO before CV device N``) and NCCL's start-up INFO
(no net plugin, ``Failed to open libibverbs.so[.1]``) are no rank's failure, however many ranks print them. Pasted logs
through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import naming_findings

NOW = dt.datetime(2026, 12, 1, 23, 0, tzinfo=dt.timezone.utc)
SPAWN = [
    "Traceback (most recent call last):",
    '  File "D:\\tts\\s2_train.py", line 57, in main',
    "    mp.spawn(",
    '  File "D:\\tts\\runtime\\lib\\site-packages\\torch\\multiprocessing\\spawn.py", line 149, in join',
    "    raise ProcessExitedException(",
    "torch.multiprocessing.spawn.ProcessExitedException: process {p} terminated with exit code {code}",
]
BAR = "  0%|          | 0/156 [00:00<?, ?it/s]"
TRAIN = (
    "2023-06-30 16:50:40,885 DEBUG TRAIN Batch 0/0 loss {loss:.6f} loss_att 20.047174 loss_ctc 104.228462 "
    "lr 0.00000002 rank {r}"
)
NCCL = [
    "2024/04/30 23:29:35 {host}:305:305 [0] NCCL INFO NET/Plugin : Plugin load (libnccl-net.so) returned 2 : "
    "libnccl-net.so: cannot open shared object file: No such file or directory",
    "2024/04/30 23:29:35 {host}:305:305 [0] NCCL INFO Bootstrap : Using eth0:10.241.101.227<0>",
    "2024/04/30 23:29:35 {host}:306:306 [1] NCCL INFO cudaDriverVersion 11070",
    "2024/04/30 23:29:35 {host}:305:305 [0] NCCL INFO NET/Plugin : No plugin found, using internal implementation",
    "2024/04/30 23:29:35 {host}:306:324 [1] NCCL INFO Failed to open libibverbs.so[.1]",
]


def _spawn(p: int, code: int, glued: bool = False) -> list[str]:
    lines = [s.format(p=p, code=code) for s in SPAWN]
    return [BAR + lines[0], *lines[1:]] if glued else lines


def _train(ranks: list[int], cv: list[int]) -> list[str]:
    lines = [TRAIN.format(loss=45.3 + r, r=r) for r in ranks]
    return lines + [
        f"2023-06-30 16:50:57,33{i} INFO before CV device {d}" for i, d in enumerate(cv)
    ]


#: key: (the pasted lines, processes per node, the rank a warning/critical finding must name alone: None for none,
#: the cause one of them gives: None for any)
CASES = {
    # GPT-SoVITS-2282's shape: the one worker's NTSTATUS (integer divide by zero), the traceback glued to a tqdm bar
    "ntstatus-divide-by-zero-one-worker-glued": (
        _spawn(0, 3221225620, glued=True),
        1,
        0,
        "exit-3221225620",
    ),
    "ntstatus-divide-by-zero-one-worker": (
        _spawn(0, 3221225620),
        1,
        0,
        "exit-3221225620",
    ),
    # another NTSTATUS (access violation) of the second of two workers
    "ntstatus-access-violation-process1-of-2": (
        _spawn(1, 3221225477),
        2,
        1,
        "exit-3221225477",
    ),
    # wenet-1895's shape: every rank's first batch line, then two ranks reach CV, then silence
    "wenet-every-rank-batch0-then-two-cv": (
        _train([6, 1, 5, 3, 7, 2, 4, 0], [7, 6]),
        8,
        None,
        None,
    ),
    "wenet-every-rank-batch0-then-all-cv": (
        _train([0, 1, 2, 3], [0, 1, 2, 3]),
        4,
        None,
        None,
    ),
    "wenet-one-rank-batch0-only": (_train([3], []), 4, None, None),
    # wenet-2511's shape: NCCL start-up INFO of two local processes, one host or two
    "nccl-info-startup-one-host": (
        [s.format(host="job-2046325-339461780-0") for s in NCCL],
        4,
        None,
        None,
    ),
    "nccl-info-startup-two-hosts": (
        [s.format(host=h) for h in ("job-1-0", "job-1-1") for s in NCCL],
        4,
        None,
        None,
    ),
}
BATCHED = Batched("b144", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=None)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_speech_launch_readings(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][2], CASES[key][3])
