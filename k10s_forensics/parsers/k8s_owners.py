"""Which training job a pod belongs to: controller labels first, then the owner chain.

Label order (first match wins): ``training.kubeflow.org/job-name`` (kind from the
``operator-name`` label, the owner kind, or the one Kubeflow job of that name in the
bundle), ``trainer.kubeflow.org/trainjob-name``, ``jobset.sigs.k8s.io/jobset-name`` (a
TrainJob when the pod carries a Trainer ancestor label or a TrainJob of that name exists),
``batch.kubernetes.io/job-name``/``job-name``, KubeRay ``originated-from-*`` or
``ray.io/cluster``, ``leaderworkerset.sigs.k8s.io/name``; else the controlling owner when
it is a job kind. The result is then walked up the owner references of job objects
(Job -> JobSet -> TrainJob) to the top job; a Job no longer listed whose name is a listed
JobSet's or TrainJob's ``<name>-<replicated job>-<index>`` belongs to it.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import pyarrow as pa
import pyarrow.compute as pc

from k10s_forensics.parsers.k8s_common import JOB_KINDS, KUBEFLOW_KINDS, as_dict, controller_owner, first

if TYPE_CHECKING:  # pragma: no cover
    from k10s_forensics.parsers.context import DeriveContext

#: training-operator ``operator-name`` label -> job kind.
OPERATOR_KINDS = {
    "pytorchjob-controller": "PyTorchJob",
    "tfjob-controller": "TFJob",
    "mpijob-controller": "MPIJob",
    "mpi-operator": "MPIJob",
    "xgboostjob-controller": "XGBoostJob",
    "paddlejob-controller": "PaddleJob",
    "jaxjob-controller": "JAXJob",
    "mxjob-controller": "MXNetJob",
}


class JobIndex:
    """Which job objects exist and who owns them, for walking pod -> Job -> JobSet -> TrainJob.

    Built from the last listing of every job-kind object; bad bodies are skipped silently
    here (``k8s_jobs`` counts them).
    """

    def __init__(self) -> None:
        self.owner: dict[tuple[str | None, str, str], tuple[str, str]] = {}
        self.kinds_by_name: dict[tuple[str | None, str], set[str]] = {}

    @classmethod
    def build(cls, ctx: "DeriveContext") -> "JobIndex":
        index = cls()
        table = ctx.raw("objects")
        table = table.filter(pc.is_in(table["kind"], value_set=pa.array(list(JOB_KINDS))))
        for kind, ns, name, body in zip(*(table.column(c).to_pylist() for c in ("kind", "namespace", "name", "body"))):
            if not name or not kind:
                continue
            index.kinds_by_name.setdefault((ns, name), set()).add(kind)
            try:
                meta = as_dict(json.loads(body).get("metadata")) if body else {}
            except (ValueError, AttributeError, RecursionError):
                continue
            okind, oname = controller_owner(meta)
            if okind in JOB_KINDS and oname:
                index.owner[(ns, kind, name)] = (okind, oname)
        return index

    def has(self, namespace: str | None, kind: str, name: str) -> bool:
        return kind in self.kinds_by_name.get((namespace, name), set())

    def jobset_of(self, namespace: str | None, job: str) -> tuple[str, str] | None:
        """The JobSet/TrainJob a Job that is gone belonged to, by JobSet's naming of its Jobs
        (``<jobset>-<replicated job>-<job index>``); None when no such parent is listed."""
        parts = job.split("-")
        if len(parts) < 3 or not parts[-1].isdigit():
            return None
        for cut in range(len(parts) - 2, 0, -1):
            parent = "-".join(parts[:cut])
            for kind in ("TrainJob", "JobSet"):
                if self.has(namespace, kind, parent):
                    return kind, parent
        return None

    def top(self, namespace: str | None, kind: str, name: str) -> tuple[str, str]:
        """Walk owner references up while the owner is a job kind (at most 5 levels)."""
        seen = {(kind, name)}
        for _ in range(5):
            parent = self.owner.get((namespace, kind, name))
            if parent is None or parent in seen:
                break
            kind, name = parent
            seen.add(parent)
        return kind, name


def job_of_pod(labels_: dict[str, str], owner: tuple[str | None, str | None], namespace: str | None, index: JobIndex) -> tuple[str | None, str | None]:
    """(job_kind, job) of the training job a pod belongs to; (None, None) for none."""
    kind, name = _job_from_labels(labels_, owner, namespace, index)
    if name is None:
        okind, oname = owner
        if okind in JOB_KINDS and oname:
            kind, name = okind, oname
    if name is None or kind is None:
        return None, None
    if kind == "Job" and not index.has(namespace, "Job", name):
        kind, name = index.jobset_of(namespace, name) or (kind, name)
    return index.top(namespace, kind, name)


def _job_from_labels(lab: dict[str, str], owner: tuple[str | None, str | None], namespace: str | None, index: JobIndex) -> tuple[str | None, str | None]:
    kf_name = first(lab, "training.kubeflow.org/job-name", "pytorch-job-name", "tf-job-name")
    if kf_name:
        return _kubeflow_kind(lab, owner, namespace, kf_name, index), kf_name
    trainjob = first(lab, "trainer.kubeflow.org/trainjob-name")
    if trainjob:
        return "TrainJob", trainjob
    jobset = first(lab, "jobset.sigs.k8s.io/jobset-name")
    if jobset:
        if "trainer.kubeflow.org/trainjob-ancestor-step" in lab or index.has(namespace, "TrainJob", jobset):
            return "TrainJob", jobset
        return "JobSet", jobset
    batch_job = first(lab, "batch.kubernetes.io/job-name", "job-name")
    if batch_job and lab.get("group-name") != "kubeflow.org":
        return "Job", batch_job
    ray_cr = first(lab, "ray.io/originated-from-cr-name")
    ray_crd = first(lab, "ray.io/originated-from-crd")
    if ray_cr and ray_crd:
        return ray_crd, ray_cr
    ray_cluster = first(lab, "ray.io/cluster")
    if ray_cluster:
        return "RayCluster", ray_cluster
    lws = first(lab, "leaderworkerset.sigs.k8s.io/name")
    if lws:
        return "LeaderWorkerSet", lws
    return None, None


def _kubeflow_kind(lab: dict[str, str], owner: tuple[str | None, str | None], namespace: str | None, name: str, index: JobIndex) -> str | None:
    operator = (lab.get("training.kubeflow.org/operator-name") or "").lower()
    if operator in OPERATOR_KINDS:
        return OPERATOR_KINDS[operator]
    if "mpi" in operator:
        return "MPIJob"
    if owner[0] in KUBEFLOW_KINDS:
        return owner[0]
    if "pytorch-job-name" in lab:
        return "PyTorchJob"
    if "tf-job-name" in lab:
        return "TFJob"
    known = [k for k in KUBEFLOW_KINDS if index.has(namespace, k, name)]
    return known[0] if len(known) == 1 else None


__all__ = ["JobIndex", "job_of_pod", "OPERATOR_KINDS"]
