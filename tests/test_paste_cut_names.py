"""A terminal cut inside a dotted name (parsers/log_paste.py): the row's tail starts like an exception
line (``ic.multiprocessing.errors.ChildFailedError:``, ``cuda.OutOfMemoryError:``), which alone would
start a record of its own, yet a record never starts glued to the name the full row ends in: the row
goes on (a flattened torchrun report wrapped at 100 columns, tests/test_paste_real_incidents.py). A
full row that ends in a word, a whole name before a capital, a sentence (a word and a full stop), an
address, or one the padding shows ended on spaces, still lets an exception line start its own record.
"""

from __future__ import annotations

import pytest

from k10s_forensics.parsers.log_paste import repair_paste
from paste_damage import wrap

W = 100
HEAD = "[2025-02-03 09:14:07,211] torch.distributed.elastic.multiprocessing.api: [ERROR] failed (exitcode: 1) "


def _report(name: str, cut: int, tail: str) -> str:
    """A flattened failure line whose second row of ``W`` ends after ``name[:cut]``, then the report's rest."""
    lead = "local_rank: 0 (pid: 4128) of binary: /usr/bin/python3 Traceback: raise ChildFailedError( " + "x" * 2 * W
    return lead[: 2 * W - cut - 1] + " " + name + tail


#: Log lines around it: one two and a half rows long (the paste's width is plain to see), two short.
LONG = [(HEAD + "waiting for the other workers; " * 9)[: 2 * W + W // 2], "[2025-02-03 09:14:08,001] worker 1 exited",
        "[2025-02-03 09:14:08,002] worker 2 exited"]


@pytest.mark.parametrize(("name", "cut"), [
    ("torch.distributed.elastic.multiprocessing.errors.ChildFailedError:", len("torch.distributed.elast")),
    ("torch.distributed.elastic.multiprocessing.errors.ChildFailedError:", len("torch.distributed.elastic.multiprocessing.errors.")),
    ("torch.distributed.elastic.multiprocessing.errors.ChildFailedError:", len("torch.distributed.")),
    ("torch.cuda.OutOfMemoryError: CUDA out of memory.", len("torch.cu")),
    ("subprocess.CalledProcessError: Command died with <Signals.SIGKILL: 9>.", len("subprocess.Call")),
], ids=["inside-a-word", "after-the-last-dot", "after-a-later-dot", "short-path", "inside-camel-case"])
@pytest.mark.parametrize("pad", [True, False], ids=["padded", "unpadded"])
def test_a_row_cut_inside_a_dotted_name_goes_on(name, cut, pad):
    line = _report(name, cut, " ==== Failures: <NO_OTHER_FAILURES> ====")
    assert wrap(line, W, False).split("\n")[1].endswith(name[:cut])
    text = "\n".join([*LONG, line, *LONG])
    assert line in repair_paste(wrap(text, W, pad)).text.split("\n")


@pytest.mark.parametrize(("end", "tail"), [
    ("while loading the checkpoint", "torch.cuda.OutOfMemoryError: CUDA out of memory."),  # a whole word, no dot
    ("from checkpoint model.safetensors", "ValueError: bad shape"),  # a whole name, then a capital
    ("Completed store-based barrier with 7 nodes.", "torch.distributed.DistBackendError: NCCL error"),  # a sentence
    ("cut at the first dot: torch.", "cuda.OutOfMemoryError: CUDA out of memory."),  # a word and a stop: a sentence end
    ("installed a driver from http://www.nvidia.com/Download/index.aspx", "torch.cuda.OutOfMemoryError: oom"),  # an address
], ids=["a-word", "a-whole-name-then-a-capital", "a-sentence", "one-word-and-a-dot", "an-address"])
def test_an_exception_after_a_full_row_that_ends_a_name_starts_its_own(end, tail):
    row = ("I0203 09:14:07.211 4128 loader.py:42] " + "y" * W)[: W - len(end) - 1] + " " + end
    lines = [ln.rstrip() for ln in repair_paste(wrap("\n".join([*LONG, row, tail, *LONG]), W, True)).text.split("\n")]
    assert len(row) == W and tail in lines


def test_a_padded_row_that_ended_on_spaces_is_no_cut_name():
    row = ("I0203 09:14:07.211 4128 loader.py:42] " + "y" * W)[: W - 2 - len(" torch.distributed")] + " torch.distributed"
    tail = "torch.distributed.DistBackendError: NCCL error"
    lines = [ln.rstrip() for ln in repair_paste(wrap("\n".join([*LONG, row, tail, *LONG]), W, True)).text.split("\n")]
    assert tail in lines
