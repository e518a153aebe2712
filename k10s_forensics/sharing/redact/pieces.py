"""Cutting text columns into repeated pieces: each distinct piece is redacted once.

Scrape bodies (and much command output) repeat the same lines over and over with a new
value at the end (``DCGM_FI_DEV_GPU_UTIL{gpu="0",...,Hostname="gpu-node-3",...} 97``).
Every value is cut at each newline and at the last space of each line; the pieces are
dictionary-encoded, the segment replacement runs on the distinct pieces only, and the
values are joined back. Both cut characters are outside ``[A-Za-z0-9_.:-]``, so no name,
address or boundary check of the replacement rule crosses a cut (see prefilter.py): the
result is the same as on the whole value.

Secrets can cross a cut only through the spaces of ``NAME = value`` / ``--name value``;
``PIECE_SECRET_PREFILTER`` adds those shapes ending at a piece end, so a value holding a
piece it selects holds a text the whole-value prefilter selects (or is simply re-checked).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from k10s_forensics.sharing.redact.prefilter import SECRET_PREFILTER

_FRAGMENTS = "pass|secret|token|key|credential|auth|cookie|session|private"
_NAME = r"[A-Za-z0-9_.-]"
PIECE_SECRET_PREFILTER = "|".join(
    (SECRET_PREFILTER, rf"(?i:{_FRAGMENTS}){_NAME}*\\?[\"']?[ \t]*$", rf"-{_NAME}*(?i:{_FRAGMENTS}){_NAME}*[ \t]*$")
)
#: Cut only when the distinct pieces hold at most this share of the column's bytes.
MAX_DISTINCT_SHARE = 0.5
#: A batch at least this large that does not repeat enough turns cutting off for its column.
DECIDE_BYTES = 4 << 20


@dataclass
class Pieces:
    """A string column cut into pieces (lines, then each line at its last space)."""

    column: pa.Array
    lines: pa.Array  # list<string> per value
    halves: pa.Array  # list<string> per line: [line] or [head, tail]
    flat: pa.Array  # every piece, in order
    row: np.ndarray  # value index of every piece


def cut(column: pa.Array) -> Pieces:
    lines = pc.split_pattern(column, "\n")
    flat_lines = pc.list_flatten(lines)
    halves = pc.split_pattern(flat_lines, " ", max_splits=1, reverse=True)
    flat = pc.list_flatten(halves)
    line_row = pc.list_parent_indices(lines).to_numpy()
    piece_line = pc.list_parent_indices(halves).to_numpy()
    return Pieces(column, lines, halves, flat, line_row[piece_line] if len(piece_line) else np.zeros(0, np.int64))


def join(pieces: Pieces, new_flat: pa.Array) -> pa.Array:
    """The column rebuilt from ``new_flat`` (same shape as ``pieces.flat``)."""
    new_lines = pc.binary_join(_relist(pieces.halves, new_flat, None), " ")
    return pc.binary_join(_relist(pieces.lines, new_lines, pieces.column.is_null()), "\n").cast(pieces.column.type)


def _relist(lists: pa.Array, values: pa.Array, mask: pa.Array | None) -> pa.Array:
    offsets = lists.offsets.to_numpy()
    large = isinstance(lists, pa.LargeListArray)
    rebased = pa.array(offsets - offsets[0], type=pa.int64() if large else pa.int32())
    return type(lists).from_arrays(rebased, values, mask=mask)


def distinct_share(column: pa.Array, dictionary: pa.Array) -> float:
    total = pc.sum(pc.binary_length(column)).as_py() or 0
    return (pc.sum(pc.binary_length(dictionary)).as_py() or 0) / max(total, 1)


__all__ = ["Pieces", "cut", "join", "distinct_share", "PIECE_SECRET_PREFILTER", "MAX_DISTINCT_SHARE", "DECIDE_BYTES"]
