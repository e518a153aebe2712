"""Why a culprit's or a rank's node is unknown: every output shows it as ``--- (why)``, never as nothing.

A rank's node is ``ranks.node``, the node its pod ran on. It is empty for three reasons, in this order:

* ``named-ranks``: ``k10s import-logs`` of a log that names a high rank but gives no layout made a pod of each rank it
  names, on no node (``parsers/log_unplaced.py``): ``--nproc-per-node`` places the ranks;
* ``unscheduled``: the pod was never scheduled (``pods.scheduled`` false, or still Pending);
* ``no-node``: the captured pod names no node all the same.

and a fourth, of a finding rather than of a rank: ``elsewhere``, the finding's line is in a pod's log that holds not the
rank it names (Ray's driver on a worker its pid names) and no captured pod holds that rank (queries/_failure_line.sql
leaves the printer's node out: session 68).

``reports/sql/job_list.sql`` and ``job_ranks.sql`` return the kind (``node_unknown``) with the SQL below; ``annotate``
gives a finding that names ranks or pods, but no node because none of them has one, the key ``node_unknown`` (the why,
in words) that ``k10s analyze`` (text, markdown, JSON), ``k10s report`` and ``k10s view`` show. A finding whose rule
names no node although its ranks' nodes are known keeps no such key: nothing there is unknown.
"""

from __future__ import annotations

from typing import Any

import duckdb

from k10s_forensics.output import ABSENT

#: kind -> the why, as every output words it
WHY = {
    "named-ranks": "node unknown: the log gives no layout; `--nproc-per-node` places the ranks",
    "unscheduled": "node unknown: the pod was never scheduled",
    "no-node": "node unknown: the captured pod names no node",
    "elsewhere": "node unknown: another pod's log names the rank (Ray's driver), and no captured pod holds it",
}
#: kind -> the why in a few words, for narrow table cells (``k10s view``)
SHORT = {"named-ranks": "no layout", "unscheduled": "unscheduled", "no-node": "no node", "elsewhere": "printed elsewhere"}

_SQL = """
SELECT r.namespace || '/' || r.pod AS pod, r.namespace || '/' || r.job AS job, r.rank,
       bool_or(r.node IS NOT NULL) AS placed,
       min(CASE WHEN r.rank_source = 'named-ranks' THEN 'named-ranks'
                WHEN p.scheduled IS FALSE OR p.phase = 'Pending' THEN 'unscheduled' ELSE 'no-node' END)
           FILTER (WHERE r.node IS NULL) AS kind
FROM ranks r LEFT JOIN pods p ON p.pod_uid = r.pod_uid
GROUP BY ALL
"""


def shown(kind: str | None, short: bool = False) -> str:
    """``--- (why)`` for a kind of unknown node (``---`` alone for none)."""
    why = (SHORT if short else WHY).get(kind or "")
    return f"{ABSENT} ({why})" if why else ABSENT


def nodes_count(nodes_n: Any, unplaced_n: Any, kind: str | None, short: bool = False) -> str:
    """How many nodes a job's ranks ran on: ``4 nodes``, ``--- nodes (why)`` when none is known, or
    ``4 nodes, 2 ranks on --- (why)`` when some are."""
    if not unplaced_n or not kind:
        return f"{nodes_n} nodes"
    if not nodes_n:
        return f"{ABSENT} nodes ({(SHORT if short else WHY)[kind]})"
    return f"{nodes_n} nodes, {unplaced_n} ranks on {shown(kind, short)}"


def annotate(con: duckdb.DuckDBPyConnection, findings: list[dict[str, Any]]) -> None:
    """Give each finding that names ranks or pods but no node, none of them placed (or its pods holding none of its ranks:
    ``elsewhere``), its ``node_unknown``."""
    todo = [f for f in findings if not f.get("nodes") and (f.get("pods") or (f.get("ranks") and f.get("job")))]
    if not todo:
        return
    try:
        rows = con.sql(_SQL).fetchall()
    except duckdb.Error:  # no ranks or pods table: nothing to say
        return
    by_pod: dict[str, list[tuple[bool, str | None]]] = {}
    by_rank: dict[tuple[str, int], list[tuple[bool, str | None]]] = {}
    held = {(pod, rank) for pod, _, rank, _, _ in rows}  # the ranks each pod holds
    for pod, job, rank, placed, kind in rows:
        by_pod.setdefault(pod, []).append((bool(placed), kind))
        by_rank.setdefault((job, rank), []).append((bool(placed), kind))
    for f in todo:
        seen = ([x for p in f["pods"] for x in by_pod.get(p, [])] if f.get("pods")
                else [x for r in f["ranks"] for x in by_rank.get((f["job"], r), [])])
        kinds = sorted({k for placed, k in seen if not placed and k})
        if seen and not any(placed for placed, _ in seen) and kinds:
            f["node_unknown"] = " / ".join(WHY[k] for k in kinds)
        elif f.get("pods") and f.get("ranks") and not any((p, r) in held for p in f["pods"] for r in f["ranks"]):
            f["node_unknown"] = WHY["elsewhere"]  # a Ray line of a rank its printer's pod holds not (queries/_failure_line.sql)


__all__ = ["SHORT", "WHY", "annotate", "nodes_count", "shown"]
