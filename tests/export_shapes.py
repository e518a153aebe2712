"""What a user pastes from their log pipeline, made from one recorded run (tests/data/torch-runs).

A recorded run is one ``node<N>.log`` per node, each line ``<RFC 3339 time> <text>`` as ``kubectl
logs --timestamps`` serves it. Its pods are named as ``torch_runs_kit.podlog_run`` names them
(node 0 ``train-master-0``, node i ``train-worker-<i-1>``; container ``pytorch``, namespace
``team-a``). ``shapes(run)`` gives, per shape, the files a user would hand to ``k10s import-logs``
(``[(relative path, text)]``, node order where one file is one node). Deterministic: the same run
gives the same bytes (ids are hashes of the pod's name, never random).

The formats follow each tool's own output (read from their sources and docs, not copied):

* ``kubectl logs -l … --prefix [--timestamps] -f``: ``[pod/<pod>/<container>] [<time> ]<line>``,
  the pods' lines interleaved as they arrive (kubectl/pkg/cmd/logs; the recorded
  ``kubectl-prefix.log`` of the tenth set is the real non-following, pod-after-pod paste);
* stern (stern/stern README and ``cmd``: template ``{{color .PodColor .PodName}} {{color
  .ContainerColor .ContainerName}} {{.Message}}``, the namespace first with ``--all-namespaces``;
  ``--timestamps`` puts the kubelet's RFC 3339 time at the head of the message; the ``+ <pod> ›
  <container>`` lines go to stderr, so a terminal copy has them and ``> file`` does not;
  ``--color always`` wraps pod and container in SGR colour codes);
* Loki ``logcli query`` (grafana/loki docs/logcli.md): ``<RFC 3339, seconds> {labels} <line>``
  with labels padded to one width, ``Common labels: {…}`` and the query URL on stderr, newest
  first (``--direction backward``, the default); ``--output raw`` (the line only; taken with
  ``--forward``: backwards without a time no reader could order it); ``--output jsonl``
  (``{"labels", "line", "timestamp"}``);
* Grafana Explore "Download logs" (grafana/grafana ``inspector/utils/download.ts``
  ``downloadLogsModelAsTxt``: ``<label>: <JSON value>`` meta lines, two blank lines, then
  ``dateTimeFormat(ms, {defaultWithMS})`` = ``YYYY-MM-DD HH:mm:ss.SSS`` (browser zone, here UTC),
  a tab, the line; ``logs/utils.ts`` ``logRowsToReadableJson``: ``[{"line", "timestamp" (epoch ns
  string), "date", "fields"}]``), newest first as Explore shows them;
* the node's own files: CRI (``/var/log/pods/<ns>_<pod>_<uid>/<container>/0.log``, Kubernetes'
  CRI logging format: ``<RFC 3339 nano> <stream> <F|P> <line>``, a line longer than the
  runtime's 16 KiB buffer split into ``P`` parts ended by an ``F`` one) and Docker's json-file
  (``{"log": "<line>\\n", "stream", "time"}``, a long line split without its ``\\n``);
* Fluent Bit's JSON lines (its kubernetes filter: ``{"date", "time", "stream", "_p", "log",
  "kubernetes": {"pod_name", "namespace_name", "pod_id", "labels", "host", "container_name",
  "docker_id", "container_image"}}``) and Fluentd's stdout output (``<time> <tag>: <json>``,
  tag ``kubernetes.var.log.containers.<pod>_<ns>_<container>-<id>.log``; its parser took the
  record's ``time`` for the event's, so the record has none);
* CloudWatch Logs Insights CSV (its default query ``fields @timestamp, @message, @logStream,
  @log | sort @timestamp desc``; ``@message`` is Fluent Bit's JSON record);
* Google Cloud Logging JSON (``gcloud logging read --format=json``: newest first, ``textPayload``,
  ``resource.labels.pod_name`` / ``container_name`` / ``namespace_name``, ``severity``);
* Kibana Discover CSV report (columns chosen ``@timestamp``, ``kubernetes.pod.name``,
  ``kubernetes.container.name``, ``message``; values quoted; Kibana's ``MMM D, YYYY @
  HH:mm:ss.SSS`` dates; newest first, Discover's default sort).
"""

from __future__ import annotations

import csv
import datetime as dt
import hashlib
import io
import json
import re

NS, CONTAINER, JOB = "team-a", "pytorch", "train"
_LINE = re.compile(r"^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z) ?(.*)$")
CRI_MAX_BYTES = 16384
_UTC = dt.timezone.utc
#: stern's colours (fatih/color SGR codes): pod, container
_SGR = ("\x1b[32m", "\x1b[36m")
_RESET = "\x1b[0m"


def pod_name(node: int) -> str:
    return f"{JOB}-master-0" if node == 0 else f"{JOB}-worker-{node - 1}"


def _hex(text: str, n: int) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:n]


def entries(node_texts: list[str]) -> list[tuple[str, int, str]]:
    """(time, node, line) of every node's lines, in time order (ties: node, then the order written)."""
    out = []
    for node, text in enumerate(node_texts):
        for i, raw in enumerate(text.split("\n")):
            m = _LINE.match(raw)
            if m:
                out.append((m.group(1), node, i, m.group(2)))
    out.sort(key=lambda e: (e[0][:19] + (e[0][19:-1] + "000000000")[1:10], e[1], e[2]))
    return [(t, n, line) for t, n, _, line in out]


def _dt(stamp: str) -> dt.datetime:
    frac = (stamp[20:-1] + "000000")[:6] if len(stamp) > 20 else "0"
    return dt.datetime.strptime(stamp[:19], "%Y-%m-%dT%H:%M:%S").replace(microsecond=int(frac), tzinfo=_UTC)


def _ns(stamp: str) -> int:
    base = int(_dt(stamp).replace(microsecond=0).timestamp())
    return base * 1_000_000_000 + int((stamp[20:-1] + "000000000")[:9] if len(stamp) > 20 else 0)


def _ms_text(stamp: str) -> str:
    return _dt(stamp).strftime("%Y-%m-%d %H:%M:%S.") + f"{_dt(stamp).microsecond // 1000:03d}"


def _join(lines: list[str]) -> str:
    return "".join(line + "\n" for line in lines)


def kubectl(es, stamped: bool) -> str:
    return _join(f"[pod/{pod_name(n)}/{CONTAINER}] " + (f"{t} " if stamped else "") + line for t, n, line in es)


def stern(es, nodes: int, *, stamped: bool = False, all_ns: bool = False, color: bool = False, terminal: bool = False) -> str:
    def tag(node: int) -> str:
        pod = f"{_SGR[0]}{pod_name(node)}{_RESET}" if color else pod_name(node)
        cont = f"{_SGR[1]}{CONTAINER}{_RESET}" if color else CONTAINER
        return (f"{_SGR[0]}{NS}{_RESET} " if color and all_ns else f"{NS} " if all_ns else "") + f"{pod} {cont}"
    head = [f"+ {NS + ' ' if all_ns else ''}{pod_name(n)} \u203a {CONTAINER}" for n in range(nodes)] if terminal else []
    return _join(head + [f"{tag(n)} " + (f"{t} " if stamped else "") + line for t, n, line in es])


def _labels(d: dict[str, str]) -> str:
    return "{" + ", ".join(f'{k}="{v}"' for k, v in sorted(d.items())) + "}"


def logcli(es, *, common: bool) -> str:
    rows = []
    fixed = {"container": CONTAINER, "namespace": NS, "job": f"{NS}/{JOB}"}
    per = [{"pod": pod_name(n)} if common else {**fixed, "pod": pod_name(n)} for _, n, _ in es]
    width = max((len(_labels(p)) for p in per), default=0)
    for (t, n, line), lab in zip(reversed(es), reversed(per)):
        rows.append(f"{t[:19]}Z {_labels(lab).ljust(width)} {line}")
    head = ["http://localhost:3100/loki/api/v1/query_range?direction=BACKWARD&limit=100000&query=%7Bjob%3D%22team-a%2Ftrain%22%7D"
            "&start=1764403200000000000&end=1764406800000000000", f"Common labels: {_labels(fixed)}"] if common else []
    return _join(head + rows)


def logcli_raw(es) -> str:
    return _join(line for _, _, line in es)


def logcli_jsonl(es) -> str:
    return _join(json.dumps({"labels": {"container": CONTAINER, "job": f"{NS}/{JOB}", "namespace": NS, "pod": pod_name(n)},
                             "line": line, "timestamp": t}) for t, n, line in reversed(es))


def grafana_txt(es) -> str:
    meta = [f'Common labels: {json.dumps({"container": CONTAINER, "job": f"{NS}/{JOB}", "namespace": NS}, separators=(",", ":"))}',
            'Line limit: "5000 (%d returned)"' % len(es), "", ""]
    return "\n".join(meta) + "\n" + _join(f"{_ms_text(t)}\t{line}" for t, _, line in reversed(es))


def grafana_json(es) -> str:
    rows = [{"line": line, "timestamp": str(_ns(t)), "date": _dt(t).strftime("%Y-%m-%dT%H:%M:%S.") + f"{_dt(t).microsecond // 1000:03d}Z",
             "fields": {"container": CONTAINER, "job": f"{NS}/{JOB}", "namespace": NS, "pod": pod_name(n)}} for t, n, line in reversed(es)]
    return json.dumps(rows, indent=2)


def _parts(line: str) -> list[str]:
    data = line.encode("utf-8")
    if len(data) <= CRI_MAX_BYTES:
        return [line]
    return [data[i:i + CRI_MAX_BYTES].decode("utf-8", errors="ignore") for i in range(0, len(data), CRI_MAX_BYTES)]


def cri(es, nodes: int) -> list[tuple[str, str]]:
    files = []
    for node in range(nodes):
        rows = []
        for t, n, line in es:
            if n != node:
                continue
            parts = _parts(line)
            rows += [f"{t} stderr {'F' if i == len(parts) - 1 else 'P'} {p}" for i, p in enumerate(parts)]
        files.append((f"{NS}_{pod_name(node)}_{_hex(pod_name(node), 8)}/{CONTAINER}/0.log", _join(rows)))
    return files


def docker(es, nodes: int) -> list[tuple[str, str]]:
    files = []
    for node in range(nodes):
        rows = []
        for t, n, line in es:
            if n == node:
                parts = _parts(line)
                rows += [json.dumps({"log": p + ("\n" if i == len(parts) - 1 else ""), "stream": "stderr", "time": t},
                                    separators=(",", ":")) for i, p in enumerate(parts)]
        cid = _hex(pod_name(node), 64)
        files.append((f"{cid}/{cid}-json.log", _join(rows)))
    return files


def _k8s(node: int) -> dict:
    pod = pod_name(node)
    return {"pod_name": pod, "namespace_name": NS, "pod_id": _hex(pod, 32), "labels": {"training.kubeflow.org/job-name": JOB},
            "host": f"gpu-node-{node}", "container_name": CONTAINER, "docker_id": _hex(pod, 64), "container_image": "pytorch/pytorch:2.13.0"}


def fluentbit(es) -> str:
    return _join(json.dumps({"date": _ns(t) / 1e9, "time": t, "stream": "stderr", "_p": "F", "log": line, "kubernetes": _k8s(n)},
                            separators=(",", ":")) for t, n, line in es)


def _tag(node: int) -> str:
    return f"kubernetes.var.log.containers.{pod_name(node)}_{NS}_{CONTAINER}-{_hex(pod_name(node), 64)}.log"


def fluentd(es) -> str:
    return _join(f"{_dt(t).strftime('%Y-%m-%d %H:%M:%S')}.{_ns(t) % 1_000_000_000:09d} +0000 {_tag(n)}: "
                 + json.dumps({"log": line + "\n", "stream": "stderr", "kubernetes": _k8s(n)}, separators=(",", ":"))
                 for t, n, line in es)


def _csv(header: list[str], rows: list[list[str]], quote_all: bool = False) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n", quoting=csv.QUOTE_ALL if quote_all else csv.QUOTE_MINIMAL)
    w.writerow(header)
    w.writerows(rows)
    return buf.getvalue()


def cloudwatch_insights(es) -> str:
    rows = [[_ms_text(t), json.dumps({"log": line, "stream": "stderr", "time": t, "kubernetes": _k8s(n)}, separators=(",", ":")),
             f"gpu-node-{n}-application.{_tag(n)[len('kubernetes.'):]}", "123456789012:/aws/containerinsights/gpu/application"]
            for t, n, line in reversed(es)]
    return _csv(["@timestamp", "@message", "@logStream", "@log"], rows)


def gcp_json(es) -> str:
    out = []
    for t, n, line in reversed(es):
        out.append({"insertId": _hex(f"{t}{n}{line}", 16), "labels": {"compute.googleapis.com/resource_name": f"gpu-node-{n}",
                    "k8s-pod/training_kubeflow_org/job-name": JOB}, "logName": "projects/lab/logs/stderr",
                    "receiveTimestamp": t, "resource": {"labels": {"cluster_name": "gpu", "container_name": CONTAINER, "location": "us-central1",
                    "namespace_name": NS, "pod_name": pod_name(n), "project_id": "lab"}, "type": "k8s_container"},
                    "severity": "ERROR", "textPayload": line, "timestamp": t})
    return json.dumps(out, indent=2)


def _kibana_date(t: str) -> str:
    d = _dt(t)
    return d.strftime("%b ") + f"{d.day}, {d.year} @ " + d.strftime("%H:%M:%S.") + f"{d.microsecond // 1000:03d}"


def _formula_safe(value: str) -> str:
    return "'" + value if value[:1] in ("=", "+", "-", "@") else value  # Kibana's csv escapeFormulaValues


def kibana_csv(es) -> str:
    rows = [[_kibana_date(t), pod_name(n), CONTAINER, _formula_safe(line)] for t, n, line in reversed(es)]
    return _csv(["@timestamp", "kubernetes.pod.name", "kubernetes.container.name", "message"], rows, quote_all=True)


SHAPES = ("kubectl-prefix-ts", "kubectl-prefix", "stern", "stern-ts", "stern-terminal", "stern-all-ns", "stern-color",
          "logcli-common", "logcli-piped", "logcli-raw", "logcli-jsonl", "grafana-txt", "grafana-json", "cri", "docker-json",
          "fluentbit-jsonl", "fluentd-stdout", "cloudwatch-insights-csv", "gcp-json", "kibana-csv")


def shapes(node_texts: list[str]) -> dict[str, list[tuple[str, str]]]:
    """Every shape of ``SHAPES`` for the node logs ``node_texts`` (node 0 first): the files a user brings."""
    es, nodes = entries(node_texts), len(node_texts)
    one = lambda name, text: [(name, text)]  # noqa: E731
    return {
        "kubectl-prefix-ts": one("kubectl.log", kubectl(es, True)), "kubectl-prefix": one("kubectl.log", kubectl(es, False)),
        "stern": one("stern.log", stern(es, nodes)), "stern-ts": one("stern.log", stern(es, nodes, stamped=True)),
        "stern-terminal": one("stern.txt", stern(es, nodes, stamped=True, terminal=True)),
        "stern-all-ns": one("stern.log", stern(es, nodes, all_ns=True)),
        "stern-color": one("stern.log", stern(es, nodes, stamped=True, color=True)),
        "logcli-common": one("logcli.txt", logcli(es, common=True)), "logcli-piped": one("logcli.log", logcli(es, common=False)),
        "logcli-raw": one("logcli.log", logcli_raw(es)), "logcli-jsonl": one("logcli.jsonl", logcli_jsonl(es)),
        "grafana-txt": one("Explore-logs.txt", grafana_txt(es)), "grafana-json": one("Explore-logs.json", grafana_json(es)),
        "cri": cri(es, nodes), "docker-json": docker(es, nodes), "fluentbit-jsonl": one("fluent-bit.jsonl", fluentbit(es)),
        "fluentd-stdout": one("fluentd.log", fluentd(es)), "cloudwatch-insights-csv": one("logs-insights-results.csv", cloudwatch_insights(es)),
        "gcp-json": one("downloaded-logs.json", gcp_json(es)), "kibana-csv": one("discover.csv", kibana_csv(es)),
    }


__all__ = ["SHAPES", "entries", "pod_name", "shapes"]


def otel_otlp(events: list[tuple[int, str, str]]) -> str:
    """``(epoch ns, pod, line)`` events as the OpenTelemetry Collector's file exporter writes them (OTLP JSON, one export
    request a line): each pod a resource (``k8s.pod.name``, ``k8s.container.name``), in the order the pods first log."""
    pods = list(dict.fromkeys(pod for _, pod, _ in events))
    attrs = lambda pod: [{"key": k, "value": {"stringValue": v}} for k, v in (("k8s.pod.name", pod), ("k8s.container.name", "pytorch"))]  # noqa: E731
    logs = lambda pod: [{"timeUnixNano": str(ns), "body": {"stringValue": line}} for ns, p, line in events if p == pod]  # noqa: E731
    return "".join(json.dumps({"resourceLogs": [{"resource": {"attributes": attrs(pod)}, "scopeLogs": [{"logRecords": logs(pod)}]}]}) + "\n"
                   for pod in pods)


def otel_flat(events: list[tuple[int, str, str]]) -> str:
    """The same events as OpenTelemetry's log data model, one flat record a line (``Timestamp``, ``Body``, ``Resource``),
    newest first."""
    iso = lambda ns: dt.datetime.fromtimestamp(ns // 10**9, dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S") + f".{ns % 10**9:09d}Z"  # noqa: E731
    return "".join(json.dumps({"Timestamp": iso(ns), "Body": line, "Resource": {"k8s.pod.name": pod, "k8s.container.name": "pytorch"}})
                   + "\n" for ns, pod, line in reversed(events))

