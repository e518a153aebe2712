"""Session 17's parser gaps: what a launcher's label or a second process's NCCL lines hid from the rules.

* srun ``--label`` before an indented line (a traceback frame ``2:   File "…"``, a tab ``2:\tFile``): the label is
  taken off and the frame keeps its own indentation, so it reads as the unlabelled frame of that rank.
"""

from __future__ import annotations

import re

import pytest

from k10s_forensics.parsers.log_normalize import normalize
from test_log_general16 import _GLOO_WAIT, _exceptions, _frames, _gloo_run

_FRAME = '  File "/opt/venv/lib/python3.11/site-packages/torch/distributed/distributed_c10d.py", line 3252, in barrier'


@pytest.mark.parametrize("line,rank", [
    ("2: " + _FRAME, 2),  # srun --label, then the frame's own two spaces
    ("2:\t" + _FRAME, 2),  # a tab after the label
    ("  12: " + _FRAME, 12),  # srun pads the label to the widest task number
    ("2: " + _FRAME.replace("  File", "    File"), 2),  # a chained traceback's deeper frame
], ids=["space", "tab", "padded", "deeper"])
def test_an_srun_label_before_an_indented_frame_is_taken_off_and_the_frame_keeps_its_indentation(line, rank):
    norm = normalize(line)
    assert (norm.rank, norm.text.lstrip()) == (rank, _FRAME.lstrip()) and norm.text[:1] == " "


@pytest.mark.parametrize("line", ["2:", "2:   ", "2:x File"], ids=["bare", "blank", "no-separator"])
def test_an_srun_label_with_nothing_behind_it_names_no_rank(line):
    assert normalize(line).rank is None


@pytest.mark.parametrize("tag", ["2: ", "2:\t", " 2: ", "[1,2]<stderr>:"], ids=["srun", "srun-tab", "srun-padded", "mpirun"])
def test_a_labelled_traceback_keeps_the_torch_distributed_call_it_was_in(tag):
    assert [g[2] for g in _exceptions(_frames(tag, ["all_reduce"]) + [tag + _GLOO_WAIT])] == ["all_reduce"]


def test_the_odd_call_out_is_named_alike_in_an_srun_labelled_paste(tmp_path):
    """The same run as test_log_general16's rank0-only-barrier with srun's labels instead of torch's rank tags
    (node 0 labelled ``N: ``, node 1 ``N:<tab>``): rank 0 alone called barrier."""
    from torch_runs_kit import findings_of_texts, named

    calls = {r: (["barrier" if r == 0 else "all_reduce"], _GLOO_WAIT) for r in range(4)}
    nodes = [re.sub(r"(?m)^\[rank(\d)\]:", lambda m, sep=sep: m.group(1) + ":" + sep, t) for t, sep in zip(_gloo_run(calls), " \t")]
    assert "0:   File" in nodes[0] and "3:\t  File" in nodes[1]
    assert named(findings_of_texts(tmp_path, nodes)) == [("collective-mismatch", [0])]
