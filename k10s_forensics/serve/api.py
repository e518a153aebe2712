"""Kubernetes API answers: URL routing, Status bodies, list/get with selectors and paging."""

from __future__ import annotations

import base64
import binascii
import bisect
import json
from dataclasses import dataclass
from typing import Any

from k10s_forensics.serve import tables
from k10s_forensics.serve.discovery import Resource
from k10s_forensics.serve.selectors import field_predicate, label_predicate
from k10s_forensics.serve.store import Obj, Store

USER = "system:serviceaccount:k10s:replay"
NAMESPACE_SUBRESOURCES = ("status", "finalize")


@dataclass
class Route:
    """A parsed resource URL."""

    group: str
    version: str
    plural: str
    namespace: str | None = None
    name: str | None = None
    subresource: str | None = None
    rest: str = ""


def parse_route(path: str) -> Route | None:
    """``/api/v1/namespaces/ns/pods/p/log`` -> Route(group="", version="v1", ...); None if not a resource URL."""
    segs = [s for s in path.split("/") if s]
    if len(segs) >= 3 and segs[0] == "api":
        group, version, segs = "", segs[1], segs[2:]
    elif len(segs) >= 4 and segs[0] == "apis":
        group, version, segs = segs[1], segs[2], segs[3:]
    else:
        return None
    namespace = None
    if len(segs) >= 3 and segs[0] == "namespaces" and segs[2] not in NAMESPACE_SUBRESOURCES:
        namespace, segs = segs[1], segs[2:]
    route = Route(group, version, segs[0], namespace)
    if len(segs) > 1:
        route.name = segs[1]
    if len(segs) > 2:
        route.subresource = segs[2]
        route.rest = "/".join(segs[3:])
    return route


def status_body(code: int, reason: str, message: str, details: dict[str, Any] | None = None) -> dict[str, Any]:
    body: dict[str, Any] = {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": message,
        "reason": reason,
        "code": code,
    }
    if details:
        body["details"] = details
    return body


def not_found(route: Route, name: str | None = None) -> dict[str, Any]:
    target = name or route.name or ""
    details = {"name": target, "kind": route.plural}
    if route.group:
        details["group"] = route.group
    qualified = f"{route.plural}.{route.group}" if route.group else route.plural
    return status_body(404, "NotFound", f'{qualified} "{target}" not found', details)


def forbidden(route: Route, verb: str) -> dict[str, Any]:
    resource = f"{route.plural}/{route.subresource}" if route.subresource else route.plural
    qualified = f"{route.plural}.{route.group}" if route.group else route.plural
    who = f'{qualified} "{route.name}"' if route.name else qualified
    where = f' in the namespace "{route.namespace}"' if route.namespace else " at the cluster scope"
    message = f'{who} is forbidden: User "{USER}" cannot {verb} resource "{resource}" in API group "{route.group}"{where}'
    return status_body(403, "Forbidden", message, {"name": route.name or "", "group": route.group, "kind": route.plural})


def method_not_allowed(method: str, path: str, bundle_name: str) -> dict[str, Any]:
    return status_body(
        405,
        "MethodNotAllowed",
        f"the server does not allow this method on the requested resource ({method} {path}): "
        f"k10s serve is a read-only replay of bundle {bundle_name}",
    )


def encode_continue(obj: Obj, rv: str) -> str:
    raw = json.dumps({"rv": rv, "ns": obj.namespace or "", "name": obj.name}, separators=(",", ":"))
    return base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")


def decode_continue(token: str) -> tuple[str, str]:
    """(namespace, name) of the last object of the previous page; ValueError if malformed."""
    try:
        data = json.loads(base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)))
        return str(data["ns"]), str(data["name"])
    except (binascii.Error, ValueError, KeyError, TypeError):
        raise ValueError(f"continue key is not valid: {token[:40]!r}") from None


def select(objs: list[Obj], params: dict[str, str]) -> list[Obj]:
    """Apply labelSelector and fieldSelector (SelectorError on a bad selector)."""
    labels = label_predicate(params.get("labelSelector"))
    fields = field_predicate(params.get("fieldSelector"))
    if not params.get("labelSelector") and not params.get("fieldSelector"):
        return objs
    return [o for o in objs if labels(o.body) and fields(o.body)]


def paginate(objs: list[Obj], params: dict[str, str], rv: str) -> tuple[list[Obj], dict[str, Any]]:
    """One page per ``limit``/``continue`` (key-based, so vanished objects do not shift pages)."""
    if params.get("continue"):
        after = decode_continue(params["continue"])
        objs = objs[bisect.bisect_right(objs, after, key=_sort_key):]  # lists are sorted by this key
    meta: dict[str, Any] = {"resourceVersion": rv}
    try:
        limit = int(params.get("limit") or 0)
    except ValueError:
        raise ValueError(f"limit must be an integer, got {params.get('limit')!r}") from None
    if limit > 0 and len(objs) > limit:
        page, rest = objs[:limit], objs[limit:]
        meta["continue"] = encode_continue(page[-1], rv)
        if not params.get("labelSelector") and not params.get("fieldSelector"):
            meta["remainingItemCount"] = len(rest)
        return page, meta
    return objs, meta


def list_json(res: Resource, page: list[Obj], meta: dict[str, Any]) -> bytes:
    head = json.dumps({"kind": f"{res.kind}List", "apiVersion": res.api_version, "metadata": meta}, separators=(",", ":"))
    return head[:-1].encode() + b',"items":[' + b",".join(o.raw for o in page) + b"]}"


def _sort_key(obj: Obj) -> tuple[str, str]:
    return (obj.namespace or "", obj.name)


def list_answer(store: Store, res: Resource, objs: list[Obj], params: dict[str, str], accept: str | None,
                selected: bool = False) -> bytes:
    """A list page (JSON or Table); ``selected``: the selectors were already applied to ``objs``."""
    page, meta = paginate(objs if selected else select(objs, params), params, store.resource_version)
    table_version = tables.wants_table(accept)
    if table_version:
        doc = tables.table(res.kind, [o.body for o in page], store.ref_time, api_version=table_version,
                           include=params.get("includeObject") or "Metadata", metadata=meta)
        return json.dumps(doc, separators=(",", ":")).encode()
    return list_json(res, page, meta)


def get_answer(store: Store, res: Resource, obj: Obj, params: dict[str, str], accept: str | None) -> bytes:
    table_version = tables.wants_table(accept)
    if table_version:
        doc = tables.table(res.kind, [obj.body], store.ref_time, api_version=table_version,
                           include=params.get("includeObject") or "Metadata",
                           metadata={"resourceVersion": store.resource_version})
        return json.dumps(doc, separators=(",", ":")).encode()
    return obj.raw


__all__ = [
    "Route",
    "decode_continue",
    "encode_continue",
    "forbidden",
    "get_answer",
    "list_answer",
    "method_not_allowed",
    "not_found",
    "paginate",
    "parse_route",
    "select",
    "status_body",
]
