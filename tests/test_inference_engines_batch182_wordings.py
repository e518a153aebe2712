"""Multi-GPU LLM inference engines' failures (real incidents batch 182): TensorRT-LLM's ``run.py`` under ``mpirun``
whose rank 6 is SIGKILLed (TensorRT-LLM#1700), SGLang's rank-6 watchdog illegal memory access pasted with a blank line
after every line (sglang#13234), SGLang's load check raised by the tensor-parallel ranks that DID load (``TP rank 1
could finish the model loading, but there are other ranks that didn't finish loading``: KTransformers#1666), TGI's
shards 1-3 still waiting after shard 0 is ready (text-generation-inference#1838) and Ray workers' SIGBUS with no rank
(vllm#789). The load check's ValueError is a teardown (``log_patterns.PY_TEARDOWN``): the rank that raises it waits on
another, so a lone one names no one, while the same record ending in the rank's own error still names it
(docs/rules.md, "Session 35: batch 182"). Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import naming_findings

NOW = dt.datetime(2026, 12, 2, 9, 0, tzinfo=dt.timezone.utc)
DASH = "-" * 74
BOX = [DASH, "Primary job  terminated normally, but 1 process returned",
       "a non-zero exit code. Per user-direction, the job has been aborted.", DASH, DASH]
IMA = ("[rank6]:[E1113 23:24:11.476061221 ProcessGroupNCCL.cpp:2068] [PG ID 2 PG GUID 3 Rank 6] Process group watchdog "
       "thread terminated with exception: CUDA error: an illegal memory access was encountered")
BOILER = ["CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be "
          "incorrect.", "For debugging consider passing CUDA_LAUNCH_BLOCKING=1",
          "Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions."]
PKG = "/usr/local/lib/python3.12/dist-packages/sglang/srt"
LOAD = ("ValueError: {who} could finish the model loading, but {other} ranks that didn't finish loading. It is likely "
        "due to unexpected failures (e.g., OOM) or a slow node.")
WAIT = "2024-05-01T01:19:{s}.{us}Z  INFO shard-manager: text_generation_launcher: Waiting for shard to be ready... rank={r}"


def _scheduler(tp: int, last: str, stamp: str = "2025-12-04 07:44:24") -> list[str]:
    """SGLang's scheduler record of TP ``tp`` through the model runner's load, ending in ``last``."""
    return [f"[{stamp} TP{tp}] Scheduler hit an exception: Traceback (most recent call last):",
            f'  File "{PKG}/managers/scheduler.py", line 2712, in run_scheduler_process',
            "    scheduler = Scheduler(",
            f'  File "{PKG}/model_executor/model_runner.py", line 849, in load_model',
            "    raise ValueError(", last, ""]


def _load(tp: int, who: str = "TP rank {tp}", other: str = "there are other") -> list[str]:
    return _scheduler(tp, LOAD.format(who=who.format(tp=tp), other=other))


def _shards(waiting: list[int]) -> list[str]:
    ready = "2024-05-01T01:19:11.585582Z  INFO shard-manager: text_generation_launcher: Shard ready in 189.037403751s rank=0"
    return [ready] + [WAIT.format(s=12 + 10 * i, us=f"{787764 + r:06d}", r=r) for i in range(3) for r in waiting]


def _sigbus(pid: int, cpu: int) -> list[str]:
    return [f"(RayWorker pid={pid}) *** SIGBUS received at time=1692322557 on cpu {cpu} ***",
            f"(RayWorker pid={pid}) PC: @     0x7fca7c80cb41  (unknown)  (unknown)",
            f"(RayWorker pid={pid}) Fatal Python error: Bus error", f"(RayWorker pid={pid}) "]


#: key: (the pasted lines, processes per node, the rank a warning/critical finding must name alone: None for none,
#: the cause one of them gives)
CASES = {
    # TensorRT-LLM-1700: mpirun's report, pid and host redacted as the author did, and with them and the closing dashes
    "mpirun-rank6-sigkill-redacted": (BOX + ["mpirun noticed that process rank 6 with PID 0 on node xxxxxxxx exited on "
                                             "signal 9 (Killed)."], 8, 6, "host-oom-kill"),
    "mpirun-rank6-sigkill-pid-host": (BOX + ["mpirun noticed that process rank 6 with PID 48213 on node a800-node-01 "
                                             "exited on signal 9 (Killed).", DASH], 8, 6, "host-oom-kill"),
    # sglang-13234: the watchdog's illegal memory access with a blank line after each line, and without
    "watchdog-ima-blank-lines": ([x for line in [IMA] + BOILER for x in (line, "")], 8, 6, "cuda-error"),
    "watchdog-ima-no-blank-lines": ([IMA] + BOILER, 8, 6, "cuda-error"),
    # ktransformers-1666: the ranks that loaded raise SGLang's load check, one of them alone (the paste's first rank
    # cut away), two or three alike, and in the older wording naming a bare rank
    "load-check-lone-tp1": (_load(1), None, None, None),
    "load-check-tp1-tp2": (_load(1) + _load(2), None, None, None),
    "load-check-three-tps": (_load(1) + _load(2) + _load(3), None, None, None),
    "load-check-older-wording": (_load(0, who="Rank {tp}", other="other"), None, None, None),
    # tgi-1838: shards 1-3 (or shard 1 of two) still waiting after shard 0 is ready
    "tgi-shards-1-3-waiting": (_shards([1, 2, 3]), 4, None, None),
    "tgi-shard-1-of-2-waiting": (_shards([1]), 2, None, None),
    # vllm-789: one Ray worker's SIGBUS, and two in the same second
    "rayworker-sigbus-one": (_sigbus(4711, 5), None, None, None),
    "rayworker-sigbus-two": (_sigbus(4711, 5) + _sigbus(4712, 3), None, None, None),
    # contrast: the same lone record ending in the rank's own error names it
    "load-record-own-cuda-error": (_scheduler(1, "RuntimeError: CUDA error: an illegal memory access was encountered"),
                                   None, 1, "cuda-error"),
}
BATCHED = Batched("b182", list(CASES))


def _make(key: str, folder: Path):
    return pasted(CASES[key][0], folder, CASES[key][1], NOW, world=CASES[key][1])


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_inference_engine_wordings_name_the_rank_at_fault_or_none(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][2], CASES[key][3])
