"""Changes to a served store over time, as the Kubernetes watch API streams them.

A played incident (``serve/play.py``) puts, replaces and deletes objects; each change gets
the next resourceVersion, is applied to the store (lists and gets answer the new state) and
is kept in a bounded history that watch requests stream from. A watch from a
resourceVersion older than the history (after :meth:`ChangeLog.compact`, as etcd compaction
does) gets ``410 Gone`` and the client must list again.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass
from typing import Any

from k10s_forensics.serve.discovery import make_resource
from k10s_forensics.serve.store import Obj, Store

MAX_HISTORY = 10_000


@dataclass(frozen=True)
class Change:
    """One watch event: ``ADDED``, ``MODIFIED`` or ``DELETED`` of ``obj`` in resource ``key``."""

    rv: int
    key: tuple[str, str, str]
    type: str
    obj: Obj


class Gone(Exception):
    """The asked resourceVersion is older than the kept history (410 Gone)."""


class ChangeLog:
    """Applies changes to a store and keeps them for watch streams."""

    def __init__(self, store: Store):
        self.store = store
        self.rv = int(store.resource_version)
        self.floor = self.rv  # oldest resourceVersion a watch may start from
        self.history: list[Change] = []
        self.cond = threading.Condition()
        self.epoch = 0  # bumped when streams must end (an outage)
        self.ticks = 0  # bumped when what logs show changes without an object change (a play phase)

    def put(self, key: tuple[str, str, str], body: dict[str, Any]) -> Change:
        """Add or replace the object (by namespace and name) with ``body``."""
        meta = body.setdefault("metadata", {})
        ns, name = meta.get("namespace"), meta["name"]
        with self.cond:
            if self.store.catalog.find(*key) is None:  # a kind the bundle did not have: served from now on
                res = make_resource(body["apiVersion"], body["kind"], ns is not None)
                self.store.catalog.resources.append(res)
                self.store.catalog.resources.sort(key=lambda r: (r.group, r.version, r.plural))
            objs = self.store.objects.setdefault(key, [])
            old = next((i for i, o in enumerate(objs) if o.namespace == ns and o.name == name), None)
            change = self._record(key, "ADDED" if old is None else "MODIFIED", ns, name, body)
            if old is None:
                objs.append(change.obj)
                objs.sort(key=lambda o: (o.namespace or "", o.name))
            else:
                objs[old] = change.obj
            return change

    def delete(self, key: tuple[str, str, str], namespace: str | None, name: str) -> Change | None:
        with self.cond:
            objs = self.store.objects.get(key, [])
            found = next((o for o in objs if o.namespace == namespace and o.name == name), None)
            if found is None:
                return None
            objs.remove(found)
            return self._record(key, "DELETED", namespace, name, json.loads(found.raw))

    def _record(self, key: tuple[str, str, str], kind: str, ns: str | None, name: str, body: dict[str, Any]) -> Change:
        self.rv += 1
        body["metadata"]["resourceVersion"] = str(self.rv)
        obj = Obj(ns, name, body, json.dumps(body, separators=(",", ":")).encode())
        change = Change(self.rv, key, kind, obj)
        self.history.append(change)
        if len(self.history) > MAX_HISTORY:
            dropped = self.history[: len(self.history) - MAX_HISTORY]
            self.history = self.history[len(dropped):]
            self.floor = dropped[-1].rv
        self.store.resource_version = str(self.rv)
        self.store.index.pop(key, None)
        self.store.memo.clear()
        self.cond.notify_all()
        return change

    def since(self, rv: int, key: tuple[str, str, str]) -> tuple[list[Change], int]:
        """Changes of resource ``key`` after ``rv``, and the version they bring the reader to
        (read together, so no change slips between them); raises Gone when ``rv`` is too old."""
        with self.cond:
            if rv < self.floor:
                raise Gone(f"too old resource version: {rv} ({self.floor})")
            return [c for c in self.history if c.rv > rv and c.key == key], self.rv

    def wait(self, rv: int, timeout_s: float) -> None:
        """Block until a change after ``rv`` (any resource), an outage or ``timeout_s``."""
        with self.cond:
            epoch, ticks = self.epoch, self.ticks
            self.cond.wait_for(lambda: self.rv > rv or self.epoch != epoch or self.ticks != ticks, timeout=timeout_s)

    def tick(self) -> None:
        """Wake every stream: what a log shows changed."""
        with self.cond:
            self.ticks += 1
            self.cond.notify_all()

    def compact(self) -> None:
        """Forget the history: every watch from an older resourceVersion gets 410 Gone."""
        with self.cond:
            self.history.clear()
            self.floor = self.rv

    def interrupt(self) -> None:
        """End every open stream (the API server went away)."""
        with self.cond:
            self.epoch += 1
            self.cond.notify_all()


__all__ = ["Change", "ChangeLog", "Gone"]
