"""What real monitoring setups hand k10s, made from one simulated bundle (its dcgm-exporter scrapes).

``make(src, dst, shape)`` copies a simulated bundle and rewrites its GPU metrics the way one
monitoring setup would have kept them; nvidia-smi and dmesg are dropped so the metrics are the
only GPU evidence. Deterministic: the same bundle and shape give the same bytes.

Exporter scrapes (``source=dcgm-exporter``, read live by capture):

* ``exporter-4x``: dcgm-exporter >= 3.3.6 labels ``DCGM_FI_DEV_XID_ERRORS`` with ``err_code``/``err_msg``
  (NVIDIA/dcgm-exporter#309);
* ``unattributed``: the pod-resources socket not mounted, or ``--kubernetes-gpu-id-type`` not matching
  the device plugin (GKE names devices ``nvidia0``): ``container=""``, ``namespace=""``, ``pod=""``;
* ``default-counters-30s``: dcgm-exporter's ``etc/default-counters.csv`` (no DCGM_FI_PROF_*, no clock
  event reasons, no FB_RESERVED), scraped every 30 s;
* ``operator-dcp-60s``: the GPU Operator's ``dcp-metrics-included.csv`` (GR_ENGINE, PIPE_TENSOR,
  DRAM active; ``DCGM_FI_PROF_SM_ACTIVE`` commented out; no clock event reasons), every 60 s.

Prometheus history (``source=prometheus-query`` answers as ``capture --prometheus`` stores them; the
live dcgm scrapes gone):

* ``kube-prometheus-30s``: the default ServiceMonitor (``honorLabels: false``): workload in
  ``exported_*``, ``pod``/``namespace``/``container`` the exporter's, ``Hostname`` its pod; 30 s
  interval, each target at its own offset;
* ``gmp``: Google Managed Prometheus (GKE managed DCGM): target labels ``project_id``, ``location``,
  ``cluster``, ``namespace``, ``job``, ``instance`` = ``<exporter pod>:<port name>``; only the
  exporter's ``namespace`` collides (-> ``exported_namespace``), ``pod``/``container`` stay the workload's;
  30 s; ``gmp-pods-gone``: the same with the job's pods, logs and execs gone (kube-state-metrics
  allow-listed, scraped with its own labels kept);
* ``victoriametrics``: honour labels; answers carry ``isPartial`` and ``stats``;
  ``-dedup.minScrapeInterval=60s`` keeps the last sample of each 60 s;
* ``thanos-replicas``: Thanos Querier with deduplication off over an HA pair: every series twice
  (``prometheus_replica``), 4.3 s apart; one answer partial (a store down: one replica missing, a warning);
* ``pods-gone-ksm-default``: kube-prometheus 30 s, the job's pods, logs and execs gone, kube-state-metrics
  without a label allow-list (``kube_pod_labels`` carries no ``label_*``);
* ``pods-gone-unattributed``: honour labels, the exporter attributed no pod, the job's pods gone:
  nothing ties a GPU to a rank (no culprit rank may be named).
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
from collections import defaultdict
from pathlib import Path
from urllib.parse import urlencode

import pyarrow as pa
import pyarrow.parquet as pq

from k10s_forensics.capture import promplan as plan
from k10s_forensics.simulate.prom_history import exporters
from k10s_forensics.simulate.prom_ksm import ksm_lines
from k10s_forensics.store.bundle import RAW_SCHEMAS, Bundle, parse_iso
from k10s_forensics.collectors.prometheus import METRICS as QUERIED

SCRAPE_SHAPES = ("exporter-4x", "unattributed", "default-counters-30s", "operator-dcp-60s")
HISTORY_SHAPES = ("kube-prometheus-30s", "gmp", "gmp-pods-gone", "victoriametrics", "thanos-replicas", "pods-gone-ksm-default",
                  "pods-gone-unattributed")
SHAPES = SCRAPE_SHAPES + HISTORY_SHAPES
PODS_GONE = frozenset({"gmp-pods-gone", "pods-gone-ksm-default", "pods-gone-unattributed"})
#: shapes in which no GPU can be tied to a rank: a culprit rank named there is a false one
NO_RANK = frozenset({"pods-gone-unattributed"})
PROM = "http://prometheus.monitoring.svc:9090"
DEFAULT_COUNTERS = frozenset({"DCGM_FI_DEV_SM_CLOCK", "DCGM_FI_DEV_MEM_CLOCK", "DCGM_FI_DEV_MEMORY_TEMP", "DCGM_FI_DEV_GPU_TEMP",
                              "DCGM_FI_DEV_POWER_USAGE", "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", "DCGM_FI_DEV_PCIE_REPLAY_COUNTER",
                              "DCGM_FI_DEV_GPU_UTIL", "DCGM_FI_DEV_MEM_COPY_UTIL", "DCGM_FI_DEV_XID_ERRORS",
                              "DCGM_FI_DEV_FB_FREE", "DCGM_FI_DEV_FB_USED"})
DCP_COUNTERS = DEFAULT_COUNTERS | {"DCGM_FI_PROF_GR_ENGINE_ACTIVE", "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE", "DCGM_FI_PROF_DRAM_ACTIVE"}
XID_TEXT = {0: "", 79: "GPU has fallen off the bus", 48: "DBE (Double Bit Error) ECC Error", 13: "Graphics Engine Exception"}
WORKLOAD = ("pod", "namespace", "container")
_LINE = re.compile(r"^([a-zA-Z_:][a-zA-Z0-9_:]*)\{(.*)\} (\S+)$")
_LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"')
_OM = re.compile(r"^([a-zA-Z_:][a-zA-Z0-9_:]*)\{(.*)\} (\S+) (\S+)$")


def _offset(key: str, span: float) -> float:
    """A stable offset in [0, span) for a scrape target (Prometheus spreads targets over the interval)."""
    return int(hashlib.sha256(key.encode()).hexdigest()[:8], 16) % int(span * 1000) / 1000.0


def _lines(body: str):
    for line in body.splitlines():
        m = _LINE.match(line)
        if m:
            yield m.group(1), dict(_LABEL.findall(m.group(2))), m.group(3)


def _render(name: str, labels: dict[str, str], value: str) -> str:
    return name + "{" + ",".join(f'{k}="{v}"' for k, v in labels.items()) + "} " + value


def _every(rows: list[dict], k: int) -> list[dict]:
    """Every k-th scrape of each node (a longer scrape interval)."""
    seen: dict[str, int] = defaultdict(int)
    out = []
    for r in sorted(rows, key=lambda r: (r["node"], r["captured_at"])):
        if seen[r["node"]] % k == 0:
            out.append(r)
        seen[r["node"]] += 1
    return out


def _scrape_line(shape: str, name: str, labels: dict[str, str], value: str) -> str | None:
    if shape == "exporter-4x" and name == "DCGM_FI_DEV_XID_ERRORS":
        code = int(float(value))
        labels = {**labels, "err_code": str(code), "err_msg": XID_TEXT.get(code, "")}
    elif shape == "unattributed":
        labels = {**labels, **{k: "" for k in WORKLOAD}}
    elif shape == "default-counters-30s" and name not in DEFAULT_COUNTERS:
        return None
    elif shape == "operator-dcp-60s" and name not in DCP_COUNTERS:
        return None
    return _render(name, labels, value)


def scrape_rows(shape: str, rows: list[dict]) -> list[dict]:
    keep = {"default-counters-30s": 3, "operator-dcp-60s": 6}.get(shape, 1)
    out = []
    for r in _every(rows, keep):
        if r["status"] == 200 and r["body"]:
            text = [_scrape_line(shape, *parts) for parts in _lines(r["body"])]
            r = {**r, "body": "\n".join(t for t in text if t) + "\n"}
        out.append(r)
    return out


def _relabel(shape: str, labels: dict[str, str], exp) -> dict[str, str]:
    """Labels as the shape's server stores them (empty values dropped, as Prometheus does)."""
    out = {k: v for k, v in labels.items() if v != ""}
    if shape in ("kube-prometheus-30s", "thanos-replicas", "pods-gone-ksm-default"):
        out = {k: v for k, v in out.items() if k not in ("Hostname", "hostname")}
        for key in WORKLOAD:
            if key in out:
                out[f"exported_{key}"] = out.pop(key)
        out.update(pod=exp.name, namespace=exp.namespace, container="nvidia-dcgm-exporter", service="nvidia-dcgm-exporter",
                   endpoint="gpu-metrics", Hostname=exp.name, instance=f"{exp.ip}:9400", job="nvidia-dcgm-exporter")
        if shape == "thanos-replicas":
            out["prometheus"] = "monitoring/k8s"
    elif shape.startswith("gmp"):
        if "namespace" in out:
            out["exported_namespace"] = out.pop("namespace")
        out.update(namespace=exp.namespace, job="dcgm-exporter", instance=f"{exp.name}:metrics", cluster="gpu-cluster",
                   location="us-central1", project_id="k10s-test")
    else:  # victoriametrics, pods-gone-unattributed: honour labels
        if shape == "pods-gone-unattributed":
            out = {k: v for k, v in out.items() if k not in WORKLOAD}
        out.update(instance=f"{exp.ip}:9400", job="dcgm-exporter")
    return out


def _history_series(shape: str, bundle: Bundle, rows: list[dict]) -> dict[str, dict[tuple, list]]:
    """metric -> label tuple -> [(time, value)] as the server holds them."""
    interval = {"kube-prometheus-30s": 3, "gmp": 3, "gmp-pods-gone": 3, "pods-gone-ksm-default": 3}.get(shape, 1)
    by_pod = exporters(bundle)
    out: dict[str, dict[tuple, list]] = defaultdict(lambda: defaultdict(list))
    for r in _every([r for r in rows if r["status"] == 200 and r["body"]], interval):
        exp = by_pod[r["url"].rsplit("/pods/", 1)[1].split(":", 1)[0]]
        at = r["captured_at"].timestamp() + _offset(exp.name, 10.0 * interval)
        for name, labels, value in _lines(r["body"]):
            if name not in QUERIED:
                continue
            key = tuple(sorted(_relabel(shape, labels, exp).items()))
            if shape == "thanos-replicas":
                for i, shift in enumerate((0.0, 4.3)):
                    out[name][key + (("prometheus_replica", f"prometheus-k8s-{i}"),)].append((round(at + shift, 3), value))
            else:
                out[name][key].append((round(at, 3), value))
    if shape == "victoriametrics":  # dedup: the last sample of each 60 s
        for series in out.values():
            for key, points in series.items():
                last = {int(t // 60): (t, v) for t, v in sorted(points)}
                series[key] = [last[b] for b in sorted(last)]
    return out


def _answer(shape: str, metric: str, series: dict[tuple, list], partial: bool) -> str:
    result = [{"metric": {"__name__": metric, **dict(key)}, "values": [[t, v] for t, v in sorted(points)]}
              for key, points in sorted(series.items()) if not (partial and dict(key).get("prometheus_replica", "").endswith("-1"))]
    doc: dict = {"status": "success", "data": {"resultType": "matrix", "result": result}}
    if shape == "victoriametrics":
        doc = {"status": "success", "isPartial": False, "data": doc["data"], "stats": {"seriesFetched": str(len(result)), "executionTimeMsec": 2}}
    if partial:
        doc["warnings"] = ["No StoreAPIs matched for this query (store prometheus-k8s-1 unavailable)"]
    return json.dumps(doc, separators=(",", ":"))


def _ksm_series(bundle: Bundle, pod_labels: bool) -> dict[str, dict[tuple, list]]:
    out: dict[str, dict[tuple, list]] = defaultdict(lambda: defaultdict(list))
    for name, line in ksm_lines(bundle, 30.0, pod_labels):
        m = _OM.match(line)
        key = tuple(sorted((k, v.replace('\\"', '"').replace("\\\\", "\\")) for k, v in _LABEL.findall(m.group(2))))
        out[name][key].append((float(m.group(4)), m.group(3)))
    return out


def history_rows(shape: str, bundle: Bundle, rows: list[dict]) -> list[dict]:
    window = bundle.manifest["window"]
    start, end = parse_iso(window["start"]).timestamp() - 60, parse_iso(window["end"]).timestamp() + 60
    at = parse_iso(window["end"])
    families = dict(_history_series(shape, bundle, rows))
    if shape in PODS_GONE:
        families.update(_ksm_series(bundle, pod_labels=shape != "pods-gone-ksm-default"))
    out = []
    for i, metric in enumerate(sorted(families)):
        uuids = sorted({dict(k).get("UUID") for k in families[metric]} - {None})
        matchers = {"UUID": uuids} if uuids else None
        query = plan.instant_params(plan.raw_query(metric, matchers, start, end), end, 10)
        partial = shape == "thanos-replicas" and metric == "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE"
        out.append({"captured_at": at, "source": "prometheus-query", "node": None, "url": f"{PROM}/api/v1/query?{urlencode(query)}",
                    "status": 200, "body": _answer(shape, metric, families[metric], partial), "error": None})
    return out


def _write(path: Path, name: str, rows: list[dict]) -> None:
    pq.write_table(pa.Table.from_pylist(rows, schema=RAW_SCHEMAS[name]), path / f"{name}.parquet", compression="zstd")


def make(src: str | Path, dst: str | Path, shape: str) -> Path:
    """A copy of the simulated bundle ``src`` at ``dst`` whose GPU metrics look as ``shape`` keeps them."""
    if shape not in SHAPES:
        raise ValueError(f"unknown shape {shape!r}; choose one of {', '.join(SHAPES)}")
    src, dst = Path(src), Path(dst)
    shutil.copytree(src, dst, ignore=shutil.ignore_patterns("tables", "*.lock"))
    bundle = Bundle.open(dst)
    raw = dst / "raw"
    job_ns = {j.split("/")[0] for j in (bundle.manifest.get("scope") or {}).get("jobs") or []} if shape in PODS_GONE else set()
    scrapes = pq.read_table(raw / "scrapes.parquet").to_pylist()
    if shape in SCRAPE_SHAPES:
        scrapes = [r for r in scrapes if r["source"] != "dcgm-exporter"] + scrape_rows(shape, [r for r in scrapes if r["source"] == "dcgm-exporter"])
    else:
        scrapes = [r for r in scrapes if r["source"] != "dcgm-exporter"] + history_rows(shape, bundle, [r for r in scrapes if r["source"] == "dcgm-exporter"])
        bundle.manifest["history"] = {"source": "prometheus", "url": PROM, "start": bundle.manifest["window"]["start"],
                                      "end": bundle.manifest["window"]["end"], "not_fetched": []}
        bundle.save_manifest()
    _write(raw, "scrapes", scrapes)
    execs = pq.read_table(raw / "exec.parquet").to_pylist()
    _write(raw, "exec", [r for r in execs if r["source"] not in ("nvidia-smi-xml", "dmesg") and r["namespace"] not in job_ns])
    if job_ns:
        _write(raw, "logs", [r for r in pq.read_table(raw / "logs.parquet").to_pylist() if r["namespace"] not in job_ns])
        objects = pq.read_table(raw / "objects.parquet").to_pylist()
        _write(raw, "objects", [r for r in objects if not (r["kind"] in ("Pod", "Event") and r["namespace"] in job_ns)])
    return dst


#: rules that read GPU metrics: with the pods, logs and execs gone only their findings can still be expected
METRIC_RULES = frozenset({"straggler", "gpu-health", "oom-cascade", "idle-gpu"})
CULPRIT_KEYS = ("ranks", "pods", "nodes", "gpus")


def expected(truth: dict, shape: str) -> list[dict]:
    """The truth's findings this shape can still carry (culprit keys it cannot name left out)."""
    out = [e for e in truth["expected"] if shape not in PODS_GONE or e["rule"] in METRIC_RULES]
    if shape in NO_RANK:
        out = [{k: v for k, v in e.items() if k not in ("ranks", "pods")} for e in out if e["rule"] != "straggler"]
    return out


def judge(truth: dict, result: dict, shape: str) -> str:
    """``right`` (every carried finding, no false one), ``false`` (a wrong culprit or a forbidden rule) or ``nothing``."""
    wanted, forbidden = expected(truth, shape), set(truth.get("forbidden_rules") or [])
    findings = [f for f in result["findings"] if f["severity"] in ("critical", "warning")]
    for f in findings:
        same = [e for e in truth["expected"] if e["rule"] == f["rule"]]
        if not same and (f["rule"] in forbidden or not truth["expected"]):
            return "false"
        if same and not any(all(set(f[k]) <= set(e[k]) for k in CULPRIT_KEYS if e.get(k)) for e in same):
            return "false"  # names a rank, pod, node or GPU the truth does not
    for e in wanted:
        if not any(f["rule"] == e["rule"] and (not e.get("cause") or f["cause"] == e["cause"])
                   and all(sorted(f[k]) == sorted(e[k]) for k in CULPRIT_KEYS if e.get(k)) for f in result["findings"]):
            return "nothing"
    return "right"


__all__ = ["SHAPES", "SCRAPE_SHAPES", "HISTORY_SHAPES", "PODS_GONE", "NO_RANK", "make", "expected", "judge"]
