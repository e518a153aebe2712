"""Following the training containers' logs, within a byte budget, for trigger lines.

One thread per running training container holds a ``follow=true`` stream (an idle stream
costs nothing); it starts from the last 100 lines, and when the stream ends (container
restarted, API server gone) it resumes from the last line's timestamp (``sinceTime``),
skipping lines already seen. Each pod may read ``log_follow_bytes_per_pod`` bytes per hour
(``limitBytes``); past that its log is not read until the hour is over (counted in
/metrics). Lines are matched with the parsers' own patterns (``triggers.log_reason``).
"""

from __future__ import annotations

import threading
import time
from typing import Any, Callable

from k10s_forensics.watch.kubeapi import ApiError, KubeApi
from k10s_forensics.watch.triggers import log_reason

TRAINING_CONTAINERS = ("pytorch", "trainer", "node", "worker", "launcher", "ray-worker", "ray-head", "main")
FIRST_TAIL_LINES = 100
HOUR_S = 3600.0


def training_container(pod: dict[str, Any]) -> str | None:
    names = [c.get("name") for c in ((pod.get("spec") or {}).get("containers") or []) if c.get("name")]
    return next((n for n in TRAINING_CONTAINERS if n in names), names[0] if names else None)


def container_running(pod: dict[str, Any], container: str) -> bool:
    for cs in (pod.get("status") or {}).get("containerStatuses") or []:
        if cs.get("name") == container:
            return "running" in (cs.get("state") or {})
    return False


class Follower:
    """Follows one container's log until ``wanted()`` turns false or the watcher stops."""

    def __init__(self, api: KubeApi, namespace: str, pod: str, container: str, budget_bytes: int,
                 on_line: Callable[[str, str], None], wanted: Callable[[], bool], stop: threading.Event,
                 retry_s: float = 10.0, metrics: Any = None):
        self.api, self.namespace, self.pod, self.container = api, namespace, pod, container
        self.budget_bytes, self.on_line, self.wanted, self.stop = budget_bytes, on_line, wanted, stop
        self.retry_s, self.metrics = retry_s, metrics
        self.last_ts = ""
        self.seen_at_last: set[str] = set()
        self.window_start, self.used = time.time(), 0
        self.thread = threading.Thread(target=self.run, name=f"log-{namespace}/{pod}", daemon=True)

    def run(self) -> None:
        while not self.stop.is_set() and self.wanted():
            if time.time() - self.window_start > HOUR_S:
                self.window_start, self.used = time.time(), 0
            left = self.budget_bytes - self.used
            if left <= 0:
                if self.metrics:
                    self.metrics.inc("k10s_watch_log_budget_exhausted_total")
                self.stop.wait(max(1.0, self.window_start + HOUR_S - time.time()))
                continue
            try:
                self._stream(left)
            except ApiError as exc:
                if exc.status == 404:
                    return
            except (ValueError, UnicodeError):  # a malformed answer: try again later
                pass
            self.stop.wait(self.retry_s)

    def _params(self, left: int) -> dict[str, Any]:
        params: dict[str, Any] = {"container": self.container, "follow": "true", "timestamps": "true", "limitBytes": left}
        if self.last_ts:
            params["sinceTime"] = self.last_ts
        else:
            params["tailLines"] = FIRST_TAIL_LINES
        return params

    def _stream(self, left: int) -> None:
        path = f"/api/v1/namespaces/{self.namespace}/pods/{self.pod}/log"
        for raw in self.api.stream(path, self._params(left), timeout_s=3600.0, accept="*/*"):
            self.used += len(raw)
            if self.metrics:
                self.metrics.inc("k10s_watch_log_bytes_total", len(raw))
            line = raw.decode("utf-8", "replace").rstrip("\r\n")
            ts, _, text = line.partition(" ")
            if ts[:2] == "20" and "T" in ts:  # an RFC 3339 timestamp (timestamps=true)
                if ts < self.last_ts or (ts == self.last_ts and line in self.seen_at_last):
                    continue
                if ts != self.last_ts:
                    self.last_ts, self.seen_at_last = ts, set()
                self.seen_at_last.add(line)
            else:
                text = line
            reason = log_reason(text)
            if reason:
                self.on_line(reason, text)
            if self.stop.is_set():
                return


__all__ = ["Follower", "container_running", "training_container"]
