"""``k10s capture --check``: Prometheus-compatible services the API server can proxy to.

Lists Services in the namespaces where monitoring stacks usually live and keeps those whose
name says Prometheus, Thanos Query, Mimir/Cortex or VictoriaMetrics, with the
``--prometheus`` service-proxy path to use. Reading only: one service list per namespace.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from k10s_forensics.capture.retry import CallError

NAMESPACES = ("monitoring", "kube-prometheus-stack", "openshift-monitoring", "prometheus")
NAME = re.compile(r"prometheus|thanos-quer|mimir|cortex|vmselect|victoria-metrics|vmsingle", re.I)
#: service names that are never the query API (exporters, operator, alertmanager)
NOT_QUERY = re.compile(r"operator|node-exporter|kube-state|alertmanager|pushgateway|blackbox|adapter|exporter", re.I)
WEB_PORTS = ("web", "http-web", "http", "https", "http-query", "query", "api")


@dataclass
class Found:
    namespace: str
    service: str
    port: str
    https: bool

    @property
    def proxy_path(self) -> str:
        scheme = "https:" if self.https else ""
        return f"/api/v1/namespaces/{self.namespace}/services/{scheme}{self.service}:{self.port}/proxy"


def _port(service: dict) -> tuple[str, bool] | None:
    ports = (service.get("spec") or {}).get("ports") or []
    if not ports:
        return None
    by_name = {str(p.get("name") or ""): p for p in ports}
    chosen = next((by_name[n] for n in WEB_PORTS if n in by_name), ports[0])
    name = str(chosen.get("name") or "")
    return str(chosen.get("port")), name.startswith("https") or chosen.get("port") in (9091, 443)


def find_prometheus(source, namespaces: tuple[str, ...] = NAMESPACES) -> tuple[list[Found], list[str]]:
    """(services found, namespaces that could not be listed with the reason)."""
    found, problems = [], []
    for ns in namespaces:
        try:
            for _doc, items in source.list(f"/api/v1/namespaces/{ns}/services"):
                for svc in items:
                    name = (svc.get("metadata") or {}).get("name") or ""
                    port = _port(svc)
                    if NAME.search(name) and not NOT_QUERY.search(name) and port:
                        found.append(Found(ns, name, port[0], port[1]))
        except CallError as exc:
            if exc.kind != "not-found" and exc.status != 404:
                problems.append(f"{ns}: {exc}")
    return found, problems


__all__ = ["find_prometheus", "Found", "NAMESPACES"]
