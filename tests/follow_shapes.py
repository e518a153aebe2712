"""What a user following a job's logs live hands over, made from one recorded run (tests/data/torch-runs): the twelfth
family beside ``export_shapes``, ``launcher_shapes``, ``job_shapes``, ``session_shapes``, ``store_shapes``,
``platform_shapes``, ``console_shapes``, ``chat_shapes``, ``viewer_shapes``, ``tracker_shapes`` and ``pane_shapes``.
``shapes(node_texts, nproc)`` gives, per shape, the files a user would hand to ``k10s import-logs`` (``[(relative path,
text)]``). Deterministic. Pods, container, namespace as ``export_shapes`` names them. Formats (each from the tool's
source; searched, not copied):

* ``kubetail train`` (johanhaleby/kubetail, the bash script) in a colour terminal, saved as typed: ``Will tail <n>
  logs...``, each stream's name in its colour, then every pod's lines as they come, each ``[<pod>] `` and the line,
  the default ``line`` colouring wrapping both in the stream's ``tput setaf <i>`` (``ESC[3<i>m``, i = 1, 2, … skipping
  7 and 8) and ``tput sgr0`` (``ESC(B ESC[m`` under the ``xterm-256color`` it sets): ``kubetail-color``; the same with
  ``--colored-output false`` (plain ``[<pod>] <line>``): ``kubetail-plain``;
* Grafana Explore's Logs panel on a Loki query, copied from the page with *Time* and *Unique labels* on and the
  default *Newest first* order: per row the time as the browser shows it (``YYYY-MM-DD HH:mm:ss.SSS`` in the viewer's
  zone, UTC+1), the labels not common to every row as ``key=value`` (``LogLabels``: here ``pod=<pod>``), the line;
  the cells tab-separated as a browser copies a row;
* a Kubeflow Katib trial's ``metrics-logger-and-collector`` sidecar log (``kubectl logs <trial>-master-0 -c
  metrics-logger-and-collector``; the StdOut collector): the sidecar tails the trainer's output file and writes each
  line through klog (``klog.Info``), so every line of the master pod's trainer arrives as ``I1128 12:05:03.010223
  14 main.go:153] <line>`` (klog's header, the pid padded to seven columns), after its ``Trial Name: <trial>`` line.
  The collector sits in the primary (master) pod only: one node's lines.
"""

from __future__ import annotations

import datetime as dt

from export_shapes import _dt, _hex, entries, pod_name
from launcher_shapes import _join

#: the viewer's zone (Central European Time in November: UTC+1)
VIEWER = dt.timezone(dt.timedelta(hours=1))
#: tput sgr0 under xterm-256color
_SGR0 = "\x1b(B\x1b[m"
#: the Katib sidecar's pid and its klog call sites
COLLECTOR_PID = 14


def _colour(i: int) -> str:
    """kubetail's ``next_col``: colour indices 1, 2, … skipping 7 and 8."""
    c = 0
    for _ in range(i + 1):
        c += 1
        while c in (7, 8):
            c += 1
    return f"\x1b[3{c}m" if c < 8 else f"\x1b[9{c - 8}m" if c < 16 else f"\x1b[38;5;{c}m"


def kubetail(es, nodes: int, color: bool) -> str:
    head = [f"Will tail {nodes} logs..."] + [f"{_colour(n)}{pod_name(n)}{_SGR0}" if color else pod_name(n) for n in range(nodes)]
    if not color:
        return _join(head + [f"[{pod_name(n)}] {line}" for _, n, line in es])
    return _join(head + [f"{_colour(n)}[{_SGR0}{_colour(n)}{pod_name(n)}]{_SGR0} {_colour(n)}{line}{_SGR0}" for _, n, line in es])


def grafana_panel(es) -> str:
    def when(t: str) -> str:
        d = _dt(t).astimezone(VIEWER)
        return d.strftime("%Y-%m-%d %H:%M:%S.") + f"{d.microsecond // 1000:03d}"
    return _join(f"{when(t)}\tpod={pod_name(n)}\t{line}" for t, n, line in reversed(es))


def _klog(d: dt.datetime, where: str, text: str) -> str:
    return f"I{d:%m%d %H:%M:%S}.{d.microsecond:06d} {COLLECTOR_PID:7d} {where}] {text}"


def katib_sidecar(es) -> str:
    own = [(t, line) for t, n, line in es if n == 0]
    if not own:
        return ""
    trial = f"train-exp-{_hex(own[0][1], 8)}"
    first = _dt(own[0][0]) - dt.timedelta(seconds=1)
    return _join([_klog(first, "main.go:396", f"Trial Name: {trial}")] + [_klog(_dt(t), "main.go:153", line) for t, line in own])


SHAPES = ("kubetail-color", "kubetail-plain", "grafana-explore-labels", "katib-metrics-collector")


def shapes(node_texts: list[str], nproc: int = 1) -> dict[str, list[tuple[str, str]]]:
    """Every shape of ``SHAPES`` for the node logs ``node_texts`` (node 0 first)."""
    es, nodes = entries(node_texts), len(node_texts)
    return {"kubetail-color": [("kubetail.txt", kubetail(es, nodes, True))], "kubetail-plain": [("kubetail.log", kubetail(es, nodes, False))],
            "grafana-explore-labels": [("explore-copy.txt", grafana_panel(es))],
            "katib-metrics-collector": [("metrics-logger-and-collector.log", katib_sidecar(es))]}


__all__ = ["SHAPES", "shapes"]
