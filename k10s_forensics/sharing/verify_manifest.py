"""``k10s verify``'s manifest check: format name and version, the keys the format fixes and their
types, RFC 3339 times, collector statuses, the redaction block."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from k10s_forensics import FORMAT_VERSION
from k10s_forensics.sharing.verify_result import VerifyResult
from k10s_forensics.store.bundle import COLLECTOR_STATUSES, FORMAT_NAME, MANIFEST, parse_iso

REDACTION_LEVELS = ("standard", "strict")


def _check_manifest(root: Path, result: VerifyResult) -> dict[str, Any] | None:
    path = root / MANIFEST
    if not path.is_file():
        result.problems.append(f"{MANIFEST}: missing (not a k10s bundle)")
        return None
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        result.problems.append(f"{MANIFEST}: unreadable ({exc.__class__.__name__}: {exc})")
        return None
    if not isinstance(manifest, dict):
        result.problems.append(f"{MANIFEST}: not a JSON object")
        return None
    p = result.problems
    if manifest.get("format") != FORMAT_NAME:
        p.append(f"{MANIFEST}: format is {manifest.get('format')!r}, expected {FORMAT_NAME!r}")
        return None
    if manifest.get("format_version") != FORMAT_VERSION:
        p.append(f"{MANIFEST}: format_version {manifest.get('format_version')!r} is not supported (this k10s reads {FORMAT_VERSION})")
    for key, kind in (("created_at", str), ("tool", dict), ("window", dict), ("complete", bool), ("collectors", list), ("files", dict)):
        if key not in manifest:
            p.append(f"{MANIFEST}: missing key {key!r}")
        elif not isinstance(manifest[key], kind):
            p.append(f"{MANIFEST}: {key!r} should be a {kind.__name__}")
    if isinstance(manifest.get("created_at"), str) and parse_iso(manifest["created_at"]) is None:
        p.append(f"{MANIFEST}: created_at {manifest['created_at']!r} is not an RFC 3339 time")
    window = manifest.get("window") if isinstance(manifest.get("window"), dict) else {}
    for key in ("start", "end"):
        value = window.get(key)
        if value is not None and (not isinstance(value, str) or parse_iso(value) is None):
            p.append(f"{MANIFEST}: window.{key} {value!r} is not an RFC 3339 time")
    for i, c in enumerate(manifest.get("collectors") if isinstance(manifest.get("collectors"), list) else []):
        if not isinstance(c, dict) or not c.get("name"):
            p.append(f"{MANIFEST}: collectors[{i}] has no name")
        elif c.get("status") not in COLLECTOR_STATUSES:
            p.append(f"{MANIFEST}: collector {c.get('name')!r} has status {c.get('status')!r}, not one of {', '.join(COLLECTOR_STATUSES)}")
    redaction = manifest.get("redaction")
    if redaction is not None:
        if not isinstance(redaction, dict) or redaction.get("level") not in REDACTION_LEVELS:
            p.append(f"{MANIFEST}: redaction block is malformed (level must be one of {', '.join(REDACTION_LEVELS)})")
        elif not isinstance(redaction.get("replaced"), dict) or not all(isinstance(v, int) for v in redaction["replaced"].values()):
            p.append(f"{MANIFEST}: redaction.replaced must map kinds to counts")
    return manifest


__all__ = ["REDACTION_LEVELS", "_check_manifest"]
