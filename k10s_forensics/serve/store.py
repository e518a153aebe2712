"""The bundle's raw layer indexed for serving: objects by resource, exec/scrape/log recordings.

Listing selection (``--at``): rows of one kind whose ``captured_at`` values follow each other
with gaps of at most ``round_gap_s`` form one *listing round* (the pages and per-namespace
calls of one list pass). For each kind the served listing is the last round that started at
or before ``at`` (default: the last round). An object that appears several times in that
round keeps its latest row. Exec, scrape and log recordings captured after ``at`` are ignored.
"""

from __future__ import annotations

import datetime as dt
import json
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pyarrow.parquet as pq

from k10s_forensics.store.bundle import Bundle, RAW_SCHEMAS, parse_iso
from k10s_forensics.errors import BundleError
from k10s_forensics.serve.discovery import Catalog, Resource, make_resource

ROUND_GAP_S = 5.0
DEFAULT_K8S_VERSION = "v1.31.0"


@dataclass
class Obj:
    """One served object: parsed body plus its JSON bytes (serialised once)."""

    namespace: str | None
    name: str
    body: dict[str, Any]
    raw: bytes


@dataclass
class Recording:
    """One recorded exec run, scrape or log: small fields in memory, big text read on demand."""

    captured_at: dt.datetime
    fields: dict[str, Any]
    reader: "RawReader | None" = None

    def get(self, name: str, default: Any = None) -> Any:
        if name in self.fields:
            return self.fields[name]
        if self.reader is not None and name in self.reader.lazy:
            value = self.reader.value(self.fields["_rg"], self.fields["_i"], name)
            return default if value is None else value
        return default


class RawReader:
    """One raw Parquet file: small columns listed once, big text columns read per row group
    on demand with a small LRU cache (a served bundle never holds all bodies in memory)."""

    def __init__(self, path: Path, name: str, lazy: tuple[str, ...], cache_groups: int = 4):
        self.path, self.name, self.lazy = path, name, lazy
        self.cache_groups = cache_groups
        self._cache: "OrderedDict[tuple[int, str], Any]" = OrderedDict()
        self._lock = threading.Lock()
        try:
            self.file = pq.ParquetFile(path)
        except Exception as exc:  # pyarrow raises several types for damaged files
            raise BundleError(f"{path}: unreadable Parquet ({exc.__class__.__name__}: {exc})") from None
        missing = [c for c in RAW_SCHEMAS[name].names if c not in self.file.schema_arrow.names]
        if missing:
            raise BundleError(f"{path}: missing columns {', '.join(missing)}")

    def rows(self) -> list[dict[str, Any]]:
        """The small columns of every row, with ``_rg`` (row group) and ``_i`` (row in it)."""
        small = [c for c in RAW_SCHEMAS[self.name].names if c not in self.lazy]
        out: list[dict[str, Any]] = []
        try:
            for rg in range(self.file.num_row_groups):
                for i, row in enumerate(self.file.read_row_group(rg, columns=small).to_pylist()):
                    row["_rg"], row["_i"] = rg, i
                    out.append(row)
        except Exception as exc:
            raise BundleError(f"{self.path}: unreadable Parquet ({exc.__class__.__name__}: {exc})") from None
        return out

    def value(self, rg: int, i: int, column: str) -> Any:
        key = (rg, column)
        with self._lock:  # a ParquetFile must not be read from several threads at once
            col = self._cache.get(key)
            if col is not None:
                self._cache.move_to_end(key)
            else:
                col = self.file.read_row_group(rg, columns=[column]).column(0)
                self._cache[key] = col
                while len(self._cache) > self.cache_groups:
                    self._cache.popitem(last=False)
        return col[i].as_py()


LAZY = {"objects": ("body",), "exec": ("stdout", "stderr"), "scrapes": ("body",), "logs": ("body",)}


def _reader(bundle: Bundle, name: str) -> RawReader | None:
    path = bundle.raw_path(name)
    return RawReader(path, name, LAZY[name]) if path.is_file() else None


class Cursors:
    """Per-key replay cursors: call i returns recording i; after the last, the last again."""

    def __init__(self) -> None:
        self._next: dict[Any, int] = {}
        self._lock = threading.Lock()

    def take(self, key: Any, recordings: list[Recording]) -> Recording:
        with self._lock:
            i = self._next.get(key, 0)
            self._next[key] = i + 1
        return recordings[min(i, len(recordings) - 1)]

    def reset(self) -> None:
        with self._lock:
            self._next.clear()


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


@dataclass
class Store:
    """Everything ``k10s serve`` answers from, loaded once."""

    bundle: Bundle
    at: dt.datetime | None
    ref_time: dt.datetime
    catalog: Catalog
    objects: dict[tuple[str, str, str], list[Obj]]
    execs: dict[tuple[str, str, str, str], list[Recording]]
    scrapes: dict[str, list[Recording]]
    logs: dict[tuple[str, str, str, bool], Recording]
    resource_version: str
    index: dict[tuple[str, str, str], dict[tuple[str | None, str], Obj]] = field(default_factory=dict)
    exec_cursors: Cursors = field(default_factory=Cursors)
    scrape_cursors: Cursors = field(default_factory=Cursors)
    #: Answers worth remembering (list selections; the snapshot never changes).
    memo: dict[Any, Any] = field(default_factory=dict)
    #: While playing an incident: (namespace, pod, body) -> the part of the log shown now.
    log_filter: Any = None

    @classmethod
    def load(cls, path: str | Path, at: dt.datetime | None = None, round_gap_s: float = ROUND_GAP_S) -> "Store":
        bundle = Bundle.open(path)
        readers = {name: _reader(bundle, name) for name in LAZY}
        objects_reader = readers["objects"]
        rows = objects_reader.rows() if objects_reader else []
        by_kind: dict[tuple[str, str], list[dict[str, Any]]] = {}
        for row in rows:
            if row["kind"] and row["api_version"] and row["name"] and row["captured_at"]:
                by_kind.setdefault((row["api_version"], row["kind"]), []).append(row)
        seen = [(av, k, any(r["namespace"] for r in rs)) for (av, k), rs in by_kind.items()]
        catalog = Catalog.build(seen)
        objects: dict[tuple[str, str, str], list[Obj]] = {}
        for (api_version, kind), kind_rows in by_kind.items():
            res = make_resource(api_version, kind, any(r["namespace"] for r in kind_rows))
            chosen = sorted(_select_round(kind_rows, at, round_gap_s), key=lambda r: (r["_rg"], r["_i"]))
            objs = [o for o in (_object_from_row(r, objects_reader) for r in chosen) if o]
            objects[(res.group, res.version, res.plural)] = sorted(objs, key=lambda o: (o.namespace or "", o.name))
        if not objects.get(("", "v1", "namespaces")):
            names = sorted({r["namespace"] for r in rows if r["namespace"]})
            objects[("", "v1", "namespaces")] = [_synth_namespace(n) for n in names]
        window_end = parse_iso((bundle.manifest.get("window") or {}).get("end"))
        last = max((r["captured_at"] for r in rows if r["captured_at"]), default=None)
        ref = at or window_end or last or dt.datetime.now(dt.timezone.utc)
        keep = (lambda r: r["captured_at"] is not None and (at is None or r["captured_at"] <= at))
        return cls(
            bundle=bundle,
            at=at,
            ref_time=ref,
            catalog=catalog,
            objects=objects,
            execs=_index_execs(_kept(readers["exec"], keep), readers["exec"]),
            scrapes=_index_scrapes(_kept(readers["scrapes"], keep), readers["scrapes"]),
            logs=_index_logs(_kept(readers["logs"], keep), readers["logs"]),
            resource_version=str(int(ref.timestamp() * 1_000_000)),
        )

    @property
    def kubernetes_version(self) -> str:
        version = (self.bundle.manifest.get("cluster") or {}).get("kubernetes_version")
        return version if isinstance(version, str) and version.startswith("v") else DEFAULT_K8S_VERSION

    def resource(self, group: str, version: str, plural: str) -> Resource | None:
        return self.catalog.find(group, version, plural)

    def list(self, res: Resource, namespace: str | None = None) -> list[Obj]:
        objs = self.objects.get((res.group, res.version, res.plural), [])
        if namespace is None:
            return objs
        return [o for o in objs if o.namespace == namespace]

    def get(self, res: Resource, namespace: str | None, name: str) -> Obj | None:
        key = (res.group, res.version, res.plural)
        if key not in self.index:
            self.index[key] = {(o.namespace, o.name): o for o in self.objects.get(key, [])}
        return self.index[key].get((namespace if res.namespaced else None, name))

    def pod(self, namespace: str, name: str) -> Obj | None:
        res = self.catalog.find("", "v1", "pods")
        return self.get(res, namespace, name) if res else None

    def exec_recordings(self, namespace: str, pod: str, container: str, command: str) -> list[Recording]:
        return self.execs.get((namespace, pod, container, command), [])

    def exec_containers(self, namespace: str, pod: str) -> list[str]:
        return sorted({k[2] for k in self.execs if k[0] == namespace and k[1] == pod})

    def pod_known(self, namespace: str, pod: str) -> bool:
        if self.pod(namespace, pod):
            return True
        return any(k[0] == namespace and k[1] == pod for k in self.execs) or any(
            k[0] == namespace and k[1] == pod for k in self.logs
        )

    def scrape_for(self, url: str) -> tuple[str, list[Recording]] | None:
        for key in url_keys(url):
            if key in self.scrapes:
                return key, self.scrapes[key]
        return None

    def reset_cursors(self) -> None:
        self.exec_cursors.reset()
        self.scrape_cursors.reset()


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


__all__ = ["Cursors", "Obj", "Recording", "Store", "ROUND_GAP_S", "loose_proxy_path", "url_keys"]
