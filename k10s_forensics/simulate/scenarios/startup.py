"""startup-*: one pod of a gang is bound to a GPU node but cannot start (or starts slowly)
while the rest of the gang runs and holds its GPUs idle (the gpu-startup rule)."""

from __future__ import annotations

import datetime as dt

from k10s_forensics.simulate.activity import Seg
from k10s_forensics.simulate.constants import GPU_OPERATOR_NAMESPACE
from k10s_forensics.simulate.job import Run
from k10s_forensics.simulate.job_objects import IMAGE
from k10s_forensics.simulate.k8s_objects import meta, Versions
from k10s_forensics.simulate.scenarios.common import FAR, SEC, forbid, job_info
from k10s_forensics.simulate.training import start_workers

HOOK = ("failed to create containerd task: failed to create shim task: OCI runtime create failed: runc create failed: unable to start "
        "container process: error during container init: error running hook #0: error running hook: exit status 1, stdout: , stderr: "
        "Auto-detected mode as 'legacy'\nnvidia-container-cli: {}: unknown")
MESSAGES = {
    "toolkit-driver-mismatch": HOOK.format("initialization error: nvml error: driver/library version mismatch"),
    "cuda-driver-too-old": HOOK.format("requirement error: unsatisfied condition: cuda>=12.6, please update your driver to a newer version, "
                                       "or use an earlier cuda container"),
}
SHM_LINE = ("RuntimeError: DataLoader worker (pid 4711) is killed by signal: Bus error. It is possible that dataloader's workers are out "
            "of shared memory. Please try to raise your shared memory limit.")


def _gang(sim):
    created = sim.start - dt.timedelta(minutes=sim.rng.uniform(6, 20))
    job = sim.full_job(created)
    for p in job.pods:
        p.created = created + SEC * sim.rng.uniform(1, 5)
    culprit = job.pods[sim.rng.randrange(len(job.pods))]
    others = [p for p in job.pods if p is not culprit]
    t_run = created + SEC * sim.rng.uniform(15, 40)
    runs = start_workers(sim, others, t_run, 0, True) if others else {}
    for run in runs.values():
        run.log(run.started + SEC * 12, "Waiting for all workers to join the rendezvous (c10d)...")
    sim.segs(sim.job_gids(), [Seg(created, sim.end + FAR, fb0_mib=0)])
    sim.job_started = t_run
    sim.state_changes = [(job.created, "Created")]
    return job, culprit


def _events(sim, pod, items) -> None:
    for reason, etype, message in items:
        first = pod.created + SEC * sim.rng.uniform(2, 8)
        count = max(1, int((sim.end - first).total_seconds() // 60))
        sim.event(sim.job.namespace, "Pod", pod.name, pod.uid, reason, etype, message, first, sim.end - SEC * 15, count, host=pod.node.name)


def _operand(sim, node, app: str, reason: str, message: str) -> dict:
    name = f"{app}-{''.join(sim.rng.choice('bcdfghjklmnpqrstvwxz2456789') for _ in range(5))}"
    created = sim.start - dt.timedelta(hours=2)
    status = {"name": app.replace("-daemonset", "").replace("nvidia-", "nvidia-") + "-ctr", "ready": False, "restartCount": 14,
              "image": "nvcr.io/nvidia/k8s-device-plugin:v0.16.2-ubi9", "imageID": "nvcr.io/nvidia/k8s-device-plugin:v0.16.2-ubi9",
              "started": False, "state": {"waiting": {"reason": reason, "message": message}},
              "lastState": {"terminated": {"exitCode": 1, "reason": "Error", "startedAt": sim.start.isoformat(), "finishedAt": sim.start.isoformat()}}}
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": meta(name, sim.uid(), created, Versions(4_200_000), GPU_OPERATOR_NAMESPACE, labels={"app": app}),
            "spec": {"nodeName": node.name, "containers": [{"name": status["name"], "image": status["image"]}]},
            "status": {"phase": "Running", "hostIP": node.ip, "startTime": created.isoformat(), "containerStatuses": [status]}}


def _operand_log(sim, operand: dict) -> None:
    """The crash-looping device plugin's previous log (the kubelet's timestamps, as capture fetches it)."""
    meta_, t = operand["metadata"], sim.start
    lines = ["I0408 {} 1 main.go:178] Starting FS watcher.", "I0408 {} 1 main.go:185] Starting OS watcher.",
             "I0408 {} 1 main.go:200] Starting Plugins.", "I0408 {} 1 main.go:257] Loading configuration.",
             "E0408 {} 1 main.go:132] error starting plugins: error creating plugin manager: unable to create plugin manager: "
             "nvml init failed: ERROR_LIBRARY_NOT_FOUND"]
    body = "".join(f"{(t + SEC * i * 0.01).isoformat().replace('+00:00', 'Z')} {line.format((t + SEC * i * 0.01).strftime('%H:%M:%S.%f'))}\n"
                   for i, line in enumerate(lines))
    for previous in (True, False):
        sim.extra_logs.append({"captured_at": sim.end - SEC, "node": operand["spec"]["nodeName"], "namespace": GPU_OPERATOR_NAMESPACE,
                               "pod": meta_["name"], "pod_uid": meta_["uid"], "container": operand["spec"]["containers"][0]["name"],
                               "previous": previous, "body": body if previous else "", "error": None})


def _apply(sim, cause: str, pod) -> None:
    node = pod.node
    if cause in MESSAGES:
        pod.waiting = ("RunContainerError", MESSAGES[cause])
        _events(sim, pod, [("Failed", "Warning", "Error: " + MESSAGES[cause]), ("BackOff", "Warning", "Back-off restarting failed container")])
    elif cause == "no-nvidia-runtime":
        pod.runtime_class = "nvidia"
        pod.waiting = ("ContainerCreating", "")
        _events(sim, pod, [("FailedCreatePodSandBox", "Warning", "Failed to create pod sandbox: rpc error: code = Unknown desc = failed to get "
                            'sandbox runtime: no runtime for "nvidia" is configured')])
        sim.extra_objects.append(("node.k8s.io/v1", {"apiVersion": "node.k8s.io/v1", "kind": "RuntimeClass", "handler": "nvidia",
                                                     "metadata": meta("nvidia", sim.uid(), sim.start - FAR, Versions(4_100_000))}))
    elif cause in ("device-plugin-unhealthy", "mig-strategy-mismatch"):
        if cause == "mig-strategy-mismatch":
            node.gpu_resources = {"nvidia.com/mig-1g.10gb": str(7 * len(node.gpus))}
            node.labels.update({"nvidia.com/mig.strategy": "mixed", "nvidia.com/mig.config": "all-1g.10gb"})
            msg = f"Pod was rejected: Allocate failed due to requested number of devices unavailable for nvidia.com/gpu. Requested: {len(pod.gpu_ids)}, Available: 0, which is unexpected"
        else:
            node.gpu_resources = {"nvidia.com/gpu": "0"}
            msg = "Pod was rejected: Allocate failed due to no healthy devices present; cannot allocate unhealthy devices nvidia.com/gpu, which is unexpected"
            operand = _operand(sim, node, "nvidia-device-plugin-daemonset", "CrashLoopBackOff",
                               "back-off 5m0s restarting failed container=nvidia-device-plugin-ctr")
            sim.extra_objects.append(("v1", operand))
            _operand_log(sim, operand)
        pod.rejected = ("UnexpectedAdmissionError", msg)
        _events(sim, pod, [("UnexpectedAdmissionError", "Warning", msg)])
    elif cause == "time-slicing":
        # The device plugin shares each GPU 4 ways (time-slicing, failRequestsGreaterThanOne): GFD labels the node's
        # replicas and a -SHARED product; a pod asking for more than one shared GPU is rejected at admission.
        replicas = 4
        node.gpu_resources = {"nvidia.com/gpu": str(replicas * len(node.gpus))}
        node.labels.update({"nvidia.com/gpu.replicas": str(replicas), "nvidia.com/gpu.sharing-strategy": "time-slicing",
                            "nvidia.com/gpu.product": sim.cluster.model["label"] + "-SHARED"})
        msg = (f"Allocate failed due to rpc error: code = Unknown desc = request for 'nvidia.com/gpu: {len(pod.gpu_ids)}' too large: "
               "maximum request size for shared resources is 1, which is unexpected")
        pod.rejected = ("UnexpectedAdmissionError", msg)
        _events(sim, pod, [("UnexpectedAdmissionError", "Warning", msg)])
    elif cause == "image-pull-backoff":
        bad = IMAGE.replace("-py3", "-py3-cu126")
        pod.waiting = ("ImagePullBackOff", f'Back-off pulling image "{bad}"')
        _events(sim, pod, [("Failed", "Warning", f'Failed to pull image "{bad}": rpc error: code = NotFound desc = failed to pull and unpack image '
                            f'"{bad}": failed to resolve reference "{bad}": {bad}: not found'),
                           ("BackOff", "Normal", f'Back-off pulling image "{bad}"')])
    elif cause == "image-pull-slow":
        pull_s = sim.rng.uniform(240, 420)
        t0 = pod.created + SEC * 2
        pod.runs.append(Run(started=t0 + SEC * (pull_s + 3)))
        d = f"{int(pull_s // 60)}m{pull_s % 60:.3f}s"
        for reason, msg, at in (("Pulling", f'Pulling image "{IMAGE}"', t0),
                                ("Pulled", f'Successfully pulled image "{IMAGE}" in {d} ({d} including waiting). Image size: 21474836480 bytes.', t0 + SEC * pull_s)):
            sim.event(sim.job.namespace, "Pod", pod.name, pod.uid, reason, "Normal", msg, at, at, 1, host=node.name)
    elif cause == "shm-too-small":
        t = pod.created + SEC * 20
        for _ in range(2):
            run = Run(started=t, finished=t + SEC * 95, exit_code=135, reason="Error")
            run.log(t + SEC * 90, SHM_LINE)
            pod.runs.append(run)
            t = t + SEC * 200
        pod.runs.append(Run(started=sim.end + FAR))


def _scenario(cause: str, allowed: tuple[str, ...] = ("idle-gpu",)):
    def run(sim) -> None:
        job, pod = _gang(sim)
        _apply(sim, cause, pod)
        job_info(sim)
        ranks = [pod.node_rank * job.nproc + local for local in range(job.nproc)]
        sim.expect("gpu-startup", cause, ranks, [pod], [])
        forbid(sim, "gpu-startup", *allowed)
        sim.truth["notes"] = f"Pod {job.namespace}/{pod.name} on {pod.node.name} cannot start ({cause}); the rest of the gang waits in rendezvous holding its GPUs."
    run.__name__ = "startup_" + cause.replace("-", "_")
    return run


STARTUP_SCENARIOS = {
    "startup-toolkit-mismatch": _scenario("toolkit-driver-mismatch"),
    "startup-no-runtime": _scenario("no-nvidia-runtime"),
    "startup-cuda-too-old": _scenario("cuda-driver-too-old"),
    "startup-device-plugin": _scenario("device-plugin-unhealthy"),
    "startup-mig-mismatch": _scenario("mig-strategy-mismatch"),
    "startup-time-slicing": _scenario("time-slicing"),
    "startup-image-pull-slow": _scenario("image-pull-slow"),
    "startup-image-pull-backoff": _scenario("image-pull-backoff"),
    "startup-shm": _scenario("shm-too-small", ("idle-gpu", "crashloop", "rank-failure", "oom-cascade")),
}
