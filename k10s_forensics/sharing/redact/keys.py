"""The redaction key and its token map, both kept outside any bundle.

The key file holds 32 random bytes as hex (created with mode 0600 when missing; any file
of at least 16 bytes works as a key). Beside it, ``<key file>.map.jsonl`` records each name
token issued with that key (token, original value, kind, key id): the owner's way back
from ``pod-3fa2c1d0`` to the pod. IPv4 tokens need no map (the key inverts them).
The map is as sensitive as the original bundle: never send it.
"""

from __future__ import annotations

import json
import os
import re
import secrets as pysecrets
from pathlib import Path

from k10s_forensics.errors import RedactionError
from k10s_forensics.sharing.redact.pseudonym import key_id

DEFAULT_KEY_FILE = Path("~/.config/k10s/redaction.key")
_HEX = re.compile(r"^[0-9a-fA-F]{32,}$")


def default_key_file() -> Path:
    env = os.environ.get("K10S_REDACTION_KEY_FILE")
    return Path(env).expanduser() if env else DEFAULT_KEY_FILE.expanduser()


def map_path(key_file: Path) -> Path:
    return key_file.with_name(key_file.name + ".map.jsonl")


def load_key(key_file: Path, *, create: bool) -> tuple[bytes, bool]:
    """The key bytes and whether the file was created now."""
    if key_file.is_file():
        data = key_file.read_bytes()
        text = data.decode("ascii", errors="ignore").strip()
        key = bytes.fromhex(text) if _HEX.match(text) and len(text) % 2 == 0 else data
        if len(key) < 16:
            raise RedactionError(f"{key_file}: a redaction key must hold at least 16 bytes")
        return key, False
    if key_file.exists():
        raise RedactionError(f"{key_file}: not a regular file")
    if not create:
        raise RedactionError(f"{key_file}: no such key file")
    key_file.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    key = pysecrets.token_bytes(32)
    fd = os.open(key_file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="ascii") as fh:
        fh.write(key.hex() + "\n")
    return key, True


def load_map(key_file: Path, key: bytes) -> dict[str, tuple[str, str]]:
    """token -> (value, kind) for tokens issued with this key."""
    path = map_path(key_file)
    out: dict[str, tuple[str, str]] = {}
    if not path.is_file():
        return out
    kid = key_id(key)
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            try:
                entry = json.loads(line)
            except json.JSONDecodeError:
                continue
            if isinstance(entry, dict) and entry.get("key_id") == kid and isinstance(entry.get("token"), str):
                out[entry["token"]] = (str(entry.get("value")), str(entry.get("kind")))
    return out


def append_map(key_file: Path, key: bytes, issued: dict[str, tuple[str, str]], known: dict[str, tuple[str, str]]) -> int:
    """Add tokens not yet in the map; returns how many were added."""
    new = {t: v for t, v in issued.items() if t not in known}
    if not new:
        return 0
    path = map_path(key_file)
    kid = key_id(key)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    with os.fdopen(fd, "a", encoding="utf-8") as fh:
        for token, (value, kind) in sorted(new.items()):
            fh.write(json.dumps({"token": token, "value": value, "kind": kind, "key_id": kid}, ensure_ascii=False) + "\n")
    return len(new)


__all__ = ["default_key_file", "map_path", "load_key", "load_map", "append_map"]
