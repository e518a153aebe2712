"""Kueue objects: Workload, LocalQueue (namespaced), ClusterQueue, ResourceFlavor (cluster).

With ``--job`` only the job's Workloads (owner reference or ``kueue.x-k8s.io/job-uid``
label) and the LocalQueues they name are kept; every ClusterQueue and ResourceFlavor is
kept because quota borrowing within a cohort explains why a job waits.
"""

from __future__ import annotations

from k10s_forensics.collectors import Access, Collector

GROUP = "kueue.x-k8s.io"
KINDS = (("Workload", "workloads", True), ("LocalQueue", "localqueues", True),
         ("ClusterQueue", "clusterqueues", False), ("ResourceFlavor", "resourceflavors", False))


class KueueCollector(Collector):
    name = "kueue"
    phases = ("start", "end")
    needs = ("training-jobs",)
    access = tuple(Access("list", plural, group=GROUP, namespaced=ns) for _, plural, ns in KINDS)
    description = "list Kueue Workloads, LocalQueues, ClusterQueues, ResourceFlavors"

    def run(self, ctx, phase: str) -> None:
        entry = ctx.source.discovery().get(GROUP)
        if entry is None:
            ctx.skip(f"{GROUP} not served by this cluster")
            return
        version = entry["preferred"]
        served = ctx.source.resources(GROUP, version)
        api_version = f"{GROUP}/{version}"
        prefix = f"/apis/{GROUP}/{version}"
        for kind, _plural, _ns in KINDS:
            if kind not in served:
                ctx.note_skipped(f"{api_version} {kind} not served by this cluster")
        queue_names: set[tuple[str, str]] = set()

        def keep_workload(item: dict) -> bool:
            if not ctx.scope.job_scoped:
                return True
            meta = item.get("metadata") or {}
            owners = {o.get("uid") for o in meta.get("ownerReferences") or []}
            label_uid = (meta.get("labels") or {}).get("kueue.x-k8s.io/job-uid")
            names = {o.get("name") for o in meta.get("ownerReferences") or []}
            mine = bool(owners & ctx.inventory.job_uids) or label_uid in ctx.inventory.job_uids or any(
                j.namespace == meta.get("namespace") and j.name in names for j in ctx.scope.jobs)
            if mine and (item.get("spec") or {}).get("queueName"):
                queue_names.add((meta.get("namespace"), item["spec"]["queueName"]))
            return mine

        def keep_queue(item: dict) -> bool:
            meta = item.get("metadata") or {}
            return not ctx.scope.job_scoped or (meta.get("namespace"), meta.get("name")) in queue_names

        if "Workload" in served:
            for path in ctx.scope.ns_paths(prefix, served["Workload"]["name"]):
                ctx.try_list(path, api_version, "Workload", keep=keep_workload)
        work = []
        if "LocalQueue" in served:
            work += [(p, "LocalQueue", keep_queue) for p in ctx.scope.ns_paths(prefix, served["LocalQueue"]["name"])]
        for kind in ("ClusterQueue", "ResourceFlavor"):
            if kind in served:
                work.append((f"{prefix}/{served[kind]['name']}", kind, None))
        ctx.fan_out(lambda w: ctx.try_list(w[0], api_version, w[1], keep=w[2]), work, lambda w: f"list {w[1]}")


COLLECTOR = KueueCollector()
