"""How ``k10s serve`` picks and indexes raw rows: listing rounds (``--at``), objects from rows
(a namespace made up when only seen in objects), and the exec, scrape (by URL keys) and log indexes."""

from __future__ import annotations

import datetime as dt
import json
from typing import Any
from urllib.parse import urlsplit

from k10s_forensics.serve.records import Obj, RawReader, Recording


def _rounds(times: list[dt.datetime], gap_s: float) -> list[tuple[dt.datetime, dt.datetime]]:
    """Chain sorted distinct timestamps into (start, end) rounds split at gaps > gap_s."""
    out: list[list[dt.datetime]] = []
    for t in sorted(set(times)):
        if out and (t - out[-1][1]).total_seconds() <= gap_s:
            out[-1][1] = t
        else:
            out.append([t, t])
    return [(a, b) for a, b in out]


def _select_round(rows: list[dict[str, Any]], at: dt.datetime | None, gap_s: float) -> list[dict[str, Any]]:
    rounds = _rounds([r["captured_at"] for r in rows], gap_s)
    chosen = [r for r in rounds if at is None or r[0] <= at]
    if not chosen:
        return []
    start, end = chosen[-1]
    latest: dict[tuple[Any, Any], dict[str, Any]] = {}
    for row in sorted(rows, key=lambda r: r["captured_at"]):
        if start <= row["captured_at"] <= end:
            latest[(row["namespace"], row["name"])] = row
    return list(latest.values())


def _object_from_row(row: dict[str, Any], reader: RawReader) -> Obj | None:
    try:
        body = json.loads(reader.value(row["_rg"], row["_i"], "body") or "")
    except (TypeError, json.JSONDecodeError):
        return None
    if not isinstance(body, dict):
        return None
    body.setdefault("apiVersion", row["api_version"])
    body.setdefault("kind", row["kind"])
    meta = body.setdefault("metadata", {})
    meta.setdefault("name", row["name"])
    if row["namespace"]:
        meta.setdefault("namespace", row["namespace"])
    return Obj(row["namespace"] or None, row["name"], body, json.dumps(body, separators=(",", ":")).encode())


def _synth_namespace(name: str) -> Obj:
    body = {
        "apiVersion": "v1",
        "kind": "Namespace",
        "metadata": {"name": name, "annotations": {"k10s.io/synthesized": "namespace seen in captured objects"}},
        "status": {"phase": "Active"},
    }
    return Obj(None, name, body, json.dumps(body, separators=(",", ":")).encode())


def url_keys(url: str) -> list[str]:
    """Lookup keys of a proxy URL, most specific first: path?query, path, loose path."""
    parts = urlsplit(url)
    path = parts.path.rstrip("/") or "/"
    keys = [f"{path}?{parts.query}"] if parts.query else []
    keys.append(path)
    loose = loose_proxy_path(path)
    if loose not in keys:
        keys.append(loose)
    return keys


def loose_proxy_path(path: str) -> str:
    """Drop scheme and port from the name segment before ``/proxy`` (``http:pod:9400`` -> ``pod``)."""
    segs = path.split("/")
    if "proxy" in segs:
        i = segs.index("proxy")
        if i > 0:
            name = segs[i - 1]
            if name.startswith(("http:", "https:")):
                name = name.split(":", 1)[1]
            segs[i - 1] = name.split(":", 1)[0]
    return "/".join(segs)


def _kept(reader: RawReader | None, keep: Any) -> list[dict[str, Any]]:
    return [r for r in reader.rows() if keep(r)] if reader else []


def _index_execs(rows: list[dict[str, Any]], reader: RawReader | None) -> dict[tuple[str, str, str, str], list[Recording]]:
    out: dict[tuple[str, str, str, str], list[Recording]] = {}
    for row in sorted(rows, key=lambda r: r["captured_at"]):
        key = (row["namespace"] or "", row["pod"] or "", row["container"] or "", " ".join((row["command"] or "").split()))
        out.setdefault(key, []).append(Recording(row["captured_at"], row, reader))
    return out


def _index_scrapes(rows: list[dict[str, Any]], reader: RawReader | None) -> dict[str, list[Recording]]:
    out: dict[str, list[Recording]] = {}
    for row in sorted(rows, key=lambda r: r["captured_at"]):
        if not row["url"]:
            continue
        rec = Recording(row["captured_at"], row, reader)
        for key in dict.fromkeys(url_keys(row["url"])):
            out.setdefault(key, []).append(rec)
    return out


def _index_logs(rows: list[dict[str, Any]], reader: RawReader | None) -> dict[tuple[str, str, str, bool], Recording]:
    out: dict[tuple[str, str, str, bool], Recording] = {}
    for row in sorted(rows, key=lambda r: r["captured_at"]):
        key = (row["namespace"] or "", row["pod"] or "", row["container"] or "", bool(row["previous"]))
        out[key] = Recording(row["captured_at"], row, reader)
    return out


__all__ = ["loose_proxy_path", "url_keys"]
