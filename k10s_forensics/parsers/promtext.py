"""Vectorised splitter for the Prometheus text exposition format (version 0.0.4).

``split_exposition`` turns many response bodies at once into one row per sample line
(metric name, label block, value, optional timestamp, index of the body it came from)
with pyarrow.compute (RE2), never a Python loop per line. ``parse_labels`` reads one
label block; callers dictionary-encode the label blocks and parse only the distinct ones.

Reusable by any parser of ``/metrics`` bodies (dcgm-exporter, node-exporter, ...).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

#: name, optional {label block} (quoted values may hold '}' and escaped quotes), value, optional ms timestamp.
SAMPLE_RE = (
    r'^(?P<name>[a-zA-Z_:][a-zA-Z0-9_:]*)'
    r'(?:\{(?P<labels>(?:[^"}]|"(?:[^"\\]|\\.)*")*)\})?'
    r'[ \t]+(?P<value>[-+]?(?:[0-9][0-9.eE+-]*|\.[0-9][0-9eE+-]*|[Nn]a[Nn]|[Ii]nf(?:inity)?))'
    r'(?:[ \t]+(?P<ts>-?[0-9]+))?[ \t\r]*$'
)
_VALUE_OK_RE = r"^[-+]?(?:[0-9]+\.?[0-9]*(?:[eE][-+]?[0-9]+)?|\.[0-9]+(?:[eE][-+]?[0-9]+)?|[Nn][Aa][Nn]|[Ii]nf(?:inity)?)$"
_NAME_RE = re.compile(r"[a-zA-Z_:][a-zA-Z0-9_:]*")
_LABEL_RE = re.compile(r'\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*=\s*"((?:[^"\\]|\\.)*)"\s*,?')
_BLOCK_RE = re.compile(r'\s*(?:[a-zA-Z_][a-zA-Z0-9_]*\s*=\s*"(?:[^"\\]|\\.)*"\s*,?\s*)*')
#: A label block longer than this is not an exporter's (real ones are < 2 KiB): refused
#: unread, so a hostile 10 MB "label" costs one counted line instead of seconds of regex.
MAX_LABEL_BLOCK = 64 << 10
_UNESCAPE = {"\\\\": "\\", '\\"': '"', "\\n": "\n"}


@dataclass
class Samples:
    """Sample lines of a set of bodies, column-wise.

    Per sample line: ``body_index``, ``series_id``, ``value``, ``timestamp_ms``. Per distinct
    series (``name{labels}``): ``names`` and ``label_blocks``, indexed by ``series_id``.
    """

    body_index: np.ndarray  # int64: index of the body (row of the input) each line came from
    series_id: np.ndarray  # int64: index into names / label_blocks
    names: list[str]
    label_blocks: list[str]  # '' when the line has no label block
    value: np.ndarray  # float64 (NaN when the value text is not a number or is NaN)
    timestamp_ms: np.ndarray | None  # float64 epoch ms, NaN when absent; None when no line has one
    malformed_count: int
    malformed_examples: list[tuple[int, str]]  # (body index, line) of the first malformed lines
    bad_value_count: int
    lines_total: int


_SERIES_RE = re.compile(r'([a-zA-Z_:][a-zA-Z0-9_:]*)(?:[ \t]*\{((?:[^"}]|"(?:[^"\\]|\\.)*")*)\})?')
_SAMPLE_PY = re.compile(SAMPLE_RE)
_COMMENT, _MALFORMED = -1, -2


#: Distinct series texts a memo keeps (cleared when full): a rebuild sees ~20 per GPU.
MEMO_ENTRIES = 1 << 20


def split_exposition(bodies: pa.Array | pa.ChunkedArray, max_examples: int = 3, memo: dict | None = None) -> Samples:
    """Split exposition bodies into sample lines; comments (``# HELP``/``# TYPE``) and blanks dropped.

    Each line is cut once at its last space (``name{labels}`` | ``value``) and both halves are
    dictionary-encoded together, so only distinct series and distinct value texts are looked
    at; no per-line string copies. Lines with an explicit timestamp (rare) and lines without
    a space are handled per line in Python.

    Args:
        bodies: string array, one exposition text per element (nulls are skipped).
        max_examples: how many malformed lines to keep as examples.
        memo: series text -> its ``_series`` reading, kept by the caller across calls (the same
            series recur in every scrape of a device); only saves the Python work.

    Returns:
        ``Samples`` with the parsed lines and counts of what could not be read.
    """
    if isinstance(bodies, pa.ChunkedArray):
        bodies = bodies.combine_chunks() if bodies.num_chunks != 1 else bodies.chunk(0)
    if pa.types.is_large_string(bodies.type) or pa.types.is_string_view(bodies.type):
        bodies = bodies.cast(pa.string())
    lists = pc.split_pattern(pc.fill_null(bodies, ""), "\n")
    parents = _np(pc.list_parent_indices(lists), np.int64)
    parts = pc.split_pattern(pc.list_flatten(lists), " ", max_splits=1, reverse=True)
    n_parts = _np(pc.list_value_length(parts), np.int64)
    offsets = parts.offsets.to_numpy()[:-1].astype(np.int64)
    encoded = parts.values.dictionary_encode()
    codes = _np(encoded.indices, np.int64)
    dictionary = encoded.dictionary
    two = np.flatnonzero(n_parts == 2)
    s_code, v_code = codes[offsets[two]], codes[offsets[two] + 1]
    # distinct series texts -> (name, labels) once each
    uniq, s_inv = dense_unique(s_code, len(dictionary))
    names: list[str] = []
    blocks: list[str] = []
    kind = np.empty(len(uniq), np.int64)  # series id, _COMMENT or _MALFORMED
    embedded: dict[int, tuple[int, str]] = {}  # uniq position -> (series id, value text) for `series value ts` lines
    series_ids: dict[tuple[str, str], int] = {}
    memo = {} if memo is None else memo
    if len(memo) > MEMO_ENTRIES:
        memo.clear()
    for i, text in enumerate(dictionary.take(pa.array(uniq, pa.int64())).to_pylist()):
        parsed = memo.get(text, memo)
        if parsed is memo:
            parsed = memo[text] = _series(text)
        if parsed is None:
            kind[i] = _COMMENT if text.lstrip().startswith("#") else _MALFORMED
            continue
        name, block, value_text = parsed
        key = (name, block)
        sid = series_ids.get(key)
        if sid is None:
            sid = series_ids[key] = len(names)
            names.append(name)
            blocks.append(block)
        kind[i] = sid
        if value_text is not None:
            embedded[i] = (sid, value_text)
    line_kind = kind[s_inv]
    # values: distinct value texts cast once
    v_uniq, v_inv = dense_unique(v_code, len(dictionary))
    v_float, v_bad = _to_float(pc.utf8_rtrim(dictionary.take(pa.array(v_uniq, pa.int64())), " \t\r"))
    values = v_float[v_inv]
    line_bad_value = v_bad[v_inv]
    timestamp_ms = None
    if embedded:  # `series value ts`: the text after the last space was the timestamp
        timestamp_ms = np.full(len(values), np.nan)
        emb_pos = np.array(sorted(embedded), np.int64)
        emb_val, _ = _to_float(pa.array([embedded[int(p)][1] for p in emb_pos], pa.string()))
        lookup_val = np.full(len(uniq), np.nan)
        lookup_val[emb_pos] = emb_val
        has_ts = np.isin(s_inv, emb_pos)
        timestamp_ms[has_ts] = values[has_ts]
        values = np.where(has_ts, lookup_val[s_inv], values)
        bad_ts = has_ts & ~np.isfinite(timestamp_ms)
        line_kind = np.where(bad_ts, _MALFORMED, line_kind)
    good = line_kind >= 0
    malformed_lines = two[line_kind == _MALFORMED]
    # lines without a space: blank, or separated by tabs only (read with the full pattern)
    one = np.flatnonzero(n_parts == 1)
    extra = _single_token_lines(dictionary.take(pa.array(codes[offsets[one]], pa.int64())).to_pylist(), one, parents, names, blocks, series_ids)
    body_index = np.concatenate([parents[two[good]], extra["body"]])
    series_id = np.concatenate([line_kind[good], extra["series"]])
    value = np.concatenate([values[good], extra["value"]])
    if timestamp_ms is not None or extra["has_ts"]:
        ts_main = timestamp_ms[good] if timestamp_ms is not None else np.full(int(good.sum()), np.nan)
        timestamp_ms = np.concatenate([ts_main, extra["ts"]])
    examples = [(int(parents[i]), _line_text(dictionary, codes, offsets, n_parts, i)) for i in malformed_lines[:max_examples]]
    examples += extra["examples"][: max(0, max_examples - len(examples))]
    malformed = len(malformed_lines) + extra["malformed"]
    bad_values = int(line_bad_value[good].sum())
    return Samples(
        body_index=body_index,
        series_id=series_id,
        names=names,
        label_blocks=blocks,
        value=value,
        timestamp_ms=timestamp_ms,
        malformed_count=int(malformed),
        malformed_examples=examples,
        bad_value_count=max(bad_values, 0),
        lines_total=int(len(two) - int((line_kind == _COMMENT).sum()) + extra["lines"]),
    )


def _np(arr: pa.Array, dtype) -> np.ndarray:
    return np.asarray(arr.to_numpy(zero_copy_only=False), dtype=dtype)


def _series(text: str) -> tuple[str, str, str | None] | None:
    """``name{labels}`` (optionally followed by ``value``) -> (name, label block, value text or None)."""
    text = text.strip()
    if not text or text.startswith("#"):
        return None
    brace = text.find("{")
    if brace > 0 and text.endswith("}"):  # the common shape: checked cheaply, labels later
        name = text[:brace].rstrip()
        if _NAME_RE.fullmatch(name):
            return name, text[brace + 1 : -1], None
    elif brace < 0 and _NAME_RE.fullmatch(text):
        return text, "", None
    m = _SERIES_RE.match(text)
    if m is None:
        return None
    rest = text[m.end():]
    if rest == "":
        return m.group(1), m.group(2) or "", None
    if rest[0] in " \t" and rest.strip() and not any(c in rest.strip() for c in " \t{}\"="):
        return m.group(1), m.group(2) or "", rest.strip()
    return None


def _line_text(dictionary: pa.Array, codes: np.ndarray, offsets: np.ndarray, n_parts: np.ndarray, i: int) -> str:
    pieces = [dictionary[int(codes[offsets[i] + k])].as_py() for k in range(int(n_parts[i]))]
    return " ".join(pieces)


def _single_token_lines(texts: list[str], positions: np.ndarray, parents: np.ndarray, names: list[str], blocks: list[str], series_ids: dict) -> dict:
    """Lines with no space: blank lines are skipped, the rest read with ``SAMPLE_RE`` (tabs)."""
    out = {"body": [], "series": [], "value": [], "ts": [], "examples": [], "malformed": 0, "lines": 0, "has_ts": False}
    for text, pos in zip(texts, positions):
        stripped = text.strip()
        if not stripped or stripped.startswith("#"):
            continue
        out["lines"] += 1
        m = _SAMPLE_PY.match(stripped)
        if m is None:
            out["malformed"] += 1
            out["examples"].append((int(parents[pos]), text))
            continue
        key = (m.group("name"), m.group("labels") or "")
        sid = series_ids.get(key)
        if sid is None:
            sid = series_ids[key] = len(names)
            names.append(key[0])
            blocks.append(key[1])
        value, _ = _to_float(pa.array([m.group("value")], pa.string()))
        out["body"].append(int(parents[pos]))
        out["series"].append(sid)
        out["value"].append(float(value[0]))
        out["ts"].append(float(m.group("ts")) if m.group("ts") else np.nan)
        out["has_ts"] = out["has_ts"] or bool(m.group("ts"))
    return {
        **out,
        "body": np.array(out["body"], np.int64),
        "series": np.array(out["series"], np.int64),
        "value": np.array(out["value"], np.float64),
        "ts": np.array(out["ts"], np.float64),
    }


def _to_float(text: pa.Array) -> tuple[np.ndarray, np.ndarray]:
    """Numbers as float64 (NaN/Inf kept); unreadable texts become NaN, flagged in the returned mask."""
    try:
        values = pc.cast(text, pa.float64())
        bad = np.zeros(len(text), bool)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        good = pc.fill_null(pc.match_substring_regex(text, _VALUE_OK_RE), False)
        bad = ~np.asarray(good.to_numpy(zero_copy_only=False), dtype=bool)
        values = pc.cast(pc.if_else(good, text, None), pa.float64())
    return np.asarray(values.to_numpy(zero_copy_only=False), dtype=np.float64), bad


def dense_unique(codes: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(codes, return_inverse=True)`` for non-negative codes below ``size``, in O(n + size)."""
    if size > 4 * len(codes) + 1_000_000:
        return np.unique(codes, return_inverse=True)
    present = np.zeros(size, bool)
    present[codes] = True
    uniq = np.flatnonzero(present)
    rank = np.zeros(size, np.int64)
    rank[uniq] = np.arange(len(uniq))
    return uniq, rank[codes]


def parse_labels(block: str | None, strict: bool = False) -> dict[str, str] | None:
    """``gpu="0",UUID="GPU-..",pod=""`` -> dict (escapes ``\\\\``, ``\\"``, ``\\n`` undone).

    With ``strict``, a block that is not entirely ``name="value"`` pairs gives None.
    """
    if not block:
        return {}
    if len(block) > MAX_LABEL_BLOCK:
        return None if strict else {}
    if strict and not _BLOCK_RE.fullmatch(block):
        return None
    out: dict[str, str] = {}
    for m in _LABEL_RE.finditer(block):
        value = m.group(2)
        if "\\" in value:
            value = re.sub(r'\\[\\"n]', lambda e: _UNESCAPE[e.group(0)], value)
        out[m.group(1)] = value
    return out


__all__ = ["SAMPLE_RE", "Samples", "split_exposition", "parse_labels"]
