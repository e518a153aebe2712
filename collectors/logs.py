"""Container logs at the end: current and previous instances, ``timestamps=true``, byte-capped.

Every container (init containers included) of the scope's pods that ever started; with
``-A`` only training pods (GPU request or training-job label). ``previous=true`` is fetched too when the
container restarted. A log larger than ``--log-bytes`` keeps its first half and its last
lines (the error is usually at the end), whole lines only; ``error`` then says
``truncated: ...``.
"""

from __future__ import annotations

import threading

from k10s_forensics.store.bundle import utcnow
from k10s_forensics.capture.retry import CallError
from k10s_forensics.collectors import Access, Collector


def head_and_tail(head: str, tail: str, cap: int) -> str:
    """The first half of ``head`` and the end of ``tail`` (both cut at line ends) within ``cap`` bytes."""
    half = cap // 2
    first = head.encode("utf-8")[:half].decode("utf-8", errors="ignore")
    first = first[: first.rfind("\n") + 1] if "\n" in first else ""
    last = tail.encode("utf-8")[-(cap - len(first.encode("utf-8"))):].decode("utf-8", errors="ignore")
    if "\n" in last and not tail.startswith(last):
        last = last[last.find("\n") + 1:]
    return first + last


class LogsCollector(Collector):
    name = "logs"
    phases = ("end",)
    needs = ("pods",)
    needs_at_end = ("pods",)  # restarts during the window: previous logs
    access = (Access("get", "pods", subresource="log"),)
    description = "current and previous container logs with timestamps, capped per container"

    def run(self, ctx, phase: str) -> None:
        with ctx.inventory.lock:
            pods = list(ctx.inventory.pods.values())
        if ctx.scope.all_namespaces and not ctx.scope.jobs:
            training = {p.key for p in ctx.inventory.training_pods(running_only=False)}
            pods = [p for p in pods if p.key in training]
        targets = [(pod, c, prev) for pod in sorted(pods, key=lambda p: p.key) if pod.node
                   for c in pod.containers if c.ever_started for prev in ((False, True) if c.has_previous else (False,))]
        if not targets:
            ctx.skip("no started containers in scope")
            return
        cap = ctx.options.log_bytes
        limit = threading.Semaphore(max(1, min(ctx.options.log_concurrency, ctx.pool.concurrency)))

        def one(target) -> None:
            pod, container, previous = target
            captured_at = utcnow()
            error = None
            try:
                body, cut = ctx.source.logs(pod.namespace, pod.name, container.name, previous=previous, limit_bytes=cap)
                if cut:
                    lines = max(1, body.count("\n"))
                    avg = max(1, len(body.encode("utf-8")) // lines)
                    tail, _ = ctx.source.logs(pod.namespace, pod.name, container.name, previous=previous,
                                              limit_bytes=cap, tail_lines=max(1, (cap // 2) // avg))
                    body = head_and_tail(body, tail, cap)
                    error = f"truncated: log larger than {cap} bytes; kept its first and last lines"
            except CallError as exc:
                body, error = "", str(exc)
            ctx.add("logs", {"captured_at": captured_at, "node": pod.node, "namespace": pod.namespace, "pod": pod.name,
                             "pod_uid": pod.uid, "container": container.name, "previous": previous, "body": body,
                             "error": error})
            if error and not error.startswith("truncated"):
                ctx.error(f"pod {pod.key} container {container.name}{' (previous)' if previous else ''}: {error}")
            else:
                ctx.ok()

        ctx.fan_out(one, targets, lambda t: f"pod {t[0].key} container {t[1].name}", limit=limit)


COLLECTOR = LogsCollector()
