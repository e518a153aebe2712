"""Batch 101's shape (tests/data/real-incidents, ``"batch": 101``, family ``k8s-batch-layers``), with its wording
variants, as pasted logs through ``k10s import-logs`` (docs/rules.md, "Session 28: batch 101").

A pydantic model of the run's settings refusing them — vLLM's ``pydantic_core._pydantic_core.ValidationError: 1
validation error for ParallelConfig`` with ``Value error, Tensor parallel size (2) cannot be larger than the number of
available GPUs (1)`` in a Dynamo leader pod's log (ai-dynamo/dynamo#4934), ``… for ModelConfig``, pydantic v1's
``pydantic.error_wrappers.ValidationError: 2 validation errors for TrainingArgs``, ``… for TorchLlmArgs`` — is the
launch's configuration, which every process validates alike: whichever pod or rank shows it (a lone untagged pod, a
lone ``[rankN]:``, every rank) names no one, like a library's check that rejects a settings combination. A data model's
refusal (``… for Sample``: one rank's input) and another error on one rank alone still name that rank.

The analyses go through tests/bundle_batch.py (every input in one analysis).
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import corpus_log, naming_findings

NOW = dt.datetime(2026, 12, 1, 9, 0, tzinfo=dt.timezone.utc)

LEADER = corpus_log("dynamo-4934-vllm-0.12-leader-pod-tp2-one-gpu-validation-control")
TRACEBACK = """[rank{r}]: Traceback (most recent call last):
[rank{r}]:   File "/workspace/serve.py", line 41, in <module>
[rank{r}]:     engine = build_engine(args)
[rank{r}]:   File "/workspace/serve.py", line 17, in build_engine
[rank{r}]:     config = {model}(**vars(args))
[rank{r}]: {error}
"""
V2 = "pydantic_core._pydantic_core.ValidationError: 1 validation error for {model}"
V1 = "pydantic.error_wrappers.ValidationError: 2 validation errors for {model}"


def _lone(rank: int, error: str, model: str) -> str:
    return TRACEBACK.format(r=rank, model=model, error=error.format(model=model))


def _every_rank(model: str) -> str:
    return "".join(_lone(r, V2, model) for r in range(4))


#: key: (the log, processes per node, the rank a warning/critical finding must name alone: None for none)
CASES = {
    "dynamo-leader-parallelconfig": (LEADER, 1, None),
    "lone-rank1-modelconfig": (_lone(1, V2, "ModelConfig"), 4, None),
    "lone-rank3-v1-trainingargs": (_lone(3, V1, "TrainingArgs"), 4, None),
    "lone-rank2-torchllmargs": (_lone(2, V2, "TorchLlmArgs"), 4, None),
    "lone-rank1-settings": (_lone(1, V1, "LaunchSettings"), 4, None),
    "every-rank-vllmconfig": (_every_rank("VllmConfig"), 4, None),
    # contrasts: a data model's refusal is one rank's input; another error on one rank alone
    "data-model-rank2": (_lone(2, V2, "Sample"), 4, 2),
    "other-error-rank1": (_lone(1, "ValueError: tensor_parallel_size must divide the number of attention heads",
                                "ParallelConfig"), 4, 1),
}
BATCHED = Batched("b101", list(CASES))


def _make(key: str, folder: Path):
    text, nproc, _ = CASES[key]
    return pasted(text, folder, nproc, NOW)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_a_settings_models_validation_error_is_every_processs(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][2])
