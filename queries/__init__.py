"""The analysis rules: one ``.sql`` file per rule, with a ``--`` comment header.

``RULES`` is the registry of built-in rule ids, in the order they run and are listed; a
test fails when a ``.sql`` file here is left out of it (or listed but missing).
``_views.sql`` and ``_views_net_xid.sql`` hold the shared building blocks (rank/GPU/pod/IP resolution, time-valid
pod IPs, Xid meanings) that are created before any rule runs; ``_failure_line.sql``, ``_incident_own.sql``,
``_incident_common_mode.sql`` and ``_incident.sql`` the incidents (first failing rank, victims, one GPU-hour cost)
that several rules read (``_evidence_fingerprint.sql``, the fingerprint evidence, comes before them: the failure lines
read its choice of the odd program's rank); ``_evidence_*.sql``
and ``_hang_evidence.sql`` the hang evidence of every family and the verdict per job
(docs/rules.md "Hang evidence").

A rule file may have a Python module of the same stem beside it (``straggler.py``) that
turns each returned row into narrative (``narrate(finding, row) -> finding``); joins,
windows and statistics stay in the SQL.
"""

from __future__ import annotations

from importlib import resources

#: Built-in rule ids, in run/list order.
RULES: tuple[str, ...] = (
    "rank-failure",
    "oom-cascade",
    "nccl-hang",
    "crashloop",
    "straggler",
    "network",
    "gpu-health",
    "disruption",
    "idle-gpu",
    "pending",
    "gpu-startup",
    "nic-open",
)

#: Shared views loaded before every rule, in this order.
VIEWS_FILES: tuple[str, ...] = (
    "_views.sql",
    "_views_net_xid.sql",
    "_evidence_fingerprint.sql",
    "_failure_line.sql",
    "_incident_own.sql",
    "_incident_common_mode.sql",
    "_incident.sql",
    "_evidence_fr_ras.sql",
    "_evidence_logs.sql",
    "_hang_evidence.sql",
)
VIEWS_FILE = VIEWS_FILES[0]


def rule_file_name(rule_id: str) -> str:
    """File name of a built-in rule (``nccl-hang`` -> ``nccl_hang.sql``)."""
    return rule_id.replace("-", "_") + ".sql"


def read_text(name: str) -> str:
    """Text of a packaged query file, loaded with importlib.resources."""
    return resources.files(__name__).joinpath(name).read_text(encoding="utf-8")


def packaged_sql_files() -> list[str]:
    """Every ``.sql`` file shipped in this package (views included)."""
    return sorted(p.name for p in resources.files(__name__).iterdir() if p.name.endswith(".sql"))


__all__ = ["RULES", "VIEWS_FILE", "VIEWS_FILES", "rule_file_name", "read_text", "packaged_sql_files"]
