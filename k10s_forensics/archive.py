"""Bundle archives (.tar.gz): safe unpacking into a cache directory.

Placeholder until the sharing work lands: refuses archives with a clear error.
"""

from __future__ import annotations

from pathlib import Path

from k10s_forensics.errors import BundleError


def unpack_to_cache(path: Path) -> Path:
    raise BundleError(f"{path}: not a k10s bundle directory (archives are not supported yet)")
