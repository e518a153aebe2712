"""Narrative for gpu-startup findings: why a GPU pod is not running, and the fix per cause."""

from __future__ import annotations

from typing import Any

from k10s_forensics.queries._narrative import known

WHY = {
    "toolkit-driver-mismatch": "the NVIDIA container toolkit cannot talk to the driver (driver/library version mismatch: the driver was upgraded without a reboot)",
    "toolkit-load-library": "the NVIDIA container toolkit cannot load libnvidia-ml.so.1 (driver not installed or not ready on the node)",
    "toolkit-device-error": "the NVIDIA container toolkit was asked for a GPU device the node does not have",
    "no-nvidia-runtime": "the node has no NVIDIA container runtime for the pod (missing runtime handler or RuntimeClass)",
    "cuda-driver-too-old": "the image's CUDA is newer than the node's driver supports",
    "device-plugin-unhealthy": "the NVIDIA device plugin / GPU operator is not healthy on the node",
    "mig-strategy-mismatch": "the pod asks for nvidia.com/gpu on a node that advertises only MIG devices (nvidia.com/mig-*)",
    "time-slicing": "the node's GPUs are shared (time-slicing/MPS replicas): the pod asks for more shared GPUs than the device plugin grants, or for replicas of fewer physical GPUs",
    "image-pull-backoff": "its image cannot be pulled",
    "image-pull-slow": "its image took minutes to pull (cold node)",
    "shm-too-small": "its DataLoader workers died of SIGBUS: /dev/shm is the 64 MiB default",
    "container-creating": "its containers have been created for minutes without starting",
    "shm-default": "its GPU pods run with the default 64 MiB /dev/shm",
}
FIX = {
    "toolkit-driver-mismatch": "Reboot (or drain and reboot) the node after the driver upgrade so the kernel module matches the user-space libraries; with the GPU operator, let the driver pod finish its upgrade before uncordoning.",
    "toolkit-load-library": "Check the driver pod / host driver on the node (nvidia-driver-daemonset, nvidia-operator-validator) and that the toolkit's driver root points at it; cordon the node until the validator passes.",
    "toolkit-device-error": "Request GPUs through the device plugin (resources.limits nvidia.com/gpu) instead of NVIDIA_VISIBLE_DEVICES with indexes/UUIDs, and check the node's GPUs (nvidia-smi) match what was requested.",
    "no-nvidia-runtime": "Install the NVIDIA container toolkit and configure the 'nvidia' runtime in containerd/CRI-O on the node (the GPU operator's toolkit daemonset does it), create the RuntimeClass the pod names (handler: nvidia), or drop runtimeClassName where nvidia is the default runtime.",
    "cuda-driver-too-old": "Pin the image's CUDA to the node's driver (or upgrade the driver); forward compatibility (cuda-compat) works only on data-center GPUs; NVIDIA_DISABLE_REQUIRE hides the check but not the failure.",
    "device-plugin-unhealthy": "Fix the GPU operator operands on the node (device plugin, toolkit, driver, validator logs); the node must advertise nvidia.com/gpu in allocatable before GPU pods can start.",
    "mig-strategy-mismatch": "Request the MIG resource the node advertises (nvidia.com/mig-<profile>) or switch the node's MIG strategy/config (mig.strategy=single, or disable MIG) to match the job.",
    "time-slicing": "Schedule training on nodes whose GPUs are not shared (a nodeSelector on nvidia.com/gpu.replicas=1, or a product label without -SHARED); a shared node grants one replica per request (failRequestsGreaterThanOne), and several replicas are slices of fewer physical GPUs. Delete the rejected pod: admission errors do not retry.",
    "image-pull-backoff": "Fix the image reference or pull secret (the message says which); mirror the image into a registry the nodes reach.",
    "image-pull-slow": "Pre-pull the training image on the GPU nodes (a DaemonSet pre-puller, or bake it into the node image), use image streaming/lazy pulling (GKE image streaming, SOCI, stargz) or a slimmer image; keep imagePullPolicy IfNotPresent.",
    "shm-too-small": "Mount an emptyDir with medium: Memory (sizeLimit e.g. 16Gi-64Gi) at /dev/shm in the training container, or lower DataLoader num_workers.",
    "container-creating": "Read the pod's events (kubectl describe pod) and the kubelet log on the node; check volumes, the sandbox and the NVIDIA runtime there.",
    "shm-default": "Mount an emptyDir with medium: Memory and a sizeLimit at /dev/shm before DataLoader workers hit SIGBUS (the Kubernetes equivalent of docker --shm-size).",
}


def _dur(seconds: Any) -> str:
    s = float(seconds or 0)
    return f"{s / 60:.1f} min" if s >= 120 else f"{s:.0f} s"


def narrate(finding: dict[str, Any], row: dict[str, Any]) -> dict[str, Any]:
    cause = finding.get("cause") or "container-creating"
    pods = finding.get("pods") or []
    what = f"{len(pods)} pod{'s' if len(pods) != 1 else ''} of {finding['job']}"
    why = WHY.get(cause, cause)
    if cause == "shm-default":
        finding["title"] = f"{what}: /dev/shm is the 64 MiB default"
        finding["summary"] = f"{what[0].upper() + what[1:]}: {why}. PyTorch DataLoader workers pass batches through /dev/shm and die of SIGBUS when it fills."
        finding["recommendation"] = FIX[cause]
        return finding
    if row.get("state") == "pasted":  # a runtime's words in the job's log: no pod, no node
        finding["title"] = f"GPU containers of {finding['job']} cannot start: {why}"
        since = finding.get("started_at") or "--- (the log gives no time)"
        finding["summary"] = (f"GPU containers of {finding['job']} cannot start since {since}: {why}, in the runtime's own words in "
                              f"the log (which pods and nodes only the API says). Message: {known(row.get('message'), 'none recorded')[:400]}")
        finding["recommendation"] = FIX.get(cause, FIX["container-creating"])
        return finding
    slow = row.get("state") == "slow-pull"
    finding["title"] = f"{what} {'started slowly' if slow else 'cannot start'} on {', '.join(finding.get('nodes') or ['?'])}: {why}"
    parts = [f"{what[0].upper() + what[1:]} {'waited' if slow else 'has not run for'} {_dur(row.get('blocked_s'))} ({known(row.get('state'), 'not known')}): {why}."]
    if row.get("pull_s"):
        parts.append(f"Image {known(row.get('image'), 'not known')} took {_dur(row['pull_s'])} to pull.")
    if row.get("runtime_class"):
        found = row.get("runtime_class_found")
        parts.append(f"RuntimeClass {row['runtime_class']}{' (not found in the cluster)' if found is False else ''}.")
    if cause in ("mig-strategy-mismatch", "time-slicing", "device-plugin-unhealthy") and row.get("node_gpu_resources"):
        parts.append(f"Node GPU resources: {row['node_gpu_resources']} (mig.strategy {row.get('mig_strategy') or '-'}, replicas {row.get('gpu_replicas') or 1}).")
    if row.get("cuda_driver") and cause == "cuda-driver-too-old":
        parts.append(f"Node driver supports CUDA {row['cuda_driver']}.")
    if row.get("operands_unhealthy"):
        parts.append(f"GPU operator pods not running there: {', '.join(row['operands_unhealthy'])}.")
    if row.get("held_gpus"):
        parts.append(f"Meanwhile {row['running_pods']} running pod{'s' if row['running_pods'] != 1 else ''} of the gang hold{'s' if row['running_pods'] == 1 else ''} {row['held_gpus']} GPUs idle.")
    if row.get("message"):
        parts.append(f"Message: {str(row['message'])[:400]}")
    finding["summary"] = " ".join(parts)
    finding["recommendation"] = FIX.get(cause, FIX["container-creating"])
    return finding
