"""Flight Recorder envelopes opened for redaction.

A ``flight-recorder`` exec row carries dump files base64-encoded (docs/bundle-format.md):
text redaction cannot see the host names, paths or addresses inside them. Before the row is
redacted, each dump is decoded with the data-only reader (``parsers.flight_recorder``:
no pickle global is ever resolved) and put back as plain JSON text in the file's ``json``
field, which the text redaction then rewrites like any other text. A dump that cannot be
read safely is withheld (``skipped`` says why); its bytes never leave unredacted.
"""

from __future__ import annotations

import base64
import binascii
import json
from typing import Any

from k10s_forensics.errors import ParseError

SOURCE = "flight-recorder"


def _jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, (bytes, bytearray)):
        return value.decode("utf-8", errors="replace")
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return str(value)


def open_envelope(stdout: str | None) -> str | None:
    """The envelope with every dump as JSON text instead of base64 (unchanged when not one)."""
    from k10s_forensics.parsers.flight_recorder import decode_dump, parse_envelope

    if not stdout:
        return stdout
    try:
        prefix, files = parse_envelope(stdout)
    except ParseError:
        return stdout if not stdout.lstrip().startswith("{") else json.dumps({"withheld": "unreadable envelope"})
    for item in files:
        if "b64" not in item:
            continue
        encoded = item.pop("b64")
        try:
            doc, _ = decode_dump(base64.b64decode(str(encoded), validate=True))
            item["json"] = json.dumps(_jsonable(doc))
        except (binascii.Error, ValueError, ParseError) as exc:
            item["skipped"] = f"withheld by redaction: {str(exc)[:200]}"
    return json.dumps({"k10s": "flight-recorder/1", "prefix": prefix, "files": files})


__all__ = ["open_envelope", "SOURCE"]
