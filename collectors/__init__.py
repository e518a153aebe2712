"""Collectors: one module per kind of evidence ``k10s capture`` gathers.

Each module defines ``COLLECTOR``, an instance of a ``Collector`` subclass. ``COLLECTORS``
lists them in the order the engine starts them; ``tests/test_collectors_registry.py``
fails when a module in this folder is left out.

A collector declares the capture phases it takes part in (``start``: objects listed at the
beginning, ``round``: one sample per sampling round, ``end``: objects listed again, logs,
kernel log), the collectors whose start phase must finish first (``needs``; ``needs_at_end``
for the end phase: later listings reuse what the start learnt), and the API access it
uses (``access``, checked by ``k10s capture --check``). ``run(ctx, phase)`` writes raw rows
through ``ctx`` (a ``k10s_forensics.capture.context.CollectorContext``) and reports what went
wrong with ``ctx.error``/``ctx.skip``; it never raises for a failing node or pod.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from k10s_forensics.capture.context import CollectorContext

PHASES = ("start", "round", "end")


@dataclass(frozen=True)
class Access:
    """One permission a collector uses (a SelfSubjectAccessReview attribute set).

    Attributes:
        verb: ``list``, ``get``, ``watch`` or ``create`` (``create`` only on ``pods/exec``).
        resource: plural resource name (``pods``, ``workloads``).
        group: API group, ``""`` for core.
        subresource: ``exec``, ``log``, ``proxy`` or ``""``.
        namespaced: checked in each scope namespace (else cluster-wide).
    """

    verb: str
    resource: str
    group: str = ""
    subresource: str = ""
    namespaced: bool = True

    def describe(self) -> str:
        res = self.resource + (f"/{self.subresource}" if self.subresource else "")
        grp = f".{self.group}" if self.group else ""
        return f"{self.verb} {res}{grp}"


class Collector:
    """Base class: subclasses set the class attributes and implement ``run``."""

    name: str = ""
    phases: tuple[str, ...] = ("start",)
    needs: tuple[str, ...] = ()
    #: Collectors whose ``end`` phase must finish first (``needs`` applies to ``start``).
    needs_at_end: tuple[str, ...] = ()
    access: tuple[Access, ...] = ()
    #: Access of which at least one is needed for the collector to do anything.
    description: str = ""

    def start_needs(self, scope) -> tuple[str, ...]:
        """Collectors whose start phase must finish before this one starts (``needs`` unless
        the scope makes some of them unnecessary)."""
        return self.needs

    def run(self, ctx: "CollectorContext", phase: str) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"<collector {self.name}>"


#: Collector modules in start order (one module per collector).
COLLECTOR_MODULES: tuple[str, ...] = (
    "namespaces",
    "training_jobs",
    "pods",
    "nodes",
    "events",
    "kueue",
    "gpu_operator",
    "runtime_classes",
    "prometheus",
    "visible_devices",
    "dcgm",
    "nvidia_smi",
    "ss",
    "dmesg",
    "flight_recorder",
    "ncclras",
    "logs",
    "gpu_operator_logs",
)


def _load() -> tuple[Collector, ...]:
    found = []
    for module_name in COLLECTOR_MODULES:
        module = importlib.import_module(f"{__name__}.{module_name}")
        found.append(module.COLLECTOR)
    return tuple(found)


COLLECTORS: tuple[Collector, ...] = _load()
BY_NAME: dict[str, Collector] = {c.name: c for c in COLLECTORS}

__all__ = ["Access", "Collector", "COLLECTORS", "COLLECTOR_MODULES", "BY_NAME", "PHASES"]
