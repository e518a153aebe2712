"""A simulated fleet: many incidents over months and clusters, with planted recurrences.

``plan_fleet(seed, bundles)`` draws clusters, nodes (with system UUIDs) and GPUs (serial
and UUID), then one capture window per bundle with the findings a bundle analysis would
report. Planted (unless ``planted=False``), each in its own cluster so they never overlap:

* ``bad-gpu``: one board (by serial) is the culprit of Xid 48 in 4 bundles within ~3 weeks
  and is moved to another node halfway (its UUID moves with it; some bundles saw it only
  through DCGM, without the serial);
* ``flaky-node``: one node throws Xid 79 on a different GPU each time, in 4 bundles within
  ~3 weeks, and is renamed halfway (same system UUID);
* ``bad-driver``: bundles on one driver version hang (NCCL) 45% of the time, others 3%.

Noise: OOMs, crash loops, input-bound stragglers, pending pods, idle GPUs, sporadic
hardware findings capped at 1 per GPU and 2 per node, and application Xids. ``truth``
lists what the fleet rules must find (and nothing else). Rows (``fleet_rows``) or tiny
real bundles (``fleet_bundles``) are written from the plan.
"""

from __future__ import annotations

import datetime as dt
import random
from dataclasses import dataclass, field
from typing import Any

from k10s_forensics.fleet.identity import node_key
from k10s_forensics.simulate.cluster import GPU_MODELS, gpu_uuid, uid

START = dt.datetime(2026, 1, 5, 8, 0, tzinfo=dt.timezone.utc)
SPAN_DAYS = 180
CLUSTERS = ("prod-east", "prod-west", "research")
DRIVERS = ("535.129.03", "550.90.07", "570.124.06")
BAD_DRIVER = "550.90.07"
NOISE_RULES = (("oom-cascade", "cuda-oom", "critical"), ("crashloop", "image-pull", "warning"),
               ("straggler", "host-input", "warning"), ("pending", "insufficient-gpu", "warning"),
               ("idle-gpu", "allocated-idle", "info"))


@dataclass
class SimGpu:
    uuid: str
    serial: str
    bus: str


@dataclass
class SimNode:
    name: str
    system_uuid: str
    machine_id: str
    driver: str
    product: str
    gpus: list[SimGpu]
    renamed_to: str | None = None
    renamed_at: dt.datetime | None = None

    def name_at(self, t: dt.datetime) -> str:
        return self.renamed_to if self.renamed_to and self.renamed_at and t >= self.renamed_at else self.name

    @property
    def key(self) -> str:
        return node_key(self.name, self.system_uuid)


@dataclass
class SimFinding:
    rule: str
    cause: str
    severity: str
    at: dt.datetime
    gpu: SimGpu | None = None
    node: SimNode | None = None
    xid: int | None = None
    gpu_hours_lost: float | None = None


@dataclass
class SimBundle:
    cluster: str
    start: dt.datetime
    namespace: str
    nodes: list[SimNode]
    findings: list[SimFinding] = field(default_factory=list)
    app_xids: list[tuple[SimNode, SimGpu, int, dt.datetime]] = field(default_factory=list)
    has_serials: bool = True
    layout: dict[str, list[SimGpu]] = field(default_factory=dict)  # node key -> its GPUs then

    @property
    def end(self) -> dt.datetime:
        return self.start + dt.timedelta(minutes=15)


@dataclass
class FleetPlan:
    seed: int
    bundles: list[SimBundle]
    nodes: dict[str, list[SimNode]]
    truth: dict[str, Any]


def _node(rng: random.Random, cluster: str, i: int, product: str, driver: str) -> SimNode:
    gpus = [SimGpu(gpu_uuid(rng), str(1320000000000 + rng.randrange(10**9)), f"{b:02x}") for b in (0x18, 0x2a, 0x3a, 0x5d, 0x9a, 0xab, 0xba, 0xdb)]
    return SimNode(f"{cluster}-gpu-{i:03d}", uid(rng), uid(rng).replace("-", ""), driver, product, gpus)


def _layout(bundle_nodes: list[SimNode], moved: tuple | None, t: dt.datetime) -> dict[str, list[SimGpu]]:
    """GPUs per node at ``t``: the moved board sits in the new node (swapped) after the move."""
    out = {n.key: list(n.gpus) for n in bundle_nodes}
    if moved:
        board, src, dst, slot, at = moved
        if t >= at:
            for n in bundle_nodes:
                if n is src:
                    out[n.key][slot] = dst.gpus[slot]
                if n is dst:
                    out[n.key][slot] = board
    return out


def plan_fleet(seed: int, bundles: int, *, planted: bool = True, nodes_per_cluster: int = 12) -> FleetPlan:
    rng = random.Random(seed)
    models = list(GPU_MODELS)
    nodes = {c: [_node(rng, c, i, GPU_MODELS[models[k % len(models)]]["product"], DRIVERS[i % len(DRIVERS)])
                 for i in range(nodes_per_cluster)] for k, c in enumerate(CLUSTERS)}
    plan = FleetPlan(seed, [], nodes, {"recurring-gpu": [], "moved-gpu": [], "recurring-node": [], "xid-recurrence": [], "driver-hangs": []})
    reserved: set[str] = set()
    moved = None
    planted_bundles: list[SimBundle] = []
    if planted:
        planted_bundles += _plant_bad_gpu(rng, plan, reserved)
        moved = plan.truth.pop("_moved")
        planted_bundles += _plant_flaky_node(rng, plan, reserved)
    hw_per_node: dict[str, int] = {}
    used_gpus: set[str] = set()
    hang_driver = BAD_DRIVER if planted else None
    for _ in range(max(0, bundles - len(planted_bundles))):
        cluster = rng.choice(CLUSTERS)
        pool = [n for n in nodes[cluster] if n.key not in reserved]
        chosen = rng.sample(pool, 2)
        t = START + dt.timedelta(seconds=rng.randrange(SPAN_DAYS * 86400))
        b = SimBundle(cluster, t, rng.choice(("team-a", "team-b", "nlp", "vision")), chosen, has_serials=rng.random() > 0.3)
        b.layout = _layout(chosen, moved, t)
        _noise(rng, b, hw_per_node, used_gpus, hang_driver)
        plan.bundles.append(b)
    plan.bundles += planted_bundles
    plan.bundles.sort(key=lambda b: (b.start, b.cluster))
    if planted and any(b.nodes[0].driver == BAD_DRIVER or b.nodes[1].driver == BAD_DRIVER for b in plan.bundles):
        plan.truth["driver-hangs"] = [BAD_DRIVER]
    return plan


def _plant_bad_gpu(rng: random.Random, plan: FleetPlan, reserved: set[str]) -> list[SimBundle]:
    cluster = CLUSTERS[0]
    src, dst, other, other2 = rng.sample(plan.nodes[cluster], 4)
    slot = rng.randrange(8)
    board = src.gpus[slot]
    t0 = START + dt.timedelta(days=rng.randrange(10, SPAN_DAYS - 40))
    move_at = t0 + dt.timedelta(days=9)
    reserved.update({src.key, dst.key})
    moved = (board, src, dst, slot, move_at)
    out = []
    for k, days in enumerate((0, 4, 12, 19)):
        t = t0 + dt.timedelta(days=days, hours=rng.randrange(0, 12))
        host = src if t < move_at else dst
        b = SimBundle(cluster, t, "team-a", [host, other if k % 2 else other2], has_serials=(k != 1))
        b.layout = _layout(b.nodes, moved, t)
        b.findings.append(SimFinding("gpu-health", "xid-48", "critical", t + dt.timedelta(minutes=3), board, host, 48))
        b.findings.append(SimFinding("nccl-hang", "rank-failed", "critical", t + dt.timedelta(minutes=4), board, host, None, 8.0))
        out.append(b)
    key = f"serial:{board.serial}"
    plan.truth.update({"recurring-gpu": [key], "moved-gpu": [key], "_moved": moved})
    plan.truth["xid-recurrence"].append(("gpu", key, 48))
    reserved.update({other.key, other2.key})
    return out


def _plant_flaky_node(rng: random.Random, plan: FleetPlan, reserved: set[str]) -> list[SimBundle]:
    cluster = CLUSTERS[1]
    node, peer = rng.sample([n for n in plan.nodes[cluster] if n.key not in reserved], 2)
    t0 = START + dt.timedelta(days=rng.randrange(10, SPAN_DAYS - 40))
    node.renamed_to, node.renamed_at = node.name + "-r", t0 + dt.timedelta(days=8)
    reserved.update({node.key, peer.key})
    out = []
    for k, days in enumerate((0, 5, 11, 17)):
        t = t0 + dt.timedelta(days=days, hours=rng.randrange(0, 12))
        gpu = node.gpus[(k * 3) % 8]
        b = SimBundle(cluster, t, "nlp", [node, peer])
        b.layout = _layout(b.nodes, None, t)
        b.findings.append(SimFinding("gpu-health", "xid-79", "critical", t + dt.timedelta(minutes=2), gpu, node, 79))
        out.append(b)
    plan.truth["recurring-node"].append(node.key)
    plan.truth["xid-recurrence"].append(("node", node.key, 79))
    return out


def _noise(rng: random.Random, b: SimBundle, hw_per_node: dict[str, int], used_gpus: set[str], hang_driver: str | None) -> None:
    at = b.start + dt.timedelta(minutes=rng.randrange(1, 12))
    for _ in range(rng.choice((0, 0, 1, 1, 2))):
        rule, cause, severity = rng.choice(NOISE_RULES)
        node = rng.choice(b.nodes)
        gpu = rng.choice(b.layout[node.key]) if rule in ("oom-cascade", "straggler", "idle-gpu") else None
        b.findings.append(SimFinding(rule, cause, severity, at, gpu, node, None, round(rng.uniform(0.5, 40.0), 3)))
    hang_p = 0.45 if hang_driver and any(n.driver == hang_driver for n in b.nodes) else 0.03
    if rng.random() < hang_p:  # a hang no rank could be singled out for
        b.findings.append(SimFinding("nccl-hang", "rank-hung", "critical", at, None, None, None, round(rng.uniform(4.0, 64.0), 3)))
    if rng.random() < 0.08:  # a sporadic hardware fault: once per GPU, at most twice per node
        node = rng.choice(b.nodes)
        gpu = rng.choice(b.layout[node.key])
        if hw_per_node.get(node.key, 0) < 2 and gpu.uuid not in used_gpus:
            hw_per_node[node.key] = hw_per_node.get(node.key, 0) + 1
            used_gpus.add(gpu.uuid)
            xid = rng.choice((48, 79, 94, 119))
            b.findings.append(SimFinding("gpu-health", f"xid-{xid}", "critical", at, gpu, node, xid))
    if rng.random() < 0.1:
        node = rng.choice(b.nodes)
        b.app_xids.append((node, rng.choice(b.layout[node.key]), rng.choice((13, 31, 43)), at))


__all__ = ["plan_fleet", "FleetPlan", "SimBundle", "SimNode", "SimGpu", "SimFinding", "BAD_DRIVER"]
