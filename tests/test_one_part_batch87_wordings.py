"""Culprits settled by a fix on one part (issue 18, batch 87): mpirun's tag of every write, not of every line.

* **mpirun's (and horovodrun's) tag repeated inside a line is the same write's line** (parsers/log_normalize.py,
  parsers/log_prefilter.py): Open MPI's ``--tag-output`` tags each write, so a line a rank wrote in pieces carries its
  tag again where a later write began. Python writes an exception's name and its ``: message`` apart:
  ``[1,19]<stderr>:RuntimeError[1,19]<stderr>:: NCCL communicator was aborted on rank 19.`` is rank 19's
  ``RuntimeError: NCCL communicator was aborted …`` (a teardown). The line's own tag is taken out of its message;
  another rank's tag mid-line (two processes' writes interleaved) is left as it is.
* What it changes: rank 19's abort now shows that other ranks were torn down, so rank 60's traceback cut before its
  exception line is no failure of its own (queries/_incident_own.sql, ``victim_errors``: batch 16's reading) — the DeepSpeed
  job of the batch, restarted on the same nodes, names no one. A lone tagged traceback with no torn-down peer still
  names its rank (RL2-14's shape).
"""

from __future__ import annotations

import datetime as dt
import re

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import naming_findings
from k10s_forensics.parsers.log_failures import py_exception
from k10s_forensics.parsers.log_normalize import normalize
from k10s_forensics.parsers.log_prefilter import PREFILTER_EVENT

NOW = dt.datetime(2026, 12, 1, 7, 0, tzinfo=dt.timezone.utc)
ABORT = "NCCL communicator was aborted on rank 19."


# ---- parser: the line's own write tag inside it -------------------------------------------------------------------

@pytest.mark.parametrize("tag", ["[1,19]<stderr>:", "[1,19]<stdout>:", "[19]<stderr>:"])
def test_a_lines_own_write_tag_inside_it_is_taken_out(tag):
    line = f"{tag}RuntimeError{tag}: {ABORT}"
    assert re.search(PREFILTER_EVENT, line)  # the glued exception reaches the classifier
    norm = normalize(line)
    assert (norm.text, norm.rank) == (f"RuntimeError: {ABORT}", 19)
    assert py_exception(norm.text, tagged=True) == {"kind": "python_exception", "subkind": "teardown",
                                                     "error_type": "RuntimeError", "error_message": ABORT}


def test_a_raised_exception_written_in_pieces_is_read_raised():
    norm = normalize("[1,4]<stderr>:ValueError[1,4]<stderr>:: bad shape")
    assert py_exception(norm.text, tagged=True)["subkind"] == "raised"


def test_another_ranks_tag_inside_a_line_is_left():
    norm = normalize("[1,2]<stderr>:RuntimeError[1,3]<stderr>:: x")
    assert (norm.text, norm.rank) == ("RuntimeError[1,3]<stderr>:: x", 2)


# ---- analysis: who is named ----------------------------------------------------------------------------------------

def _frames(rank: int) -> list[str]:
    tag = f"[1,{rank}]<stderr>:"
    return [f"{tag}Traceback (most recent call last):", f'{tag}  File "train.py", line 12, in <module>',
            f"{tag}    trainer.inner_loop()"]


#: name -> (log lines, the rank named or None)
CASES = {
    # a peer's abort written in pieces above a traceback cut before its exception: the job was torn down, no one
    "glued-abort-then-cut-traceback": ([f"[1,19]<stderr>:RuntimeError[1,19]<stderr>:: {ABORT}", *_frames(60)], None),
    # the cut traceback alone (no torn-down peer): since session 27 a suspect at info, no culprit (the test below)
    "cut-traceback-alone": (_frames(60), None),
}
BATCHED = Batched("one-part-b87", sorted(CASES))


def _make(key: str, folder) -> object:
    return pasted(CASES[key][0], folder, None, NOW)


@pytest.mark.parametrize("key", [pytest.param(k, marks=BATCHED.mark(k)) for k in sorted(CASES)])
def test_a_cut_traceback_beside_a_peers_glued_abort_names_no_one(tmp_path_factory, key):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][1])


@BATCHED.mark("cut-traceback-alone")
def test_the_cut_traceback_alone_is_its_ranks_suspect_at_info(tmp_path_factory):
    """Without a torn-down peer the cut traceback still shows its rank, as a suspect (confidence low, docs/rules.md
    "Session 27: a cut traceback alone"); beside the peer's glued abort it is a teardown and shows no suspect."""
    alone = BATCHED.findings("cut-traceback-alone", tmp_path_factory, _make)
    assert any(f["severity"] == "info" and f["ranks"] == [60] and "confidence low" in f["summary"] for f in alone), alone
