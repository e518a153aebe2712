"""``printenv NVIDIA_VISIBLE_DEVICES`` in each training container: which GPUs it was given.

Run once at the start in every running training pod, in each container that requests
GPUs (else the training container). Exit code 1 with no output means the variable is
unset; it is recorded as it came.
"""

from __future__ import annotations

from k10s_forensics.capture.commands import binary_missing, run_command
from k10s_forensics.collectors import Access, Collector

COMMAND = ("printenv", "NVIDIA_VISIBLE_DEVICES")


class VisibleDevicesCollector(Collector):
    name = "visible-devices"
    phases = ("start",)
    needs = ("pods", "gpu-operator")
    access = (Access("create", "pods", subresource="exec"),)
    description = "printenv NVIDIA_VISIBLE_DEVICES in each training container"

    def start_needs(self, scope) -> tuple[str, ...]:
        # gpu-operator is waited for only to leave its operand pods out of the training pods;
        # a --job scope holds the job's pods only, so the execs start as soon as pods are listed.
        return ("pods",) if scope.job_scoped else self.needs

    def run(self, ctx, phase: str) -> None:
        targets = []
        for pod in ctx.inventory.training_pods():
            gpu_containers = [c for c in pod.containers if c.gpus and not c.init]
            chosen = gpu_containers or [c for c in [pod.training_container()] if c is not None]
            targets += [(pod, c) for c in chosen]
        if not targets:
            ctx.skip("no running training pods in scope")
            return

        def one(target) -> None:
            pod, container = target
            result = run_command(ctx, pod, container.name, COMMAND, "visible-devices")
            if binary_missing(result):
                ctx.error(f"printenv not in image {container.image} (pod {pod.key})")
            elif result.exit_code is None:
                ctx.error(f"pod {pod.key} container {container.name}: {result.error}")
            else:
                ctx.ok()

        ctx.fan_out(one, targets, lambda t: f"pod {t[0].key}")


COLLECTOR = VisibleDevicesCollector()
