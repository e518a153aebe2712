"""The tail torch (2.2+) adds to a c10d store error when the store's host stopped answering (real incidents
batch 34, flow_grpo-171): ``… store->get('0') got error: Connection reset by peer`` and the C++ frames of the
exception, then ``. This may indicate a possible application crash on rank 0 or a network set up issue.`` on a
line of its own. A paste that keeps only that tail still says the printing rank lost the store (a peer's crash
or the network): a victim's line (a teardown), which also makes a cut traceback of another rank beside it read
as the same teardown (queries/_incident_own.sql, ``victim_errors``), not as that rank's own failure.
"""

from __future__ import annotations

import re

import pytest

from k10s_forensics.parsers.log_classify import classify
from k10s_forensics.parsers.log_prefilter import PREFILTER_EVENT

TAIL = "This may indicate a possible application crash on rank {r} or a network set up issue."


@pytest.mark.parametrize(("line", "rank", "peer"), [
    ("[rank4]: . " + TAIL.format(r=0), 4, 0),  # torch's [rankN]: tag, the message's ". " leading the line
    ("[rank12]:. " + TAIL.format(r=0), 12, 0),
    (". " + TAIL.format(r=0), None, 0),  # untagged
    (TAIL.format(r=3), None, 3),  # the leading ". " lost
    ("[rank1]: . " + TAIL.format(r=0).replace("set up", "setup"), 1, 0),  # "setup" in one word
    ("2025-06-01T10:00:00.000000Z [rank2]: . " + TAIL.format(r=0).rstrip("."), 2, 0),  # a clock before it, no final stop
])
def test_the_tail_alone_is_a_victim_s_lost_store(line, rank, peer):
    assert re.search(PREFILTER_EVENT, line)
    (ev,) = classify(line)
    assert (ev["kind"], ev["subkind"], ev["error_type"]) == ("python_exception", "teardown", "c10d store connection lost")
    assert ev["rank"] == rank
    assert f"rank {peer}" in ev["error_message"]


def test_the_whole_error_keeps_its_own_exception():
    """With the exception in the same line the exception's own words are the event (a teardown already)."""
    line = ("RuntimeError: [14] is setting up NCCL communicator and retrieving ncclUniqueId from [0] via c10d key-value store by "
            "key '0', but store->get('0') got error: Connection reset by peer. " + TAIL.format(r=0))
    (ev,) = classify(line)
    assert (ev["error_type"], ev["subkind"]) == ("RuntimeError", "teardown")


@pytest.mark.parametrize("line", [
    "[rank0]: Rank 0 reported a possible application crash on rank 3 in its own words",
    "This may indicate a possible application crash",  # no rank: not torch's sentence
])
def test_other_sentences_are_not_the_tail(line):
    assert all(ev.get("error_type") != "c10d store connection lost" for ev in classify(line))
