"""Batch 112's shapes (tests/data/real-incidents, ``"batch": 112``, family ``checkpoint-save-resume``), with their
wording variants, as pasted logs through ``k10s import-logs`` (docs/rules.md and docs/parsers-logs.md, "Session 29:
batch 112").

A runner that names each process's output and its stream before torch's own tag (milabench's
``<bench>.<node>[.<tag>] [stderr] [rank14]: …``) is a prefix of two words: the rank is torch's tag behind it, so the
rank's traceback is its own (a checkpoint missing from one rank's node cache names that rank). DeepSpeed's refusal
to resume a ZeRO checkpoint on another data-parallel world size (``The checkpoint being loaded used a DP world size
of 8 but the current world size is 16``) is every rank's: each loads the same checkpoint and compares the same two
sizes, so one rank's copy of it names no one; another exception of the same rank still names it.

The analyses go through tests/bundle_batch.py (every input in one analysis).
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import corpus_log, naming_findings
from k10s_forensics.parsers.log_normalize import normalize

NOW = dt.datetime(2026, 12, 1, 13, 0, tzinfo=dt.timezone.utc)

MILABENCH = corpus_log("milabench-281-rank14-cn-n001-hf-cache-vae-safetensors-missing")
ZERO = corpus_log("Megatron-DeepSpeed-439-lone-rank5-zero-dp-world-size-8-to-16-control")


# ---- parser: a runner's name and stream before torch's rank tag -----------------------------------------------------

@pytest.mark.parametrize("line, rank, text", [
    ("diffusion-nodes.cn-n001.server.mila.quebec.nolog [stderr] [rank14]: FileNotFoundError: No such file",
     14, "FileNotFoundError: No such file"),
    ("dinov2-giant-nodes.cn-d004 [stderr] [rank12]:[E909 09:55:29.308889145 ProcessGroupNCCL.cpp:607] [Rank 12] x",
     12, "[E909 09:55:29.308889145 ProcessGroupNCCL.cpp:607] [Rank 12] x"),
    ("llm-lora.node3 [stdout] [rank0]: Traceback (most recent call last):", 0, "Traceback (most recent call last):"),
    # the one-word prefixes read before
    ("trainer-1> [rank3]: RuntimeError: boom", 3, "RuntimeError: boom"),
    ("[trainer2|0]:[rank2]: ValueError: bad", 2, "ValueError: bad"),
])
def test_a_runners_name_and_stream_before_the_rank_tag_are_a_prefix(line, rank, text):
    n = normalize(line)
    assert (n.rank, n.text) == (rank, text)


@pytest.mark.parametrize("line", [
    # a stream word that is not a bracketed stream tag, three words, or text after the tag: not a prefix
    "diffusion-nodes.cn-n001 stderr [rank14]: FileNotFoundError: x",
    "some runner said [stderr] [rank14]: FileNotFoundError: x",
    "diffusion-nodes.cn-n001 [stderr] FileNotFoundError: x [rank14]: y",
])
def test_other_words_before_a_rank_tag_are_not_read_as_a_prefix(line):
    assert normalize(line).rank is None


# ---- analysis: who is named ----------------------------------------------------------------------------------------

#: key: (the log, the rank a warning/critical finding must name alone: None for none)
CASES = {
    "milabench-281": (MILABENCH, 14),
    "milabench-stdout-rank3": (MILABENCH.replace("[stderr] [rank14]", "[stdout] [rank3]"), 3),
    "zero-dp-world-8-to-16": (ZERO, None),
    "zero-dp-world-16-to-8-rank0": (ZERO.replace("8 but the current world size is 16", "16 but the current world size is 8")
                                    .replace("[rank5]", "[rank0]"), None),
    # contrast: another exception on the same rank is that rank's own
    "zero-other-exception-rank5": ("[rank5]: deepspeed.runtime.zero.utils.ZeRORuntimeException: Failed to load the "
                                   "optimizer state of partition 5: file is truncated\n", 5),
}
BATCHED = Batched("b112", list(CASES))


def _make(key: str, folder: Path):
    return pasted(CASES[key][0], folder, None, NOW, world=16)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_checkpoint_save_and_resume_shapes(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][1])
