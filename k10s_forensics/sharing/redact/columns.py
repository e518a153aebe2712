"""Redacting whole Arrow string columns at once (the fast path of ``stream.rewrite_raw``).

Same result as calling ``Redactor.text`` / ``Redactor.exact`` on every value, much faster:

1. secrets: one RE2 pass (``prefilter.SECRET_PREFILTER``) picks the values in which the
   secret scanner could find anything; only those go through ``SecretScanner.scan``;
2. names and addresses (strict): one RE2 pass wraps every candidate *segment* (a maximal
   ``[A-Za-z0-9_.:-]`` run holding a name or an address shape) in a sentinel character; the
   column is split on the sentinel, each *distinct* segment is replaced once by the exact
   ``TextReplacer`` regex (remembered across batches) and counted as often as it occurs,
   and the pieces are joined back. Values holding an "odd" name (one with other
   characters) or a character whose case folding differs between Python and RE2 take the
   whole-value Python path;
3. whole-name columns (``node``, ``pod``, ...): each distinct value is replaced once.

Repetitive ASCII text (scrape bodies) is first cut into lines and last-space pieces
(``pieces.py``): 1 and 2 then run on the distinct pieces only, values a piece may hold a
secret in take the whole-value path.
"""

from __future__ import annotations

import threading

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from k10s_forensics.sharing.redact import pieces
from k10s_forensics.sharing.redact.bodies import Redactor
from k10s_forensics.sharing.redact.prefilter import SECRET_PREFILTER, SLOW_CHARS, candidate_segments, odd_names_pattern

#: Private-use characters tried as the segment sentinel (one absent from the column is used).
SENTINELS = tuple(chr(c) for c in range(0xE000, 0xE010))
MEMO_LIMIT = 1_000_000


def _mask(arr: pa.Array, pattern: str) -> pa.Array:
    return pc.fill_null(pc.match_substring_regex(arr, pattern), False)


def _count(mask: pa.Array) -> int:
    return int(pc.sum(mask).as_py() or 0)


class ColumnRedactor:
    """Applies a ``Redactor`` to whole string columns (see the module docstring)."""

    def __init__(self, redactor: Redactor):
        self.redactor = redactor
        self.scanner = redactor.scanner
        self.replacer = redactor.replacer
        self.memo: dict[str, tuple[str, list[tuple[str, str]]]] = {}
        #: Guards every Python-level step (scanner, replacer, memo, counters): batches may be
        #: redacted on several threads, the Arrow/RE2 work runs outside it.
        self.lock = threading.RLock()
        self.segments = self.slow = None
        self.ascii_is_fast = True
        self.piecewise: dict[str | None, bool] = {}
        if self.replacer is not None:
            names = list(self.replacer.names)
            self.segments = candidate_segments(names)
            odd = odd_names_pattern(names)
            self.slow = f"[{SLOW_CHARS}]" + (f"|{odd}" if odd else "")
            self.ascii_is_fast = odd is None

    # ---- public ---------------------------------------------------------------------
    def text(self, arr: pa.Array, key: str | None = None) -> pa.Array:
        """Free text: secrets masked, then (strict) names and addresses replaced.

        ``key`` names the column (``"scrapes.body"``): once cutting it into pieces did not
        pay (too few repeats), that column is no longer cut.
        """
        if self.replacer is not None and len(arr) and self.piecewise.get(key, True):
            out = self._text_by_pieces(arr, key)
            if out is not None:
                return out
        return self._text_direct(arr)

    def _text_direct(self, arr: pa.Array) -> pa.Array:
        arr = self.secrets(arr)
        if self.replacer is None or len(arr) == 0:
            return arr
        slow = None if self.ascii_is_fast and is_ascii(arr) else _mask(arr, self.slow)
        n_slow = 0 if slow is None else _count(slow)
        fast = arr if not n_slow else pc.if_else(slow, pa.scalar(None, arr.type), arr)
        out = self._segments(fast)
        if n_slow:
            with self.lock:
                values = [self.replacer.replace(v) for v in arr.filter(slow).to_pylist()]
            out = pc.replace_with_mask(out, slow, pa.array(values, type=arr.type))
        return out

    def _text_by_pieces(self, arr: pa.Array, key: str | None) -> pa.Array | None:
        """``_text_direct`` through distinct pieces (see pieces.py); None when it does not apply."""
        if not self.ascii_is_fast or arr.null_count == len(arr) or not is_ascii(arr):
            return None
        cut = pieces.cut(arr)
        enc = pc.dictionary_encode(cut.flat)
        if pieces.distinct_share(arr, enc.dictionary) > pieces.MAX_DISTINCT_SHARE:
            if arr.nbytes >= pieces.DECIDE_BYTES:  # a small batch says little about the column
                self.piecewise[key] = False
            return None
        indices = enc.indices.to_numpy()
        secret_piece = _mask(enc.dictionary, pieces.PIECE_SECRET_PREFILTER).to_numpy(zero_copy_only=False)[indices]
        rows = np.zeros(len(arr), dtype=bool)
        rows[cut.row[secret_piece]] = True  # values that may hold a secret: the whole-value path
        weights = np.bincount(indices[~rows[cut.row]], minlength=len(enc.dictionary))
        new_dictionary = self._segments(enc.dictionary, weights)
        out = arr if new_dictionary is enc.dictionary else pieces.join(cut, new_dictionary.take(enc.indices))
        if rows.any():
            mask = pa.array(rows)
            out = pc.replace_with_mask(out, mask, self._text_direct(arr.filter(mask)))
        return out

    def exact(self, arr: pa.Array) -> pa.Array:
        """A column holding one name per value: each distinct value replaced once."""
        arr = self.secrets(arr)
        if self.replacer is None or len(arr) == 0 or arr.null_count == len(arr):
            return arr
        enc = pc.dictionary_encode(arr)
        indices = enc.indices
        counts = np.bincount(indices.drop_null().to_numpy(), minlength=len(enc.dictionary))
        outs = []
        with self.lock:
            for value, times in zip(enc.dictionary.to_pylist(), counts.tolist()):
                out, events = self.replacer.replace_events(value, exact=True) if value else (value, [])
                self.replacer.commit(events, times)
                outs.append(out)
        return pa.array(outs, type=arr.type).take(indices)

    def secrets(self, arr: pa.Array) -> pa.Array:
        """Values the secret prefilter selects go through ``SecretScanner.scan``."""
        if len(arr) == 0:
            return arr
        hits = _mask(arr, SECRET_PREFILTER)
        if not _count(hits):
            return arr
        selected = arr.filter(hits).to_pylist()
        with self.lock:
            values = [self.scanner.scan(v) for v in selected]
        return pc.replace_with_mask(arr, hits, pa.array(values, type=arr.type))

    # ---- segments ---------------------------------------------------------------------
    def _segments(self, arr: pa.Array, weights: np.ndarray | None = None) -> pa.Array:
        """Replace names and addresses segment by segment; ``weights``: how often each value counts."""
        if arr.null_count == len(arr):
            return arr
        mark = sentinel_for(arr)
        if mark is None:  # every sentinel occurs in the data: whole-value path
            with self.lock:
                return pa.array([self.replacer.replace(v) for v in arr.to_pylist()], type=arr.type)
        parts, flat, segment_mask, parent = mark_matches(arr, self.segments, mark)
        if segment_mask is None:
            return arr
        enc = pc.dictionary_encode(flat.filter(segment_mask))
        row_weights = None if weights is None else weights[parent[segment_mask.to_numpy(zero_copy_only=False)]]
        counts = np.bincount(enc.indices.to_numpy(), weights=row_weights, minlength=len(enc.dictionary)).astype(np.int64)
        replaced, changed = [], False
        segments = enc.dictionary.to_pylist()
        with self.lock:
            for segment, times in zip(segments, counts.tolist()):
                hit = self.memo.get(segment)
                if hit is None:
                    if len(self.memo) >= MEMO_LIMIT:
                        self.memo.clear()
                    hit = self.memo[segment] = self.replacer.replace_events(segment)
                if times:
                    self.replacer.commit(hit[1], times)
                replaced.append(hit[0])
                changed = changed or hit[0] != segment
        if not changed:
            return arr
        new_segments = pa.array(replaced, type=flat.type).take(enc.indices)
        new_flat = pc.replace_with_mask(flat, segment_mask, new_segments)
        offsets = parts.offsets.to_numpy()
        large = isinstance(parts, pa.LargeListArray)
        rebased = pa.array(offsets - offsets[0], type=pa.int64() if large else pa.int32())
        lists = type(parts).from_arrays(rebased, new_flat, mask=arr.is_null())
        return pc.binary_join(lists, "").cast(arr.type)


def is_ascii(arr: pa.Array) -> bool:
    """True when every value of ``arr`` is pure ASCII (nulls count as ASCII)."""
    return bool(pc.all(pc.fill_null(pc.string_is_ascii(arr), True)).as_py())


def sentinel_for(arr: pa.Array) -> str | None:
    """A private-use character that occurs nowhere in ``arr`` (None when all do)."""
    if is_ascii(arr):
        return SENTINELS[0]
    for ch in SENTINELS:
        if not pc.any(pc.match_substring(arr, ch)).as_py():
            return ch
    return None


def mark_matches(arr: pa.Array, pattern: str, mark: str) -> tuple[pa.Array, pa.Array, pa.Array | None, np.ndarray]:
    """Split ``arr`` around every RE2 match of ``pattern``: (lists, flat pieces, mask of matches,
    value index of every piece).

    Each value becomes the list [gap, match, gap, match, ..., gap] (``mark`` must not occur
    in ``arr``); the mask is None when nothing matched.
    """
    marked = pc.replace_substring_regex(arr, pattern, mark + r"\0" + mark)
    parts = pc.split_pattern(marked, mark)
    flat = pc.list_flatten(parts)
    offsets = parts.offsets.to_numpy()
    parent = pc.list_parent_indices(parts).to_numpy()
    position = np.arange(len(flat), dtype=np.int64) + offsets[0] - offsets[parent]
    is_match = (position % 2) == 1
    return parts, flat, (pa.array(is_match) if is_match.any() else None), parent


__all__ = ["ColumnRedactor", "mark_matches", "sentinel_for", "is_ascii"]
