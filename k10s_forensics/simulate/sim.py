"""The simulation state a scenario fills in: cluster, job, GPU activity, events, truth."""

from __future__ import annotations

import datetime as dt
import random

import numpy as np

from k10s_forensics.store.bundle import iso
from k10s_forensics.simulate.activity import Activity, Seg
from k10s_forensics.simulate.cluster import Cluster, build_cluster, hex_id, uid
from k10s_forensics.simulate.job import Job, Pod, build_job

SEC = dt.timedelta(seconds=1)


class Sim:
    """Everything one simulated bundle is made of."""

    def __init__(self, scenario: str, seed: int, nodes: int, gpus_per_node: int, minutes: float, interval_s: float,
                 nproc_per_node: int | None = None):
        self.scenario = scenario
        self.seed = seed
        self.rng = random.Random(f"k10s-sim/{seed}")
        self.nrng = np.random.default_rng(seed + 1_000_003)
        self.cluster: Cluster = build_cluster(seed, self.rng, nodes, gpus_per_node)
        self.start = self.cluster.base_time
        self.end = self.start + dt.timedelta(minutes=minutes)
        self.interval_s = float(interval_s)
        n_rounds = max(1, int(minutes * 60 // interval_s))
        self.rounds = [self.start + dt.timedelta(seconds=interval_s * k) for k in range(n_rounds)]
        self.gpus_per_node = gpus_per_node
        if nproc_per_node is None:
            nproc_per_node = gpus_per_node if (gpus_per_node == 1 or self.rng.random() < 0.75) else 1
        self.nproc = nproc_per_node
        self.activity = Activity(len(self.cluster.gpus))
        self.job: Job | None = None
        self.tenant_pods: list[dict] = []  # other tenants' GPU pods (pending-capacity)
        self.events: list[dict] = []
        self.extra_objects: list[tuple[str, dict]] = []
        self.extra_logs: list[dict] = []  # raw/logs rows of pods outside the job (GPU operator operands)
        self.dmesg: dict[str, list[tuple[dt.datetime, str]]] = {}
        self.net_bad: dict[str, tuple[dt.datetime, float]] = {}
        self.job_state = "Running"
        self.job_started: dt.datetime | None = None
        self.restarts = 0
        self.lacks_ss: set[str] = set()
        self.truth: dict = {"scenario": scenario, "seed": seed, "expected": [], "forbidden_rules": [], "notes": ""}
        self.step_ms = self.rng.choice((650.0, 900.0, 1200.0, 1800.0, 2400.0))
        self.tokens_per_step = self.rng.choice((131072, 262144, 524288))
        self.fb_train_mib = self.cluster.model["memory_mib"] * self.rng.uniform(0.55, 0.82)
        self.tensor_level = self.rng.uniform(0.32, 0.55)
        self.train_power = self.rng.uniform(0.78, 0.9)
        self.busy = self.rng.uniform(0.86, 0.94)  # compute share of a healthy step (rest: NCCL not overlapped)
        self._comm_ids: dict[int, str] = {}
        self.ns_uids = {n: uid(self.rng) for n in ("default", "kube-system", "gpu-operator")}
        self.lost: dict[str, dt.datetime] = {}  # node -> when the device plugin dropped a GPU
        self.down: dict[str, dt.datetime] = {}  # node -> when it died whole (its kubelet, exporter and pods gone)
        self.state_changes: list[tuple[dt.datetime, str]] = []
        self.restart_times: list[dt.datetime] = []
        self.final_pods: set[str] = set()  # pod uids whose last run ended for good (GPUs released)
        self.fr_dumps: dict[str, dict[str, bytes]] = {}  # pod uid -> Flight Recorder dump path -> bytes
        self.ras_answer: str | None = None  # what ncclras answers (None: a healthy job's answer)
        self.scrape_fail_p = self.rng.choice((0.0, 0.004, 0.01))
        self.nsocks = self.rng.choice((2, 4))

    # ---- helpers -------------------------------------------------------------------
    def job_state_at(self, t: dt.datetime) -> str:
        state = self.job_state if not self.state_changes else "Created"
        for at, st in sorted(self.state_changes):
            if at <= t:
                state = st
        return state

    def restarts_at(self, t: dt.datetime) -> int:
        return sum(1 for at in self.restart_times if at <= t)

    def released(self, pod: Pod) -> bool:
        return pod.uid in self.final_pods

    def comm_id(self, attempt: int) -> str:
        if attempt not in self._comm_ids:
            self._comm_ids[attempt] = f"0x{hex_id(self.rng, 16)}"
        return self._comm_ids[attempt]

    def uid(self) -> str:
        return uid(self.rng)

    def at(self, frac: float, jitter_s: float = 0.0) -> dt.datetime:
        """A time at ``frac`` of the window (plus a random jitter up to ``jitter_s``)."""
        span = (self.end - self.start).total_seconds()
        return self.start + SEC * (span * frac + self.rng.uniform(0, jitter_s))

    def full_job(self, created: dt.datetime, kind: str | None = None, nodes=None, timeouts=(600000, 1800000)) -> Job:
        """A job on every GPU of ``nodes`` (default all): one pod per node or one per GPU."""
        nodes = nodes if nodes is not None else self.cluster.nodes
        slots, where = [], []
        for node in nodes:
            ids = [g.gid for g in node.gpus]
            for i in range(0, len(ids) - self.nproc + 1, self.nproc):
                slots.append(ids[i : i + self.nproc])
                where.append(node)
        self.job = build_job(self.cluster, self.rng, created, slots, where, self.nproc, kind, timeouts)
        self.ns_uids[self.job.namespace] = uid(self.rng)
        return self.job

    def job_gids(self, pods: list[Pod] | None = None) -> list[int]:
        pods = pods if pods is not None else self.job.latest()
        return [g for p in pods for g in p.gpu_ids]

    def rank_gpu(self, rank: int) -> tuple[Pod, int, int]:
        """(pod, local rank, cluster GPU id) of a global rank (newest incarnation)."""
        pod = self.job.latest()[rank // self.job.nproc]
        local = rank % self.job.nproc
        return pod, local, pod.gpu_ids[local]

    def segs(self, gids: list[int], segs: list[Seg]) -> None:
        if gids:
            self.activity.new_group(segs, gids)

    def expect(self, rule: str, cause: str | None, ranks: list[int], pods: list[Pod], gids: list[int], **extra) -> None:
        """Add an expected finding to the truth."""
        ns = self.job.namespace if self.job else ""
        entry = {"rule": rule, "cause": cause, "ranks": ranks, "pods": sorted({f"{ns}/{p.name}" for p in pods}),
                 "nodes": sorted({p.node.name for p in pods if p.node is not None} | {self.cluster.gpus[g].node for g in gids}),
                 "gpus": [self.cluster.gpus[g].uuid for g in gids]}
        entry.update(extra)
        self.truth["expected"].append(entry)

    def event(self, ns: str, kind: str, name: str, obj_uid: str, reason: str, etype: str, message: str,
              first: dt.datetime, last: dt.datetime | None = None, count: int = 1, component: str = "kubelet",
              host: str | None = None) -> None:
        self.events.append(dict(ns=ns, kind=kind, name=name, obj_uid=obj_uid, reason=reason, etype=etype, message=message,
                                first=first, last=last or first, count=count, component=component, host=host, uid=self.uid()))

    def add_dmesg(self, node: str, ts: dt.datetime, line: str) -> None:
        self.dmesg.setdefault(node, []).append((ts, line))

    def describe_window(self) -> dict:
        return {"start": iso(self.start), "end": iso(self.end)}
