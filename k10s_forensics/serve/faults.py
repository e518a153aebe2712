"""Fault injection for ``k10s serve``: what capture's end-to-end tests run against.

Discovery (``/api``, ``/apis``, ``/version``) only gets the latency, never errors, so a
client can always start. Every other request, in this order:

1. sleeps ``latency_ms`` (in its own thread: concurrent requests overlap);
2. ``forbid``: 403 Forbidden for the listed resources (RBAC names: ``pods``, ``pods/exec``,
   ``pods/log``, ``nodes``, ``pytorchjobs.kubeflow.org``, ``*``);
3. with probability ``timeout_rate`` hangs ``timeout_hang_s`` then drops the connection
   without an answer; else with ``error_rate_429`` answers 429 with ``Retry-After: 1``; else
   with ``error_rate_500`` answers 500;
4. ``vanish_pods``: that fraction of the pods (chosen with ``seed``) disappear once
   ``vanish_after`` requests have been served: get/logs/exec/proxy answer 404, lists omit them;
5. ``fail_exec``: that fraction of exec calls fail inside the stream with an InternalError
   Status, as a container runtime that cannot start the process does.

Random draws come from one ``random.Random(seed)`` under a lock, so a run is reproducible
for a given order of requests.
"""

from __future__ import annotations

import random
import threading
from dataclasses import dataclass, field


@dataclass
class Faults:
    """Fault injection settings (all off by default)."""

    latency_ms: float = 0.0
    error_rate_429: float = 0.0
    error_rate_500: float = 0.0
    timeout_rate: float = 0.0
    timeout_hang_s: float = 5.0
    forbid: tuple[str, ...] = ()
    fail_exec: float = 0.0
    vanish_pods: float = 0.0
    vanish_after: int = 100
    seed: int = 0

    def __post_init__(self) -> None:
        for name in ("error_rate_429", "error_rate_500", "timeout_rate", "fail_exec", "vanish_pods"):
            value = getattr(self, name)
            if not 0.0 <= value <= 1.0:
                raise ValueError(f"{name} must be between 0 and 1, got {value}")
        if self.latency_ms < 0 or self.timeout_hang_s < 0 or self.vanish_after < 0:
            raise ValueError("latency_ms, timeout_hang_s and vanish_after must not be negative")
        self.forbid = tuple(f.strip().lower() for f in self.forbid if f.strip())

    @property
    def active(self) -> bool:
        return bool(
            self.latency_ms or self.error_rate_429 or self.error_rate_500 or self.timeout_rate or self.forbid
            or self.fail_exec or self.vanish_pods
        )


@dataclass
class FaultState:
    """Live state of the injected faults: random source, counters, vanished pods."""

    faults: Faults
    pods: list[tuple[str, str]] = field(default_factory=list)  # candidate (namespace, name)
    requests: int = 0
    injected: dict[str, int] = field(default_factory=dict)
    _vanishing: frozenset[tuple[str, str]] = frozenset()
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def __post_init__(self) -> None:
        self.rng = random.Random(self.faults.seed)
        if self.faults.vanish_pods and self.pods:
            chooser = random.Random(f"vanish-{self.faults.seed}")
            count = max(1, round(self.faults.vanish_pods * len(self.pods)))
            self._vanishing = frozenset(chooser.sample(sorted(self.pods), min(count, len(self.pods))))

    def count_request(self) -> int:
        with self._lock:
            self.requests += 1
            return self.requests

    def note(self, what: str) -> None:
        with self._lock:
            self.injected[what] = self.injected.get(what, 0) + 1

    def draw(self) -> str | None:
        """One of ``timeout``, ``429``, ``500`` or None for this request."""
        f = self.faults
        if not (f.timeout_rate or f.error_rate_429 or f.error_rate_500):
            return None
        with self._lock:
            x = self.rng.random()
        if x < f.timeout_rate:
            return "timeout"
        if x < f.timeout_rate + f.error_rate_429:
            return "429"
        if x < f.timeout_rate + f.error_rate_429 + f.error_rate_500:
            return "500"
        return None

    def exec_fails(self) -> bool:
        if not self.faults.fail_exec:
            return False
        with self._lock:
            return self.rng.random() < self.faults.fail_exec

    def forbidden(self, resource: str, group: str, subresource: str | None) -> bool:
        if not self.faults.forbid:
            return False
        name = f"{resource}/{subresource}" if subresource else resource
        names = {name, f"{resource}.{group}/{subresource}" if subresource else f"{resource}.{group}", "*"}
        return bool(names & set(self.faults.forbid))

    @property
    def vanished(self) -> frozenset[tuple[str, str]]:
        """Pods that are gone now (empty until ``vanish_after`` requests were served)."""
        if self.requests < self.faults.vanish_after:
            return frozenset()
        return self._vanishing

    @property
    def vanishing(self) -> frozenset[tuple[str, str]]:
        """Pods chosen to vanish (gone or not yet)."""
        return self._vanishing

    def snapshot(self) -> dict:
        with self._lock:
            return {
                "requests": self.requests,
                "injected": dict(self.injected),
                "vanishing_pods": sorted(f"{ns}/{n}" for ns, n in self._vanishing),
                "vanished": self.requests >= self.faults.vanish_after and bool(self._vanishing),
            }


__all__ = ["Faults", "FaultState"]
