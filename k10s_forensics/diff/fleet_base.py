"""A fleet index as the baseline: the last healthy runs of this bundle's job.

"Healthy": indexed with no critical or warning finding. "This job": ``--job`` when given,
else the manifest's scope jobs. Runs are taken newest first by window start (then bundle
id), this bundle itself left out, and opened from where they were indexed (``source_path``).
"""

from __future__ import annotations

from pathlib import Path

import duckdb

from k10s_forensics.store.bundle import Bundle
from k10s_forensics.errors import BundleError


def _job_of(bundle: Bundle, job: str | None) -> str | None:
    if job:
        return job
    jobs = (bundle.manifest.get("scope") or {}).get("jobs") or []
    return str(jobs[0]) if jobs else None


def _query(fleet: Path, job: str | None, own_id: str, last: int) -> list[tuple[str, str]]:
    glob = lambda t: str(fleet / t / "*" / "*" / "*.parquet").replace("'", "''")  # noqa: E731
    con = duckdb.connect(":memory:")
    try:
        has_findings = any((fleet / "findings").rglob("*.parquet"))
        bad = (f"SELECT DISTINCT bundle_id FROM read_parquet('{glob('findings')}', hive_partitioning = false) "
               "WHERE severity IN ('critical', 'warning')") if has_findings else "SELECT NULL::VARCHAR AS bundle_id WHERE false"
        sql = (f"SELECT bundle_id, source_path FROM read_parquet('{glob('bundles')}', hive_partitioning = false) "
               f"WHERE bundle_id NOT IN ({bad}) AND bundle_id <> ? "
               "AND (? IS NULL OR list_contains(string_split(coalesce(scope_jobs, ''), ','), ?)) "
               "ORDER BY window_start DESC NULLS LAST, bundle_id LIMIT ?")
        return [(r[0], r[1]) for r in con.execute(sql, [own_id, job, job, int(last)]).fetchall()]
    except duckdb.Error as exc:
        raise BundleError(f"{fleet}: unreadable fleet index ({str(exc).splitlines()[0]})") from None
    finally:
        con.close()


def healthy_runs(fleet: Path, bundle: Bundle, last: int, job: str | None) -> list[Bundle]:
    """Up to ``last`` healthy runs of the job, newest first; BundleError when there are none."""
    from k10s_forensics.fleet.identity import bundle_id

    name = _job_of(bundle, job)
    rows = _query(fleet, name, bundle_id(bundle), last)
    runs = []
    for _, source in rows:
        try:
            runs.append(Bundle.open(source))
        except BundleError:
            continue  # moved or deleted since it was indexed
    if not runs:
        who = f"job {name}" if name else "any job"
        raise BundleError(f"{fleet}: no healthy run of {who} in the fleet index that can still be opened")
    return runs


__all__ = ["healthy_runs"]
