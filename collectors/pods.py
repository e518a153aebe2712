"""Pods in scope, listed at the start and the end of the capture (status included).

With ``--job`` the namespace's pods are listed and kept when a job label names the job
(``training.kubeflow.org/job-name``, ``jobset.sigs.k8s.io/jobset-name``, ...) or an owner
reference points at the job or one of its children (JobSet, Job, RayCluster).
"""

from __future__ import annotations

from k10s_forensics.capture.inventory import PodInfo
from k10s_forensics.collectors import Access, Collector


class PodsCollector(Collector):
    name = "pods"
    phases = ("start", "end")
    needs = ("training-jobs",)
    access = (Access("list", "pods"),)
    description = "list pods in scope (start and end)"

    def run(self, ctx, phase: str) -> None:
        found: dict[str, PodInfo] = {}
        failed = False

        def seen(item: dict) -> None:
            info = PodInfo.from_object(item)
            found[info.key] = info

        for path in ctx.scope.ns_paths("/api/v1", "pods"):
            if ctx.try_list(path, "v1", "Pod", keep=ctx.inventory.pod_in_scope, seen=seen) is None:
                failed = True
        with ctx.inventory.lock:
            if failed:
                ctx.inventory.pods.update(found)  # keep what the failed listing could not refresh
            else:
                ctx.inventory.pods = found
        if ctx.scope.job_scoped and not found and not failed:
            # Not a capture failure: a Kueue-suspended or finished-and-cleaned job has no pods.
            ctx.note_skipped("no pods found for " + ", ".join(str(j) for j in ctx.scope.jobs))


COLLECTOR = PodsCollector()
