"""Derived tables of a redacted bundle: re-derived from the redacted raw layer.

Tables are never redacted on their own: ``k10s rebuild`` runs the parsers on the
redacted raw files, so every table holds exactly the pseudonyms the raw layer holds and
every join between them still works, consistent by construction.
"""

from __future__ import annotations

from k10s_forensics.store.bundle import Bundle
from k10s_forensics.parsers import ParseIssues
from k10s_forensics.rebuild.run import rebuild


def rederive(bundle: Bundle) -> ParseIssues:
    """Rebuild ``tables/`` of the redacted bundle (also refreshes its checksums)."""
    return rebuild(bundle)


__all__ = ["rederive"]
