"""Real incidents batch 113 (one bad GPU or node, second pass): the shapes it met, at the paste parser's level.

A kernel log pasted from journalctl -k (``kernel: NVRM: Xid (PCI:0000:dc:00): 45, pid=…``) has lines of one
format, and the driver's Xid lines are often of one length too: seven of them at 105 columns were taken for a
terminal's wrap at that width and joined into one line, so six of the seven Xids (three of the four GPUs) were
lost (open-gpu-kernel-modules-1150). A kernel or syslog line starts a record of its own, and so does any line
that begins with the same words as the line above: a text cut at the width goes on mid-sentence, it does not
begin again the way its line began (parsers/log_unwrap.py, docs/parsers-logs.md "Session 29: batch 113").
Parser-level cases only: no analysis runs here (the corpus tests analyse the batch's four cases).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from k10s_forensics.parsers.log_paste import repair_paste
from k10s_forensics.parsers.log_unwrap import unwrap

CORPUS = Path(__file__).parent / "data" / "real-incidents"


def _xid(bus: str, pid: int, ch: int, prev: int) -> str:
    return f"kernel: NVRM: Xid (PCI:0000:{bus}:00): 45, pid={pid}, name=python3, Ch {ch:08x} caused by previous Xid {prev}"


def test_the_batch_kernel_log_keeps_its_seven_lines():
    text = (CORPUS / "open-gpu-kernel-modules-1150-xid45-four-gpus-nvlink-no-rank-control" / "log.txt").read_text()
    lines = text.splitlines()
    assert len({len(ln) for ln in lines}) == 1 and len(lines) == 7  # one width: the shape that was joined
    assert unwrap(lines) == (lines, None)
    assert repair_paste(text).notes == []


@pytest.mark.parametrize("make", [
    # journalctl -k: ``kernel: NVRM: …``
    lambda i: _xid("dc", 1818990 + i, i + 1, 149),
    # the driver's lines alone (dmesg without its timestamps)
    lambda i: f"NVRM: Xid (PCI:0000:{0x90 + i:02x}:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.",
    # syslog / journalctl's short format: ``Feb 14 05:03:41 host kernel: …``
    lambda i: f"Feb 14 05:03:4{i} gpu-node-7 kernel: NVRM: Xid (PCI:0000:{0x10 + i:02x}:00): 31, pid=4117, name=pt_main_thre",
])
def test_kernel_lines_of_one_width_are_no_terminal_wrap(make):
    lines = [make(i) for i in range(5)]
    assert len({len(ln) for ln in lines}) == 1
    assert unwrap(lines) == (lines, None)


def test_lines_beginning_as_the_line_above_are_records_of_one_format():
    lines = [f"worker-3 ep {e:02d} step {s:04d} loss 0.{e}{s:03d} lr 0.00{e}1 samples/s 1{s:03d}.5 tokens/s 4{s:04d}"
             for e, s in ((10, 100), (11, 2), (12, 340), (13, 51), (14, 999))]
    assert len({len(ln) for ln in lines}) == 1
    assert unwrap(lines) == (lines, None)


def test_a_real_wrap_still_joins_its_tails():
    message = ("RuntimeError: CUDA error: an illegal memory access was encountered while the watchdog of process "
               "group 0 polled the work of rank 3 on node gpu-node-7 during its all_reduce")
    width = 48
    cut = [message[i:i + width] for i in range(0, len(message), width)]
    second = "Another line, short of the width."
    lines = cut + [second] + [c for c in cut]
    out, note = unwrap(lines)
    assert note is not None and out == [message, second, message]
