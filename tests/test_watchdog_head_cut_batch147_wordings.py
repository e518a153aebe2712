"""A rank's watchdog CUDA error in a log that begins inside another process's watchdog end (real incidents batch 147,
isaac-sim/IsaacLab#4011: Isaac Lab's rsl_rl ``--distributed`` on two GPUs, both ranks' NCCL watchdogs hit an illegal
memory access; the paste opens with ``Exception raised from ncclCommWatchdog at …`` and its frames, the last record of
the first process to abort, then ``[rank1]:… watchdog thread terminated with exception: CUDA error: …``).

A process aborted by its watchdog prints its error line first and the ``ncclCommWatchdog`` stack last, so a log whose
first line is that stack was cut inside a process that had already failed above the cut: the rank whose watchdog line
follows is not known to be the first, and no single culprit is named (docs/rules.md, "Session 32: batch 147").
Contrasts: the same rank's error with its own ``ncclCommWatchdog`` stack after it, a log that begins at the rank's line,
and a log that begins inside a plain Python traceback, still name the rank. Pasted logs through ``k10s import-logs``,
batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import naming_findings

NOW = dt.datetime(2026, 12, 1, 23, 30, tzinfo=dt.timezone.utc)
LIB = "/opt/conda/lib/python3.11/site-packages/torch/lib"
END = [
    "Exception raised from ncclCommWatchdog at /pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1902 (most recent call first):",
    "frame #0: c10::Error::Error(c10::SourceLocation, std::__cxx11::basic_string<char, std::char_traits<char>, "
    f"std::allocator<char> >) + 0x98 (0x7189217775e8 in {LIB}/libc10.so)",
    f"frame #1: <unknown function> + 0xcc7a4e (0x7185754c7a4e in {LIB}/libtorch_cuda.so)",
    "frame #2: <unknown function> + 0x94ac3 (0x718c41e94ac3 in /lib/x86_64-linux-gnu/libc.so.6)",
    "",
]
IMA = ("[rank{r}]:[E1113 13:57:32.346752417 ProcessGroupNCCL.cpp:1896] [PG ID 0 PG GUID 0(default_pg) Rank {r}] Process "
       "group watchdog thread terminated with exception: CUDA error: {what}")
OLD = ("[E ProcessGroupNCCL.cpp:1182] [Rank {r}] NCCL watchdog thread terminated with exception: CUDA error: {what}")


def _indent(lines: list[str], pad: str) -> list[str]:
    return [pad + line if line else line for line in lines]


#: key: (the pasted lines, the rank a warning/critical finding must name alone: None for none)
CASES = {
    # IsaacLab-4011's shape: the first process's watchdog end, Hydra's line, then rank 1's watchdog CUDA error
    "indented-end-then-rank1": (_indent(END + ["Error executing job with overrides: []",
                                               IMA.format(r=1, what="an illegal memory access was encountered")], "    "),
                                None),
    # flush left, another CUDA error, PyTorch 2.2's watchdog wording, rank 3
    "end-then-rank3-old-wording": (END + [OLD.format(r=3, what="unspecified launch failure")], None),
    # the other process's end on Windows line ends
    "end-crlf-then-rank0": ("\r\n".join(END + [IMA.format(r=0, what="an illegal memory access was encountered")]) + "\r\n",
                            None),
    # contrasts: the rank's own error line first, its own watchdog end after it: the rank is named ...
    "rank2-then-own-end": ([IMA.format(r=2, what="an illegal memory access was encountered")] + END, 2),
    # ... a log that begins at the rank's line ...
    "rank1-alone": ([IMA.format(r=1, what="an illegal memory access was encountered")], 1),
    # ... and one that begins inside a Python traceback's frames (not a watchdog's end)
    "frame-head-then-rank1": ([
        '  File "/srv/train.py", line 280, in <module>',
        "    main(config)",
        IMA.format(r=1, what="an illegal memory access was encountered"),
    ], 1),
}
BATCHED = Batched("b147", list(CASES))


def _make(key: str, folder: Path):
    return pasted(CASES[key][0], folder, 4, NOW)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_watchdog_error_after_another_watchdog_end_names_no_one(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][1], None if CASES[key][1] is None else "cuda-error")
