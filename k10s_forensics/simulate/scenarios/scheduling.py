"""idle-gpus, pending-taint, pending-capacity, pending-quota."""

from __future__ import annotations

import datetime as dt

from k10s_forensics.simulate.activity import Seg
from k10s_forensics.simulate.job import build_job
from k10s_forensics.simulate.job_objects import kueue_objects
from k10s_forensics.simulate.scenarios.common import FAR, SEC, forbid, job_info
from k10s_forensics.simulate.training import start_workers, train


def idle_gpus(sim) -> None:
    gpn = sim.gpus_per_node
    nproc = gpn if gpn <= 2 else gpn - sim.rng.choice((1, 2))
    created = sim.start - dt.timedelta(hours=sim.rng.uniform(3, 9))
    slots = [[g.gid for g in n.gpus][:nproc] for n in sim.cluster.nodes]
    sim.nproc = nproc
    sim.job = job = build_job(sim.cluster, sim.rng, created, slots, list(sim.cluster.nodes), nproc)
    sim.ns_uids[job.namespace] = sim.uid()
    for p in job.pods:
        p.created = created + SEC * sim.rng.uniform(1, 5)
    runs = start_workers(sim, job.pods, created + SEC * 30, 0, True)
    sim.job_started = created + SEC * 30
    t0 = created + SEC * 90
    t_done = t0 + dt.timedelta(minutes=sim.rng.uniform(20, 60))
    train(sim, job.pods, runs, t0, t_done, 0)
    for p in job.pods:
        runs[p.uid].log(t_done + SEC, f"Training finished in {t_done - t0}. Sleeping so the pod stays up for debugging (sleep infinity).")
    fb = sim.fb_train_mib
    sim.segs(sim.job_gids(), [Seg(created, t0, busy=0.04, fb0_mib=600), Seg(t0, t_done, busy=sim.busy, wait=1 - sim.busy - 0.02, fb0_mib=fb),
                              Seg(t_done, sim.end + FAR, fb0_mib=sim.rng.choice((0.0, 0.0, 3.0)))])
    job_info(sim)
    sim.expect("idle-gpu", "allocated-idle", list(range(job.world_size)), job.pods, sim.job_gids(),
               idle_since=t_done.isoformat())
    forbid(sim, "idle-gpu")
    free = len(sim.cluster.gpus) - job.world_size
    sim.truth["notes"] = (f"Every pod of the job has held its GPUs with ~0 activity since {t_done.isoformat()} (training ended, "
                          f"container sleeps). {free} unallocated GPUs idle scattered across nodes (fragmentation).")


def _pending_job(sim, nproc: int, nodes_for: list, lead=(8.0, 25.0)):
    created = sim.start - dt.timedelta(minutes=sim.rng.uniform(*lead))
    sim.nproc = nproc
    slots = [[g.gid for g in n.gpus][:nproc] if n is not None else [] for n in nodes_for]
    sim.job = job = build_job(sim.cluster, sim.rng, created, slots, nodes_for, nproc)
    sim.ns_uids[job.namespace] = sim.uid()
    for p in job.pods:
        p.created = created + SEC * sim.rng.uniform(1, 3)
    return job


def _failed_scheduling(sim, pods, message: str) -> None:
    job = sim.job
    for p in pods:
        first = p.created + SEC * 0.5
        count = max(1, int((sim.end - first).total_seconds() // 300) + 1)
        p.pending_message = message
        sim.event(job.namespace, "Pod", p.name, p.uid, "FailedScheduling", "Warning", message, first, sim.end - SEC * 20, count,
                  component="default-scheduler")


def pending_taint(sim) -> None:
    n = len(sim.cluster.nodes)
    sim.cluster.gpu_taint = True
    job = _pending_job(sim, sim.nproc, [None] * (n if sim.nproc == sim.gpus_per_node else n * (sim.gpus_per_node // sim.nproc)))
    for p in job.pods:
        p.tolerates_gpu_taint = False
    msg = (f"0/{n} nodes are available: {n} node(s) had untolerated taint {{nvidia.com/gpu: present}}. preemption: 0/{n} nodes are "
           f"available: {n} Preemption is not helpful for scheduling.")
    _failed_scheduling(sim, job.pods, msg)
    sim.state_changes = [(job.created, "Created")]
    job_info(sim)
    sim.expect("pending", "untolerated-taint", [], job.pods, [])
    sim.truth["expected"][0]["nodes"] = [nd.name for nd in sim.cluster.nodes]
    forbid(sim, "pending", "idle-gpu")
    sim.truth["notes"] = "Every GPU node carries nvidia.com/gpu=present:NoSchedule and the gang's pod template lacks the toleration."


def pending_capacity(sim) -> None:
    cl = sim.cluster
    n, gpn = len(cl.nodes), sim.gpus_per_node
    nproc = gpn if gpn > 1 else 1
    sim.nproc = nproc
    running = max(1, n // 2) if n > 1 else 0
    nodes_for = list(cl.nodes[:running]) + [None] * max(1, n - running)
    job = _pending_job(sim, nproc, nodes_for)
    held = {}
    for nd in cl.nodes[running:]:
        held[nd.name] = sim.rng.randrange(1, max(2, gpn // 2 + 1)) if gpn > 1 else 1
    # Another tenant's inference pods hold a few GPUs on every node not used by the gang.
    occ = [g.gid for nd in cl.nodes[running:] for g in nd.gpus[: held[nd.name]]]
    rs = f"triton-embed-{''.join(sim.rng.choice('bcdfghjklmnpqrstvwxz2456789') for _ in range(9))}"
    rs_uid = sim.uid()
    sim.ns_uids["inference"] = sim.uid()
    for nd in cl.nodes[running:]:
        sim.tenant_pods.append({"name": f"{rs}-{''.join(sim.rng.choice('bcdfghjklmnpqrstvwxz2456789') for _ in range(5))}",
                                "namespace": "inference", "uid": sim.uid(), "node": nd.name, "gpus": [g.gid for g in nd.gpus[: held[nd.name]]],
                                "created": sim.start - dt.timedelta(hours=sim.rng.uniform(1, 30)), "ip": cl.pod_ip(nd), "rs": rs,
                                "rs_uid": rs_uid, "app": "triton-embed", "container": "triton"})
    sim.segs(occ, [Seg(sim.start - FAR, sim.end + FAR, busy=0.35, wait=0.0, fb0_mib=cl.model["memory_mib"] * 0.4, tensor=0.12)])
    pending = [p for p in job.pods if p.node is None]
    runs = start_workers(sim, [p for p in job.pods if p.node is not None], job.created + SEC * 20, 0, True) if running else {}
    for uid, run in runs.items():
        run.log(run.started + SEC * 12, "Waiting for all workers to join the rendezvous (c10d)...")
    free_total = sum(gpn - held[k] for k in held)
    insufficient = n
    msg = (f"0/{n} nodes are available: {insufficient} Insufficient nvidia.com/gpu. preemption: 0/{n} nodes are available: "
           f"{insufficient} No preemption victims found for incoming pod.")
    _failed_scheduling(sim, pending, msg)
    if running:
        sim.segs(sim.job_gids([p for p in job.pods if p.node is not None]), [Seg(job.created, sim.end + FAR, fb0_mib=0)])
        sim.job_started = job.created + SEC * 20
    sim.state_changes = [(job.created, "Created")]
    job_info(sim)
    sim.expect("pending", "fragmentation" if free_total >= nproc else "insufficient-gpu", [], pending, [],
               free_gpus=free_total, gpus_per_pod=nproc)
    forbid(sim, "pending", "idle-gpu")
    sim.truth["notes"] = (f"{len(pending)} of {len(job.pods)} gang pods Pending (Insufficient nvidia.com/gpu): {free_total} GPUs are "
                          f"free in total but at most {max([gpn - h for h in held.values()] or [0])} on one node; {running} pods run and hold GPUs.")


def pending_quota(sim) -> None:
    cl = sim.cluster
    nproc = sim.nproc
    replicas = len(cl.nodes) * (sim.gpus_per_node // nproc)
    job = _pending_job(sim, nproc, [None] * replicas)
    job.pods = []
    job.suspended = True
    need = replicas * nproc
    nominal = max(need, len(cl.gpus)) + sim.rng.choice((0, 8, 16))
    used = nominal - need + sim.rng.randrange(1, max(2, need))
    short = need - (nominal - used)
    flavor = sim.rng.choice(("h100-reserved", "gpu-flavor", "a100-ondemand", "default-flavor"))
    job.queue = sim.rng.choice(("team-queue", "user-queue", "lq-training"))
    podset = "worker" if job.kind == "PyTorchJob" else ("node" if job.kind == "TrainJob" else "workers")
    msg = f"couldn't assign flavors to pod set {podset}: insufficient unused quota for nvidia.com/gpu in flavor {flavor}, {short} more needed"
    uids = {k: sim.uid() for k in ("rf", "cq", "lq", "wl")}
    objs = kueue_objects(job, _rv(), uids, flavor, "cluster-gpu-queue", job.queue, nominal, used, 1, msg, sim.start)
    sim.extra_objects.extend(objs)
    wl = objs[-1][1]["metadata"]
    sim.event(job.namespace, "Workload", wl["name"], wl["uid"], "Pending", "Warning", msg, job.created + SEC, sim.end - SEC * 30,
              max(1, int((sim.end - job.created).total_seconds() // 120)), component="kueue-admission")
    sim.state_changes = [(job.created, "Suspended")]
    job_info(sim)
    sim.expect("pending", "quota", [], [], [], flavor=flavor, more_needed=short)
    forbid(sim, "pending")
    sim.truth["notes"] = f"Kueue holds the job suspended: ClusterQueue nominal {nominal} GPUs, {used} in use, job needs {need} ({short} more)."


def _rv():
    from k10s_forensics.simulate.k8s_objects import Versions

    return Versions(3_100_000)
