"""meta.k8s.io Table responses, so ``kubectl get`` prints the columns a real cluster shows.

Ages and "last seen" are relative to the served moment (``--at``, else the bundle window
end), not to the wall clock: a pod that was 5m old when captured shows ``5m``.
Printers for pods, nodes, events, jobs, namespaces and services follow the API server's
(wide columns have priority 1); other kinds get NAME, AGE, plus STATE for Kubeflow jobs.


Parts: ``printers`` (columns and cells per kind) and ``ages`` (human durations); this module builds
the Table documents and re-exports their public names.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from k10s_forensics.serve.ages import human_duration, since
from k10s_forensics.serve.printers import GENERIC, PRINTERS, _meta


def row_object(obj: dict[str, Any], include: str) -> dict[str, Any] | None:
    """What a row carries per ``includeObject``: None, Metadata (default) or Object."""
    if include == "None":
        return None
    if include == "Object":
        return obj
    return {"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1", "metadata": _meta(obj)}


def table(kind: str, objects: list[dict[str, Any]], now: dt.datetime, *, api_version: str = "meta.k8s.io/v1",
          include: str = "Metadata", metadata: dict[str, Any] | None = None) -> dict[str, Any]:
    """A Table of ``objects`` (all of one kind) with that kind's printer."""
    columns, printer = PRINTERS.get(kind, GENERIC)
    rows = []
    for obj in objects:
        row: dict[str, Any] = {"cells": printer(obj, now)}
        embedded = row_object(obj, include)
        if embedded is not None:
            row["object"] = embedded
        rows.append(row)
    return {"kind": "Table", "apiVersion": api_version, "metadata": metadata or {}, "columnDefinitions": columns, "rows": rows}


def wants_table(accept: str | None) -> str | None:
    """The Table apiVersion the Accept header asks for first, or None for plain JSON."""
    for part in (accept or "").split(","):
        params = {}
        for item in part.split(";")[1:]:
            key, _, value = item.strip().partition("=")
            params[key] = value
        if params.get("as") == "Table" and params.get("g", "meta.k8s.io") == "meta.k8s.io":
            return f"meta.k8s.io/{params.get('v', 'v1')}"
    return None


__all__ = ["PRINTERS", "human_duration", "row_object", "since", "table", "wants_table"]
