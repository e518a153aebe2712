"""``ss -tin`` in each running training pod, every round: TCP state (RTT, retransmits) of NCCL sockets.

The pod's network namespace is shared by its containers, so one exec in the training
container covers the pod. Training images often lack iproute2: that is recorded precisely
(``ss not in image <image> (pod ns/name)``) and the pod is not asked again.
"""

from __future__ import annotations

import threading

from k10s_forensics.capture.commands import binary_missing, run_command
from k10s_forensics.collectors import Access, Collector

COMMAND = ("ss", "-tin")


class SsCollector(Collector):
    name = "ss"
    phases = ("round",)
    access = (Access("create", "pods", subresource="exec"),)
    description = "ss -tin in each training pod, every round"

    def __init__(self) -> None:
        self._missing: set[tuple[str, str]] = set()
        self._lock = threading.Lock()

    def run(self, ctx, phase: str) -> None:
        targets = [(p, p.training_container()) for p in ctx.inventory.training_pods()]
        targets = [(p, c) for p, c in targets if c is not None]
        if ctx.round_index == 0:
            with self._lock:
                self._missing = set()
        if not targets:
            ctx.skip("no running training pods in scope")
            return

        def one(target) -> None:
            pod, container = target
            with self._lock:
                if (pod.uid, container.name) in self._missing:
                    return
            result = run_command(ctx, pod, container.name, COMMAND, "ss")
            if binary_missing(result):
                with self._lock:
                    self._missing.add((pod.uid, container.name))
                ctx.error(f"ss not in image {container.image} (pod {pod.key})")
            elif result.exit_code is None:
                ctx.error(f"pod {pod.key}: {result.error}")
            else:
                ctx.ok()

        ctx.fan_out(one, targets, lambda t: f"pod {t[0].key}", node_task=True)


COLLECTOR = SsCollector()
