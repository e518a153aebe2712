"""A padded paste whose selection began inside a screen row (docs/rules.md, "Session 72: a padded paste's first row
cut mid-row"): a console that pads every row to its width with blanks (conhost, a `screen` copy) gives each copied
row its padding, so a first row shorter than the width with no padding can only be the right part of a row that
filled the width, the left part left out of the selection. It is joined to the rows under it as a full row is
(parsers/log_unwrap.py ``_head_cut``), when it is cut inside a word (it ends in a letter or digit, the next row begins
with one).

The real paste: facebookresearch/fairseq#4352 (tests/data/real-incidents/fairseq-4352-…), fairseq's trainer warning
``| WARNING | fairseq.trainer | OOM: Ran out of memory with exception: CUD`` | ``A out of memory. Tried to allocate
3.02 GiB (GPU 1; …`` at 78 columns: joined, fairseq's own OOM report names the local rank of its device (session 67).

Contrasts: the same rows with the first one padded (a whole row: the record begins there), or not cut inside a word
(``… exception:`` | ``CUDA out …``: a row may end at a word), or an unpadded paste (no width to go by) are left as
they are; a short line the author wrote above the paste (``Here is the log:``) is no row; fairseq's
``OOM in all workers, skipping update`` under the joined report names no one, as unwrapped (every worker ran out).
"""

from __future__ import annotations

import datetime as dt

from bundle_batch import pasted_findings
from incident_kit import corpus_lines, naming_findings
from k10s_forensics.parsers.log_paste import repair_paste
from k10s_forensics.parsers.log_unwrap import unwrap

NOW = dt.datetime(2026, 12, 7, 6, 0, tzinfo=dt.timezone.utc)
CASE = "fairseq-4352-two-gpu-transformer-oom-gpu1-device0-summary-empty"


def _real() -> list[str]:
    return corpus_lines(CASE)


def _named(lines: list[str], tmp_path, nproc: int | None, world: int | None) -> list[tuple]:
    return [(f["rule"], f["cause"], f["ranks"]) for f in naming_findings(pasted_findings(lines, tmp_path, nproc, world, NOW))]


def test_the_real_paste_s_first_row_is_joined_to_its_tail():
    lines = _real()
    assert lines[0] == "| WARNING | fairseq.trainer | OOM: Ran out of memory with exception: CUD" and len(lines[1]) == 78
    out, note = unwrap(lines)
    assert note == "terminal wrapping at 78 columns (4 lines joined) with padding"
    assert out[0].startswith("| WARNING | fairseq.trainer | OOM: Ran out of memory with exception: CUDA out of memory. "
                             "Tried to allocate 3.02 GiB (GPU 1; 23.70 GiB total capacity; 16.92 GiB already allocated;")
    assert out[0].endswith("reserved in total by PyTorch)")


def test_the_real_paste_names_the_oom_s_local_rank(tmp_path):
    assert _named(_real(), tmp_path / "a", 2, 2) == [("oom-cascade", "cuda-oom", [1])]
    assert _named(_real(), tmp_path / "b", None, None) == [("oom-cascade", "cuda-oom", [1])]


def test_a_padded_first_row_is_a_whole_row():
    lines = _real()
    lines[0] = lines[0].ljust(78)
    out, _ = unwrap(lines)
    assert out[0] == lines[0].rstrip()  # a row the console padded ended where its text did


def test_a_first_row_ending_at_a_word_stays_a_row():
    lines = _real()
    lines[0] = lines[0][: -len(" CUD")]  # `… exception:` then `A out of memory`: no word cut
    assert repair_paste("\n".join(lines)).text.split("\n")[0] == lines[0]


def test_an_author_s_line_above_the_paste_is_no_row():
    lines = ["Here is the log I get when training with two GPUs:", *_real()[1:]]
    out, _ = unwrap(lines)
    assert out[0] == lines[0]


def test_an_unpadded_paste_gives_no_width_to_go_by():
    lines = [line.rstrip() for line in _real()]
    out, _ = unwrap(lines)
    assert out[0] == lines[0]


def test_every_worker_out_of_memory_names_no_one(tmp_path):
    said = "2022-04-14 02:39:36 | WARNING | fairseq.trainer | OOM in all workers, skipping update".ljust(78)[:78]
    lines = [*_real()[:4], said, *_real()[4:]]
    assert "CUDA out of memory" in repair_paste("\n".join(lines)).text.split("\n")[0]
    assert _named(lines, tmp_path, 2, 2) == []
