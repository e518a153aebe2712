"""A ``--log-dir`` agent folder nothing places, kept as a pod of an unknown node (``k10s import-logs``).

``parsers/log_torchrun_dir.py`` places each agent folder of torchrun's ``--log-dir`` tree at a node by a console naming
it, the global ranks its workers print, its ``--tee`` lines, its agent's pids or its failure table (session 68). A folder
none of these ties to one node was dropped (its lines lost). Its lines are still evidence of what failed and how (an
OOM, a DataLoader worker's SIGKILL, an exception's type), only not of which rank: its local rank folders say the
process's place on its node, and the node is unknown.

So the folder is kept as a source of its own named ``<folder> [agent folder, node unknown]`` (``NODE_UNKNOWN``), its lines tagged
with their local rank as ``--tee`` would (``[default<L>]:``). The importer takes these sources apart before it infers
the layout (they are no node: the world size and node count stay the consoles'), and writes each as one more pod of
the job (``unknown_pods``) labelled ``k10s.io/imported-layout: node-base-unknown`` (``k8s_runtime.BASE_UNKNOWN``), with
no node name and no node rank: ``parsers/ranks.py`` gives such a pod no rank rows, so a local rank in its lines names no
global rank (a worker's own printed global rank, ``[rank5]:``, is still its own). docs/rules.md, "Session 69: failures
with no clock between files; unplaced --log-dir folders kept".
"""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

from k10s_forensics.parsers.k8s_runtime import BASE_UNKNOWN, IMPORTED_ANNOTATION, LAYOUT_LABEL
from k10s_forensics.parsers.log_pod_prefix import POD_AFTER_POD
from k10s_forensics.store.bundle import iso

#: the name suffix of an unplaced agent folder's source (``log_torchrun_dir.merge_tree``)
NODE_UNKNOWN = " [agent folder, node unknown]"


def split_unknown(sources: list) -> tuple[list, list, bool]:
    """(the sources of known nodes, the unplaced folders' sources, whether the known are several: files given apart,
    whose lines no order but their clocks relates, ``k8s_runtime.FILE_LABEL``)."""
    known = [s for s in sources if not s.name.endswith(NODE_UNKNOWN)]
    return known, [s for s in sources if s.name.endswith(NODE_UNKNOWN)], len(known) > 1


def file_label(files: bool, how: str | None, count: int) -> str | None:
    """The prefix of each imported pod's ``k8s_runtime.FILE_LABEL`` value (its position follows), None for no label:
    ``""`` for several files given, ``"pod-"`` for one paste of several pods' blocks, pod after pod
    (``log_pod_prefix.POD_AFTER_POD`` in ``how``: the order kubectl read them in, no clock); one stream else."""
    if count < 2:
        return None
    return "" if files else "pod-" if how and POD_AFTER_POD in how else None


def unknown_pods(lost: list, namespace: str, job: str, started: dt.datetime) -> list[tuple[dict[str, Any], str]]:
    """One pod (the API's body) and its log's text per unplaced folder: the job's, on no node, of no node rank."""
    job_uid = f"imported-{namespace}-{job}"
    out = []
    for k, source in enumerate(lost):
        name = f"{job}-node-unknown-{k}"
        body = {
            "apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": namespace, "uid": f"imported-{name}",
                         "labels": {"training.kubeflow.org/job-name": job, LAYOUT_LABEL: BASE_UNKNOWN},
                         "annotations": {IMPORTED_ANNOTATION: "true", "k10s.io/imported-from": source.name},
                         "creationTimestamp": iso(started),
                         "ownerReferences": [{"apiVersion": "kubeflow.org/v1", "kind": "PyTorchJob", "name": job, "uid": job_uid,
                                              "controller": True}]},
            "spec": {"containers": [{"name": "pytorch"}]},
            "status": {"phase": "Running", "startTime": iso(started),
                       "containerStatuses": [{"name": "pytorch", "ready": True, "restartCount": 0,
                                              "state": {"running": {"startedAt": iso(started)}}}]},
        }
        out.append((body, source.text))
    return out


def add_unknown(writer, lost: list, namespace: str, job: str, started: dt.datetime, ended: dt.datetime) -> None:
    """Each unplaced folder's pod and log into the importer's raw layer (``writer``: a BundleWriter)."""
    for body, text in unknown_pods(lost, namespace, job, started):
        meta = body["metadata"]
        writer.add("objects", {"captured_at": ended, "api_version": "v1", "kind": "Pod", "namespace": namespace,
                               "name": meta["name"], "uid": meta["uid"], "body": json.dumps(body)})
        writer.add("logs", {"captured_at": ended, "node": None, "namespace": namespace, "pod": meta["name"], "pod_uid": meta["uid"],
                            "container": "pytorch", "previous": False, "body": text, "error": None})


__all__ = ["NODE_UNKNOWN", "add_unknown", "file_label", "split_unknown", "unknown_pods"]
