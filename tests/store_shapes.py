"""What a user brings from a node's own files, a log collector's console or a log store, made from one recorded run
(tests/data/torch-runs): the fifth family beside ``export_shapes`` (log pipelines), ``launcher_shapes``,
``job_shapes`` and ``session_shapes``. ``shapes(node_texts, nproc)`` gives, per shape, the files a user would hand to
``k10s import-logs`` (``[(relative path, text or bytes)]``). Deterministic. Pods, container and namespace as
``export_shapes`` names them (``train-master-0``, ``train-worker-<i>``; ``pytorch``; ``team-a``); node ``i`` is
``gpu-node-<i>``. Formats (each from the tool's docs or source; searched, not copied):

* a node's pod log folder as kubelet keeps it after rotation, attached as ``tar czf`` of
  ``/var/log/pods/<ns>_<pod>_<uid>/`` from each node (one ``gpu-node-<i>-pods.tar.gz`` per node): the CRI lines
  (``<RFC 3339 nano> stdout|stderr P|F <line>``; the program's prints on ``stdout``, tracebacks, warnings and the
  agent's log records on ``stderr``), the file rotated twice (kubelet's ``<log>.<YYYYMMDD-hhmmss>`` suffix, the
  older rotated file compressed, ``.gz``), ``0.log`` the newest part;
* Fluent Bit's ``stdout`` output in its default ``msgpack`` format (Fluent Bit 2.1+: ``[<n>] <tag>: [[<epoch
  s.ns>, {}], {"key"=>"value", …}]``; the tail input's tag ``kube.var.log.containers.<pod>_<ns>_<container>-<id>.log``,
  the CRI multiline parser's ``time``, ``stream``, ``_p``, ``log``, then the kubernetes filter's map; strings printed
  as they are, unescaped), as ``kubectl logs`` of the Fluent Bit pod shows it: every node's agent's lines, here the
  collectors of all the nodes one after the other;
* Vector's ``kubernetes_logs`` source through a ``console`` sink with ``encoding.codec = "json"``: one JSON object
  a line (``file``, ``kubernetes.{container_name, pod_name, pod_namespace, pod_node_name, pod_uid, …}``,
  ``message``, ``source_type``, ``stream``, ``timestamp``);
* an Elasticsearch ``_search`` response (``sort=@timestamp:desc``) over Filebeat's ECS documents (``@timestamp``,
  ``message``, ``stream``, ``log.file.path``, ``kubernetes.pod.name``, ``kubernetes.container.name``,
  ``kubernetes.namespace``, ``kubernetes.node.name``, ``host.name``, ``input.type: container``), newest first;
* Splunk's "Export results" CSV of an event search over the Splunk OpenTelemetry Collector for Kubernetes' events
  (``_raw``, ``_time`` ISO 8601 with milliseconds and offset, ``host`` the node, ``index``, ``linecount``,
  ``source`` the pod's CRI file ``/var/log/pods/<ns>_<pod>_<uid>/<container>/0.log``, ``sourcetype``
  ``kube:container:<container>``, ``splunk_server``): no pod column, newest first;
* ``aws logs tail /aws/containerinsights/<cluster>/application`` (the AWS CLI's default ``--format detailed``:
  ``<ISO time, microseconds, +00:00> <log stream> <message>``, the message right-stripped; Container Insights'
  Fluent Bit streams ``<host>-application.var.log.containers.<pod>_<ns>_<container>-<id>.log`` and its JSON record
  ``{"time", "stream", "_p", "log", "kubernetes": {…}}`` as the message);
* ``gcloud logging read`` with its default format, YAML: ``---`` before every entry (``insertId``, ``labels``,
  ``logName``, ``receiveTimestamp``, ``resource.labels.pod_name`` …, ``severity``, ``textPayload``,
  ``timestamp``), newest first.
"""

from __future__ import annotations

import csv
import gzip
import io
import json
import re
import tarfile

import yaml

from export_shapes import CONTAINER, NS, _dt, _hex, _ns, _parts, entries, pod_name
from launcher_shapes import _fixed_gzip, _join

_EPOCH_S = 1795867200  # tar members' mtime: 2026-11-28T08:00:00Z
#: what a program writes to stderr: tracebacks, warnings, logging records, the torchrun agent's glog lines
_STDERR = re.compile(r"Traceback|Error|Exception|Warning|WARNING|ERROR|^\s*File \"|^\s+\^|^[IWEF]\d{4} |\[[IWEF]\d{4}|"
                     r"^(?:\[default\d+\]:)?(?:\[rank\d+\]:)?\s*(?:raise|File|\w+Error)")


def _stream(line: str) -> str:
    return "stderr" if _STDERR.search(line) else "stdout"


def _uid(node: int) -> str:
    h = _hex(pod_name(node), 32)
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def _cri_rows(rows) -> str:
    out = []
    for t, line in rows:
        parts, stream = _parts(line), _stream(line)
        out += [f"{t} {stream} {'F' if i == len(parts) - 1 else 'P'} {p}" for i, p in enumerate(parts)]
    return _join(out)


def _suffix(t: str) -> str:
    return _dt(t).strftime("%Y%m%d-%H%M%S")  # kubelet: <log>.<YYYYMMDD-hhmmss> (Go's 20060102-150405)


def tar_gz(files: list[tuple[str, bytes]]) -> bytes:
    """A gzipped tar of ``files`` (path, bytes), its bytes the same every time (fixed times and modes)."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz", format=tarfile.PAX_FORMAT) as tar:
        for path, data in files:
            info = tarfile.TarInfo(path)
            info.size, info.mtime, info.mode = len(data), _EPOCH_S, 0o640
            tar.addfile(info, io.BytesIO(data))
    return _fixed_gzip(buf.getvalue())


def cri_rotated(es, nodes: int) -> list[tuple[str, bytes]]:
    out = []
    for node in range(nodes):
        rows = [(t, line) for t, n, line in es if n == node]
        a, b = len(rows) // 3, 2 * len(rows) // 3
        folder = f"var/log/pods/{NS}_{pod_name(node)}_{_uid(node)}/{CONTAINER}"
        files = []
        if a:
            files.append((f"{folder}/0.log.{_suffix(rows[a - 1][0])}.gz", _fixed_gzip(gzip.compress(_cri_rows(rows[:a]).encode(), mtime=0))))
        if b > a:
            files.append((f"{folder}/0.log.{_suffix(rows[b - 1][0])}", _cri_rows(rows[a:b]).encode()))
        files.append((f"{folder}/0.log", _cri_rows(rows[b:]).encode()))
        out.append((f"gpu-node-{node}-pods.tar.gz", tar_gz(files)))
    return out


def _k8s(node: int) -> dict:
    pod = pod_name(node)
    return {"pod_name": pod, "namespace_name": NS, "pod_id": _uid(node), "labels": {"training.kubeflow.org/job-name": "train"},
            "host": f"gpu-node-{node}", "container_name": CONTAINER, "docker_id": _hex(pod, 64),
            "container_hash": "docker.io/pytorch/pytorch@sha256:" + _hex("image", 64), "container_image": "docker.io/pytorch/pytorch:2.13.0"}


def _msgpack(value) -> str:
    """msgpack_object_print's rendering: maps ``{"k"=>v, …}``, strings as they are between quotes (no escaping)."""
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_msgpack(k)}=>{_msgpack(v)}" for k, v in value.items()) + "}"
    return f'"{value}"' if isinstance(value, str) else str(value)


def _tag(node: int) -> str:
    return f"var.log.containers.{pod_name(node)}_{NS}_{CONTAINER}-{_hex(pod_name(node), 64)}.log"


def fluentbit_stdout(es, nodes: int) -> str:
    rows = []
    for node in range(nodes):  # each node's collector, as ``kubectl logs -l app.kubernetes.io/name=fluent-bit`` prints them
        chunk = 0
        for t, n, line in es:
            if n != node:
                continue
            rec = {"time": t, "stream": _stream(line), "_p": "F", "log": line, "kubernetes": _k8s(n)}
            ns = _ns(t)
            rows.append(f"[{chunk}] kube.{_tag(n)}: [[{ns // 1_000_000_000}.{ns % 1_000_000_000:09d}, {{}}], {_msgpack(rec)}]")
            chunk = (chunk + 1) % 4  # the index within a flushed chunk
    return _join(rows)


def vector_json(es) -> str:
    rows = []
    for t, n, line in es:
        pod = pod_name(n)
        rows.append(json.dumps({"file": f"/var/log/pods/{NS}_{pod}_{_uid(n)}/{CONTAINER}/0.log",
                                "kubernetes": {"container_id": "containerd://" + _hex(pod, 64), "container_image": "docker.io/pytorch/pytorch:2.13.0",
                                               "container_name": CONTAINER, "namespace_labels": {"kubernetes.io/metadata.name": NS},
                                               "node_labels": {"kubernetes.io/hostname": f"gpu-node-{n}"}, "pod_ip": f"10.0.{n}.7",
                                               "pod_ips": [f"10.0.{n}.7"], "pod_labels": {"training.kubeflow.org/job-name": "train"},
                                               "pod_name": pod, "pod_namespace": NS, "pod_node_name": f"gpu-node-{n}",
                                               "pod_owner": "PyTorchJob/train", "pod_uid": _uid(n)},
                                "message": line, "source_type": "kubernetes_logs", "stream": _stream(line),
                                "timestamp": t}, separators=(",", ":")))
    return _join(rows)


def _ms_iso(t: str) -> str:
    d = _dt(t)
    return d.strftime("%Y-%m-%dT%H:%M:%S.") + f"{d.microsecond // 1000:03d}Z"


def elasticsearch(es) -> str:
    hits = []
    for i, (t, n, line) in enumerate(reversed(es)):
        pod = pod_name(n)
        source = {"@timestamp": _ms_iso(t), "agent": {"type": "filebeat", "version": "8.15.0", "name": f"filebeat-{_hex(str(n), 5)}"},
                  "container": {"id": _hex(pod, 64), "image": {"name": "docker.io/pytorch/pytorch:2.13.0"}, "runtime": "containerd"},
                  "ecs": {"version": "8.0.0"}, "host": {"name": f"gpu-node-{n}"}, "input": {"type": "container"},
                  "kubernetes": {"container": {"name": CONTAINER}, "labels": {"training_kubeflow_org/job-name": "train"},
                                 "namespace": NS, "node": {"name": f"gpu-node-{n}"}, "pod": {"name": pod, "uid": _uid(n)}},
                  "log": {"file": {"path": f"/var/log/containers/{pod}_{NS}_{CONTAINER}-{_hex(pod, 64)}.log"}, "offset": 131 * i},
                  "message": line, "stream": _stream(line)}
        hits.append({"_index": ".ds-filebeat-8.15.0-2026.11.28-000001", "_id": _hex(f"{t}{n}{line}", 20), "_score": None,
                     "_source": source, "sort": [_ns(t) // 1_000_000]})
    doc = {"took": 42, "timed_out": False, "_shards": {"total": 1, "successful": 1, "skipped": 0, "failed": 0},
           "hits": {"total": {"value": len(hits), "relation": "eq"}, "max_score": None, "hits": hits}}
    return json.dumps(doc, indent=2)


def _splunk_time(t: str) -> str:
    d = _dt(t)
    return d.strftime("%Y-%m-%dT%H:%M:%S.") + f"{d.microsecond // 1000:03d}+00:00"


def splunk_csv(es) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["_raw", "_time", "host", "index", "linecount", "source", "sourcetype", "splunk_server"])
    for t, n, line in reversed(es):
        w.writerow([line, _splunk_time(t), f"gpu-node-{n}", "k8s_logs", "1", f"/var/log/pods/{NS}_{pod_name(n)}_{_uid(n)}/{CONTAINER}/0.log",
                    f"kube:container:{CONTAINER}", "idx-1"])
    return buf.getvalue()


def aws_tail(es) -> str:
    rows = []
    for t, n, line in es:
        d = _dt(t)
        message = json.dumps({"time": t, "stream": _stream(line), "_p": "F", "log": line, "kubernetes": _k8s(n)}, separators=(",", ":"))
        rows.append(f"{d.isoformat(timespec='microseconds')} gpu-node-{n}-application.{_tag(n)} {message}".rstrip())
    return _join(rows)


def gcloud_yaml(es) -> str:
    out = []
    for t, n, line in reversed(es):
        entry = {"insertId": _hex(f"{t}{n}{line}", 16), "labels": {"compute.googleapis.com/resource_name": f"gpu-node-{n}",
                 "k8s-pod/training_kubeflow_org/job-name": "train"}, "logName": "projects/lab/logs/stderr" if _stream(line) == "stderr"
                 else "projects/lab/logs/stdout", "receiveTimestamp": t, "resource": {"labels": {"cluster_name": "gpu", "container_name": CONTAINER,
                 "location": "us-central1", "namespace_name": NS, "pod_name": pod_name(n), "project_id": "lab"}, "type": "k8s_container"},
                 "severity": "ERROR" if _stream(line) == "stderr" else "INFO", "textPayload": line, "timestamp": t}
        out.append(yaml.safe_dump(entry, explicit_start=True, default_flow_style=False, allow_unicode=True))
    return "".join(out)


SHAPES = ("cri-rotated-tar", "fluentbit-stdout", "vector-json", "elasticsearch-search-json", "splunk-csv", "aws-logs-tail", "gcloud-yaml")


def shapes(node_texts: list[str], nproc: int = 1) -> dict[str, list[tuple[str, str | bytes]]]:
    """Every shape of ``SHAPES`` for the node logs ``node_texts`` (node 0 first)."""
    es, nodes = entries(node_texts), len(node_texts)
    return {
        "cri-rotated-tar": cri_rotated(es, nodes), "fluentbit-stdout": [("fluent-bit.log", fluentbit_stdout(es, nodes))],
        "vector-json": [("vector.log", vector_json(es))], "elasticsearch-search-json": [("search.json", elasticsearch(es))],
        "splunk-csv": [("splunk-results.csv", splunk_csv(es))], "aws-logs-tail": [("tail.log", aws_tail(es))],
        "gcloud-yaml": [("gcloud-logging.yaml", gcloud_yaml(es))],
    }


__all__ = ["SHAPES", "shapes"]
