"""Training-job CRDs (PyTorchJob, TrainJob, JobSet, batch Job) and Kueue objects."""

from __future__ import annotations

import datetime as dt
from typing import Any

from k10s_forensics.store.bundle import iso
from k10s_forensics.simulate.job import Job
from k10s_forensics.simulate.k8s_objects import Versions, meta

IMAGE = "nvcr.io/nvidia/pytorch:24.08-py3"


def _pod_template(job: Job) -> dict:
    gpus = str(job.gpus_per_pod)
    return {"spec": {"containers": [{"name": job.container, "image": IMAGE, "command": ["torchrun"],
                                     "resources": {"limits": {"nvidia.com/gpu": gpus}}}],
                     "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]}}


def _cond(ctype: str, reason: str, message: str, at: dt.datetime, status: str = "True") -> dict:
    return {"type": ctype, "status": status, "reason": reason, "message": message, "lastUpdateTime": iso(at), "lastTransitionTime": iso(at)}


def owner_ref(api: str, kind: str, name: str, uid: str) -> dict:
    return {"apiVersion": api, "kind": kind, "name": name, "uid": uid, "controller": True, "blockOwnerDeletion": True}


def job_objects(job: Job, rv: Versions, t: dt.datetime, state: str, started: dt.datetime | None, restarts: int) -> list[tuple[str, dict]]:
    """(api_version, body) of the job object and its children at listing time ``t``.

    ``state`` is one of Created, Running, Restarting, Failed, Suspended.
    """
    labels = {"kueue.x-k8s.io/queue-name": job.queue} if job.queue else {}
    out: list[tuple[str, dict]] = []
    conds = [_cond("Created", f"{job.kind}Created", f"{job.kind} {job.name} is created.", job.created)]
    if state == "Suspended":
        conds.append(_cond("Suspended", "Suspended", f"{job.kind} {job.name} is suspended.", job.created))
    elif state in ("Running", "Restarting", "Failed") and started is not None:
        conds.append(_cond("Running", f"{job.kind}Running", f"{job.kind} {job.name} is running.", started))
        if state == "Restarting":
            conds.append(_cond("Restarting", f"{job.kind}Restarting", f"{job.kind} {job.name} is restarting because 1 Worker replica(s) failed.", t))
    if job.kind == "PyTorchJob":
        specs: dict[str, Any] = {"Master": {"replicas": 1, "restartPolicy": job.restart_policy, "template": _pod_template(job)}}
        if job.replicas > 1:
            specs["Worker"] = {"replicas": job.replicas - 1, "restartPolicy": job.restart_policy, "template": _pod_template(job)}
        body = {"apiVersion": "kubeflow.org/v1", "kind": "PyTorchJob", "metadata": meta(job.name, job.uid, job.created, rv, job.namespace, labels=labels),
                "spec": {"nprocPerNode": str(job.nproc), "pytorchReplicaSpecs": specs,
                         "runPolicy": {"cleanPodPolicy": "None", "suspend": job.suspended, "backoffLimit": 3}},
                "status": {"conditions": conds, "replicaStatuses": {"Master": {"active": 1}, "Worker": {"active": max(0, job.replicas - 1)}},
                           **({"startTime": iso(started)} if started else {})}}
        return [("kubeflow.org/v1", body)]
    rjob = "node" if job.kind == "TrainJob" else "workers"
    js_owner: list[dict] = []
    if job.kind == "TrainJob":
        tj = {"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob", "metadata": meta(job.name, job.uid, job.created, rv, job.namespace, labels=labels),
              "spec": {"runtimeRef": {"apiGroup": "trainer.kubeflow.org", "kind": "ClusterTrainingRuntime", "name": "torch-distributed"},
                       "trainer": {"image": IMAGE, "numNodes": job.replicas, "numProcPerNode": job.nproc,
                                   "resourcesPerNode": {"limits": {"nvidia.com/gpu": str(job.gpus_per_pod)}}}, "suspend": job.suspended},
              "status": {"conditions": [c for c in conds if c["type"] != "Created"]}}
        out.append(("trainer.kubeflow.org/v1alpha1", tj))
        js_owner = [owner_ref("trainer.kubeflow.org/v1alpha1", "TrainJob", job.name, job.uid)]
        js_uid = job.child_uids["jobset"]
    else:
        js_uid = job.uid
    js_labels = dict(labels) if job.kind == "JobSet" else {}
    template = {"spec": {"parallelism": job.replicas, "completions": job.replicas, "completionMode": "Indexed", "backoffLimit": 0, "template": _pod_template(job)}}
    js = {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet",
          "metadata": meta(job.name, js_uid, job.created, rv, job.namespace, labels=js_labels, ownerReferences=js_owner),
          "spec": {"replicatedJobs": [{"name": rjob, "replicas": 1, "template": template}], "failurePolicy": {"maxRestarts": 3},
                   "network": {"enableDNSHostnames": True, "subdomain": job.name}, "suspend": job.suspended},
          "status": {"restarts": restarts, "conditions": [c for c in conds if c["type"] not in ("Created", "Running")],
                     "replicatedJobsStatus": [{"name": rjob, "ready": 0 if job.suspended else 1, "active": 0 if job.suspended else 1, "succeeded": 0, "failed": 0, "suspended": 1 if job.suspended else 0}]}}
    out.append(("jobset.x-k8s.io/v1alpha2", js))
    if not job.suspended:
        child = f"{job.name}-{rjob}-0"
        bj = {"apiVersion": "batch/v1", "kind": "Job",
              "metadata": meta(child, job.child_uids["job"], job.created, rv, job.namespace,
                               labels={"jobset.sigs.k8s.io/jobset-name": job.name, "jobset.sigs.k8s.io/replicatedjob-name": rjob, "jobset.sigs.k8s.io/restart-attempt": str(restarts)},
                               ownerReferences=[owner_ref("jobset.x-k8s.io/v1alpha2", "JobSet", job.name, js_uid)]),
              "spec": template["spec"], "status": {"active": job.replicas, **({"startTime": iso(started)} if started else {})}}
        out.append(("batch/v1", bj))
    return out


def pod_owner(job: Job) -> dict:
    if job.kind == "PyTorchJob":
        return owner_ref("kubeflow.org/v1", "PyTorchJob", job.name, job.uid)
    rjob = "node" if job.kind == "TrainJob" else "workers"
    return owner_ref("batch/v1", "Job", f"{job.name}-{rjob}-0", job.child_uids["job"])


KUEUE = "kueue.x-k8s.io/v1beta1"


def kueue_objects(job: Job, rv: Versions, uids: dict[str, str], flavor: str, cq: str, lq: str, nominal: int, used: int,
                  pending: int, message: str, at: dt.datetime) -> list[tuple[str, dict]]:
    """ResourceFlavor, ClusterQueue, LocalQueue and the job's pending Workload."""
    created = at - dt.timedelta(days=12)
    rf = {"apiVersion": KUEUE, "kind": "ResourceFlavor", "metadata": meta(flavor, uids["rf"], created, rv),
          "spec": {"nodeLabels": {"nvidia.com/gpu.present": "true"}}}
    usage = [{"name": flavor, "resources": [{"name": "nvidia.com/gpu", "total": str(used), "borrowed": "0"}, {"name": "cpu", "total": str(used * 12), "borrowed": "0"}]}]
    cqb = {"apiVersion": KUEUE, "kind": "ClusterQueue", "metadata": meta(cq, uids["cq"], created, rv),
           "spec": {"namespaceSelector": {}, "cohort": "gpu-pool", "queueingStrategy": "BestEffortFIFO",
                    "resourceGroups": [{"coveredResources": ["cpu", "nvidia.com/gpu"], "flavors": [{"name": flavor, "resources": [
                        {"name": "cpu", "nominalQuota": str(nominal * 12)}, {"name": "nvidia.com/gpu", "nominalQuota": str(nominal)}]}]}],
                    "preemption": {"withinClusterQueue": "LowerPriority", "reclaimWithinCohort": "Never"}},
           "status": {"pendingWorkloads": pending, "reservingWorkloads": 1, "admittedWorkloads": 1, "flavorsReservation": usage, "flavorsUsage": usage,
                      "conditions": [{"type": "Active", "status": "True", "reason": "Ready", "message": "Can admit new workloads", "lastTransitionTime": iso(created)}]}}
    lqb = {"apiVersion": KUEUE, "kind": "LocalQueue", "metadata": meta(lq, uids["lq"], created, rv, job.namespace),
           "spec": {"clusterQueue": cq}, "status": {"pendingWorkloads": pending, "reservingWorkloads": 0, "admittedWorkloads": 0,
                                                   "conditions": [{"type": "Active", "status": "True", "reason": "Ready", "message": "Can submit new workloads to localQueue", "lastTransitionTime": iso(created)}]}}
    api = {"PyTorchJob": "kubeflow.org/v1", "TrainJob": "trainer.kubeflow.org/v1alpha1", "JobSet": "jobset.x-k8s.io/v1alpha2"}[job.kind]
    wl_name = f"{job.kind.lower()}-{job.name}-{uids['wl'][:5]}"
    podset = "worker" if job.kind == "PyTorchJob" else ("node" if job.kind == "TrainJob" else "workers")
    wl = {"apiVersion": KUEUE, "kind": "Workload",
          "metadata": meta(wl_name, uids["wl"], job.created, rv, job.namespace, labels={"kueue.x-k8s.io/job-uid": job.uid},
                           ownerReferences=[owner_ref(api, job.kind, job.name, job.uid)]),
          "spec": {"queueName": lq, "priority": 0, "active": True,
                   "podSets": [{"name": podset, "count": job.replicas, "template": {"spec": {"containers": [{"name": job.container, "resources": {"requests": {"nvidia.com/gpu": str(job.gpus_per_pod)}}}]}}}]},
          "status": {"conditions": [{"type": "QuotaReserved", "status": "False", "reason": "Pending", "message": message, "lastTransitionTime": iso(job.created + dt.timedelta(seconds=1))}],
                     "resourceRequests": [{"name": podset, "resources": {"nvidia.com/gpu": str(job.gpus_per_pod * job.replicas)}}]}}
    return [(KUEUE, rf), (KUEUE, cqb), (KUEUE, lqb), (KUEUE, wl)]
