"""The one exception tree of k10s forensics.

    K10sError
    ├── BundleError          not a bundle, unknown format version, damaged manifest
    │   └── UnsafeArchiveError   an archive member that would escape or bomb
    ├── ParseError           a raw row that a parser cannot read (recorded, never raised to the user)
    ├── QueryError           a rule or SQL statement that failed (names the file)
    ├── CollectorError       a collector that could not run (recorded in the manifest)
    ├── ReportError          the HTML report could not be written
    ├── RedactionError       redaction could not be completed safely
    ├── SimulationError      the simulator was asked for something it cannot build
    └── EngineError          a fleet query engine could not start (Spark without Java or pyspark)

Library code raises these with the offending name or path in the message. Only
``k10s_forensics.cli`` turns them into one-line messages and exit codes.
"""

from __future__ import annotations


class K10sError(Exception):
    """Base of every error k10s raises on purpose."""

    exit_code = 1


class BundleError(K10sError):
    """The path is not a usable bundle (exit code 2: unusable input)."""

    exit_code = 2


class UnsafeArchiveError(BundleError):
    """An archive holds a member that must not be unpacked."""


class ParseError(K10sError):
    """A raw row could not be parsed."""


class QueryError(K10sError):
    """A rule or query failed; the message names the file."""

    def __init__(self, message: str, path: str | None = None):
        super().__init__(f"{path}: {message}" if path else message)
        self.path = path


class CollectorError(K10sError):
    """A collector could not run."""


class InputError(CollectorError):
    """What the user gave cannot be used: a bad --job, a missing or broken kubeconfig (exit code 2)."""

    exit_code = 2


class ReportError(K10sError):
    """The report could not be rendered."""


class RedactionError(K10sError):
    """Redaction could not be completed."""


class SimulationError(K10sError):
    """The simulator cannot build the requested scenario."""

    exit_code = 2


class EngineError(K10sError):
    """A fleet query engine could not start (exit code 2: the setup, not a finding)."""

    exit_code = 2


__all__ = [
    "K10sError",
    "BundleError",
    "InputError",
    "UnsafeArchiveError",
    "ParseError",
    "QueryError",
    "CollectorError",
    "ReportError",
    "RedactionError",
    "SimulationError",
    "EngineError",
]
