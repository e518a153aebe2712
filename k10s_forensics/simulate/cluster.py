"""The simulated cluster: nodes, GPUs, names, IPs, GPU model and software versions.

Everything here is drawn from one ``random.Random`` so the same seed gives the same cluster.
"""

from __future__ import annotations

import datetime as dt
import random
import string
from dataclasses import dataclass, field
from functools import cached_property

#: GPU models: product name, framebuffer (MiB), power limit (W), max SM/mem clock (MHz),
#: idle power (W), FB reserved (MiB), GFD product label, PCI bus numbers of an 8-GPU board.
GPU_MODELS: dict[str, dict] = {
    "H100": dict(product="NVIDIA H100 80GB HBM3", label="NVIDIA-H100-80GB-HBM3", memory_mib=81559, power_limit_w=700.0,
                 max_sm_mhz=1980, max_mem_mhz=2619, idle_w=72.0, reserved_mib=573, arch="Hopper", family="hopper",
                 bus=("18", "2A", "3A", "5D", "9A", "AB", "BA", "DB"), instance=("p5.48xlarge", "a3-highgpu-8g", "Standard_ND96isr_H100_v5")),
    "A100": dict(product="NVIDIA A100-SXM4-80GB", label="NVIDIA-A100-SXM4-80GB", memory_mib=81920, power_limit_w=400.0,
                 max_sm_mhz=1410, max_mem_mhz=1593, idle_w=62.0, reserved_mib=869, arch="Ampere", family="ampere",
                 bus=("07", "0F", "47", "4E", "87", "90", "B7", "BD"), instance=("p4de.24xlarge", "a2-ultragpu-8g", "Standard_ND96amsr_A100_v4")),
    "H200": dict(product="NVIDIA H200", label="NVIDIA-H200", memory_mib=143771, power_limit_w=700.0,
                 max_sm_mhz=1980, max_mem_mhz=3201, idle_w=78.0, reserved_mib=589, arch="Hopper", family="hopper",
                 bus=("19", "3B", "4C", "5D", "9B", "BB", "CB", "DB"), instance=("p5e.48xlarge", "a3-ultragpu-8g", "Standard_ND96isr_H200_v5")),
    "L40S": dict(product="NVIDIA L40S", label="NVIDIA-L40S", memory_mib=46068, power_limit_w=350.0,
                 max_sm_mhz=2520, max_mem_mhz=9001, idle_w=36.0, reserved_mib=508, arch="Ada Lovelace", family="ada-lovelace",
                 bus=("01", "21", "41", "61", "81", "A1", "C1", "E1"), instance=("g6e.48xlarge", "g2-standard-96", "Standard_NC48ads_L40S")),
}

#: Driver version -> (CUDA version, nvidia-smi DTD version, power element style).
DRIVERS: dict[str, tuple[str, str, str]] = {
    "535.129.03": ("12.2", "v12", "power_draw"),
    "550.90.07": ("12.4", "v12", "power_draw"),
    "570.124.06": ("12.8", "v12", "average_instant"),
    "580.65.06": ("13.0", "v13", "average_instant"),
}

NAMING_STYLES = ("plain", "eks", "gke", "aks")


@dataclass
class Gpu:
    """One physical GPU."""

    gid: int  # index in the cluster-wide GPU arrays
    node: str
    index: int  # NVML index on the host
    uuid: str
    bus: str  # two hex digits of the PCI bus, upper case
    serial: str
    power_limit_w: float | None = None  # a power cap set on this GPU (variants); None: the model's

    @property
    def pci_bus_id(self) -> str:
        """dcgm-exporter / nvidia-smi form: 00000000:1A:00.0."""
        return f"00000000:{self.bus}:00.0"

    @property
    def nccl_bus_id(self) -> str:
        """NCCL form: 1a000."""
        return f"{self.bus.lower()}000"


@dataclass
class Node:
    """One GPU node."""

    name: str
    ip: str
    uid: str
    pod_prefix: str  # first three octets of the node's pod /24
    gpus: list[Gpu]
    exporter_pod: str
    driver_pod: str
    exporter_uid: str
    driver_uid: str
    old_exporter: bool = False  # still on the previous dcgm-exporter version
    gpu_lost: int = 0  # GPUs the device plugin no longer advertises (end listing)
    taints: list[dict] = field(default_factory=list)
    labels: dict[str, str] = field(default_factory=dict)  # extra labels (variants: fabric blocks)
    driver: str | None = None  # another driver than the cluster's (variants)
    gpu_resources: dict[str, str] | None = None  # capacity = allocatable GPU resources instead of nvidia.com/gpu (gpu-startup scenarios)


@dataclass
class Cluster:
    """Nodes and GPUs plus the per-seed choices that real clusters vary."""

    seed: int
    model_key: str
    model: dict
    driver: str
    nodes: list[Node]
    naming: str
    k8s_version: str
    base_time: dt.datetime
    hostname_label: str  # "Hostname" (older exporters) or "hostname" (2026+)
    hostname_is_pod: bool  # exporter without NODE_NAME: Hostname label = exporter pod name
    sm_active: bool  # DCGM_FI_PROF_SM_ACTIVE enabled in the counters CSV
    gpu_taint: bool  # nodes carry nvidia.com/gpu=present:NoSchedule
    next_ip: dict = field(default_factory=dict)

    @cached_property
    def gpus(self) -> list[Gpu]:
        """Every GPU, indexed by ``Gpu.gid``."""
        return [g for n in self.nodes for g in n.gpus]

    def node(self, name: str) -> Node:
        return next(n for n in self.nodes if n.name == name)

    def pod_ip(self, node: Node) -> str:
        """Next free pod IP on ``node`` (deterministic)."""
        last = self.next_ip.get(node.name, 10)
        self.next_ip[node.name] = last + 1 + (last % 3)
        return f"{node.pod_prefix}.{last}"


def hex_id(rng: random.Random, n: int) -> str:
    return "".join(rng.choice("0123456789abcdef") for _ in range(n))


def uid(rng: random.Random) -> str:
    """A metadata.uid (UUID v4 shape)."""
    return f"{hex_id(rng, 8)}-{hex_id(rng, 4)}-4{hex_id(rng, 3)}-{rng.choice('89ab')}{hex_id(rng, 3)}-{hex_id(rng, 12)}"


def gpu_uuid(rng: random.Random) -> str:
    return f"GPU-{hex_id(rng, 8)}-{hex_id(rng, 4)}-{hex_id(rng, 4)}-{hex_id(rng, 4)}-{hex_id(rng, 12)}"


def suffix(rng: random.Random, n: int = 5) -> str:
    """Kubernetes generateName suffix (consonants and digits)."""
    return "".join(rng.choice("bcdfghjklmnpqrstvwxz2456789") for _ in range(n))


def base_time(seed: int) -> dt.datetime:
    """Fixed, seed-derived window start (no wall clock)."""
    start = dt.datetime(2026, 3, 2, 8, 0, 0, tzinfo=dt.timezone.utc)
    return start + dt.timedelta(days=(seed * 37) % 200, minutes=(seed * 131) % 600)


def _node_names(rng: random.Random, style: str, count: int, model: dict) -> list[tuple[str, str]]:
    """(name, InternalIP) per node in the given naming style."""
    out: list[tuple[str, str]] = []
    subnet = rng.choice((0, 16, 32, 64, 96))
    used: set[str] = set()
    pool = hex_id(rng, 8)
    cluster = rng.choice(("prod", "train", "ml", "research"))
    aks_id = "".join(rng.choice(string.digits) for _ in range(8))
    for i in range(count):
        while True:
            ip = f"10.{rng.choice((0, 20, 40))}.{subnet + rng.randrange(0, 16)}.{rng.randrange(4, 250)}"
            if ip not in used:
                used.add(ip)
                break
        if style == "plain":
            name = f"gpu-node-{i + 1}"
        elif style == "eks":
            name = "ip-" + ip.replace(".", "-") + ".ec2.internal"
        elif style == "gke":
            name = f"gke-{cluster}-a3-pool-{pool}-{suffix(rng, 4)}"
        else:
            name = f"aks-gpunp-{aks_id}-vmss{i:06d}"
        out.append((name, ip))
    return out


def build_cluster(seed: int, rng: random.Random, nodes: int, gpus_per_node: int) -> Cluster:
    """Draw a cluster of ``nodes`` x ``gpus_per_node`` GPUs."""
    model_key = rng.choice(tuple(GPU_MODELS))
    model = GPU_MODELS[model_key]
    driver = rng.choice(tuple(DRIVERS))
    naming = rng.choice(NAMING_STYLES)
    names = _node_names(rng, naming, nodes, model)
    pod_a, pod_b = rng.choice(((10, 112), (10, 52), (172, 20), (100, 96)))
    pod_offset = rng.randrange(0, 250)
    buses = list(model["bus"])
    extra = [f"{0xE0 + i:02X}" for i in range(max(0, gpus_per_node - len(buses)))]
    buses = (buses + extra)[:gpus_per_node] if gpus_per_node > 1 else [rng.choice(buses)]
    node_objs: list[Node] = []
    gid = 0
    old_share = rng.choice((0.0, 0.0, 0.25, 0.5))
    for i, (name, ip) in enumerate(names):
        gpus = []
        for j in range(gpus_per_node):
            gpus.append(Gpu(gid, name, j, gpu_uuid(rng), buses[j], f"{rng.randrange(1320000000000, 1329999999999)}"))
            gid += 1
        slot = pod_offset + i  # one /24 per node, unique up to 8192 nodes
        prefix = f"{pod_a}.{pod_b + slot // 250}.{slot % 250 + 1}"
        node_objs.append(
            Node(
                name=name, ip=ip, uid=uid(rng), pod_prefix=prefix, gpus=gpus,
                exporter_pod=f"nvidia-dcgm-exporter-{suffix(rng)}", driver_pod=f"nvidia-driver-daemonset-{suffix(rng)}",
                exporter_uid=uid(rng), driver_uid=uid(rng), old_exporter=rng.random() < old_share,
            )
        )
    return Cluster(
        seed=seed, model_key=model_key, model=model, driver=driver, nodes=node_objs, naming=naming,
        k8s_version=rng.choice(("v1.29.8", "v1.30.5", "v1.31.2", "v1.32.1")), base_time=base_time(seed),
        hostname_label=rng.choice(("Hostname", "Hostname", "hostname")), hostname_is_pod=rng.random() < 0.3,
        sm_active=rng.random() < 0.5, gpu_taint=rng.random() < 0.6,
    )
