"""What Headlamp's pod log viewer hands a user who presses its download button, made from one recorded run
(tests/data/torch-runs): the fourteenth family beside ``export_shapes``, ``launcher_shapes``, ``job_shapes``,
``session_shapes``, ``store_shapes``, ``platform_shapes``, ``console_shapes``, ``chat_shapes``, ``viewer_shapes``,
``tracker_shapes``, ``pane_shapes``, ``follow_shapes`` and ``tail_shapes``. ``shapes(node_texts, nproc)`` gives, per
shape, the files a user would hand to ``k10s import-logs`` (``[(relative path, text)]``). Deterministic. Pods, container,
namespace as ``export_shapes`` names them. Format (from Headlamp's source; searched, not copied):

* Headlamp's pod details page, *Show Logs*, then the viewer's download button (``PodLogViewer`` in
  ``frontend/src/components/pod/Details.tsx``, ``LogViewer``'s ``downloadLog``): the pod log API asked with
  ``timestamps=true`` and ``tailLines=100`` (the viewer's defaults: the *Timestamps* switch on, *Lines* 100), so each
  line is ``<RFC 3339 time> <line>`` and only the pod's **last 100 lines** are there; the file is
  ``<pod>_<container>_<YYYY-MM-DDTHH-MM-SS>.txt`` (the download's ISO time, ``:`` made ``-``, milliseconds cut), one
  per pod, each downloaded in turn: ``headlamp-pod-download``. The same with *Lines* set to *All* (``tailLines``
  left out, the whole log): ``headlamp-pod-download-all``.
"""

from __future__ import annotations

import datetime as dt

from export_shapes import CONTAINER, _dt, entries, pod_name
from launcher_shapes import _join

#: Headlamp's default *Lines*: the pod log API's ``tailLines``
TAIL_LINES = 100


def headlamp_download(es, tail: int | None) -> list[tuple[str, str]]:
    nodes = sorted({n for _, n, _ in es})
    last = max((_dt(t) for t, _, _ in es), default=dt.datetime(2026, 11, 28, tzinfo=dt.timezone.utc))
    files = []
    for i, n in enumerate(nodes):
        lines = [f"{t} {line}" for t, m, line in es if m == n]
        when = (last + dt.timedelta(minutes=2 + i)).strftime("%Y-%m-%dT%H-%M-%S")
        files.append((f"{pod_name(n)}_{CONTAINER}_{when}.txt", _join(lines[-tail:] if tail else lines)))
    return files


SHAPES = ("headlamp-pod-download", "headlamp-pod-download-all")


def shapes(node_texts: list[str], nproc: int = 1) -> dict[str, list[tuple[str, str]]]:
    """Every shape of ``SHAPES`` for the node logs ``node_texts`` (node 0 first)."""
    es = entries(node_texts)
    return {"headlamp-pod-download": headlamp_download(es, TAIL_LINES), "headlamp-pod-download-all": headlamp_download(es, None)}


__all__ = ["SHAPES", "TAIL_LINES", "shapes"]
