"""Training-job objects found through API discovery (an absent CRD is skipped, not an error).

Kinds: kubeflow.org PyTorchJob/MPIJob/TFJob/XGBoostJob/PaddleJob/JAXJob, trainer.kubeflow.org
TrainJob, jobset.x-k8s.io JobSet, batch Job, ray.io RayJob/RayCluster. With ``--job`` only
the named job and its children (owner references: TrainJob → JobSet → Job, RayJob →
RayCluster) are kept, and their uids let the pods collector find the job's pods.
"""

from __future__ import annotations

from dataclasses import dataclass

from k10s_forensics.capture.retry import CallError
from k10s_forensics.collectors import Access, Collector


@dataclass(frozen=True)
class TrainingKind:
    group: str
    kind: str
    plural: str
    default_version: str
    tier: int  # 0: top-level jobs, 1: children of those, 2: grandchildren


TRAINING_KINDS: tuple[TrainingKind, ...] = (
    TrainingKind("kubeflow.org", "PyTorchJob", "pytorchjobs", "v1", 0),
    TrainingKind("kubeflow.org", "MPIJob", "mpijobs", "v2beta1", 0),
    TrainingKind("kubeflow.org", "TFJob", "tfjobs", "v1", 0),
    TrainingKind("kubeflow.org", "XGBoostJob", "xgboostjobs", "v1", 0),
    TrainingKind("kubeflow.org", "PaddleJob", "paddlejobs", "v1", 0),
    TrainingKind("kubeflow.org", "JAXJob", "jaxjobs", "v1", 0),
    TrainingKind("trainer.kubeflow.org", "TrainJob", "trainjobs", "v1alpha1", 0),
    TrainingKind("ray.io", "RayJob", "rayjobs", "v1", 0),
    TrainingKind("jobset.x-k8s.io", "JobSet", "jobsets", "v1alpha2", 1),
    TrainingKind("ray.io", "RayCluster", "rayclusters", "v1", 1),
    TrainingKind("batch", "Job", "jobs", "v1", 2),
)


def served_version(source, tk: TrainingKind) -> str | None:
    """The served version of a kind: the group's preferred version first, then the others."""
    entry = source.discovery().get(tk.group)
    if entry is None:
        return None
    versions = [entry["preferred"]] + [v for v in entry["versions"] if v != entry["preferred"]]
    for version in versions:
        if version and tk.kind in source.resources(tk.group, version):
            return version
    return None


class TrainingJobsCollector(Collector):
    name = "training-jobs"
    phases = ("start", "end")
    access = tuple(Access("list", tk.plural, group=tk.group) for tk in TRAINING_KINDS)
    description = "list training-job objects of every served kind (PyTorchJob, TrainJob, JobSet, ...)"

    def run(self, ctx, phase: str) -> None:
        try:
            served = [(tk, served_version(ctx.source, tk)) for tk in TRAINING_KINDS]
        except CallError as exc:
            ctx.error(f"API discovery: {exc}")
            return
        present = []
        for tk, version in served:
            if version is None:
                ctx.note_skipped(f"{tk.group}/{tk.default_version} {tk.kind} not served by this cluster")
            else:
                present.append((tk, version))
        if not present:
            ctx.skip("no training-job kinds served by this cluster")
            return
        if not ctx.scope.job_scoped:
            work = [(tk, v, path) for tk, v in present for path in ctx.scope.ns_paths(f"/apis/{tk.group}/{v}", tk.plural)]
            ctx.fan_out(lambda w: ctx.try_list(w[2], f"{w[0].group}/{w[1]}", w[0].kind), work, lambda w: f"list {w[0].kind}")
            return
        self._job_scoped(ctx, present, phase)

    def _job_scoped(self, ctx, present, phase: str) -> None:
        inv = ctx.inventory
        found_jobs: set[str] = set()

        def keep_for(tk: TrainingKind):
            def keep(item: dict) -> bool:
                meta = item.get("metadata") or {}
                owners = {o.get("uid") for o in meta.get("ownerReferences") or []}
                with inv.lock:
                    if owners & inv.job_uids:
                        inv.job_uids.add(meta.get("uid"))
                        return True
                for job in ctx.scope.jobs:
                    if (job.namespace == meta.get("namespace") and job.name == meta.get("name")
                            and job.kind_matches(tk.kind, tk.plural, tk.group)):
                        with inv.lock:
                            inv.job_uids.add(meta.get("uid"))
                        found_jobs.add(str(job))
                        return True
                return False
            return keep

        for tier in (0, 1, 2):
            work = [(tk, v, f"/apis/{tk.group}/{v}/namespaces/{ns}/{tk.plural}")
                    for tk, v in present if tk.tier == tier for ns in ctx.scope.namespaces]
            ctx.fan_out(lambda w: ctx.try_list(w[2], f"{w[0].group}/{w[1]}", w[0].kind, keep=keep_for(w[0])),
                        work, lambda w: f"list {w[0].kind}")
        if phase == "start":
            for job in ctx.scope.jobs:
                if str(job) not in found_jobs:
                    ctx.error(f"job {job}: not found as any served training-job kind; its pods are matched by their labels only")


COLLECTOR = TrainingJobsCollector()
