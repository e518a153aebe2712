"""The watcher's counters and gauges, rendered as Prometheus text for ``GET /metrics``."""

from __future__ import annotations

import threading

HELP = {
    "k10s_watch_triggers_total": ("counter", "Triggers received, by reason."),
    "k10s_watch_triggers_joined_total": ("counter", "Triggers that joined an incident already open (cooldown)."),
    "k10s_watch_captures_total": ("counter", "Captures started."),
    "k10s_watch_capture_failures_total": ("counter", "Captures that failed."),
    "k10s_watch_second_rounds_total": ("counter", "Second-round captures (the next incarnation)."),
    "k10s_watch_skipped_total": ("counter", "Incidents not captured, by reason (rate-limit, disk)."),
    "k10s_watch_retention_removed_total": ("counter", "Incident folders removed by retention."),
    "k10s_watch_trigger_to_capture_seconds": ("summary", "Seconds from a trigger to its capture starting."),
    "k10s_watch_capture_seconds": ("summary", "Seconds one capture took."),
    "k10s_watch_bytes_kept": ("gauge", "Bytes of incident folders kept under out."),
    "k10s_watch_webhook_rejected_total": ("counter", "Webhook requests refused (size, schema), by endpoint."),
    "k10s_watch_notifications_total": ("counter", "Notifications sent, by outcome."),
    "k10s_watch_stream_reconnects_total": ("counter", "Watch streams reconnected after an error."),
    "k10s_watch_relists_total": ("counter", "Full lists (start, and after 410 Gone)."),
    "k10s_watch_log_bytes_total": ("counter", "Bytes of container logs followed."),
}


def _labels(labels: dict[str, str]) -> str:
    if not labels:
        return ""
    inner = ",".join(f'{k}="{str(v)[:100]}"'.replace("\n", " ") for k, v in sorted(labels.items()))
    return "{" + inner + "}"


class Metrics:
    """Thread-safe counters (by label set), gauges and summaries (count, sum, max)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.values: dict[tuple[str, str], float] = {}
        self.summaries: dict[str, list[float]] = {}
        self.gauges: dict[str, callable] = {}

    def inc(self, name: str, by: float = 1.0, **labels: str) -> None:
        key = (name, _labels(labels))
        with self._lock:
            self.values[key] = self.values.get(key, 0.0) + by

    def set(self, name: str, value: float) -> None:
        with self._lock:
            self.values[(name, "")] = float(value)

    def observe(self, name: str, value: float) -> None:
        with self._lock:
            s = self.summaries.setdefault(name, [0.0, 0.0, 0.0])
            s[0] += 1
            s[1] += value
            s[2] = max(s[2], value)

    def get(self, name: str, **labels: str) -> float:
        with self._lock:
            return self.values.get((name, _labels(labels)), 0.0)

    def render(self) -> str:
        for name, fn in list(self.gauges.items()):
            self.set(name, fn())
        with self._lock:
            values, summaries = dict(self.values), {k: list(v) for k, v in self.summaries.items()}
        lines: list[str] = []
        for name in sorted(set(HELP) | {n for n, _ in values} | set(summaries)):
            kind, text = HELP.get(name, ("gauge", name))
            lines += [f"# HELP {name} {text}", f"# TYPE {name} {kind}"]
            if kind == "summary":
                count, total, peak = summaries.get(name, [0.0, 0.0, 0.0])
                lines += [f"{name}_count {count:g}", f"{name}_sum {total:.6f}", f'{name}{{quantile="1"}} {peak:.6f}']
                continue
            rows = sorted((lbl, v) for (n, lbl), v in values.items() if n == name) or [("", 0.0)]
            lines += [f"{name}{lbl} {v:g}" for lbl, v in rows]
        return "\n".join(lines) + "\n"


__all__ = ["HELP", "Metrics"]
