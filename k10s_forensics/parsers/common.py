"""Small value parsers shared by the source parsers (units, PCI ids, quantities)."""

from __future__ import annotations

import re

_PCI_RE = re.compile(r"^(?:(?P<dom>[0-9a-fA-F]{1,8}):)?(?P<bus>[0-9a-fA-F]{1,2}):(?P<dev>[0-9a-fA-F]{1,2})(?:\.(?P<fn>[0-7]))?$")


def normalize_pci_bus_id(value: str | None) -> str | None:
    """``00000000:1A:00.0`` / ``0000:1a:00.0`` / NCCL ``1a000`` / ``9b000`` -> ``0000:1a:00.0``."""
    if not value:
        return None
    text = value.strip()
    m = _PCI_RE.match(text)
    if m:
        dom = int(m.group("dom") or "0", 16)
        bus = int(m.group("bus"), 16)
        dev = int(m.group("dev"), 16)
        fn = int(m.group("fn") or "0", 16)
        return f"{dom:04x}:{bus:02x}:{dev:02x}.{fn:x}"
    if re.fullmatch(r"[0-9a-fA-F]{4,12}", text):  # NCCL busId: <domain?><bus:2><dev:2><fn:1>... e.g. 1a000, 9b000
        n = int(text, 16)
        # NCCL prints busId as (domain<<20 | bus<<12 | dev<<4 | fn) in hex without padding.
        return f"{n >> 20:04x}:{(n >> 12) & 0xFF:02x}:{(n >> 4) & 0xFF:02x}.{n & 0xF:x}"
    return None


_NUM_RE = re.compile(r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?")
_NA = {"", "n/a", "[n/a]", "[not supported]", "not supported", "na", "none", "unknown", "[unknown error]", "requested functionality has been deprecated", "[requested functionality has been deprecated]", "[insufficient permissions]", "insufficient permissions", "[gpu requires reset]"}


def number(value: str | None) -> float | None:
    """The first number in ``'67.03 W'``, ``'81920 MiB'``, ``'27 C'``; None for N/A forms."""
    if value is None:
        return None
    text = str(value).strip()
    if text.lower() in _NA:
        return None
    m = _NUM_RE.search(text)
    return float(m.group(0)) if m else None


_SIZE_UNITS = {
    "b": 1 / (1 << 20), "bytes": 1 / (1 << 20), "byte": 1 / (1 << 20),
    "kib": 1 / 1024, "kb": 1 / 1024, "k": 1 / 1024,
    "mib": 1.0, "mb": 1.0, "m": 1.0,
    "gib": 1024.0, "gb": 1024.0, "g": 1024.0,
    "tib": 1024.0 * 1024, "tb": 1024.0 * 1024, "t": 1024.0 * 1024,
}


def size_to_mib(value: str | None) -> float | None:
    """``'15.20 GiB'``, ``'22.00 MiB'``, ``'0 bytes'`` -> MiB (binary units; GB read as GiB as PyTorch means)."""
    if not value:
        return None
    m = re.match(r"\s*([-+]?\d+(?:\.\d+)?)\s*([KMGT]?i?B|bytes?|[KMGT])?\s*$", value.strip(), re.IGNORECASE)
    if not m:
        return None
    unit = (m.group(2) or "MiB").lower()
    factor = _SIZE_UNITS.get(unit)
    return None if factor is None else float(m.group(1)) * factor


_QTY_SUFFIX = {
    "": 1, "m": 1e-3, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15, "E": 1e18,
    "Ki": 1024, "Mi": 1024**2, "Gi": 1024**3, "Ti": 1024**4, "Pi": 1024**5, "Ei": 1024**6,
}


def quantity(value) -> float | None:
    """Kubernetes resource quantity (``'8'``, ``'500m'``, ``'16Gi'``, ``'1e3'``) -> number."""
    if value is None:
        return None
    if isinstance(value, (int, float)):
        return float(value)
    m = re.fullmatch(r"\s*([-+]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)\s*(Ki|Mi|Gi|Ti|Pi|Ei|m|k|M|G|T|P|E)?\s*", str(value))
    if not m:
        return None
    return float(m.group(1)) * _QTY_SUFFIX[m.group(2) or ""]


__all__ = ["normalize_pci_bus_id", "number", "size_to_mib", "quantity"]
