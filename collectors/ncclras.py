"""NCCL RAS status (``ncclras``, NCCL >= 2.24) from one running pod per training job, at the end.

``ncclras -f json`` is asked first (NCCL >= 2.28.7); a client that refuses ``-f`` (older
NCCL) is asked again without it (text). Both answers are stored as exec output
(``source=ncclras``). Where the binary is absent from the image, exactly that is recorded
(the exec row, and a collector error naming the image). The client only sends RAS's
``STATUS`` query: it reads the job's health, it changes nothing.
"""

from __future__ import annotations

from k10s_forensics.capture.commands import binary_missing, judge, run_command
from k10s_forensics.capture.dump_commands import RAS_JSON, RAS_TEXT
from k10s_forensics.collectors import Access, Collector

RAS_TIMEOUT_S = 45.0


def one_pod_per_job(pods) -> list:
    """The first running pod (by name) of each (namespace, job)."""
    chosen: dict[tuple[str, str], object] = {}
    for pod in sorted(pods, key=lambda p: (p.namespace, p.name)):
        for job in sorted(pod.job_names):
            chosen.setdefault((pod.namespace, job), pod)
    return list({pod.key: pod for pod in chosen.values()}.values())


class NcclRasCollector(Collector):
    name = "ncclras"
    phases = ("end",)
    needs = ("pods",)
    access = (Access("create", "pods", subresource="exec"),)
    description = "ncclras (NCCL RAS status; -f json when supported) in one running pod per training job, at the end"

    def run(self, ctx, phase: str) -> None:
        targets = one_pod_per_job([p for p in ctx.inventory.training_pods() if p.job_names])
        if not targets:
            ctx.skip("no running pod of a training job in scope")
            return

        def one(pod) -> None:
            container = pod.training_container()
            if container is None:
                return
            result = run_command(ctx, pod, container.name, RAS_JSON, "ncclras", timeout_s=RAS_TIMEOUT_S)
            if not binary_missing(result) and result.exit_code not in (0, None) and not result.stdout.strip():
                result = run_command(ctx, pod, container.name, RAS_TEXT, "ncclras", timeout_s=RAS_TIMEOUT_S)
            judge(ctx, result, missing=f"ncclras not in image {container.image} (pod {pod.key}): NCCL RAS not consulted",
                  where=f"pod {pod.key}: ncclras")

        ctx.fan_out(one, targets, lambda p: f"pod {p.key}")


COLLECTOR = NcclRasCollector()
