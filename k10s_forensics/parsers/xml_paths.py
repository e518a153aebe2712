"""Fast ``Element.find``-style lookups for the nvidia-smi XML parser (ElementTree or compatible).

``Paths`` indexes one ``<gpu>`` element once (its first two levels, for the blocks the parser
reads): each field is then a dict get instead of an ElementPath search, with the same first
match in document order. ``num`` converts unit texts (``'67.03 W'``) once per distinct text.
"""

from __future__ import annotations

import re

from k10s_forensics.parsers.common import number
from k10s_forensics.parsers.gpu_common import THROTTLE_BITS

#: number() of value texts seen (``'0 MiB'``, ``'N/A'``, ...): exact, values repeat across GPUs and samples.
_NUMBERS: dict[str | None, float | None] = {}


#: Top-level children of ``<gpu>`` the parser reads; only these are indexed.
GPU_BLOCKS = frozenset({
    "uuid", "pci", "product_name", "gpu_power_readings", "power_readings", "ecc_errors", "fb_memory_usage", "utilization",
    "temperature", "clocks", "clocks_event_reasons", "clocks_throttle_reasons", "mig_mode", "serial", "max_clocks",
    "retired_pages", "remapped_rows",
})


class Paths:
    """Lookups like ``Element.find`` under one element, from dicts of its first two levels.

    ``find("a")`` / ``find("a/b")`` (the first match in document order, as ElementPath gives)
    and their stripped texts are dict gets; deeper paths fall back to ``Element.find``. Only
    the children listed in ``blocks`` are indexed (None = all).
    """

    __slots__ = ("paths", "texts", "el")

    def __init__(self, el, blocks: frozenset[str] | None = None):
        self.el = el
        paths: dict[str, object] = {}
        texts: dict[str, str | None] = {}
        for child in el:
            tag = child.tag
            if blocks is None or tag in blocks:
                if tag not in paths:
                    paths[tag] = child
                    texts[tag] = (child.text or "").strip() or None
                prefix = tag + "/"
                for grandchild in child:
                    path = prefix + grandchild.tag
                    if path not in paths:
                        paths[path] = grandchild
                        texts[path] = (grandchild.text or "").strip() or None
        self.paths = paths
        self.texts = texts

    def find(self, path: str):
        return self.paths.get(path) if path.count("/") < 2 else self.el.find(path)

    def text(self, path: str) -> str | None:
        if path.count("/") > 1:
            return text(self.el, path)
        return self.texts.get(path)


def text(el, path: str) -> str | None:
    if el is None:
        return None
    if isinstance(el, Paths):
        return el.text(path)
    found = el.find(path)
    if found is None or found.text is None:
        return None
    text = found.text.strip()
    return text or None


def number_of(value_text: str | None) -> float | None:
    """``number(value_text)``, remembered per distinct text."""
    value = _NUMBERS.get(value_text, _MISSING)
    if value is _MISSING:
        if len(_NUMBERS) > 65536:
            _NUMBERS.clear()
        value = _NUMBERS[value_text] = number(value_text)
    return value


def num(el, *paths: str) -> float | None:
    """First path whose value is a number (units stripped, N/A forms -> None)."""
    for path in paths:
        value = number_of(text(el, path))
        if value is not None:
            return value
    return None


_MISSING = object()

#: Texts that mean "no value" (compared stripped of brackets, lower-cased).
NA_TEXT = frozenset({"n/a", "not supported", "unknown error", "requested functionality has been deprecated",
                     "insufficient permissions", "gpu requires reset", "unknown"})
_BITS: dict[str, int | None] = {}


def throttle_bit(tag) -> int | None:
    """NVML bit of a ``clocks_event_reason_*`` / ``clocks_throttle_reason_*`` tag (None: not a reason)."""
    bit = _BITS.get(tag, -1)
    if bit == -1:
        bit = _BITS[tag] = THROTTLE_BITS.get(re.sub(r"^clocks_(?:event|throttle)_reason_", "", tag)) if isinstance(tag, str) else None
    return bit


def to_int(el, *paths: str) -> int | None:
    value = num(el, *paths)
    return None if value is None else int(value)


__all__ = ["GPU_BLOCKS", "NA_TEXT", "Paths", "number_of", "text", "num", "throttle_bit", "to_int"]
