"""torch.utils.checkpoint's CheckpointError read from its body (real incidents batch 29, StableAvatar-57;
parsers/log_failures.py ``CHECKPOINT_BODY``, docs/parsers-logs.md).

When the recomputation of a checkpointed block in the backward pass does not match the forward pass, the
exception's message spans many lines: a headline (``torch.utils.checkpoint.CheckpointError:
torch.utils.checkpoint: Recomputed values for the following tensors have different metadata ...``), then per
tensor ``tensor at position N:`` / ``saved metadata: {...}`` / ``recomputed metadata: {...}``; or, for a count
mismatch, ``Number of tensors saved during forward: N`` / ``Number of tensors saved during recomputation: M``.
A paste that starts below the headline (torchrun prefixes every line with ``[rankN]:``) still says which rank
raised: the ``recomputed`` line is read as that rank's Python exception. The ``saved`` and position lines
alone are not (they repeat what the ``recomputed`` line says), nor is prose that quotes the words.
"""

from __future__ import annotations

import re

import pytest

from k10s_forensics.parsers.log_classify import classify
from k10s_forensics.parsers.log_failures import py_exception
from k10s_forensics.parsers.log_prefilter import PREFILTER_EVENT

PREFILTER = re.compile(PREFILTER_EVENT)
META = "{'shape': torch.Size([0]), 'dtype': torch.bfloat16, 'device': device(type='cuda', index=0)}"


@pytest.mark.parametrize("line, rank", [
    (f"[rank0]: recomputed metadata: {META}", 0),  # torchrun 2.x's stderr prefix (the batch 29 case)
    (f"[rank3]:[rank3]: recomputed metadata: {META}", 3),  # the prefix doubled, as nested launchers print it
    (f"2026-09-08T17:08:01.830000Z [rank5]: recomputed metadata: {META}", 5),  # behind the API's timestamp
    ("[rank1]: Number of tensors saved during recomputation: 0", 1),  # the count-mismatch variant
])
def test_the_recomputed_line_is_the_ranks_checkpoint_error(line, rank):
    assert PREFILTER.search(line)
    events = [e for e in classify(line) if e["kind"] == "python_exception"]
    assert [(e["rank"], e["subkind"], e["error_type"]) for e in events] == [
        (rank, "raised", "torch.utils.checkpoint.CheckpointError")]


@pytest.mark.parametrize("message", [
    f"recomputed metadata: {META}",
    "Number of tensors saved during recomputation: 12",
])
def test_the_body_without_prefix_is_an_exception_too(message):
    ev = py_exception(message)
    assert ev is not None and ev["error_type"] == "torch.utils.checkpoint.CheckpointError"


@pytest.mark.parametrize("message", [
    f"saved metadata: {META}",  # the forward's side: the recomputed line says it already
    "tensor at position 157:",
    "Number of tensors saved during forward: 200",
    "the recomputed metadata: {'shape' differs, see above",  # prose quoting the words, not the line
])
def test_other_lines_of_the_body_are_not_read_as_an_exception(message):
    assert py_exception(message) is None


def test_the_headline_stays_the_exception_it_was():
    ev = py_exception("torch.utils.checkpoint.CheckpointError: torch.utils.checkpoint: Recomputed values for the "
                      "following tensors have different metadata than during the forward pass.")
    assert ev is not None and ev["error_type"] == "torch.utils.checkpoint.CheckpointError"
    assert ev["error_message"].startswith("torch.utils.checkpoint: Recomputed values")
