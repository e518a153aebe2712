"""Rank identity read from a pod's NAME, when the cluster kept no label or env that says it.

Pods known only from kube-state-metrics history carry no labels unless kube-state-metrics
allow-lists them (``--metric-labels-allowlist``, off by default in kube-prometheus-stack);
``kube_pod_info`` still gives the pod's name and its controlling owner. The training
operators name their pods by fixed conventions, which this module reads:

* Kubeflow training-operator (PyTorchJob, TFJob, XGBoostJob, PaddleJob, JAXJob, MXNetJob)
  and MPIJob: ``<job>-<replica type>-<index>`` (``llama-master-0``, ``llama-worker-3``,
  ``bert-launcher`` has no index and runs no rank);
* JobSet and TrainJob (a JobSet underneath): ``<jobset>-<replicated job>-<job index>-<pod
  index>``, plus the 5-character suffix a batch Job adds (``ft-node-0-1-x7k2p``);
* a batch Job whose object is gone too (a JobSet's child, the JobSet gone as well): an
  Indexed Job's ``<job>-<completion index>-<suffix>``, ranks within that one Job;
* anything else (Ray's ``<cluster>-worker-<group>-<suffix>``, a Deployment's random
  names) gives nothing.

``name_identity`` returns the fields the labels would have given (replica type and index,
or replicated job, job index and completion index), which ``ranks`` then reads by its usual
rules; the ranks it derives say ``rank_source = 'pod-name'`` and ``rank_confidence = 'low'``:
a convention, not a fact the cluster recorded.
"""

from __future__ import annotations

import re
from typing import Any

from k10s_forensics.parsers.k8s_common import KUBEFLOW_KINDS

POD_NAME_SOURCE = "pod-name"
_KUBEFLOW_ROLES = ("master", "chief", "worker", "ps", "evaluator", "launcher")
_KUBEFLOW = re.compile(r"^-(?P<role>" + "|".join(_KUBEFLOW_ROLES) + r")(?:-(?P<index>\d{1,6}))?$")
_INDEXED = re.compile(r"^-(\d{1,6})-[a-z0-9]{5}$")
_JOBSET = re.compile(r"^-(?P<rj>[a-z0-9](?:[a-z0-9-]{0,60}[a-z0-9])?)-(?P<job>\d{1,6})-(?P<pod>\d{1,6})(?:-[a-z0-9]{5})?$")


def parse_pod_name(name: str, kind: str | None, job: str | None) -> dict[str, Any] | None:
    """The identity fields ``name`` states under ``kind``'s convention for job ``job``; None: no match."""
    if not name or not job or not kind or not name.startswith(job):
        return None
    rest = name[len(job):]
    if kind in KUBEFLOW_KINDS:
        m = _KUBEFLOW.match(rest)
        if not m:
            return None
        index = m.group("index")
        if index is None and m.group("role") != "launcher":
            return None
        return {"replica_type": m.group("role"), "replica_index": int(index) if index is not None else None}
    if kind in ("JobSet", "TrainJob"):
        m = _JOBSET.match(rest)
        if not m:
            return None
        return {"replicated_job": m.group("rj"), "jobset_job_index": int(m.group("job")), "completion_index": int(m.group("pod"))}
    if kind == "Job":  # an Indexed Job's pod: <job>-<completion index>-<suffix> (a JobSet's, its object gone)
        m = _INDEXED.match(rest)
        return {"completion_index": int(m.group(1))} if m else None
    return None


def _missing(pod: dict[str, Any]) -> bool:
    if pod["job_kind"] in KUBEFLOW_KINDS:
        return pod["replica_type"] is None or pod["replica_index"] is None
    if pod["job_kind"] == "Job":
        return pod["completion_index"] is None
    return pod["completion_index"] is None or pod["replicated_job"] is None


def name_identity(pod: dict[str, Any]) -> dict[str, Any] | None:
    """``pod`` with the identity its name states filled in where its labels said nothing, and
    ``_from_name`` set; None when the labels already say it or the name says nothing."""
    if not _missing(pod):
        return None
    found = parse_pod_name(pod["pod"], pod["job_kind"], pod["job"])
    if found is None:
        return None
    filled = dict(pod)
    for key, value in found.items():
        if filled.get(key) is None:
            filled[key] = value
    filled["_from_name"] = True
    return filled


def with_name_identity(members: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A job's pods, each with its name's identity where the labels gave none (see ``name_identity``).

    A JobSet/TrainJob pod's job index counts in whole Jobs: without the JobSet's spec the
    pods per Job are the most pod indexes seen in one Job of that replicated job.
    """
    out = [name_identity(p) or p for p in members]
    return out


def jobset_parallelism(pod: dict[str, Any], members: list[dict[str, Any]]) -> int | None:
    """Pods per Job of ``pod``'s replicated job, as the named pods show it (highest pod index + 1)."""
    seen = [m["completion_index"] for m in members
            if m.get("_from_name") and m["replicated_job"] == pod["replicated_job"] and m["completion_index"] is not None]
    return max(seen) + 1 if seen else None


__all__ = ["POD_NAME_SOURCE", "jobset_parallelism", "name_identity", "parse_pod_name", "with_name_identity"]
