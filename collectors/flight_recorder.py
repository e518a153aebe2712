"""PyTorch Flight Recorder dumps, read at the end in training containers that enable it.

A container whose spec sets ``TORCH_NCCL_TRACE_BUFFER_SIZE`` / ``TORCH_NCCL_DUMP_ON_TIMEOUT``
(env, or ``NAME=value`` in its command line) gets one exec of the fixed read-only dump reader
(``k10s_forensics.capture.dump_commands.FR_COMMAND``), which prints every
``<TORCH_NCCL_DEBUG_INFO_TEMP_FILE>*`` file (default ``/tmp/nccl_trace_rank_*``) base64-encoded
in a JSON envelope, size-capped. The output is stored as any exec output
(``source=flight-recorder``). Pods that are no longer running cannot be read (their dumps
live in the container's filesystem): they are named in the collector's errors.
"""

from __future__ import annotations

from k10s_forensics.capture.commands import judge, run_command
from k10s_forensics.capture.dump_commands import FR_COMMAND
from k10s_forensics.collectors import Access, Collector

READ_TIMEOUT_S = 60.0


class FlightRecorderCollector(Collector):
    name = "flight-recorder"
    phases = ("end",)
    needs = ("pods",)
    access = (Access("create", "pods", subresource="exec"),)
    description = "Flight Recorder dump files (python3 read-only reader) in training containers that enable it, at the end"

    def run(self, ctx, phase: str) -> None:
        enabled = [(pod, c) for pod in ctx.inventory.training_pods(running_only=False)
                   for c in pod.containers if c.flight_recorder and not c.init]
        if not enabled:
            ctx.skip("no training container sets TORCH_NCCL_TRACE_BUFFER_SIZE / TORCH_NCCL_DUMP_ON_TIMEOUT")
            return
        targets = [(pod, c) for pod, c in enabled if pod.running]
        for pod, c in enabled:
            if not pod.running and pod.phase == "Failed":
                ctx.error(f"pod {pod.key} is {pod.phase or 'not running'}: its Flight Recorder dumps cannot be read")
        if not targets:
            return

        def one(target) -> None:
            pod, container = target
            result = run_command(ctx, pod, container.name, FR_COMMAND, "flight-recorder", timeout_s=READ_TIMEOUT_S)
            judge(ctx, result, missing=f"python3 not in image {container.image} (pod {pod.key}): Flight Recorder dumps not read",
                  where=f"pod {pod.key} container {container.name}")

        ctx.fan_out(one, targets, lambda t: f"pod {t[0].key}")


COLLECTOR = FlightRecorderCollector()
