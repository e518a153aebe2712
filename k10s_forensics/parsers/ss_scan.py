"""Token bounds of many texts at once, straight from the Arrow buffer (numpy, no copy of the text).

A token is a run of bytes other than space and tab inside one text: what splitting each text on
single spaces (after tabs -> spaces) gives, less the empty tokens. ``ss_fields`` finds the
``tcp_info`` fields among them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

_MASKS = np.array([(1 << (8 * n)) - 1 for n in range(8)] + [(1 << 64) - 1], dtype=np.uint64)


@dataclass
class TokenBounds:
    """Per token (in text order): ``starts``/``ends`` (byte offsets in ``buffer``), ``owner`` (the
    text it is in), ``lengths`` and ``key8`` (its first 8 bytes as one little-endian integer,
    zero padded)."""

    starts: np.ndarray
    ends: np.ndarray
    owner: np.ndarray
    lengths: np.ndarray
    key8: np.ndarray
    buffer: pa.Buffer | None


def scan(text: pa.Array) -> TokenBounds:
    """The tokens of every text of ``text`` (a string array; nulls have none)."""
    if text.null_count:
        text = pc.fill_null(text, "")
    offsets = np.frombuffer(text.buffers()[1], dtype=np.int32)[text.offset: text.offset + len(text) + 1].astype(np.int64)
    buffer = text.buffers()[2]
    base = int(offsets[0]) if len(offsets) else 0
    size = int(offsets[-1]) - base if len(offsets) else 0
    full = np.frombuffer(buffer, dtype=np.uint8) if buffer is not None and size else np.zeros(0, np.uint8)
    data = full[base: base + size]
    word = np.empty(size + 2, dtype=np.int8)  # 1 = a token byte, with a separator on each side
    word[0] = word[-1] = 0
    np.logical_and(data != 32, data != 9, out=word[1:-1].view(bool))
    rel = offsets - base
    inner = rel[(rel > 0) & (rel < size)]
    if len(inner) and (word[inner] & word[inner + 1]).any():
        starts, ends = _bounds_by_row(word[1:-1].view(bool), rel, size)
    else:  # texts are joined with a separator at every edge (always so in ss info): one pass
        turns = np.flatnonzero(np.diff(word) != 0)  # token starts and ends alternate
        starts, ends = turns[0::2], turns[1::2]
    first = np.searchsorted(starts, rel, side="left")  # index of each text's first token
    owner = np.repeat(np.arange(len(text), dtype=np.int64), np.diff(first))
    lengths = ends - starts
    return TokenBounds(starts + base, ends + base, owner, lengths, _key8(full, starts + base, lengths), buffer)


def _bounds_by_row(word: np.ndarray, rel: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
    """Token starts and ends when a token byte touches a text's edge (a token never crosses one)."""
    edge = np.zeros(size + 1, dtype=bool)
    edge[rel] = True
    before = np.empty(size, dtype=bool)  # byte i-1 is a separator or i starts a text
    before[:1] = True
    np.logical_not(word[:-1], out=before[1:])
    before |= edge[:-1]
    after = np.empty(size, dtype=bool)  # byte i+1 is a separator or i ends a text
    after[-1:] = True
    np.logical_not(word[1:], out=after[:-1])
    after |= edge[1:]
    return np.flatnonzero(word & before), np.flatnonzero(word & after) + 1


def _key8(full: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """First 8 bytes of each token (zero padded): one gather from a byte-strided uint64 view of
    the buffer; tokens in its last 8 bytes are read from a small padded copy of that tail."""
    key = np.zeros(len(starts), dtype=np.uint64)
    usable = len(full) - 7
    if usable > 0:
        words = np.ndarray(shape=(usable,), dtype="<u8", buffer=full, offset=0, strides=(1,))
        body = starts < usable
        if body.all():
            return words[starts] & _MASKS[np.minimum(lengths, 8)]
        key[body] = words[starts[body]]
    else:
        body = np.zeros(len(starts), dtype=bool)
    late = np.flatnonzero(~body)
    if len(late):
        tail_at = max(len(full) - 8, 0)
        tail = np.zeros(24, dtype=np.uint8)
        tail[: len(full) - tail_at] = full[tail_at:]
        words = np.ndarray(shape=(16,), dtype="<u8", buffer=tail, offset=0, strides=(1,))
        key[late] = words[starts[late] - tail_at]
    return key & _MASKS[np.minimum(lengths, 8)]


def take(bounds: TokenBounds, idx: np.ndarray) -> pa.Array:
    """The texts of tokens ``idx`` (ascending, distinct): the even elements of an array whose
    offsets alternate token start, token end over the shared buffer."""
    if not len(idx):
        return pa.array([], pa.string())
    edges = np.empty(2 * len(idx), dtype=np.int32)
    edges[0::2] = bounds.starts[idx]
    edges[1::2] = bounds.ends[idx]
    spans = pa.StringArray.from_buffers(2 * len(idx) - 1, pa.py_buffer(edges), bounds.buffer)
    return spans.take(pa.array(np.arange(0, 2 * len(idx), 2), pa.int64()))


__all__ = ["TokenBounds", "scan", "take"]
