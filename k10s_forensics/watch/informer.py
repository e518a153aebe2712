"""List-then-watch of one resource, as client-go's reflector does.

List (paged) gives the state and a resourceVersion; a watch from it streams changes, with
bookmarks keeping the version fresh; a stream that ends is resumed from the last version;
``410 Gone`` (an ERROR event or the answer) means the history is compacted: list again and
diff against what was known, so a change made while the watcher was away still arrives
(as a MODIFIED or DELETED computed from the diff). Connection failures back off
exponentially with jitter up to ``backoff_max_s``.
"""

from __future__ import annotations

import json
import random
import threading
from typing import Any, Callable

from k10s_forensics.watch.kubeapi import ApiError, KubeApi

#: on_event(type, old, new): type ADDED / MODIFIED / DELETED / SYNCED; old is None for a new
#: object, new is None for a deleted one; SYNCED once after each (re-)list.
Handler = Callable[[str, "dict[str, Any] | None", "dict[str, Any] | None"], None]


def _key(obj: dict[str, Any]) -> tuple[str, str]:
    meta = obj.get("metadata") or {}
    return str(meta.get("namespace") or ""), str(meta.get("name") or "")


class Informer:
    """Keeps ``objects`` in step with the API server and calls ``on_event`` for changes."""

    def __init__(self, api: KubeApi, path: str, on_event: Handler, stop: threading.Event, *, selector: str = "",
                 field_selector: str = "", timeout_s: float = 300.0, backoff_max_s: float = 30.0, name: str = ""):
        self.api, self.path, self.on_event, self.stop = api, path, on_event, stop
        self.selector, self.field_selector = selector, field_selector
        self.timeout_s, self.backoff_max_s = timeout_s, backoff_max_s
        self.name = name or path
        self.objects: dict[tuple[str, str], dict[str, Any]] = {}
        self.rv = ""
        self.synced = threading.Event()
        self.stats = {"lists": 0, "watches": 0, "gone": 0, "reconnects": 0, "events": 0, "bookmarks": 0}
        self.last_error = ""
        self.absent = False  # the resource is not served (CRD not installed)
        self._rng = random.Random(hash(path) & 0xFFFF)

    def run(self) -> None:
        backoff = 0.5
        while not self.stop.is_set():
            try:
                if not self.rv:
                    self._list()
                self._watch()
                backoff = 0.5
            except ApiError as exc:
                if exc.status == 410:
                    self.stats["gone"] += 1
                    self.rv = ""
                    continue
                if exc.status in (403, 404) and not self.synced.is_set():  # not served, or RBAC denies it
                    self.absent, self.last_error = True, str(exc)[:300]
                    self.synced.set()
                    return
                self.last_error = str(exc)[:300]
                self.stats["reconnects"] += 1
                self.stop.wait(backoff * (0.5 + self._rng.random()))
                backoff = min(backoff * 2, self.backoff_max_s)
            except Exception as exc:  # noqa: BLE001 (a long-running watch must not die on one odd object)
                self.last_error = f"{exc.__class__.__name__}: {exc}"[:300]
                self.stats["reconnects"] += 1
                self.rv = ""  # start again from a fresh list
                self.stop.wait(backoff)
                backoff = min(backoff * 2, self.backoff_max_s)

    def _params(self) -> dict[str, Any]:
        params = {"labelSelector": self.selector} if self.selector else {}
        if self.field_selector:
            params["fieldSelector"] = self.field_selector
        return params

    def _list(self) -> None:
        items, rv = self.api.list_all(self.path, self._params())
        self.stats["lists"] += 1
        fresh = {_key(o): o for o in items}
        old = self.objects
        self.objects = fresh
        self.rv = rv
        first = not self.synced.is_set()
        if not first:  # a re-list: the changes missed while away, computed from the diff
            for key, obj in fresh.items():
                before = old.get(key)
                if before is None:
                    self.on_event("ADDED", None, obj)
                elif (before.get("metadata") or {}).get("resourceVersion") != (obj.get("metadata") or {}).get("resourceVersion"):
                    self.on_event("MODIFIED", before, obj)
            for key in old.keys() - fresh.keys():
                self.on_event("DELETED", old[key], None)
        self.on_event("SYNCED", None, None)
        self.synced.set()

    def _watch(self) -> None:
        params = dict(self._params(), watch="true", resourceVersion=self.rv, allowWatchBookmarks="true",
                      timeoutSeconds=int(self.timeout_s))
        self.stats["watches"] += 1
        for line in self.api.stream(self.path, params, timeout_s=self.timeout_s + 30):
            if self.stop.is_set():
                return
            try:
                event = json.loads(line)
                kind, obj = event["type"], event["object"]
            except (ValueError, KeyError, TypeError):
                continue
            if kind == "ERROR":
                code = (obj or {}).get("code") if isinstance(obj, dict) else None
                raise ApiError(int(code or 500), f"watch {self.path}: {(obj or {}).get('message', 'error')}")
            if not isinstance(obj, dict):
                continue
            rv = str((obj.get("metadata") or {}).get("resourceVersion") or "")
            if rv:
                self.rv = rv
            if kind == "BOOKMARK":
                self.stats["bookmarks"] += 1
                continue
            self._apply(kind, obj)

    def _apply(self, kind: str, obj: dict[str, Any]) -> None:
        self.stats["events"] += 1
        key = _key(obj)
        before = self.objects.get(key)
        if kind == "DELETED":
            self.objects.pop(key, None)
            self.on_event("DELETED", before, None)
        elif kind in ("ADDED", "MODIFIED"):
            self.objects[key] = obj
            self.on_event("MODIFIED" if before is not None else "ADDED", before, obj)


__all__ = ["Informer"]
