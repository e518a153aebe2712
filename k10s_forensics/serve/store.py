"""The bundle's raw layer indexed for serving: objects by resource, exec/scrape/log recordings.

Listing selection (``--at``): rows of one kind whose ``captured_at`` values follow each other
with gaps of at most ``round_gap_s`` form one *listing round* (the pages and per-namespace
calls of one list pass). For each kind the served listing is the last round that started at
or before ``at`` (default: the last round). An object that appears several times in that
round keeps its latest row. Exec, scrape and log recordings captured after ``at`` are ignored.

Parts: ``records`` (objects, recordings, the raw reader, cursors) and ``store_index`` (rounds,
indexes, URL keys); this module loads a ``Store`` from them and re-exports their public names.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from k10s_forensics.serve.discovery import Catalog, Resource, make_resource
from k10s_forensics.serve.records import LAZY, Cursors, Obj, RawReader, Recording, _reader
from k10s_forensics.serve.store_index import (
    _index_execs,
    _index_logs,
    _index_scrapes,
    _kept,
    _object_from_row,
    _select_round,
    _synth_namespace,
    loose_proxy_path,
    url_keys,
)
from k10s_forensics.store.bundle import Bundle, parse_iso

ROUND_GAP_S = 5.0
DEFAULT_K8S_VERSION = "v1.31.0"


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


__all__ = ["Cursors", "Obj", "RawReader", "Recording", "Store", "ROUND_GAP_S", "loose_proxy_path", "url_keys"]
