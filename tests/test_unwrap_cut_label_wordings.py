"""Session 29 (issue 18): srun's task label cut by the terminal's width. A flattened srun paste holds several tasks'
``10: …`` fragments in one line; wrapped at 100 columns the cut fell inside a label (``… NCCL version 2.18.5 1`` |
``0: ncclSystemError …``), and the row starting ``0: `` read as task 0's own line, so task 0 got a false culprit
(awsome-distributed-ai-192 wrapped; parsers/log_unwrap.py, docs/parsers-logs.md "Session 29: srun labels cut by the
width"). The row is joined back when the row above fills the width exactly, ends in a number after a blank, and that
number glued to the tail's label is a label the paste holds whole elsewhere while the tail's own is none it holds.
Parser-level cases only: no analysis runs here (tests/test_paste_real_incidents.py analyses the real case wrapped).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from k10s_forensics.parsers.log_paste import repair_paste
from k10s_forensics.parsers.log_unwrap import unwrap

CORPUS = Path(__file__).parent / "data" / "real-incidents"


def _rows(text: str, width: int, pad: bool) -> list[str]:
    rows = [text[i:i + width] for i in range(0, len(text), width)]
    return [r.ljust(width) if pad else r for r in rows]


def _flat(task: int) -> str:
    """One long flattened line of a task's labelled fragments (as a web page or a chat copies srun's output)."""
    return (f"{task}: Traceback (most recent call last): {task}: File \"/opt/train.py\", line 12, in main "
            f"{task}: dist.broadcast(t, 0) {task}: torch.distributed.DistBackendError: NCCL error in: "
            f"ProcessGroupNCCL.cpp:1331, unhandled system error, NCCL version 2.18.5 {task}: ncclSystemError: System call "
            f"(e.g. socket, malloc) or external library call failed or device error. {task}: Last error: {task}: "
            f"socketStartConnect: Connect to 10.0.0.7<45069> failed : Software caused connection abort")


def _cut_inside_label(task: int) -> tuple[str, int]:
    """The flattened line and a width whose cut falls inside the label before ``ncclSystemError``."""
    text = _flat(task)
    at = text.index(f" {task}: ncclSystemError") + 2  # after the label's first digit
    return text, at


@pytest.mark.parametrize("task", [10, 12, 31, 105])
def test_a_label_cut_by_the_width_is_joined_back(task):
    text, width = _cut_inside_label(task)
    rows = _rows(text, width, True)
    assert rows[1].startswith(str(task)[1:] + ": ncclSystemError")
    out, note = unwrap(rows)
    assert note is not None
    assert [ln.rstrip() for ln in out if ln.strip()] == [text]


@pytest.mark.parametrize("pad", [True, False], ids=["padded", "unpadded"])
def test_the_real_paste_wrapped_at_100_is_one_line_again(pad):
    text = (CORPUS / "awsome-distributed-ai-192-srun-task10-loopback-socket-abort-ifname-control" / "log.txt").read_text()
    rows = _rows(text.rstrip("\n"), 100, pad)
    assert any(r.startswith("0: ncclSystemError") for r in rows)
    repaired = [ln.rstrip() for ln in repair_paste("\n".join(rows)).text.split("\n") if ln.strip()]
    assert repaired == [text.rstrip("\n")]


def test_a_real_task_line_after_a_full_row_keeps_its_label():
    """Task 0's own line after a row of exactly the width that ends in a number: the paste holds label 0 elsewhere, so
    the row is a record of its own, not a label's tail."""
    width = 60
    first = "10: step 120 loss 2.34 lr 0.0003 tokens/s 51234 grad norm 1"
    first = first + " " * (width - len(first) - 1) + "1"
    assert len(first) == width
    lines = [first, "0: step 120 loss 2.31 lr 0.0003 tokens/s 51240 grad norm 1.2",
             "0: RuntimeError: CUDA error: an illegal memory access was encountered",
             "10: RuntimeError: CUDA error: an illegal memory access was encountered"]
    assert unwrap(lines) == (lines, None)


def test_no_label_elsewhere_keeps_the_row_apart():
    """``… version 2.18.5 1`` | ``0: …`` where no ``10:`` label is held anywhere: nothing says the number was a label's
    first digit, so the row stays apart as before."""
    text = ("worker log: the NCCL communicator came up on all nodes and reported its version 2.18.5 1"
            "0: ncclSystemError: System call (e.g. socket, malloc) or external library call failed")
    width = text.index("0: ncclSystemError")
    rows = _rows(text, width, True)
    out, _ = unwrap(rows)
    assert any(ln.lstrip().startswith("0: ncclSystemError") for ln in out)
