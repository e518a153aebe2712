"""Newest threads, late November - early December 2026 (real incidents batch 350), pinned as read. Four controls,
collected blind (no thread opened or settled after 2026-11-20 was found in the stored corpus: these are the newest multi-rank
threads, August 2026 onwards). All four were read right both ways as collected:

- a gloo recv timeout every rank of a two-node TP=16 vLLM start died with, untagged (``RuntimeError: Application
  timeout caused pair closure`` / ``Timed out waiting 1800000ms for recv operation to complete``; vllm-project/
  vllm#52907: a vLLM regression letting cross-node groups into the MNNVL custom all-reduce init, fixed by vllm#53253)
  is no finding, as pasted or laid out as two DGX H100 nodes;
- a lone ``RPC call to sample_tokens timed out`` (vllm-project/vllm#52504: NCCL 2.28.9's CUDA-graph capture bug on a
  cross-node TP=2 pair, fixed by NCCL 2.30.4) is no finding, as pasted, as two single-GPU nodes, or behind a
  ``(Worker_TP1 ...)`` prefix;
- a CuTeDSL ``jit_monitor`` warning, then ``EngineCore ERROR TimeoutError: RPC call to sample_tokens timed out.`` and
  ``EngineDeadError`` (MiaAI-Lab/DeepSeek-v4-Flash-DSpark-2x-DGX-Spark#65: a mid-inference JIT compile outlasting the
  300 s RPC deadline) is no finding, with or without the JIT line;
- the engine's ``TimeoutError`` -> ``(EngineCore_DPx) ERROR ... EngineCore encountered a fatal error.`` ->
  ``EngineDeadError`` traceback (flashinfer-ai/flashinfer#3279: every engine core hung by the flashinfer 0.6.7 ->
  0.6.8.post1 regression) is a Python failure (warning) of no rank, as pasted, as 8 GPUs, with a concrete
  ``EngineCore_DP3`` in place of ``DPx``, and as its two last lines alone.

Scored 4/4 both ways as collected (no NOT_YET); no rule changed (measure only). Contrasts: a rank's own CUDA error
after the gloo timeout names that rank (cuda-error); the gloo timeout tagged ``[rank3]:`` is an info hang of no
rank, not rank 3's failure; a TP1 worker's CUDA error after the JIT engine death names rank 1; the engine traceback
tagged ``[rank2]:`` names rank 2 (python-exception), while rank 2's and rank 5's copies together name no one.
Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted, pasted_findings
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 6, 2, 0, tzinfo=dt.timezone.utc)

GLOO_TIMEOUT = corpus_lines("vllm-52907-")
RPC_TIMEOUT = corpus_lines("vllm-52504-")
JIT_RPC_TIMEOUT = corpus_lines("deepseek-v4-flash-dspark-2x-dgx-spark-65-")
ENGINE_DEAD = corpus_lines("flashinfer-3279-")

#: rank 5's own CUDA error after the gloo timeout (a rank that failed, had one said so)
GLOO_TIMEOUT_RANK5_CUDA = GLOO_TIMEOUT + [
    "[rank5]: torch.AcceleratorError: CUDA error: an illegal memory access was encountered",
]
#: the gloo timeout as rank 3 would tag it
GLOO_TIMEOUT_RANK3 = [f"[rank3]: {line}" for line in GLOO_TIMEOUT]
#: the RPC timeout behind a vLLM worker's prefix
RPC_TIMEOUT_WORKER_TP1 = [
    f"(Worker_TP1 pid=2) ERROR 08-16 10:00:00 [multiproc_executor.py:1] {line}" for line in RPC_TIMEOUT
]
#: the engine death without the JIT warning before it
JIT_RPC_TIMEOUT_NO_JIT = JIT_RPC_TIMEOUT[1:]
#: a TP1 worker's CUDA error after the engine death
JIT_RPC_TIMEOUT_TP1_CUDA = JIT_RPC_TIMEOUT + [
    "(Worker_TP1 pid=2) ERROR 08-15 00:03:31 [worker.py:1] RuntimeError: CUDA error: an illegal memory access was "
    "encountered",
]
#: a concrete engine in place of the author's ``DPx``
ENGINE_DEAD_DP3 = [line.replace("EngineCore_DPx", "EngineCore_DP3") for line in ENGINE_DEAD]
#: the traceback as rank 2's paste
ENGINE_DEAD_RANK2 = [f"[rank2]: {line}" for line in ENGINE_DEAD]
#: rank 2's and rank 5's copies: every rank's
ENGINE_DEAD_RANK2_AND_5 = ENGINE_DEAD_RANK2 + [f"[rank5]: {line}" for line in ENGINE_DEAD]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # as collected, pasted and laid out as the threads say
    "gloo-timeout-as-pasted": (GLOO_TIMEOUT, None, None, None, None),
    "gloo-timeout-two-dgx-nodes": (GLOO_TIMEOUT, 8, 16, None, None),
    "rpc-timeout-as-pasted": (RPC_TIMEOUT, None, None, None, None),
    "rpc-timeout-two-sparks": (RPC_TIMEOUT, 1, 2, None, None),
    "jit-rpc-timeout-as-pasted": (JIT_RPC_TIMEOUT, None, None, None, None),
    "jit-rpc-timeout-two-sparks": (JIT_RPC_TIMEOUT, 1, 2, None, None),
    "engine-dead-as-pasted": (ENGINE_DEAD, None, None, None, None),
    "engine-dead-eight-gpus": (ENGINE_DEAD, 8, 8, None, None),
    # variants that must not change the reading
    "rpc-timeout-worker-tp1-prefix-names-none": (RPC_TIMEOUT_WORKER_TP1, 1, 2, None, None),
    "jit-rpc-timeout-without-jit-line-names-none": (JIT_RPC_TIMEOUT_NO_JIT, 1, 2, None, None),
    "engine-dead-dp3-names-none": (ENGINE_DEAD_DP3, 8, 8, None, None),
    "engine-dead-rank2-and-rank5-copies-names-none": (ENGINE_DEAD_RANK2_AND_5, 8, 8, None, None),
    # contrasts that must change it
    "gloo-timeout-rank5-cuda-error-names-rank5": (GLOO_TIMEOUT_RANK5_CUDA, 8, 16, 5, "cuda-error"),
    "jit-rpc-timeout-tp1-cuda-error-names-rank1": (JIT_RPC_TIMEOUT_TP1_CUDA, 1, 2, 1, "cuda-error"),
    "engine-dead-rank2-copy-names-rank2": (ENGINE_DEAD_RANK2, 8, 8, 2, "python-exception"),
}
BATCHED = Batched("b350", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_newest_threads_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])


def _read(lines: list[str], folder: Path, nproc: int | None, world: int | None) -> list[tuple]:
    return [(f["rule"], f["severity"], f["cause"], f["ranks"]) for f in pasted_findings(lines, folder, nproc, world, NOW)]


def test_gloo_rpc_and_jit_timeouts_are_no_finding(tmp_path):
    """The three hang-then-timeout pastes say nothing at all, as pasted and as the threads lay them out."""
    for i, (lines, nproc, world) in enumerate((
        (GLOO_TIMEOUT, None, None),
        (GLOO_TIMEOUT, 8, 16),
        (RPC_TIMEOUT, 1, 2),
        (JIT_RPC_TIMEOUT, 1, 2),
    )):
        assert _read(lines, tmp_path / str(i), nproc, world) == []


def test_gloo_timeout_tagged_rank3_is_an_info_hang_of_no_rank(tmp_path):
    """The same two lines tagged ``[rank3]:`` are the job's hang said at info with no culprit, not rank 3's failure."""
    assert _read(GLOO_TIMEOUT_RANK3, tmp_path, 8, 16) == [("nccl-hang", "info", "no-single-culprit", [])]


def test_engine_death_is_a_python_failure_of_no_rank(tmp_path):
    """The engine's ``TimeoutError`` -> ``EngineDeadError`` traceback is a warning Python failure naming no rank: whole,
    as its last two lines alone, and with ``EngineCore_DP3`` for ``DPx``."""
    for i, lines in enumerate((ENGINE_DEAD, ENGINE_DEAD[-2:], ENGINE_DEAD_DP3)):
        assert _read(lines, tmp_path / str(i), 8, 8) == [("rank-failure", "warning", "python-exception", [])]
