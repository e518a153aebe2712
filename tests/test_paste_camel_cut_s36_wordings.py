"""Session 36 (issue 18): a function name cut inside by the terminal's width. Batch 185's Open MPI-tagged NCCL warning
(horovod-3569), cut by a 100-column terminal, ``… misc/argcheck.cc:30 NCCL WARN ncclGet`` | ``AsyncError : comm
argument is NULL``: the tail read as an exception line starting a record of its own, the warning lost its function
name (tests/test_paste_wordings.py's NOT_YET until now). A row of a known record kind (an NCCL record's level, a C++
source location) that fills the width exactly and ends glued to a camel-case name's head (a lower-case word with a
capital inside) or to an NCCL message's first word in lower case goes on (parsers/log_unwrap.py ``_cut_camel_name``;
docs/rules.md "Session 36: leftovers"). A row ending in a plain word before ``RuntimeError: …``, ``Traceback …`` or a
lower-case exception line stays a record's end. Parser-level cases: the repaired text and the events read from it.
"""

from __future__ import annotations

import datetime as dt

import pytest

from parser_kit import body_events
from k10s_forensics.parsers.log_paste import repair_paste

CAPTURED = dt.datetime(2026, 12, 2, 12, 0, tzinfo=dt.timezone.utc)
#: the real line (batch 185, horovod-3569)
REAL = ("[1,6]<stdout>:0601-182219-q4uu569j-10-68-186-195:1374:1448 [0] misc/argcheck.cc:30 NCCL WARN ncclGetAsyncError : "
        "comm argument is NULL")
#: other long rows of the paste, so that the width shows from more than one cut
LONG = "INFO:root:loaded shard " + ", ".join(f"model-{i:05d}-of-00042.safetensors" for i in range(6))
#: launchers' tags before an NCCL record's header (mpirun's, torchrun's, srun's, none)
TAGS = {"mpirun": "[1,6]<stdout>:", "torchrun": "[default6]:", "srun": "6: ", "bare": ""}
#: NCCL's argument check (``misc/argcheck.cc``: ``%s : %s argument is NULL``) with other function names
NAMES = ("ncclGetAsyncError", "ncclCommCount", "ncclCommUserRank", "ncclCommDestroy", "ncclCommAbort")


def _rows(text: str, width: int, pad: bool) -> list[str]:
    rows = [text[i:i + width] for i in range(0, len(text), width)] or [""]
    return [r.ljust(width) if pad else r for r in rows]


def _stays_apart(row: str, rec: str, width: int, pad: bool) -> bool:
    """``row`` then ``rec`` pasted at ``width`` (after a long row the terminal cut twice elsewhere) repair to two rows."""
    long_row = "x" * 12 + " " + "y" * (2 * width - 30)
    text = "\n".join(_rows(long_row, width, pad) + [row.ljust(width) if pad else row, rec, "INFO:root:done"])
    repaired = [ln.rstrip() for ln in repair_paste(text).text.split("\n")]
    return row in repaired and rec in repaired


def _wrapped(lines: list[str], width: int, pad: bool) -> str:
    return "\n".join(r for ln in lines for r in _rows(ln, width, pad))


def _events(text: str) -> list[tuple]:
    return [(e["kind"], e.get("subkind"), e.get("rank"), e.get("local_rank"))
            for e in body_events(text.split("\n"), CAPTURED, prefiltered=False)]


def _cut_line(tag: str, name: str, width: int, into: int) -> str:
    """An NCCL argument-check warning whose host name is so long that ``width`` cuts ``into`` letters into ``name``."""
    head = f"{tag}node-%s:1374:1448 [0] misc/argcheck.cc:30 NCCL WARN "
    fill = width - into - len(head % "")
    assert fill >= 1
    return (head % ("x" * fill)) + f"{name} : comm argument is NULL"


def _reads_whole(line: str, width: int, pad: bool) -> None:
    whole = "\n".join(["Loading checkpoint shards: 100%", line, LONG, "INFO:root:epoch 3 started", ""])
    damaged = _wrapped(whole.split("\n"), width, pad)
    repaired = repair_paste(damaged).text
    assert line in [ln.rstrip() for ln in repaired.split("\n")], damaged
    assert _events(repaired) == _events(whole)


@pytest.mark.parametrize("pad", [True, False], ids=["padded", "unpadded"])
@pytest.mark.parametrize("into", range(1, len("ncclGetAsyncError")))
def test_the_real_warning_cut_anywhere_in_its_function_name_reads_whole(into, pad):
    width = REAL.index("ncclGetAsyncError") + into
    _reads_whole(REAL, width, pad)


@pytest.mark.parametrize("pad", [True, False], ids=["padded", "unpadded"])
@pytest.mark.parametrize("width", [80, 100, 120, 132])
@pytest.mark.parametrize("tag", list(TAGS))
@pytest.mark.parametrize("name,into", [(n, k) for n in NAMES for k in (2, 4, 5, 7, len(n) - 3)])
def test_an_nccl_function_name_cut_at_any_width_reads_whole(name, into, tag, width, pad):
    line = _cut_line(TAGS[tag], name, width, into)
    assert len(line) > width and line[width - into:].startswith(name)
    _reads_whole(line, width, pad)


@pytest.mark.parametrize("pad", [True, False], ids=["padded", "unpadded"])
def test_a_cpp_source_record_cut_in_a_camel_case_name_reads_whole(pad):
    line = ("[rank3]:[E1202 12:00:01.123000 4242 ProcessGroupNCCL.cpp:1316] [PG 0 Rank 3] watchdog thread "
            "terminated with exception: cudaGetLastError failed: RuntimeError raised in c10d")
    for into in (5, 7, 11):  # ``cudaG`` | ``etLastError failed: …``, ``cudaGet`` | ``LastError …``, ``cudaGetLast`` | ``Error …``
        _reads_whole(line, line.index("cudaGetLastError") + into, pad)


#: rows that fill the width and end in a plain word, then a record of its own
ENDS = {
    "nccl-info-rings": "[1,0]<stdout>:node-a:101:101 [0] NCCL INFO Connected all rings",
    "nccl-info-trees-bare": "node-a:101:101 [0] NCCL INFO Connected all trees",
    "cpp-source-word": "[E ProcessGroupNCCL.cpp:475] [Rank 3] Some NCCL operations have failed or timed out",
    "text-lower-word": "[rank0]: loading the data set from the shared volume for epoch",
    "nccl-one-word-upper": "node-a:101:101 [0] NCCL INFO Bootstrap",
}
RECORDS = {
    "runtime-error": "RuntimeError: NCCL error in: ../torch/csrc/distributed/c10d/NCCLUtils.hpp:121, unhandled system error",
    "dotted-exception": "torch.distributed.DistBackendError: NCCL error in: ProcessGroupNCCL.cpp:1970, internal error",
    "traceback": "Traceback (most recent call last):",
    "exception-camel": "ValueError: the batch's tensors differ in shape",
}


@pytest.mark.parametrize("pad", [True, False], ids=["padded", "unpadded"])
@pytest.mark.parametrize("record", list(RECORDS))
@pytest.mark.parametrize("end", list(ENDS))
def test_a_row_ending_in_a_plain_word_at_the_width_stays_before_a_record(end, record, pad):
    row, rec = ENDS[end], RECORDS[record]
    width = len(row)
    assert _stays_apart(row, rec, width, pad)


@pytest.mark.parametrize("pad", [True, False], ids=["padded", "unpadded"])
def test_a_camel_case_head_in_a_row_of_no_known_kind_stays_before_a_record(pad):
    """A plain text row (no NCCL level, no source location) ending in a camel-case word is not read as cut."""
    row = "[rank0]: the script then calls torch.cuda.synchronize and reports its ncclGet"
    rec = "RuntimeError: CUDA error: an illegal memory access was encountered"
    width = len(row)
    assert _stays_apart(row, rec, width, pad)


@pytest.mark.parametrize("pad", [True, False], ids=["padded", "unpadded"])
def test_a_row_shorter_than_the_width_ending_in_a_camel_case_name_stays(pad):
    """The name is whole when its row ends before the width."""
    row = "node-a:101:101 [0] misc/argcheck.cc:30 NCCL WARN ncclGetAsyncError"
    rec = "RuntimeError: NCCL communicator was aborted on rank 0"
    width = len(row) + 3
    assert _stays_apart(row, rec, width, pad)
