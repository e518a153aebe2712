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

from k10s_forensics.parsers.ss_scan import scan, take

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


def _may_be_special(info: pa.Array) -> bool:
    """False when no text can match ``SPECIAL_RE`` (the common case), from byte scans of the
    whole buffer, cheaper than the regex per text: no form feed, no ``((``, and no tab after
    ``send``/``delivery_rate`` (bytes outside the array's slice may only say True)."""
    buffer = info.buffers()[2]
    if buffer is None or len(info) == 0:
        return False
    data = np.frombuffer(buffer, dtype=np.uint8)
    if (data == 12).any() or ((data[:-1] == 40) & (data[1:] == 40)).any():
        return True
    tabs = np.flatnonzero(data == 9)
    for word in (b"send", b"delivery_rate"):
        at = tabs[tabs >= len(word)]
        before = np.frombuffer(word, dtype=np.uint8)
        if len(at) and (data[at[:, None] - len(word) + np.arange(len(word))] == before).all(axis=1).any():
            return True
    return False


class Tokens:
    """The info texts of ``n`` sockets split into tokens, with each token's socket."""

    def __init__(self, info: pa.Array):
        self.n = len(info)
        self.special = np.zeros(self.n, dtype=bool)
        if _may_be_special(info):
            self.special = np.asarray(pc.match_substring_regex(info, SPECIAL_RE))
        text = info
        if self.special.any():  # rare: mark rate words before tabs, drop form feeds
            sub = pc.filter(info, pa.array(self.special))
            for word in ("send", "delivery_rate"):
                for ws in ("\t", "\f"):
                    sub = pc.replace_substring(sub, word + ws, word + "\x01" + ws)
            text = pc.replace_with_mask(info, pa.array(self.special), pc.replace_substring(sub, "\f", " "))
        self.bounds = scan(text)
        self.starts, self.ends, self.owner = self.bounds.starts, self.bounds.ends, self.bounds.owner
        self.lengths, self.key8, self.count = self.bounds.lengths, self.bounds.key8, len(self.bounds.starts)
        self.key4 = self.key8.astype(np.uint32)  # the first 4 bytes: one cheap pass per look-up

    def where_prefix(self, prefix: str, exact: bool = False) -> np.ndarray:
        """Indices (ascending) of the tokens starting with ``prefix`` (equal to it when ``exact``)."""
        size = len(prefix.encode())
        mask = np.uint64((1 << (8 * min(size, 8))) - 1)
        if size >= 4 or exact:  # candidates by their first 4 bytes, then checked on 8
            idx = np.flatnonzero(self.key4 == np.uint32(_pack8(prefix) & 0xFFFFFFFF))
        else:
            idx = np.arange(self.count)
        key8, lengths = self.key8[idx], self.lengths[idx]
        hit = (key8 & mask) == np.uint64(_pack8(prefix))
        hit &= (lengths == size) if exact else (lengths >= size)
        idx = idx[hit]
        if size > 8 and len(idx):
            idx = idx[np.asarray(pc.starts_with(self._take(idx), prefix))]
        return idx

    def _take(self, idx: np.ndarray) -> pa.Array:
        return take(self.bounds, idx)

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
        """Per socket, its first token equal to one of ``words``."""
        cand = np.flatnonzero(np.isin(self.key4, np.array([_pack8(w) & 0xFFFFFFFF for w in words], dtype=np.uint32)))
        key8, lengths = self.key8[cand], self.lengths[cand]
        keep = np.zeros(len(cand), dtype=bool)
        for word in words:
            keep |= (key8 == np.uint64(_pack8(word))) & (lengths == len(word.encode()))
        idx = cand[keep]
        long = np.flatnonzero(self.lengths[idx] > 8)  # equal on 8 bytes and in length: check the rest
        if len(long):
            same = np.asarray(pc.is_in(self._take(idx[long]), value_set=pa.array(list(words))))
            idx = np.delete(idx, long[~same])
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
