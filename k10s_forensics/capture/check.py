"""``k10s capture --check``: which collectors would be skipped, and why, before anything runs.

Each collector declares the access it uses (``Collector.access``). For every one we ask the
API server with a SelfSubjectAccessReview (a POST that only asks a question: it creates
nothing and needs no permission) in each scope namespace, or cluster-wide. A collector
whose every access is denied would be skipped; one with some denied would be partial.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

import urllib3

from k10s_forensics.capture.retry import CallError
from k10s_forensics.capture.scope import Scope
from k10s_forensics.errors import CollectorError
from k10s_forensics.collectors import COLLECTORS, Access, Collector

SSAR_PATH = "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews"


@dataclass
class Verdict:
    """What ``--check`` predicts for one collector."""

    collector: str
    outcome: str  # "ok", "partial", "skipped"
    denied: list[str] = field(default_factory=list)
    allowed: list[str] = field(default_factory=list)


def review_body(access: Access, namespace: str | None) -> dict[str, Any]:
    attrs: dict[str, Any] = {"verb": access.verb, "resource": access.resource, "group": access.group}
    if access.subresource:
        attrs["subresource"] = access.subresource
    if namespace is not None:
        attrs["namespace"] = namespace
    return {"apiVersion": "authorization.k8s.io/v1", "kind": "SelfSubjectAccessReview", "spec": {"resourceAttributes": attrs}}


def ask(source, access: Access, namespace: str | None, pool: Any = None) -> tuple[bool, str]:
    """(allowed, reason) from one SelfSubjectAccessReview (``pool``: a urllib3 pool to reuse).

    Raises:
        CallError: the review itself could not be made.
    """
    if pool is None:
        pool = review_pool(source)
    body = json.dumps(review_body(access, namespace)).encode()
    headers = source._headers()
    headers["Content-Type"] = "application/json"
    timeout = source.deadline.bound(source.timeout_s)
    try:
        resp = pool.request("POST", source.connection.configuration.host.rstrip("/") + SSAR_PATH, body=body, headers=headers, retries=False,
                                    timeout=urllib3.Timeout(connect=timeout, read=timeout))
    except urllib3.exceptions.HTTPError as exc:
        raise CallError(f"SelfSubjectAccessReview failed: {exc.__class__.__name__}", kind="connection") from None
    text = resp.data.decode("utf-8", errors="replace")
    if resp.status >= 300:
        raise CallError(f"SelfSubjectAccessReview answered HTTP {resp.status}: {text[:200]}", status=resp.status, kind="http")
    status = (json.loads(text) or {}).get("status") or {}
    return bool(status.get("allowed")), str(status.get("reason") or status.get("evaluationError") or "")


def review_pool(source) -> Any:
    """A urllib3 pool with the kubernetes client's connection settings (access reviews are
    questions sent as POST, so they do not go through ``KubeSource``, which only GETs)."""
    from kubernetes import client

    return client.ApiClient(source.connection.configuration).rest_client.pool_manager


def predict(collectors: Sequence[Collector], scope: Scope, decide: Callable[[Access, str | None], tuple[bool, str]]) -> list[Verdict]:
    """A verdict per collector from ``decide(access, namespace)`` answers."""
    namespaces: list[str | None] = [None] if scope.all_namespaces else list(scope.namespaces)
    verdicts = []
    cache: dict[tuple[Access, str | None], tuple[bool, str]] = {}
    for collector in collectors:
        verdict = Verdict(collector.name, "ok")
        for access in collector.access:
            where = [None] if not access.namespaced else namespaces
            for ns in where:
                key = (access, ns)
                if key not in cache:
                    cache[key] = decide(access, ns)
                allowed, reason = cache[key]
                label = f"{access.describe()}{' in ' + ns if ns else ' (cluster-wide)'}"
                (verdict.allowed if allowed else verdict.denied).append(label + ("" if allowed or not reason else f": {reason}"))
        if verdict.denied:
            verdict.outcome = "skipped" if not verdict.allowed else "partial"
        verdicts.append(verdict)
    return verdicts


def run_check(source, scope: Scope, collectors: Sequence[Collector] = COLLECTORS) -> list[Verdict]:
    """Verdicts for ``collectors``; access to API groups this cluster does not serve is not asked."""
    served = set(source.discovery())
    kept = []
    for collector in collectors:
        clone = Collector()
        clone.name = collector.name
        clone.access = tuple(a for a in collector.access if a.group in served)
        kept.append(clone)
    try:
        pool = review_pool(source)
        return predict(kept, scope, lambda access, ns: ask(source, access, ns, pool))
    except CallError as exc:
        raise CollectorError(f"cannot check access: {exc}") from None
