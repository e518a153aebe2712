"""Batch 60's forum paste shapes (tests/data/real-incidents, ``"batch": 60``, family ``forums``), each with its
wording variants, as one pasted log through ``k10s import-logs``. All three incidents are controls, and so is
every variant here: each wording is a failure every rank meets alike or a waiter's own report, never one rank's
fault.

* Ray Train's ``RayTaskError(RuntimeError)`` re-raised from a ``RayTrainWorker`` (pid and ip only) when DDP's
  start-up ``_verify_model_across_ranks`` fails, with NCCL's ``Duplicate GPU detected : rank A and rank B both
  on CUDA device …`` (workers sharing a GPU: the job's configuration), bare or behind a ``[rankA]:`` tag: the two
  ranks are the pair NCCL compared, neither is named;
* Ascend's ``EE9999 … device(chipId:N …) event wait timeout occurred during task execution`` /
  ``Task execute failed, device_id=N … task_type=3(EVENT_WAIT)`` of one process, and HCCL's ``EI0002 … The Notify
  register has not received the Notify record from remote rank [R|unknown]``: a waiter's own timeout names no one;
* the TBE compile helper's ``main process disappeared!`` (its parent killed, here by the host OOM killer): no one.

These shapes were met as collected (docs/rules.md, "Session 22: batch 60"); the tests keep them met.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from incident_kit import named_in_paste

NOW = dt.datetime(2026, 11, 21, 10, 5, tzinfo=dt.timezone.utc)
DATA = Path(__file__).resolve().parent / "data" / "real-incidents"
RAY = (DATA / "discuss-ray-8598-tune-torchtrainer-fractional-gpu-nccl-verify-model-control" / "log.txt").read_text()
ASCEND = (DATA / "discuss-mindspore-1156-32rank-eval-pause-event-wait-timeout-device3-control" / "log.txt").read_text()
DUP = "Duplicate GPU detected : rank {a} and rank {b} both on CUDA device 1000"
PAIRS = [(1, 0, 2), (0, 1, 2), (3, 2, 4)]


@pytest.mark.parametrize("a,b,n", PAIRS)
def test_ray_worker_duplicate_gpu_at_ddp_start_names_no_one(tmp_path, a, b, n):
    text = (RAY + "RuntimeError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1269, invalid usage, "
            "NCCL version 2.14.3\nncclInvalidUsage: This usually reflects invalid usage of NCCL library.\nLast error:\n"
            + DUP.format(a=a, b=b) + "\n")
    assert named_in_paste(tmp_path, text, n, n, NOW) == []


@pytest.mark.parametrize("a,b,n", PAIRS)
def test_a_bare_nccl_duplicate_gpu_warning_names_no_one(tmp_path, a, b, n):
    assert named_in_paste(tmp_path, "NCCL WARN " + DUP.format(a=a, b=b) + "\n", n, n, NOW) == []


@pytest.mark.parametrize("a,b,n", PAIRS)
def test_a_rank_tagged_duplicate_gpu_error_names_no_one(tmp_path, a, b, n):
    text = "".join(f"[rank{a}]: {line}\n" for line in (
        "torch.distributed.DistBackendError: NCCL error in: /pytorch/torch/csrc/distributed/c10d/NCCLUtils.hpp:317, "
        "invalid usage (run with NCCL_DEBUG=WARN for details), NCCL version 2.21.5",
        "ncclInvalidUsage: This usually reflects invalid usage of NCCL library.", "Last error:", DUP.format(a=a, b=b)))
    assert named_in_paste(tmp_path, text, n, n, NOW) == []


@pytest.mark.parametrize("device", [0, 3, 7])
@pytest.mark.parametrize("nproc,world", [(8, 8), (8, 32)])
def test_an_ascend_event_wait_timeout_of_one_device_names_no_one(tmp_path, device, nproc, world):
    text = ASCEND.replace("chipId:3", f"chipId:{device}").replace("device_id=3", f"device_id={device}")
    assert f"device_id={device}," in text
    assert named_in_paste(tmp_path, text, nproc, world, NOW) == []


@pytest.mark.parametrize("remote", ["unknown", "5", "0"])
def test_an_hccl_notify_wait_timeout_names_no_one(tmp_path, remote):
    text = ("EI0002: [PID: 7277] 2024-11-28-11:59:30.645.648 The wait execution of the Notify register times out. Reason: "
            f"The Notify register has not received the Notify record from remote rank [{remote}].base information: "
            "[streamID:[2282987520], taskID[5], tag[AllReduce_90.90.92.240%enp189s0f0_60000_0_1732766162316022], "
            "AlgType(level 0-1-2):[fullmesh-ring-ring].] task information: []\n")
    assert named_in_paste(tmp_path, text, 8, 8, NOW) == []


@pytest.mark.parametrize("times", [1, 3])
def test_the_tbe_helpers_main_process_disappeared_names_no_one(tmp_path, times):
    text = "[ERROR] TBE Subprocess(task distribute] raise error[], main process disappeared!\n" * times
    assert named_in_paste(tmp_path, text, 8, 8, NOW) == []


@pytest.mark.parametrize("a,b,n", PAIRS)
def test_contrast_the_same_tagged_error_block_with_a_rank_s_own_oom_names_it(tmp_path, a, b, n):
    """The importer does read these pastes: the same tagged block ending in the rank's own CUDA OOM names it."""
    text = "".join(f"[rank{a}]: {line}\n" for line in (
        "Traceback (most recent call last):", '  File "/x/train.py", line 12, in <module>', "    loss.backward()",
        f"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU {a} has a total capacity of "
        "79.19 GiB of which 405.00 MiB is free."))
    assert [ranks for _, _, ranks in named_in_paste(tmp_path, text, n, n, NOW)] == [[a]]
