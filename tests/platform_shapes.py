"""What kubectl's other habits, cloud training platforms and chat pastes hand a user, made from one recorded run
(tests/data/torch-runs): the sixth family beside ``export_shapes``, ``launcher_shapes``, ``job_shapes``,
``session_shapes`` and ``store_shapes``. ``shapes(node_texts, nproc)`` gives, per shape, the files a user would hand to
``k10s import-logs`` (``[(relative path, text)]``). Deterministic. Pods, container, namespace as ``export_shapes``
names them (``train-master-0``, ``train-worker-<i>``; ``pytorch``; ``team-a``). Formats (each from the tool's docs or
source; searched, not copied):

* ``kubectl logs -f -l <selector> --max-log-requests 16`` **without** ``--prefix``: following several pods, kubectl
  reads their streams in parallel and writes each line as it comes (the pods' lines interleaved in time), and nothing
  on a line says which pod wrote it;
* ``kubectl logs -l <selector>`` without ``--prefix`` and without ``-f``: kubectl reads the pods one after the other
  (pod after pod, in the API's name order), again with nothing on a line naming its pod;
* ``kubectl logs <pod> --previous`` then ``kubectl logs <pod>`` saved into one file per pod (``<pod>.log``): the
  container's earlier attempt (the run) above the restarted container's own start (its first lines, up to its first
  warning or error: the new attempt is still starting when the user saved it);
* ``kubectl logs -l <selector> --all-containers --prefix --timestamps`` of pods with an Istio sidecar: per pod, its
  init container ``istio-init`` (istio-iptables' output), the native sidecar ``istio-proxy`` (an init container with
  ``restartPolicy: Always``, so listed before the app: pilot-agent's ``<RFC 3339 µs>\\t<level>\\t<message>`` lines,
  Envoy's default access log lines ``[<start time>] "- - -" 0 <flags> …`` for the TCP connections to the rendezvous
  port, the drain at termination), then ``pytorch``;
* SkyPilot's ``sky logs <cluster>`` of a two-or-more-node task running torchrun once per node: each line behind
  ``(head, rank=0, pid=<pid>) `` or ``(worker<i>, rank=<i>, pid=<pid>, ip=<ip>) ``; the ``rank`` is the node's
  (``SKYPILOT_NODE_RANK``), the lines of the nodes interleaved as they arrive;
* Vertex AI ``gcloud ai custom-jobs stream-logs`` (gcloud's ``command_lib/ai/log_util.LOG_FORMAT``: ``value(severity,
  timestamp.date("%Y-%m-%d %H:%M:%S %z"), task_name, message)``: tab-separated, seconds only; the older ``gcloud
  ai-platform jobs stream-logs`` has a ``trial_id`` column before the message); the chief is ``workerpool0-0``, the
  other nodes ``workerpool1-<i>``; what a process wrote to stderr is ``ERROR``;
* Azure Monitor Log Analytics: ``ContainerLogV2 | where PodNamespace == "team-a" | project TimeGenerated, Computer,
  PodNamespace, PodName, ContainerName, LogSource, LogMessage | sort by TimeGenerated desc`` exported to CSV from the
  portal (the time column headed ``TimeGenerated [UTC]``, its values as the portal shows them, ``11/28/2026,
  12:05:03.281 PM``), newest first;
* a Slack thread the log was pasted into: each message headed by the poster's name and the time (``Dana Kim  10:42
  PM``), a line of prose, then a part of the ``kubectl logs --prefix`` output (the log cut into three messages at
  arbitrary lines), straight quotes turned typographic by the editor, one message marked ``(edited)``.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import re

from export_shapes import CONTAINER, NS, _dt, entries, pod_name
from launcher_shapes import _join
from store_shapes import _stream

JOB = "train"
_SELECTOR = f"training.kubeflow.org/job-name={JOB}"
#: a warning or an error of the restarted container's start: the new attempt was saved before it
_ATTEMPT_END = ("Traceback", "Error", "error", "WARNING", "Warning", "W1", "E1", "exit", "Signal", "signal")


def _node_lines(es, node: int) -> list[tuple[str, str]]:
    return [(t, line) for t, n, line in es if n == node]


def selector_follow(es) -> str:
    return _join(line for _, _, line in es)


def selector_sequential(es, nodes: int) -> str:
    order = sorted(range(nodes), key=pod_name)
    return _join(line for node in order for _, line in _node_lines(es, node))


def previous_current(es, nodes: int) -> list[tuple[str, str]]:
    out = []
    for node in range(nodes):
        rows = [line for _, line in _node_lines(es, node)]
        attempt = []
        for line in rows[:12]:
            if any(word in line for word in _ATTEMPT_END):
                break
            attempt.append(line)
        out.append((f"{pod_name(node)}.log", _join(rows + attempt)))
    return out


def _plus(t: str, seconds: float) -> str:
    d = _dt(t) + dt.timedelta(seconds=seconds)
    return d.strftime("%Y-%m-%dT%H:%M:%S.") + f"{d.microsecond:06d}Z"


def _sidecar(pod: str, node: int, first: str, last: str) -> list[tuple[str, str, str]]:
    """(container, time, line) of the pod's istio-init and istio-proxy containers."""
    ip, peer = f"10.0.0.{node + 2}", "10.0.0.2:29500"
    init = ["Istio iptables environment:", "ENVOY_PORT=", "INBOUND_CAPTURE_PORT=", "* nat",
            "-A ISTIO_OUTPUT -j ISTIO_REDIRECT", "COMMIT", "# Completed on Sat Nov 28 11:59:50 2026"]
    rows = [("istio-init", _plus(first, -10 + i * 0.001), line) for i, line in enumerate(init)]
    start = [("info", "FLAG: --concurrency=\"2\""), ("info", "Version 1.24.2-0c0a1ac3bd8e3b0b8c3c7f1ee4e2d9a77bfc6b0a-Clean"),
             ("info", f"Proxy role: IPs=[{ip}] type=sidecar id={pod}.{NS} domain={NS}.svc.cluster.local"),
             ("warn", "Envoy proxy is NOT ready: config not received from XDS server (is Istiod running?): cds updates: 0 "
                      "successful, 0 rejected; lds updates: 0 successful, 0 rejected"),
             ("info", "Readiness succeeded in 1.204613011s"), ("info", "Envoy proxy is ready")]
    rows += [("istio-proxy", _plus(first, -5 + i * 0.2), f"{_plus(first, -5 + i * 0.2)}\t{lvl}\t{msg}") for i, (lvl, msg) in enumerate(start)]
    access = f'[{_plus(last, 0.5)[:23]}Z] "- - -" 0 UC - - "-" 4821 9377 {123000 + node} - "-" "-" "-" "-" "{peer}" ' \
             f'PassthroughCluster {ip}:41234 {peer} {ip}:41232 - -'
    rows.append(("istio-proxy", _plus(last, 0.5), access))
    drain = [("info", "Status server has successfully terminated"), ("info", "Agent draining Proxy for termination"),
             ("info", "Graceful termination period is 5s, starting..."),
             ("info", "Graceful termination period complete, terminating remaining proxies."),
             ("warn", "Aborted proxies"), ("info", "Envoy exited normally")]
    rows += [("istio-proxy", _plus(last, 1 + i), f"{_plus(last, 1 + i)}\t{lvl}\t{msg}") for i, (lvl, msg) in enumerate(drain)]
    return rows


def all_containers(es, nodes: int) -> str:
    out = []
    for node in sorted(range(nodes), key=pod_name):
        rows = _node_lines(es, node)
        first, last = (rows[0][0], rows[-1][0]) if rows else ("2026-11-28T12:00:00.000000Z",) * 2
        pod = pod_name(node)
        side = _sidecar(pod, node, first, last)
        for container in ("istio-init", "istio-proxy"):
            out += [f"[pod/{pod}/{container}] {t} {line}" for c, t, line in side if c == container]
        out += [f"[pod/{pod}/{CONTAINER}] {t} {line}" for t, line in rows]
    return _join(out)


def skypilot(es) -> str:
    def tag(node: int) -> str:
        pid = 3808 + 37 * node
        return f"(head, rank=0, pid={pid}) " if node == 0 else f"(worker{node}, rank={node}, pid={pid}, ip=10.0.0.{node + 2}) "
    return _join(tag(n) + line for _, n, line in es)


def vertex(es) -> str:
    def task(node: int) -> str:
        return "workerpool0-0" if node == 0 else f"workerpool1-{node - 1}"
    rows = ["ERROR" if _stream(line) == "stderr" else "INFO" for _, _, line in es]
    return _join(f"{sev}\t{_dt(t).strftime('%Y-%m-%d %H:%M:%S +0000')}\t{task(n)}\t{line}" for sev, (t, n, line) in zip(rows, es))


def _portal_time(t: str) -> str:
    d = _dt(t)
    hour = d.hour % 12 or 12
    return f"{d.month}/{d.day}/{d.year}, {hour}:{d.strftime('%M:%S')}.{d.microsecond // 1000:03d} {'AM' if d.hour < 12 else 'PM'}"


def azure_csv(es) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\r\n")
    w.writerow(["TimeGenerated [UTC]", "Computer", "PodNamespace", "PodName", "ContainerName", "LogSource", "LogMessage"])
    stamped = sorted(enumerate(es), key=lambda ie: (ie[1][0][:19] + (ie[1][0][19:-1] + "000000000")[1:10], ie[0]), reverse=True)
    w.writerows([[_portal_time(t), f"aks-gpu-{n}", NS, pod_name(n), CONTAINER, _stream(line), line] for _, (t, n, line) in stamped])
    return buf.getvalue()


_OPENS = re.compile(r"(^|[\s(\[{`=])(['\"])")


def _smart(line: str) -> str:
    """An editor's smart quotes: a quote after a space or an opening bracket opens (‘ “), any other closes (’ ”)."""
    opened = _OPENS.sub(lambda m: m.group(1) + ("\u2018" if m.group(2) == "'" else "\u201c"), line)
    return opened.replace("'", "\u2019").replace('"', "\u201d")


def slack(es) -> str:
    lines = [f"[pod/{pod_name(n)}/{CONTAINER}] {line}" for _, n, line in es]
    cuts = [0, len(lines) // 3, 2 * len(lines) // 3, len(lines)]
    words = ["here's what kubectl logs gave me for the job (first part)", "second part", "and the end of it, any idea which rank died first?"]
    out = []
    for i in range(3):
        out += [f"Dana Kim  10:4{2 + i} PM", words[i] + (" (edited)" if i == 1 else "")]
        out += [_smart(line) for line in lines[cuts[i]:cuts[i + 1]]]
        out.append("")
    return _join(out)


SHAPES = ("kubectl-selector-follow", "kubectl-selector", "kubectl-previous-current", "kubectl-all-containers-istio", "skypilot-logs",
          "vertex-stream-logs", "azure-containerlogv2-csv", "slack-paste")


def shapes(node_texts: list[str], nproc: int = 1) -> dict[str, list[tuple[str, str]]]:
    """Every shape of ``SHAPES`` for the node logs ``node_texts`` (node 0 first)."""
    es, nodes = entries(node_texts), len(node_texts)
    return {
        "kubectl-selector-follow": [("train.log", selector_follow(es))], "kubectl-selector": [("train.log", selector_sequential(es, nodes))],
        "kubectl-previous-current": previous_current(es, nodes), "kubectl-all-containers-istio": [("train.log", all_containers(es, nodes))],
        "skypilot-logs": [("sky-logs.txt", skypilot(es))], "vertex-stream-logs": [("vertex.log", vertex(es))],
        "azure-containerlogv2-csv": [("query_data.csv", azure_csv(es))], "slack-paste": [("slack.txt", slack(es))],
    }


__all__ = ["SHAPES", "shapes"]
