"""dcgm-exporter /metrics bodies (Prometheus text exposition 0.0.4), one per node per round.

Label order follows dcgm-exporter's render template: gpu, UUID, pci_bus_id, device,
modelName, Hostname/hostname, DCGM_FI_DRIVER_VERSION, container, namespace, pod. Label
prefixes are rendered once per GPU; values are formatted per round in one pass per metric.
"""

from __future__ import annotations

import numpy as np

from k10s_forensics.simulate.cluster import Cluster, Node

#: (metric, frame key, type, help, int-valued)
METRICS: tuple[tuple[str, str, str, str, bool], ...] = (
    ("DCGM_FI_DEV_SM_CLOCK", "sm_clock", "gauge", "SM clock frequency (in MHz).", True),
    ("DCGM_FI_DEV_MEM_CLOCK", "mem_clock", "gauge", "Memory clock frequency (in MHz).", True),
    ("DCGM_FI_DEV_MEMORY_TEMP", "mem_temp", "gauge", "Memory temperature (in C).", True),
    ("DCGM_FI_DEV_GPU_TEMP", "temp", "gauge", "GPU temperature (in C).", True),
    ("DCGM_FI_DEV_POWER_USAGE", "power", "gauge", "Power draw (in W).", False),
    ("DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", "energy", "counter", "Total energy consumption since boot (in mJ).", True),
    ("DCGM_FI_DEV_PCIE_REPLAY_COUNTER", "replay", "counter", "Total number of PCIe retries.", True),
    ("DCGM_FI_DEV_GPU_UTIL", "util", "gauge", "GPU utilization (in %).", True),
    ("DCGM_FI_DEV_MEM_COPY_UTIL", "copy", "gauge", "Memory utilization (in %).", True),
    ("DCGM_FI_DEV_XID_ERRORS", "xid", "gauge", "Value of the last XID error encountered.", True),
    ("DCGM_FI_DEV_FB_FREE", "fb_free", "gauge", "Framebuffer memory free (in MiB).", True),
    ("DCGM_FI_DEV_FB_USED", "fb_used", "gauge", "Framebuffer memory used (in MiB).", True),
    ("DCGM_FI_DEV_FB_RESERVED", "fb_reserved", "gauge", "Framebuffer memory reserved (in MiB).", True),
    ("DCGM_FI_DEV_CLOCKS_EVENT_REASONS", "throttle", "gauge", "Current clock event reasons (bitmask of DCGM_CLOCKS_EVENT_REASON_*).", True),
    ("DCGM_FI_PROF_GR_ENGINE_ACTIVE", "gr", "gauge", "Ratio of time the graphics engine is active.", False),
    ("DCGM_FI_PROF_SM_ACTIVE", "sm_active", "gauge", "The ratio of cycles an SM has at least 1 warp assigned.", False),
    ("DCGM_FI_PROF_PIPE_TENSOR_ACTIVE", "tensor", "gauge", "Ratio of cycles the tensor (HMMA) pipe is active.", False),
    ("DCGM_FI_PROF_DRAM_ACTIVE", "dram", "gauge", "Ratio of cycles the device memory interface is active sending or receiving data.", False),
)
OLD_NAMES = {"DCGM_FI_DEV_CLOCKS_EVENT_REASONS": "DCGM_FI_DEV_CLOCK_THROTTLE_REASONS"}


class DcgmRenderer:
    """Renders every node's exposition body for one frame of metric values."""

    def __init__(self, cluster: Cluster):
        self.cluster = cluster
        m = cluster.model
        self.base: list[str] = []
        for node in cluster.nodes:
            host_label = "Hostname" if node.old_exporter else cluster.hostname_label
            host_value = node.exporter_pod if cluster.hostname_is_pod else node.name
            for g in node.gpus:
                self.base.append(
                    f'gpu="{g.index}",UUID="{g.uuid}",pci_bus_id="{g.pci_bus_id}",device="nvidia{g.index}",'
                    f'modelName="{m["product"]}",{host_label}="{host_value}",DCGM_FI_DRIVER_VERSION="{node.driver or cluster.driver}",'
                )
        self.headers: dict[tuple[str, bool], str] = {}
        for name, _key, mtype, help_text, _ in METRICS:
            for old in (False, True):
                shown = OLD_NAMES.get(name, name) if old else name
                self.headers[(name, old)] = f"# HELP {shown} {help_text}\n# TYPE {shown} {mtype}"

    def metrics_for(self, node: Node) -> list[tuple[str, str, bool]]:
        """(metric name as exposed, frame key, int-valued) this node's exporter serves."""
        out = []
        for name, key, _t, _h, is_int in METRICS:
            if name == "DCGM_FI_PROF_SM_ACTIVE" and not self.cluster.sm_active:
                continue
            if node.old_exporter and name == "DCGM_FI_DEV_FB_RESERVED":
                continue
            out.append((name, key, is_int))
        return out

    def render_all(self, frame: dict[str, np.ndarray], pod_labels: list[str]) -> list[str]:
        """One body per node (cluster order). ``pod_labels[gid]`` = 'container="..",namespace="..",pod=".."'."""
        labels = ["{" + b + p + "} " for b, p in zip(self.base, pod_labels)]
        present = frame["present"]
        text: dict[str, list[str]] = {}
        for _name, key, _t, _h, is_int in METRICS:
            arr = frame[key]
            if is_int:
                text[key] = list(map(str, np.asarray(arr).astype(np.int64).tolist()))
            else:
                text[key] = ["%f" % v for v in np.asarray(arr, dtype=np.float64).tolist()]
        bodies = []
        for node in self.cluster.nodes:
            gids = [g.gid for g in node.gpus if present[g.gid]]
            parts: list[str] = []
            for name, key, _ in self.metrics_for(node):
                shown = OLD_NAMES.get(name, name) if node.old_exporter else name
                parts.append(self.headers[(name, node.old_exporter)])
                vals = text[key]
                parts.extend([shown + labels[gid] + vals[gid] for gid in gids])
            bodies.append("\n".join(parts) + "\n")
        return bodies
