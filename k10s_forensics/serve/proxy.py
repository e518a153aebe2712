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


__all__ = ["ProxyAnswer", "proxy_replay"]
