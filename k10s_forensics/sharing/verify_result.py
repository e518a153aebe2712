"""What ``k10s verify`` found: ``VerifyResult`` (problems, warnings, the derived layer's state,
counts) and its one-line summary."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


@dataclass
class VerifyResult:
    """Outcome of ``verify``: ``problems`` empty means the bundle is whole."""

    path: Path
    is_archive: bool = False
    bundle_dir: Path | None = None
    manifest: dict[str, Any] | None = None
    problems: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    #: The derived layer (tables/), reported apart from the evidence: its state in words,
    #: and problems (a table that disagrees with its own record: altered or damaged).
    derived_state: str = "not checked"
    derived_problems: list[str] = field(default_factory=list)
    files_checked: int = 0
    bytes_checked: int = 0
    parquet_checked: int = 0

    @property
    def ok(self) -> bool:
        return not self.problems and not self.derived_problems


def summary_line(result: VerifyResult) -> str:
    """One line describing what was checked."""
    mb = result.bytes_checked / 1e6
    return f"{result.files_checked} files ({mb:,.1f} MB) checked, {result.parquet_checked} Parquet files read"


__all__ = ["VerifyResult", "summary_line"]
