"""A terminal cut right before a tag PyTorch or NCCL prints only inside a line (parsers/log_paste.py,
real incidents batch 19): c10d's ``[c10d]`` after the glog header and the items of NCCL's interface
lists (``Using [0]eth0:…``) look like a bracketed record start, yet the line goes on; a real record
start in brackets after a full-width line (a rank tag, mpirun's tag, a failure-table entry) still
starts its own line.
"""

from __future__ import annotations

import pytest

from k10s_forensics.parsers.log_paste import repair_paste

W = 80


def _pad(line: str) -> str:
    return line + " " * (W - len(line))


def _paste(*rows: str) -> str:
    """Rows as a terminal of ``W`` columns shows them, padded; the first ``CUT`` row fills the width."""
    return "\n".join(_pad(r) for r in ("INFO:root:epoch 3 started", *rows, "Using a slow image processor")) + "\n"


HEAD_C10D = "[rank2]:[W1014 03:47:39.789025589 socket.cpp:428] "
HEAD_NCCL = "8dbe9e7102e4446db27ef6fb1a2533e9000001:176:176 [0] NCCL INFO NET/Socket : Using "


@pytest.mark.parametrize(("head", "tail"), [
    (HEAD_C10D.ljust(W - 1) + "x", "[c10d] While waitForInput, poolFD failed with (errno: 0 - Success)."),
    (HEAD_NCCL, "[0]eth0:10.0.0.5<0>"),
    (HEAD_NCCL.replace("NET/Socket", "NET/IB") + "[0]mlx5_0:1/IB", "[1]mlx5_1:1/IB ; OOB eth0:10.0.0.5<0>"),
])
def test_a_line_cut_before_a_midline_tag_goes_on(head, tail):
    head = head[:W]
    text = repair_paste(_paste(head, tail)).text
    assert head.rstrip() + " " * (W - len(head.rstrip())) + tail in text or head + tail in text


@pytest.mark.parametrize("tail", [
    "[rank1]: Traceback (most recent call last):",
    "[1,4]<stdout>:[2026-03-19 19:40:08] worker-1:146:146 [0] NCCL WARN Cuda failure",
    "[0]:",
    "[2024-05-28 14:04:27,954] torch.distributed.elastic.multiprocessing.api: [WARN]",
    "[c10d]x not a tag",
])
def test_a_bracketed_record_start_after_a_full_line_stays_its_own(tail):
    head = ("W1014 03:47:39.789025589 1234 socket.cpp:428] connection to 10.0.0.5:29500 closed by the peer" + "x" * W)[:W]
    lines = repair_paste(_paste(head, tail, head, tail)).text.split("\n")
    assert len(tail) < W and tail in [ln.rstrip() for ln in lines]
