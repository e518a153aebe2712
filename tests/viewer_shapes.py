"""What a terminal log viewer, a log server's CSV export and a Microsoft Teams thread hand a user, made from one recorded
run (tests/data/torch-runs): the ninth family beside ``export_shapes``, ``launcher_shapes``, ``job_shapes``,
``session_shapes``, ``store_shapes``, ``platform_shapes``, ``console_shapes`` and ``chat_shapes``. ``shapes(node_texts,
nproc)`` gives, per shape, the files a user would hand to ``k10s import-logs`` (``[(relative path, text)]``).
Deterministic. Pods, container, namespace as ``export_shapes`` names them. Formats (each from the tool's source, docs or
users' pastes; searched, not copied):

* k9s's log view of the job's pods saved with ``<ctrl-s>`` (derailed/k9s ``internal/dao/log_item.go``, ``Render``: the
  pod's name, then, for a pod of one container, a space and the line — the colour tags stripped in the saved text;
  the time column off, its default): ``train-worker-0 <line>``, the pods' lines interleaved as they streamed in
  (derailed/k9s#119, #465, #2215: the saved file is the view's text);
* Graylog's search result exported to CSV (the message table's fields ``timestamp``, ``source``, ``message``; every
  value quoted, a header row; the table's default sort, the newest message first; the ``timestamp`` written in the
  viewer's time zone with its offset, ``2026-11-28T13:05:03.281+01:00``; ``source`` the GELF host, the node's name,
  not the pod's);
* ``graylog-csv-no-source``: the same export with ``source`` left out of the table: the node is nowhere in the file;
* a Microsoft Teams thread the log was pasted into, copied whole (the classic client's copy of several messages:
  each headed ``[10:42 PM] Dana Kim``, a line of prose, the ``kubectl logs --prefix`` output's part as plain lines —
  the code block's fence is not copied); the log cut into messages of at most 150 lines (a long paste is split by the
  user), one message a reaction line (``👍 1``) after it.
"""

from __future__ import annotations

import csv
import datetime as dt
import io

from export_shapes import CONTAINER, _dt, entries, pod_name
from launcher_shapes import _join

#: the viewer's zone (Central European Time in November: UTC+1)
VIEWER_OFFSET = dt.timezone(dt.timedelta(hours=1))
TEAMS_LINES = 150


def k9s_save(es) -> str:
    return _join(f"{pod_name(n)} {line}" for _, n, line in es)


def _graylog_time(t: str) -> str:
    d = _dt(t).astimezone(VIEWER_OFFSET)
    return d.strftime("%Y-%m-%dT%H:%M:%S.") + f"{d.microsecond // 1000:03d}" + d.strftime("%z")[:3] + ":" + d.strftime("%z")[3:]


def graylog_csv(es, source: bool = True) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, quoting=csv.QUOTE_ALL, lineterminator="\n")
    w.writerow(["timestamp", "source", "message"] if source else ["timestamp", "message"])
    newest = sorted(enumerate(es), key=lambda ie: (_dt(ie[1][0]), ie[0]), reverse=True)
    for _, (t, n, line) in newest:
        w.writerow([_graylog_time(t), f"gpu-node-{n}", line] if source else [_graylog_time(t), line])
    return buf.getvalue()


def teams(es) -> str:
    lines = [f"[pod/{pod_name(n)}/{CONTAINER}] {line}" for _, n, line in es]
    parts = [lines[i:i + TEAMS_LINES] for i in range(0, len(lines), TEAMS_LINES)] or [[]]
    out = []
    for i, part in enumerate(parts):
        words = "the job's pod logs" + (f" ({i + 1}/{len(parts)})" if len(parts) > 1 else "") + (", which rank failed first?" if i == len(parts) - 1 else "")
        out += [f"[10:{42 + i % 17:02d} PM] Dana Kim", words, *part]
        if i == 0:
            out.append("👍 1")
        out.append("")
    return _join(out)


SHAPES = ("k9s-logs-save", "graylog-csv", "graylog-csv-no-source", "teams-paste")


def shapes(node_texts: list[str], nproc: int = 1) -> dict[str, list[tuple[str, str]]]:
    """Every shape of ``SHAPES`` for the node logs ``node_texts`` (node 0 first)."""
    es = entries(node_texts)
    return {"k9s-logs-save": [("team-a-train-1764331503.log", k9s_save(es))], "graylog-csv": [("graylog-search-result.csv", graylog_csv(es))],
            "graylog-csv-no-source": [("graylog-search-result.csv", graylog_csv(es, source=False))], "teams-paste": [("teams.txt", teams(es))]}


__all__ = ["SHAPES", "shapes"]
