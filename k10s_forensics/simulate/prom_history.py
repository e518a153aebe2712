"""A simulated incident's history as Prometheus would hold it: OpenMetrics with timestamps.

``write_history(bundle, out_file, convention)`` turns a simulated bundle's dcgm-exporter
scrapes into DCGM series labelled the way one Prometheus setup stores them, plus
kube-state-metrics series from its Pod and Node objects. Load the file with
``promtool tsdb create-blocks-from openmetrics FILE DATA_DIR`` and start Prometheus on
``DATA_DIR``: ``k10s capture --prometheus`` then reads the incident from a real server.

Conventions (``CONVENTIONS``), what Prometheus stores for one dcgm-exporter series:

* ``honor-labels``: ServiceMonitor ``honorLabels: true``; the exporter's ``pod``/
  ``namespace``/``container`` (the workload) kept; ``instance`` = exporter ``podIP:9400``;
* ``kube-prometheus``: the default ServiceMonitor; workload labels renamed ``exported_*``,
  ``pod``/``namespace``/``container`` = the exporter pod, ``instance`` = its ``podIP:9400``,
  ``Hostname`` = exporter pod name, ``service``/``endpoint``/``job`` of the Service;
* ``node-label``: kube-prometheus plus a relabelled ``node`` label;
* ``kubernetes-node``: honor labels, ``kubernetes_node`` and ``instance`` = node name,
  no ``Hostname``;
* ``hostname``: honor labels, lower-case ``hostname`` = node name;
* ``legacy``: GPU-operator 1.x spellings ``pod_name``/``pod_namespace``/``container_name``
  and lower-case ``uuid``.

Empty label values are dropped, as Prometheus does (an unallocated GPU has no workload).
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from pathlib import Path
from typing import Callable, Iterator

from k10s_forensics.store.bundle import Bundle, read_raw
from k10s_forensics.simulate import constants as C
from k10s_forensics.simulate.prom_ksm import ksm_lines, series_line

CONVENTIONS = ("honor-labels", "kube-prometheus", "node-label", "kubernetes-node", "hostname", "legacy")
_LINE = re.compile(r"^([a-zA-Z_:][a-zA-Z0-9_:]*)\{(.*)\} (\S+)$")
_LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"')
WORKLOAD = ("pod", "namespace", "container")


class Exporter:
    """One dcgm-exporter pod: name, namespace, IP and node (from the captured Pod objects)."""

    def __init__(self, name: str, namespace: str, ip: str, node: str):
        self.name, self.namespace, self.ip, self.node = name, namespace, ip, node


def _scrape_target(labels: dict[str, str], exp: Exporter, honor: bool) -> dict[str, str]:
    out = dict(labels)
    if not honor:
        for key in WORKLOAD:
            if key in out:
                out[f"exported_{key}"] = out.pop(key)
        out.update(pod=exp.name, namespace=exp.namespace, container=C.DCGM_EXPORTER_CONTAINER,
                   service=C.DCGM_EXPORTER_APP, endpoint="gpu-metrics")
    out.update(instance=f"{exp.ip}:{C.DCGM_EXPORTER_PORT}", job=C.DCGM_EXPORTER_APP)
    return out


def _without_hostname(labels: dict[str, str]) -> dict[str, str]:
    return {k: v for k, v in labels.items() if k not in ("Hostname", "hostname")}


def _kube_prometheus(labels: dict[str, str], exp: Exporter) -> dict[str, str]:
    return {**_scrape_target(_without_hostname(labels), exp, honor=False), "Hostname": exp.name}


def _legacy(labels: dict[str, str], exp: Exporter) -> dict[str, str]:
    out = _scrape_target(labels, exp, honor=True)
    renames = {"pod": "pod_name", "namespace": "pod_namespace", "container": "container_name", "UUID": "uuid"}
    return {renames.get(k, k): v for k, v in out.items()}


RELABEL: dict[str, Callable[[dict[str, str], Exporter], dict[str, str]]] = {
    "honor-labels": lambda labels, exp: _scrape_target(labels, exp, honor=True),
    "kube-prometheus": _kube_prometheus,
    "node-label": lambda labels, exp: {**_kube_prometheus(labels, exp), "node": exp.node},
    "kubernetes-node": lambda labels, exp: {**_scrape_target(_without_hostname(labels), exp, honor=True),
                                            "kubernetes_node": exp.node, "instance": exp.node},
    "hostname": lambda labels, exp: {**_scrape_target(_without_hostname(labels), exp, honor=True), "hostname": exp.node},
    "legacy": _legacy,
}


def exporters(bundle: Bundle) -> dict[str, Exporter]:
    """dcgm-exporter pods by name, from the bundle's Pod objects."""
    out: dict[str, Exporter] = {}
    objects = read_raw(bundle, "objects", ["kind", "body"])
    for kind, body in zip(objects.column("kind").to_pylist(), objects.column("body").to_pylist()):
        if kind != "Pod":
            continue
        pod = json.loads(body)
        meta, status = pod["metadata"], pod.get("status") or {}
        if (meta.get("labels") or {}).get("app") == C.DCGM_EXPORTER_APP and status.get("podIP"):
            out[meta["name"]] = Exporter(meta["name"], meta["namespace"], status["podIP"], pod["spec"].get("nodeName", ""))
    return out


def dcgm_lines(bundle: Bundle, convention: str) -> Iterator[tuple[str, str]]:
    """(metric, OpenMetrics line) for every sample of every successful dcgm-exporter scrape."""
    relabel = RELABEL[convention]
    by_pod = exporters(bundle)
    scrapes = read_raw(bundle, "scrapes", ["captured_at", "source", "url", "status", "body"]).to_pylist()
    for row in scrapes:
        if row["source"] != C.SOURCE_DCGM or row["status"] != 200 or not row["body"]:
            continue
        exp = by_pod[row["url"].rsplit("/pods/", 1)[1].split(":", 1)[0]]
        for line in row["body"].splitlines():
            m = _LINE.match(line)
            if m is None:
                continue
            labels = {k: v for k, v in _LABEL.findall(m.group(2))}
            yield m.group(1), series_line(m.group(1), relabel(labels, exp), m.group(3), row["captured_at"])


def write_history(bundle_dir: str | Path, out_file: str | Path, convention: str = "kube-prometheus",
                  ksm: bool = True, ksm_step_s: float = 30.0, ksm_pod_labels: bool = True) -> dict[str, int]:
    """Write the bundle's DCGM (and kube-state-metrics) history as OpenMetrics; returns samples per metric.
    ``ksm_pod_labels=False``: kube-state-metrics without a label allow-list (its default)."""

    if convention not in RELABEL:
        raise ValueError(f"unknown convention {convention!r}; choose one of {', '.join(CONVENTIONS)}")
    bundle = Bundle.open(bundle_dir)
    families: dict[str, list[str]] = defaultdict(list)
    for name, line in dcgm_lines(bundle, convention):
        families[name].append(line)
    if ksm:
        for name, line in ksm_lines(bundle, ksm_step_s, ksm_pod_labels):
            families[name].append(line)
    with open(out_file, "w", encoding="utf-8") as fh:
        for name in sorted(families):
            fh.write(f"# TYPE {name} gauge\n")
            fh.write("\n".join(families[name]))
            fh.write("\n")
        fh.write("# EOF\n")
    return {name: len(lines) for name, lines in families.items()}


__all__ = ["CONVENTIONS", "RELABEL", "series_line", "write_history", "exporters"]
