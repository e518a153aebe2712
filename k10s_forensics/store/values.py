"""How the bundle writes values and files: RFC 3339 UTC times, UTF-8 text (invalid bytes replaced),
SHA-256 file digests, and JSON files replaced atomically."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import os
import threading
from pathlib import Path
from typing import Any


def utcnow() -> dt.datetime:
    return dt.datetime.now(dt.timezone.utc)


def iso(ts: dt.datetime | None) -> str | None:
    """RFC 3339 text in UTC with a Z suffix (seconds precision unless sub-second)."""
    if ts is None:
        return None
    if ts.tzinfo is None:
        ts = ts.replace(tzinfo=dt.timezone.utc)
    ts = ts.astimezone(dt.timezone.utc)
    text = ts.isoformat(timespec="microseconds" if ts.microsecond else "seconds")
    return text.replace("+00:00", "Z")


def parse_iso(text: str | None) -> dt.datetime | None:
    """Parse RFC 3339 (``Z`` or offset, up to nanoseconds) to an aware UTC datetime."""
    if not text:
        return None
    t = text.strip().replace("Z", "+00:00").replace("z", "+00:00")
    # Python < 3.11 and nanosecond fractions: trim the fraction to microseconds.
    if "." in t:
        head, _, rest = t.partition(".")
        frac = ""
        i = 0
        while i < len(rest) and rest[i].isdigit():
            frac += rest[i]
            i += 1
        t = f"{head}.{(frac + '000000')[:6]}{rest[i:]}"
    try:
        value = dt.datetime.fromisoformat(t)
    except ValueError:
        return None
    if value.tzinfo is None:
        value = value.replace(tzinfo=dt.timezone.utc)
    return value.astimezone(dt.timezone.utc)


def to_text(value: bytes | str | None) -> str | None:
    """UTF-8 text with invalid bytes replaced by U+FFFD (the bundle's rule for text)."""
    if value is None:
        return None
    if isinstance(value, bytes):
        return value.decode("utf-8", errors="replace")
    return value


def sha256_file(path: Path, chunk: int = 1 << 20) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        while True:
            block = fh.read(chunk)
            if not block:
                break
            digest.update(block)
    return digest.hexdigest()


def write_json_atomic(path: Path, data: Any) -> None:
    """Write JSON to a unique temporary name, then rename it over ``path`` (readers see old or new)."""
    tmp = path.with_name(f"{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    try:
        tmp.write_text(json.dumps(data, indent=2, sort_keys=False, default=str) + "\n", encoding="utf-8")
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()


__all__ = ["utcnow", "iso", "parse_iso", "to_text", "sha256_file", "write_json_atomic"]
