"""Vectorised extraction of ``tcp_info`` fields from ss info text (used by ``ss.py``).

Each socket's info text (``' ' + rest of the socket line + ' ' + its info lines + ' '``) is
split once into whitespace-separated tokens (pyarrow, no Python loop per socket). A field
is the *first* token of its socket that starts with ``key:`` and whose value matches the
field's pattern: exactly what an unanchored ``(?:^|\\s)key:(value)`` regex search over the
info text finds, at one tokenisation instead of one text scan per field. Tokens are
found by key through their first 8 bytes packed into an integer (numpy), then checked
exactly.

Whitespace inside info text can only be space, tab or form feed (lines are split on ``\\n``
and ``\\r`` is removed), so tabs and form feeds become spaces before splitting. The rates
(``send 11.8Mbps``) are the one place where the separator matters (``send[ :]``: a single
space or a colon): a tab or form feed right after ``send``/``delivery_rate`` is marked first
so it does not pass as that space. ``pid`` (``users:((...pid=N``, may span spaces) is the
regex on the few sockets that print a process.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

CONG = ("cubic", "bbr2", "bbr3", "bbr", "reno", "dctcp", "bic", "htcp", "vegas", "westwood", "illinois", "hybla", "highspeed",
        "scalable", "yeah", "lp", "veno", "cdg", "nv", "prague")
#: (column, key prefix, regex on the token with group ``v``, kind): first match per socket.
TOKEN_FIELDS: tuple[tuple[str, str, str, str], ...] = (
    ("rtt_ms", "rtt:", r"^rtt:(?P<v>[0-9.]+)/", "double"),
    ("rttvar_ms", "rtt:", r"^rtt:[0-9.]+/(?P<v>[0-9.]+)", "double"),
    ("minrtt_ms", "minrtt:", r"^minrtt:(?P<v>[0-9.]+)", "double"),
    ("cwnd", "cwnd:", r"^cwnd:(?P<v>[0-9]+)", "int"),
    ("retrans_total", "retrans:", r"^retrans:[0-9]+/(?P<v>[0-9]+)", "counter"),
    ("retrans_current", "retrans:", r"^retrans:(?P<v>[0-9]+)/", "counter"),
    ("bytes_sent", "bytes_sent:", r"^bytes_sent:(?P<v>[0-9]+)", "counter"),
    ("bytes_retrans", "bytes_retrans:", r"^bytes_retrans:(?P<v>[0-9]+)", "counter"),
    ("bytes_acked", "bytes_acked:", r"^bytes_acked:(?P<v>[0-9]+)", "counter"),
    ("bytes_received", "bytes_received:", r"^bytes_received:(?P<v>[0-9]+)", "counter"),
    ("segs_out", "segs_out:", r"^segs_out:(?P<v>[0-9]+)", "counter"),
    ("lost", "lost:", r"^lost:(?P<v>[0-9]+)", "counter"),
    ("notsent_bytes", "notsent:", r"^notsent:(?P<v>[0-9]+)", "counter"),
    ("busy_ms", "busy:", r"^busy:(?P<v>[0-9]+)ms", "counter"),
    ("rwnd_limited_ms", "rwnd_limited:", r"^rwnd_limited:(?P<v>[0-9]+)ms", "counter"),
)
RATES = (("send_rate_bps", "send"), ("delivery_rate_bps", "delivery_rate"))
UNIT_SCALE = {"K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}
INFO_KEYS = ("rtt:", "cwnd:", "mss:", "rto:")
PID_RE = r"users:\(\(.*?pid=(?P<v>[0-9]+)"
#: Rows needing care before tokenising: a process column, a form feed, a tab after a rate word.
SPECIAL_RE = r"users:\(\(|\f|(?:send|delivery_rate)\t"


def to_int(values: pa.Array, bits: int = 64) -> pa.Array:
    """Digit strings -> integers; a value that does not fit is null (SQL ``try_cast``)."""
    target = pa.int64() if bits == 64 else pa.int32()
    try:
        return pc.cast(values, target)
    except (pa.ArrowInvalid, OverflowError):
        limit = (1 << (bits - 1)) - 1
        out = []
        for text in values.to_pylist():
            try:
                number = int(text) if text is not None else None
            except ValueError:
                number = None
            out.append(number if number is not None and -limit - 1 <= number <= limit else None)
        return pa.array(out, target)


def to_float(values: pa.Array) -> pa.Array:
    """Number strings -> float64; an unparsable one (``1.2.3``, ``.``) is null."""
    try:
        return pc.cast(values, pa.float64())
    except pa.ArrowInvalid:
        out = []
        for text in values.to_pylist():
            try:
                out.append(float(text) if text is not None else None)
            except ValueError:
                out.append(None)
        return pa.array(out, pa.float64())


def _pack8(text: str) -> int:
    return int.from_bytes(text.encode()[:8].ljust(8, b"\0"), "little")


class Tokens:
    """The info texts of ``n`` sockets split into tokens, with each token's socket."""

    def __init__(self, info: pa.Array):
        self.n = len(info)
        self.special = np.asarray(pc.match_substring_regex(info, SPECIAL_RE))
        text = info
        if self.special.any():  # rare: mark rate words before tabs, drop form feeds
            sub = pc.filter(info, pa.array(self.special))
            for word in ("send", "delivery_rate"):
                for ws in ("\t", "\f"):
                    sub = pc.replace_substring(sub, word + ws, word + "\x01" + ws)
            text = pc.replace_with_mask(info, pa.array(self.special), pc.replace_substring(sub, "\f", " "))
        self._scan(text)

    def _scan(self, text: pa.Array) -> None:
        """Token bounds straight from the text buffer (numpy): a token is a run of bytes other
        than space and tab inside one row (what splitting on single spaces after tabs -> spaces
        gives, less the empty tokens). Per token: ``starts``/``ends`` (buffer offsets),
        ``owner`` (row), ``lengths`` and ``key8`` (first 8 bytes as one little-endian integer,
        zero padded: one gather from a byte-strided uint64 view of a padded copy)."""
        if text.null_count:
            text = pc.fill_null(text, "")
        offsets = np.frombuffer(text.buffers()[1], dtype=np.int32)[text.offset: text.offset + len(text) + 1].astype(np.int64)
        buffer = text.buffers()[2]
        base = int(offsets[0]) if len(offsets) else 0
        size = int(offsets[-1]) - base if len(offsets) else 0
        data = np.frombuffer(buffer, dtype=np.uint8, count=size, offset=base) if size else np.zeros(0, np.uint8)
        rel = offsets - base
        word = (data != 32) & (data != 9)
        edge = np.zeros(size + 1, dtype=bool)  # row bounds: a token never crosses one
        edge[rel] = True
        before = np.empty(size, dtype=bool)  # byte i-1 is a separator or i starts a row
        before[:1] = True
        np.logical_not(word[:-1], out=before[1:])
        before |= edge[:-1]
        after = np.empty(size, dtype=bool)  # byte i+1 is a separator or i ends a row
        after[-1:] = True
        np.logical_not(word[1:], out=after[:-1])
        after |= edge[1:]
        starts = np.flatnonzero(word & before)
        self.ends = np.flatnonzero(word & after) + 1
        self.starts = starts
        self.owner = np.searchsorted(rel, starts, side="right") - 1
        self.lengths = self.ends - starts
        self._buffer, self._base = buffer, base
        padded = np.zeros(size + 16, dtype=np.uint8)
        padded[:size] = data
        words = np.ndarray(shape=(size + 8,), dtype="<u8", buffer=padded.data, offset=0, strides=(1,))
        masks = np.array([(1 << (8 * n)) - 1 for n in range(8)] + [(1 << 64) - 1], dtype=np.uint64)
        self.key8 = words[starts] & masks[np.minimum(self.lengths, 8)]
        self.count = len(starts)

    def where_prefix(self, prefix: str, exact: bool = False) -> np.ndarray:
        """Indices (ascending) of the tokens starting with ``prefix`` (equal to it when ``exact``)."""
        size = len(prefix.encode())
        mask = np.uint64((1 << (8 * min(size, 8))) - 1)
        hit = (self.key8 & mask) == np.uint64(_pack8(prefix))
        hit &= (self.lengths == size) if exact else (self.lengths >= size)
        idx = np.flatnonzero(hit)
        if size > 8 and len(idx):
            idx = idx[np.asarray(pc.starts_with(self._take(idx), prefix))]
        return idx

    def _take(self, idx: np.ndarray) -> pa.Array:
        """The texts of tokens ``idx`` (ascending): the even elements of an array whose offsets
        alternate token start, token end over the shared buffer."""
        if not len(idx):
            return pa.array([], pa.string())
        bounds = np.empty(2 * len(idx), dtype=np.int32)
        bounds[0::2] = self.starts[idx] + self._base
        bounds[1::2] = self.ends[idx] + self._base
        spans = pa.StringArray.from_buffers(2 * len(idx) - 1, pa.py_buffer(bounds), self._buffer)
        return spans.take(pa.array(np.arange(0, 2 * len(idx), 2), pa.int64()))

    def _scatter(self, positions: np.ndarray, values: pa.Array) -> pa.Array:
        """Per socket, the value of its first candidate (``positions`` are token indices, ascending)."""
        where = np.full(self.n, -1, dtype=np.int64)
        owners = self.owner[positions]
        first = np.flatnonzero(np.concatenate([[True], owners[1:] != owners[:-1]])) if len(owners) else owners
        where[owners[first]] = first
        return pc.take(values, pa.array(where, mask=where < 0))

    def _first_match(self, positions: np.ndarray, texts: pa.Array, pattern: str) -> pa.Array:
        found = pc.extract_regex(texts, pattern)
        ok = np.asarray(found.is_valid(), dtype=bool)
        return self._scatter(positions[ok], pc.filter(found.field("v"), pa.array(ok)))

    def first(self, prefix: str, pattern: str) -> pa.Array:
        """Group ``v`` of ``pattern`` on the first token of each socket starting with ``prefix`` that matches."""
        idx = self.where_prefix(prefix)
        return self._first_match(idx, self._take(idx), pattern)

    def any_prefix(self, prefixes: tuple[str, ...]) -> np.ndarray:
        hit = np.zeros(self.n, dtype=bool)
        for prefix in prefixes:
            hit[self.owner[self.where_prefix(prefix)]] = True
        return hit

    def first_in(self, words: tuple[str, ...]) -> pa.Array:
        idx = np.sort(np.concatenate([self.where_prefix(w, exact=True) for w in words]))
        return self._scatter(idx, self._take(idx))

    def rate(self, word: str) -> pa.Array:
        """``word rate`` / ``word:rate`` -> bit/s (first number and first unit found, independently)."""
        glued = self.where_prefix(word + ":")
        alone = self.where_prefix(word, exact=True)
        alone = alone[alone + 1 < self.count]  # the next token, after exactly one space, same row
        alone = alone[(self.owner[alone + 1] == self.owner[alone]) & (self.starts[alone + 1] == self.ends[alone] + 1)]
        positions = np.concatenate([glued, alone])
        order = np.argsort(positions, kind="stable")
        texts = pa.concat_arrays([pc.utf8_slice_codeunits(self._take(glued), len(word) + 1), self._take(alone + 1)])
        positions, texts = positions[order], texts.take(pa.array(order, pa.int64()))
        value = to_float(self._first_match(positions, texts, r"^(?P<v>[0-9.]+)"))
        unit = self._first_match(positions, texts, r"^[0-9.]+(?P<v>[KMGT]?)bps")
        scale = pc.fill_null(pc.index_in(unit, value_set=pa.array(list(UNIT_SCALE))), -1)
        factors = np.array([*UNIT_SCALE.values(), 1.0])[np.asarray(scale)]
        return pc.multiply(value, pa.array(factors))

    def pid(self, info: pa.Array) -> pa.Array:
        """``users:((..., pid=N, ...))`` -> N, regex on the sockets that print a process only."""
        idx = np.flatnonzero(self.special)
        return to_int(self._first_rows(idx, info.take(pa.array(idx, pa.int64())), PID_RE))

    def _first_rows(self, rows: np.ndarray, texts: pa.Array, pattern: str) -> pa.Array:
        found = pc.extract_regex(texts, pattern)
        ok = np.asarray(found.is_valid(), dtype=bool)
        where = np.full(self.n, -1, dtype=np.int64)
        where[rows[ok]] = np.arange(int(ok.sum()))
        return pc.take(pc.filter(found.field("v"), pa.array(ok)), pa.array(where, mask=where < 0))


def extract(info: pa.Array) -> dict[str, pa.Array]:
    """Every tcp_info column of ``tcp_samples`` for the sockets whose info texts are ``info``."""
    tok = Tokens(info)
    has_info = pa.array(tok.any_prefix(INFO_KEYS))
    out: dict[str, pa.Array] = {}
    for column, prefix, pattern, kind in TOKEN_FIELDS:
        raw = tok.first(prefix, pattern)
        if kind == "double":
            out[column] = to_float(raw)
        elif kind == "int":
            out[column] = to_int(raw)
        else:  # ss omits zero counters: 0 when the socket printed tcp_info, else unknown
            out[column] = pc.if_else(has_info, pc.fill_null(to_int(raw), 0), pa.nulls(len(info), pa.int64()))
    for column, word in RATES:
        out[column] = tok.rate(word)
    out["cong_alg"] = tok.first_in(CONG)
    out["pid"] = tok.pid(info)
    return out


__all__ = ["extract", "to_int", "to_float", "Tokens"]
