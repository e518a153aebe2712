"""API-server proxy replay: ``GET .../pods|services/{name[:port]}/proxy/{path}`` and
``/api/v1/nodes/{name[:port]}/proxy/{path}`` answer with the bodies in raw/scrapes.

A request matches recordings whose ``url`` (its path, for a full URL) equals, in order:
the request path with its query, the request path, or the request path with scheme and port
dropped from the name segment (``http:dcgm-abc:9400`` -> ``dcgm-abc``). Successive calls to
the same matched key return successive recordings (oldest first), then the last again.
"""

from __future__ import annotations

from dataclasses import dataclass

from k10s_forensics.serve.store import Store


@dataclass
class ProxyAnswer:
    status: int
    body: str
    content_type: str = "text/plain; charset=utf-8"
    error: str | None = None


def content_type_of(source: str | None, body: str) -> str:
    if source == "dcgm-exporter":
        return "text/plain; version=0.0.4; charset=utf-8"
    if body.lstrip().startswith(("{", "[")):
        return "application/json"
    return "text/plain; charset=utf-8"


def proxy_replay(store: Store, path_with_query: str) -> ProxyAnswer | None:
    """The next recorded answer for this proxy path, or None when nothing was recorded."""
    found = store.scrape_for(path_with_query)
    if found is None:
        return None
    key, recordings = found
    row = store.scrape_cursors.take(key, recordings)
    body, status, error = row.get("body") or "", row.get("status"), row.get("error")
    if error and not status:
        return ProxyAnswer(503, "", error=f"error trying to reach service: {error}")
    return ProxyAnswer(int(status or 200), body, content_type_of(row.get("source"), body))


def proxy_forward(upstreams: dict[str, str], path_with_query: str, timeout_s: float = 60.0) -> ProxyAnswer | None:
    """GET a live upstream for a proxy path that starts with one of ``upstreams``' prefixes
    (``{"/api/v1/namespaces/monitoring/services/prometheus-k8s:9090/proxy": "http://127.0.0.1:9090"}``),
    as the API server's service proxy does; None when no prefix matches. For tests that put a
    real service (a real Prometheus) behind the served API server."""
    import urllib.error
    import urllib.request

    for prefix, base in upstreams.items():
        if path_with_query.startswith(prefix):
            url = base.rstrip("/") + path_with_query[len(prefix):]
            try:
                with urllib.request.urlopen(url, timeout=timeout_s) as resp:
                    body = resp.read().decode("utf-8", errors="replace")
                    return ProxyAnswer(resp.status, body, resp.headers.get("Content-Type") or content_type_of(None, body))
            except urllib.error.HTTPError as exc:
                body = exc.read().decode("utf-8", errors="replace")
                return ProxyAnswer(exc.code, body, content_type_of(None, body))
            except OSError as exc:
                return ProxyAnswer(503, "", error=f"error trying to reach service: {exc}")
    return None


__all__ = ["ProxyAnswer", "proxy_replay", "proxy_forward"]
