"""CUDA out-of-memory in multi-GPU training, one rank or all (real incidents batch 329), pinned as read.
Three controls, collected blind, all read right as collected (no rank named, batch 329): NVIDIA-NeMo/Automodel#3907
(the shipped GPT-OSS benchmark recipes materialize the full [batch, sequence, vocab] logits, every rank; the author's
OOM re-wrapped over three lines, ``GPU 0 has a total capacity`` on a line of its own) reads as an ``oom-cascade`` of
no rank at critical; NVIDIA-NeMo/RL#2871 (the Megatron training loss ignores ``logprob_chunk_size``, every worker; an
arrow call chain and a condensed ``torch.OutOfMemoryError: Tried to allocate 12.60 GiB. GPU had 12.44 GiB free of
79.19``) reads as a ``python-exception`` of no rank, not as a CUDA OOM (no ``CUDA out of memory`` phrase); and
huggingface/trl#3172 (every process's ``.to("cuda")`` puts the model on GPU 0; the OOM lists seven other processes on
it, ``torch.OutOfMemoryError:`` split from its message) reads as an ``oom-cascade`` of no rank at critical plus a
``python-exception`` of no rank for the bare class line. Scored 3/3 both ways as collected; no rule changed (measure
only). Contrasts: ``[rank3]:`` on every Automodel line, or the agent's ``failed (exitcode: 1) local_rank: 3``, names
rank 3 with ``cuda-oom``; ``[rank5]:`` on the condensed RL line names rank 5 but as a ``python-exception`` (with
``CUDA out of memory.`` spelled out: ``cuda-oom``); ``[rank2]:`` on the trl lines names rank 2 (``cuda-oom`` and the
split class line's ``python-exception``); the agent's ``local_rank: 0`` after the trl paste names rank 0 as a
``python-exception`` while the OOM stays of no rank; the trl class line joined back to its message leaves the OOM alone.
Since session 56 the class itself makes the cause (batch 329's suggestion, log_py_exceptions.TORCH_OOM_CLASSES): the
condensed RL line and the bare class line are CUDA OOMs (``[rank5]:`` names rank 5 ``cuda-oom``, the agent's
``local_rank: 0`` rank 0 ``cuda-oom``, the split trl paste one OOM of no rank). Pasted logs through ``k10s import-logs``,
batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted, pasted_findings
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 5, 21, 0, tzinfo=dt.timezone.utc)

FULL_LOGITS = corpus_lines("Automodel-3907-")
UNCHUNKED_LOGPROB = corpus_lines("NeMo-RL-2871-")
EVERY_PROCESS_GPU0 = corpus_lines("trl-3172-")

AGENT = (
    "E1205 10:00:00.000000 123 torch/distributed/elastic/multiprocessing/api.py:874] failed (exitcode: 1) "
    "local_rank: {rank} (pid: {pid}) of binary: /usr/bin/python"
)

#: every line of the Automodel paste under rank 3's tag
FULL_LOGITS_RANK3 = [f"[rank3]: {line}" for line in FULL_LOGITS]
#: the Automodel paste followed by the agent's report of local rank 3's exit
FULL_LOGITS_AGENT3 = FULL_LOGITS + [AGENT.format(rank=3, pid=4242)]
#: the condensed RL OOM line under rank 5's tag
UNCHUNKED_RANK5 = UNCHUNKED_LOGPROB[:-1] + ["[rank5]: " + UNCHUNKED_LOGPROB[-1]]
#: the same, with the message spelled as PyTorch prints it (``CUDA out of memory.``)
UNCHUNKED_RANK5_CUDA = UNCHUNKED_LOGPROB[:-1] + [
    "[rank5]: "
    + UNCHUNKED_LOGPROB[-1].replace(
        "OutOfMemoryError: ", "OutOfMemoryError: CUDA out of memory. "
    )
]
#: every line of the trl paste under rank 2's tag
EVERY_PROCESS_RANK2 = [f"[rank2]: {line}" for line in EVERY_PROCESS_GPU0]
#: the trl paste followed by the agent's report of local rank 0's exit
EVERY_PROCESS_AGENT0 = EVERY_PROCESS_GPU0 + [AGENT.format(rank=0, pid=3426)]
#: the trl paste with ``torch.OutOfMemoryError:`` joined back to its message
EVERY_PROCESS_JOINED = EVERY_PROCESS_GPU0[:-2] + [
    EVERY_PROCESS_GPU0[-2] + " " + EVERY_PROCESS_GPU0[-1]
]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # as collected (the threads state no layout): three controls, no rank named
    "full-logits-as-pasted": (FULL_LOGITS, None, None, None, None),
    "unchunked-logprob-as-pasted": (UNCHUNKED_LOGPROB, None, None, None, None),
    "every-process-gpu0-as-pasted": (EVERY_PROCESS_GPU0, None, None, None, None),
    # the trl OOM lists eight processes on GPU 0: laid out as eight
    "every-process-gpu0-eight-processes": (EVERY_PROCESS_GPU0, 8, 8, None, None),
    # contrasts
    "full-logits-rank3-tag-names-rank3": (FULL_LOGITS_RANK3, 8, 8, 3, "cuda-oom"),
    "full-logits-agent-local-rank3-names-rank3": (
        FULL_LOGITS_AGENT3,
        8,
        8,
        3,
        "cuda-oom",
    ),
    # the condensed message without ``CUDA out of memory``: the rank is named, the cause read as a Python exception
    "unchunked-rank5-tag-names-rank5-cuda-oom": (
        UNCHUNKED_RANK5,
        8,
        8,
        5,
        "cuda-oom",
    ),
    "unchunked-rank5-cuda-phrase-names-rank5-cuda-oom": (
        UNCHUNKED_RANK5_CUDA,
        8,
        8,
        5,
        "cuda-oom",
    ),
    "every-process-rank2-tag-names-rank2": (EVERY_PROCESS_RANK2, 8, 8, 2, "cuda-oom"),
    "every-process-agent-local-rank0-names-rank0": (
        EVERY_PROCESS_AGENT0,
        8,
        8,
        0,
        "cuda-oom",
    ),
    "every-process-joined-names-none": (EVERY_PROCESS_JOINED, None, None, None, None),
}
BATCHED = Batched("b329", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_cuda_oom_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])


def _gist(lines: list[str], folder: Path, nproc: int | None = None) -> list[tuple]:
    return [
        (f["rule"], f["severity"], f["cause"], f["ranks"])
        for f in pasted_findings(lines, folder, nproc, nproc, NOW)
        if f["severity"] in ("critical", "warning")
    ]


def test_full_logits_oom_is_a_critical_cascade_of_no_rank(tmp_path):
    """The Automodel OOM, its ``GPU 0 has a total capacity`` on a line of its own, is still a CUDA OOM: a critical
    ``oom-cascade`` that names no rank (``GPU 0`` is not a rank)."""
    assert _gist(FULL_LOGITS, tmp_path) == [("oom-cascade", "critical", "cuda-oom", [])]


def test_condensed_out_of_memory_error_is_a_cuda_oom(tmp_path):
    """``torch.OutOfMemoryError: Tried to allocate ...`` without ``CUDA out of memory``: since session 56 the class makes
    the cause (log_py_exceptions.TORCH_OOM_CLASSES), a CUDA OOM of no rank (it read as a Python exception before)."""
    assert _gist(UNCHUNKED_LOGPROB, tmp_path) == [
        ("oom-cascade", "critical", "cuda-oom", [])
    ]


def test_split_class_line_is_the_same_oom(tmp_path):
    """``torch.OutOfMemoryError:`` on a line of its own, its message on the next: one OOM (critical, no rank); the bare
    class line was a Python exception of no rank besides before session 56; joined back, the same."""
    assert _gist(EVERY_PROCESS_GPU0, tmp_path / "a") == [
        ("oom-cascade", "critical", "cuda-oom", [])
    ]
    assert _gist(EVERY_PROCESS_JOINED, tmp_path / "b") == [
        ("oom-cascade", "critical", "cuda-oom", [])
    ]
