"""A compiler's refusal of the program is every rank's (queries/_incident_common_mode.sql; docs/rules.md, "Session 57:
a compiler's refusal").

Every rank compiles the same graph with the same toolchain for the same GPU model: Inductor's ``InductorError:
LoweringException``, Dynamo's ``BackendCompilerFailed``, Triton's ``CompilationError`` and ``Internal Triton PTX
codegen error`` (``ptxas fatal : Value 'sm_100' is not defined for option 'gpu-name'``: a toolchain older than the GPU),
the runtime's ``no kernel image is available for execution on the device`` (a build without the GPU's architecture).
The corpus' four such pastes are all controls, each showing one rank's copy (batch 345's DeepSpeed#7522 and
mlcommons/training#826, session 38's Megatron-LM-FL#143). Another exception stays the rank's, and so does the compile
error where a peer saw the rank's connection close (the peer got past the compile: the rank's own path).
"""

from __future__ import annotations

import datetime as dt

import pytest

from bundle_batch import pasted
from incident_kit import corpus_lines, naming_findings
from k10s_forensics.analyze.runner import analyze

NOW = dt.datetime(2026, 12, 5, 23, 45, tzinfo=dt.timezone.utc)
HEAD = ["[rank{r}]: Traceback (most recent call last):", '[rank{r}]:   File "train.py", line 88, in <module>',
        "[rank{r}]:     loss = compiled_model(batch)"]
CLOSED = "[rank{r}]: RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:534] Connection closed by peer [127.0.0.1]:29500"


def _named(lines: list[str], folder) -> list[tuple]:
    return [(f["rule"], f["cause"], f["ranks"]) for f in naming_findings(analyze(pasted(lines, folder, 4, NOW, world=8))["findings"])]


def _tail(rank: int, error: str) -> list[str]:
    return [line.format(r=rank) for line in HEAD] + [f"[rank{rank}]: {error}"]


ERRORS = {
    "inductor": "torch._inductor.exc.InductorError: LoweringException: AssertionError: should have been handled in replace_random.py",
    "backend": "torch._dynamo.exc.BackendCompilerFailed: backend='inductor' raised:",
    "triton": "triton.compiler.errors.CompilationError: at 33:21:",
    "ptx": "RuntimeError: Internal Triton PTX codegen error:",
    "no-kernel-image": "RuntimeError: CUDA error: no kernel image is available for execution on the device",
}


@pytest.mark.parametrize("rank", [0, 6])
@pytest.mark.parametrize("key", list(ERRORS))
def test_a_compilers_refusal_names_no_rank(tmp_path, key, rank):
    assert _named(_tail(rank, ERRORS[key]), tmp_path) == []


def test_another_exception_stays_the_ranks(tmp_path):
    assert _named(_tail(6, "RuntimeError: shape '[4, -1]' is invalid for input of size 30"), tmp_path) == [
        ("rank-failure", "python-exception", [6])]


def test_a_peer_that_saw_the_rank_leave_makes_it_the_ranks(tmp_path):
    lines = _tail(6, ERRORS["inductor"]) + [CLOSED.format(r=2)]
    assert _named(lines, tmp_path) == [("rank-failure", "python-exception", [6])]


@pytest.mark.parametrize("prefix", ["mlcommons-training-826-", "deepspeed-7522-", "Megatron-LM-FL-143-"])
def test_the_corpus_pastes_name_no_one(tmp_path, prefix):
    assert _named(corpus_lines(prefix), tmp_path) == []
