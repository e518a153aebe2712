"""Session 33 (issue 18): an NCCL record's host name cut by the terminal's width. A row that fills the width holds
only a launcher's tag or a timestamp before a word glued to its edge (``… [1,12]<stdout>:container-…-12124-01-0``),
and the next row completes an NCCL header (``00057:815:864 [0] transport/net_ib.cu:80 NCCL WARN …``): the tail
read as an NCCL record of its own and the tag (the rank) stayed behind (batch 19's and batch 145's lines in
tests/test_paste_wordings.py). The row goes on now (parsers/log_unwrap.py ``_cut_nccl_host``; docs/rules.md
"Session 33: leftovers"). Two real NCCL records of two ranks one under another are never joined: a row holding
an NCCL header of its own is a record. Parser-level cases: the repaired text and the events read from it.
"""

from __future__ import annotations

import datetime as dt

import pytest

from parser_kit import body_events
from k10s_forensics.parsers.log_paste import repair_paste

CAPTURED = dt.datetime(2026, 12, 2, 3, 0, tzinfo=dt.timezone.utc)
HCA = ("container-e275-1553839402050-12124-01-000057:{pid}:864 [0] transport/net_ib.cu:80 NCCL WARN NET/IB : "
       "Got async event : local catastrophic error")
CUDA = "nccl-tests-1-worker-1:{pid}:146 [0] enqueue.cc:1672 NCCL WARN Cuda failure 'unspecified launch failure'"
#: other long rows of the paste, so that the width shows from more than one cut
LONG = ("INFO:root:loaded shard " + ", ".join(f"model-{i:05d}-of-00042.safetensors" for i in range(6)))


def _rows(text: str, width: int, pad: bool) -> list[str]:
    rows = [text[i:i + width] for i in range(0, len(text), width)] or [""]
    return [r.ljust(width) if pad else r for r in rows]


def _wrapped(lines: list[str], width: int, pad: bool) -> str:
    return "\n".join(r for ln in lines for r in _rows(ln, width, pad))


def _cut_in_host(prefix: str, record: str, into: int) -> tuple[str, int]:
    """The line and the width that cuts it ``into`` characters into the record's host name."""
    line = prefix + record
    return line, len(prefix) + into


def _ranks(text: str) -> list[tuple]:
    return [(e["kind"], e.get("rank"), e.get("local_rank")) for e in body_events(text.split("\n"), CAPTURED, prefiltered=False)
            if e["kind"] not in ("nccl_bootstrap",)]


#: key: (prefix, record, characters of the host before the cut, the rank the record's line is read with)
CUTS = {
    "mpirun-iso-stamp-hca": ("2019-06-02T16:13:44.884Z: [1,12]<stdout>:", HCA.format(pid=815), 40, 12),
    "mpirun-bracket-stamp-cuda": ("[1,4]<stdout>:[2026-03-19 19:40:08] ", CUDA.format(pid=146), 14, 4),
    "mpirun-stderr-hca": ("[1,13]<stderr>:", HCA.format(pid=812), 31, 13),
    "torchrun-tag-hca": ("[default3]:", HCA.format(pid=150), 33, 3),
    "srun-label-hca": ("14: ", HCA.format(pid=814), 38, 14),
}


@pytest.mark.parametrize("pad", [True, False], ids=["padded", "unpadded"])
@pytest.mark.parametrize("key", list(CUTS))
def test_a_host_cut_by_the_width_goes_on_with_its_tag(key, pad):
    prefix, record, into, rank = CUTS[key]
    line, width = _cut_in_host(prefix, record, into)
    assert width >= 40
    whole = "\n".join(["Loading checkpoint shards: 100%", line, LONG, "INFO:root:epoch 3 started", ""])
    damaged = _wrapped(whole.split("\n"), width, pad)
    assert any(r.startswith(record[into:into + 4]) for r in damaged.split("\n"))  # the tail starts a row
    repaired = repair_paste(damaged).text
    assert line.strip() in [ln.strip() for ln in repaired.split("\n")]
    assert _ranks(repaired) == _ranks(whole)
    assert any(rank in (r, lr) for _, r, lr in _ranks(repaired))  # torchrun's tag is the local rank


def _two_records(first: str, second: str) -> tuple[str, int]:
    """Two ranks' NCCL records one under the other, the first exactly as wide as the paste's other cut rows."""
    return "\n".join([first, second]), len(first)


@pytest.mark.parametrize("pad", [True, False], ids=["padded", "unpadded"])
def test_two_real_records_one_under_another_stay_two(pad):
    first = "[1,0]<stdout>:node-a:101:101 [0] NCCL INFO Channel 00/02 :    0   1   2   3   4   5   6   7 via P2P/IPC"
    second = "[1,1]<stdout>:node-b:102:102 [1] NCCL INFO Channel 00/02 :    0   1   2   3   4   5   6   7"
    bare_first = "node-a:101:101 [0] NCCL INFO comm 0x55d0 rank 0 nranks 8 cudaDev 0 busId 1000 - Init COMPLETE"
    bare_second = "node-b:102:102 [1] NCCL INFO comm 0x55d1 rank 1 nranks 8 cudaDev 1 busId 2000 - Init COMPLETE"
    for a, b in ((first, second), (bare_first, bare_second)):
        width = len(a)
        long_row = "x" * 12 + " " + "y" * (2 * width - 30)  # cut at the width twice elsewhere
        text = "\n".join(_rows(long_row, width, pad) + [a.ljust(width) if pad else a, b, "INFO:root:epoch 3 started"])
        repaired = [ln.rstrip() for ln in repair_paste(text).text.split("\n")]
        assert a in repaired and b in repaired


@pytest.mark.parametrize("pad", [True, False], ids=["padded", "unpadded"])
@pytest.mark.parametrize("row", [
    "[1,0]<stdout>:# nThread 1 nGpus 1 minBytes 8 maxBytes 134217728 step: 2(factor) warmup iters: 5 iters",
    "[1,0]<stdout>:[rank0] loading the data set from the shared volume, shard count:16",
    "[1,0]<stdout>:NCCL_SOCKET_IFNAME set by environment to eth0 on host node-a",
], ids=["text-then-word", "text-then-key-value", "nccl-line"])
def test_a_row_of_text_at_the_width_before_a_record_is_not_joined(row, pad):
    record = "node-b:102:102 [1] transport/net_ib.cu:80 NCCL WARN NET/IB : Got async event : local catastrophic error"
    width = len(row)
    long_row = "x" * 12 + " " + "y" * (2 * width - 30)
    text = "\n".join(_rows(long_row, width, pad) + [row.ljust(width) if pad else row, record, "INFO:root:done"])
    repaired = [ln.rstrip() for ln in repair_paste(text).text.split("\n")]
    assert record in repaired
