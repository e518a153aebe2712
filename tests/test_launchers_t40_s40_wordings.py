"""The fortieth launcher set's two readings (session 40; docs/rules.md "Session 40: the fortieth launcher set").

1. numpy's own MemoryError classes are host memory (queries/_failure_line.sql ``classified``): ``_ArrayMemoryError``
   (numpy 1.18 on, ``numpy.core._exceptions`` and 2.x's ``numpy._core._exceptions``) and 1.17's
   ``numpy.core._exceptions.MemoryError``, as the builtin ``MemoryError``: ``host-oom``. ``torch.OutOfMemoryError``
   stays the GPU's.
2. A training script's own rank tag opening a line (``Rank 3: …``, ``rank 3: …``, ``[rank 3] …``) names a rank of the
   job (parsers/log_rank_mentions.py ``script_ranks``): a one-node ``torchrun --standalone`` log whose rank 3 returned
   early with exit status 0 shows ranks 0-2 in torch's ``[rankN]:`` tracebacks and the failure table and rank 3 only in
   the script's own lines; with rank 3 counted, the world is 4 and the rank every other saw go is named
   (``never-joined``, the lost-peer reading). A mention inside a line (``from rank 3: …``) is no tag: the world stays 3
   and no one is named.

The recorded runs themselves (pasted node logs, no timestamps), each variant imported through ``k10s import-logs``
with no option (the layout is the log's), batched.
"""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import naming_findings
from k10s_forensics.parsers.log_rank_mentions import named_ranks
from torch_runs_kit import RUNS, plain

NOW = dt.datetime(2026, 12, 3, 9, 0, tzinfo=dt.timezone.utc)
NUMPY_213 = "numpy._core._exceptions._ArrayMemoryError: Unable to allocate 16.0 GiB for an array with shape (4096, 1024, 1024) and data type float32"


def _run(version: str, name: str) -> list[str]:
    return plain((RUNS / version / name / "node0.log").read_text()).splitlines()


def _memory(version: str, error: str | None = None) -> list[str]:
    """The MemoryError run, its exception line worded as ``error`` (None: as recorded)."""
    lines = _run(version, "t40-standalone-1x4-memoryerror-rank2")
    return lines if error is None else [f"[rank2]: {error}" if "_ArrayMemoryError" in line else line for line in lines]


def _exit0(version: str, tag: str = "Rank {r}: ") -> list[str]:
    """The early exit 0 run, the script's ``Rank N: `` tag written as ``tag``."""
    return [re.sub(r"^Rank (\d): ", lambda m: tag.format(r=m.group(1)), line) for line in _run(version, "t40-standalone-1x4-exit0-rank3")]


#: key: (the pasted lines, the rank a warning/critical finding must name alone, its cause)
CASES = {
    "memory-2.13.0-as-recorded": (_memory("2.13.0"), 2, "host-oom"),
    "memory-2.14.1-as-recorded": (_memory("2.14.1"), 2, "host-oom"),
    "memory-numpy-1.18": (_memory("2.13.0", NUMPY_213.replace("numpy._core.", "numpy.core.")), 2, "host-oom"),
    "memory-numpy-1.17": (_memory("2.13.0", "numpy.core._exceptions.MemoryError: Unable to allocate array with shape "
                                            "(4096, 1024, 1024) and data type float32"), 2, "host-oom"),
    "memory-builtin": (_memory("2.14.1", "MemoryError"), 2, "host-oom"),
    # contrasts: the GPU's allocator, and an exception of the program's own whose name only ends alike
    "memory-torch-oom": (_memory("2.13.0", "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 16.00 GiB. GPU 2 "
                                           "has a total capacity of 79.11 GiB of which 3.19 GiB is free."), 2, "cuda-oom"),
    "memory-own-class": (_memory("2.13.0", "cache.FeatureCacheMemoryError: feature cache over its 4 GiB budget"), 2,
                         "python-exception"),
    "exit0-2.13.0-as-recorded": (_exit0("2.13.0"), 3, "never-joined"),
    "exit0-2.14.1-as-recorded": (_exit0("2.14.1"), 3, "never-joined"),
    "exit0-lowercase": (_exit0("2.13.0", "rank {r}: "), 3, "never-joined"),
    "exit0-bracketed": (_exit0("2.14.1", "[rank {r}] "), 3, "never-joined"),
    "exit0-logging-format": (_exit0("2.13.0", "2026-12-03 08:57:40,121 | Rank {r}: "), 3, "never-joined"),
    # contrast: the rank only mentioned inside the line: three ranks seen, the one that left is not in the log
    "exit0-mentioned-mid-line": (_exit0("2.13.0", "loss from rank {r}: "), None, None),
}
BATCHED = Batched("s40t40", list(CASES))


def _make(key: str, folder: Path):
    return pasted(CASES[key][0], folder, None, NOW, world=None)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_fortieth_set_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][1], CASES[key][2])


@pytest.mark.parametrize("text, ranks", [
    ("Rank 3: step 2/6 loss 0.41", [3]),
    ("rank 12: saving checkpoint", [12]),
    ("[rank 5] INFO train: step 3", [5]),
    ("2026-12-03T08:57:40.123456789Z Rank 7: finished", [7]),  # behind kubectl's timestamp
    ("Rank 1: step 0/6 loss 2.6637Rank 2: step 0/6 loss 4.4077", [1]),  # two prints glued: the line's opening tag
    ("broadcast from rank 0: 1024 bytes", []),
    ("Rank 3 has 96 samples", []),  # no colon: no tag
    ("Ranks 3: x", []),
])
def test_a_script_rank_tag_opens_a_line(text, ranks):
    assert named_ranks(text) == ranks
