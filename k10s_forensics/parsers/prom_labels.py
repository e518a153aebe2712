"""Who a Prometheus DCGM series belongs to: the workload pod and the node, whatever the label convention.

How Prometheus was told to scrape dcgm-exporter decides what the labels mean:

* ``honorLabels: true`` keeps the exporter's ``pod``/``namespace``/``container`` (the
  workload holding the GPU);
* kube-prometheus' default ServiceMonitor renames them ``exported_pod``/
  ``exported_namespace``/``exported_container`` and sets ``pod``/``namespace``/``container``
  to the *exporter* pod, ``instance`` to its ``podIP:9400``; ``Hostname`` is often the
  exporter pod's name too;
* relabelled setups add ``node``/``kubernetes_node``/``nodename`` or put the node name in
  ``instance``/``hostname``; older exporters write ``pod_name``/``pod_namespace``/
  ``container_name`` and a lower-case ``uuid``;
* Google Managed Prometheus (GKE's managed DCGM) sets only ``namespace`` (-> the exporter's is
  renamed ``exported_namespace``), ``job``, ``instance`` = ``<exporter pod>:<port name>`` and
  ``cluster``/``location``/``project_id``: ``pod``/``container`` stay the workload's.

Rules (docs/capture.md, "Prometheus history"):

* workload = ``exported_*`` when ``exported_pod`` is present; else ``pod``/``pod_name`` unless it
  names a dcgm-exporter pod (an exporter pod is never reported as a workload), with each of
  namespace and container from its ``exported_*`` label when there is one;
* node = a node label; else ``instance`` (without its port number or name) when it is a known
  node name; else the exporter pod's node (by its name in ``pod`` or ``instance``, or its IP in
  ``instance``; exporter pods are captured objects); else ``Hostname``/``hostname`` when it names a node (or a pod: that pod's node);
  else, in :func:`fill_nodes`, the node another series of the same GPU UUID resolved to.
"""

from __future__ import annotations

import ipaddress
import json
import re
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping

NODE_LABELS = ("node", "kubernetes_node", "nodename")
EXPORTER_APPS = frozenset({"nvidia-dcgm-exporter", "dcgm-exporter"})
#: container names of dcgm-exporter: ``container`` carries one when the scrape named the exporter
EXPORTER_CONTAINERS = EXPORTER_APPS | {"exporter"}
_EXPORTER_NAME = re.compile(r"(^|-)dcgm-exporter(-|$)")
_PORT = re.compile(r":[A-Za-z0-9_-]+$")  # a port number, or a port name (GMP: ``<pod>:<port name>``)


def _host(instance: str | None) -> str | None:
    """``instance`` without its port (and IPv6 brackets)."""
    if not instance:
        return None
    if instance.startswith("["):  # [IPv6]:port
        return instance[1:].split("]", 1)[0] or None
    return (_PORT.sub("", instance) if instance.count(":") == 1 else instance) or None


def _is_ip(text: str) -> bool:
    try:
        ipaddress.ip_address(text)
    except ValueError:
        return False
    return True


def _blank(value: str | None) -> str | None:
    return value if value not in (None, "") else None


@dataclass
class Attribution:
    """Captured pods and nodes that name exporters, IPs and nodes (empty = labels only)."""

    nodes: set[str] = field(default_factory=set)
    pod_node: dict[str, str] = field(default_factory=dict)        # pod name -> node
    exporter_pods: set[str] = field(default_factory=set)          # dcgm-exporter pod names
    ip_node: dict[str, str] = field(default_factory=dict)         # pod or node IP -> node
    ip_exporter: dict[str, str] = field(default_factory=dict)     # exporter pod IP -> its name

    @classmethod
    def build(cls, pods: Iterable[Mapping[str, Any]], nodes: Iterable[Mapping[str, Any]]) -> "Attribution":
        att = cls()
        for n in nodes:
            name = n.get("node")
            if not name:
                continue
            att.nodes.add(name)
            for ip in list(n.get("addresses") or []) + [n.get("internal_ip")]:
                if ip and _is_ip(ip):
                    att.ip_node.setdefault(ip, name)
        for p in pods:
            name, node = p.get("pod"), p.get("node")
            if not name:
                continue
            if node:
                att.pod_node[name] = node
            exporter = cls._pod_is_exporter(p)
            if exporter:
                att.exporter_pods.add(name)
            for ip in [p.get("pod_ip")] + list(p.get("pod_ips") or []):
                if ip and node and not p.get("host_network"):
                    att.ip_node.setdefault(ip, node)
                    if exporter:
                        att.ip_exporter[ip] = name
        return att

    @staticmethod
    def _pod_is_exporter(pod: Mapping[str, Any]) -> bool:
        try:
            labels = json.loads(pod.get("labels_json") or "{}")
        except ValueError:
            labels = {}
        apps = {labels.get("app"), labels.get("app.kubernetes.io/name")}
        return bool(apps & EXPORTER_APPS) or bool(_EXPORTER_NAME.search(pod.get("pod") or ""))

    def is_exporter(self, pod: str | None) -> bool:
        return bool(pod) and (pod in self.exporter_pods or bool(_EXPORTER_NAME.search(pod)))

    def workload(self, labels: Mapping[str, str]) -> tuple[str | None, str | None, str | None]:
        """(namespace, pod, container) of the workload holding the GPU, or Nones.

        Each of the three is read from its ``exported_*`` label when the scrape renamed it, else
        from the plain one: kube-prometheus renames all three, Google Managed Prometheus only the
        ``namespace`` it sets itself (its ``pod``/``container`` stay the workload's).
        """
        pod = _blank(labels.get("exported_pod"))
        if pod is not None:
            return _blank(labels.get("exported_namespace")), pod, _blank(labels.get("exported_container"))
        pod = _blank(labels.get("pod")) or _blank(labels.get("pod_name"))
        container = _blank(labels.get("exported_container")) or _blank(labels.get("container")) or _blank(labels.get("container_name"))
        if pod is None or self.is_exporter(pod) or container in EXPORTER_CONTAINERS:
            return None, None, None
        namespace = (_blank(labels.get("exported_namespace")) or _blank(labels.get("namespace"))
                     or _blank(labels.get("pod_namespace")))
        return namespace, pod, container

    def node(self, labels: Mapping[str, str]) -> str | None:
        """The node of a series (see the module doc for the order); None when nothing says."""
        for key in NODE_LABELS:
            if _blank(labels.get(key)):
                return labels[key]
        host = _host(labels.get("instance"))
        if host and not _is_ip(host) and (host in self.nodes or (not self.nodes and not self.is_exporter(host))):
            return host
        for name in (labels.get("pod"), labels.get("pod_name"), host):  # the exporter pod, when the scrape named it
            if name and self.is_exporter(name) and name in self.pod_node:
                return self.pod_node[name]
        if host and _is_ip(host) and host in self.ip_node:
            return self.ip_node[host]
        hostname = _blank(labels.get("Hostname")) or _blank(labels.get("hostname"))
        if hostname:
            if hostname in self.nodes:
                return hostname
            if hostname in self.pod_node:
                return self.pod_node[hostname]
            if not self.nodes and not self.is_exporter(hostname):
                return hostname
        return None


def fill_nodes(rows: list[dict[str, Any]], by_uuid: dict[str, str]) -> int:
    """Give rows without a node the node ``by_uuid`` (GPU UUID -> node seen in other series) names; returns how many."""
    filled = 0
    for r in rows:
        if not r.get("node") and r.get("gpu_uuid") in by_uuid:
            r["node"] = by_uuid[r["gpu_uuid"]]
            filled += 1
    return filled


__all__ = ["Attribution", "fill_nodes", "NODE_LABELS"]
