"""The CUDA allocator's ``Process <pid> has <size> memory in use`` names a process by its id, never by its rank, however
short the id: a container's pids are small (real incident litgpt-303, batch 30: ``Process 9841 has 22.00 GiB memory in
use`` made an unnumbered one-traceback paste a job whose process was known, and its OOM rank 0's). A paste whose only
number is that pid stays a guessed one-process import (``rank_unknown``, tests/test_import_rank_unknown.py)."""

from __future__ import annotations

import datetime as dt

import pytest

from k10s_forensics.logimport import LogSource, import_logs

NOW = dt.datetime(2026, 11, 30, 0, 0, tzinfo=dt.timezone.utc)
HEAD = "Traceback (most recent call last):\n  File \"train.py\", line 88, in <module>\n    loss.backward()\n"


def _rank_unknown(tmp_path, line: str) -> bool:
    _, layout = import_logs([LogSource("log.txt", HEAD + line + "\n")], tmp_path / "b", now=NOW)
    return layout.rank_unknown


@pytest.mark.parametrize("line", [
    # PyTorch >= 2.1 (with its `capacty` typo), a 4-digit container pid
    "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 564.00 MiB. GPU 1 has a total capacty of 22.20 GiB "
    "of which 203.12 MiB is free. Process 9841 has 22.00 GiB memory in use.",
    # PyTorch 2.4 wording, a 2-digit pid
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB. GPU 0 has a total capacity of 15.78 GiB "
    "of which 27.19 MiB is free. Process 77 has 15.75 GiB memory in use.",
    # a one-digit pid and a size in MiB
    "torch.OutOfMemoryError: CUDA out of memory. GPU 2 has a total capacity of 79.19 GiB of which 10.00 MiB is free. "
    "Process 7 has 512.00 MiB memory in use.",
    # two processes on the GPU (the second is another job's)
    "torch.OutOfMemoryError: CUDA out of memory. GPU 0 has a total capacity of 23.65 GiB of which 2.02 GiB is free. "
    "Process 2574 has 21.06 GiB memory in use. Process 2600 has 574.00 MiB memory in use.",
])
def test_the_allocators_pid_numbers_no_process(tmp_path, line):
    assert _rank_unknown(tmp_path, line)


@pytest.mark.parametrize("line", [
    "torch.multiprocessing.spawn.ProcessExitedException: process 3 terminated with signal SIGKILL",
    "-- Process 1 terminated with the following error:",
    "[rank1]: torch.OutOfMemoryError: CUDA out of memory. Process 9841 has 22.00 GiB memory in use.",
])
def test_a_numbered_process_next_to_it_still_counts(tmp_path, line):
    assert not _rank_unknown(tmp_path, line)
