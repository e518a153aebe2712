"""What the simulator writes that capture must match: commands, containers, sources, ports.

``k10s capture`` runs these exact commands in these containers; the simulator writes the
same ``command``/``container``/``source`` values so parsers and rules see one shape.
"""

from __future__ import annotations

#: Commands exec'd in pods (argv joined with single spaces, as raw/exec stores them).
NVIDIA_SMI_XML_CMD = "nvidia-smi -q -x"
SS_CMD = "ss -tin"
VISIBLE_DEVICES_CMD = "printenv NVIDIA_VISIBLE_DEVICES"
DMESG_CMD = "dmesg --time-format iso"

#: raw/exec ``source`` values.
SOURCE_NVIDIA_SMI_XML = "nvidia-smi-xml"
SOURCE_SS = "ss"
SOURCE_VISIBLE_DEVICES = "visible-devices"
SOURCE_DMESG = "dmesg"
#: raw/scrapes ``source`` value.
SOURCE_DCGM = "dcgm-exporter"

#: GPU operator pods (namespace, labels, container names).
GPU_OPERATOR_NAMESPACE = "gpu-operator"
DCGM_EXPORTER_APP = "nvidia-dcgm-exporter"
DCGM_EXPORTER_CONTAINER = "nvidia-dcgm-exporter"
DCGM_EXPORTER_PORT = 9400
DRIVER_APP = "nvidia-driver-daemonset"
DRIVER_CONTAINER = "nvidia-driver-ctr"

#: Training container name by job kind.
TRAINING_CONTAINER = {"PyTorchJob": "pytorch", "TrainJob": "node", "JobSet": "trainer"}

#: Rendezvous (TCPStore) port by job kind: PyTorchJob operator default 23456, torchrun 29500.
MASTER_PORT = {"PyTorchJob": 23456, "TrainJob": 29500, "JobSet": 29500}

#: Scenario names (shared contract, see brief).
SCENARIOS = (
    "healthy",
    "straggler-compute",
    "straggler-input",
    "straggler-network",
    "oom-crashloop",
    "nccl-hang",
    "idle-gpus",
    "pending-taint",
    "pending-capacity",
    "pending-quota",
    "xid-79",
    "node-lost",
    "pod-disrupted",
    "rank-host-oom",
    "rank-segfault",
    "rank-exception",
    "rank-cuda-error",
    "nccl-size-mismatch",
    "nccl-desync-report",
    "collective-mismatch",
    "nccl-stall-all",
    "hang-flight-recorder",
    "hang-ras-dead",
    "startup-toolkit-mismatch",
    "startup-no-runtime",
    "startup-cuda-too-old",
    "startup-device-plugin",
    "startup-mig-mismatch",
    "startup-time-slicing",
    "startup-image-pull-slow",
    "startup-image-pull-backoff",
    "startup-shm",
)

#: Every fault rule of the analyzer (``healthy`` forbids them all).
FAULT_RULES = ("straggler", "nccl-hang", "oom-cascade", "crashloop", "idle-gpu", "pending", "gpu-health", "network", "rank-failure")


def scrape_url(exporter_pod: str) -> str:
    """API-server proxy path of an exporter pod's /metrics."""
    return f"/api/v1/namespaces/{GPU_OPERATOR_NAMESPACE}/pods/{exporter_pod}:{DCGM_EXPORTER_PORT}/proxy/metrics"
