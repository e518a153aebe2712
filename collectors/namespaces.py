"""Namespaces in scope (all of them with ``-A``)."""

from __future__ import annotations

from k10s_forensics.store.bundle import utcnow
from k10s_forensics.capture.retry import CallError
from k10s_forensics.collectors import Access, Collector


class NamespacesCollector(Collector):
    name = "namespaces"
    phases = ("start",)
    access = (Access("get", "namespaces", namespaced=False), Access("list", "namespaces", namespaced=False))
    description = "GET each namespace in scope (list all with -A)"

    def run(self, ctx, phase: str) -> None:
        if ctx.scope.all_namespaces:
            ctx.try_list("/api/v1/namespaces", "v1", "Namespace")
            return

        def get_one(ns: str) -> None:
            try:
                item = ctx.source.get(f"/api/v1/namespaces/{ns}")
            except CallError as exc:
                if exc.kind == "not-found":
                    ctx.error(f"namespace {ns}: does not exist")
                    return
                raise
            ctx.add_object(item, "v1", "Namespace", utcnow())
            ctx.ok()

        ctx.fan_out(get_one, ctx.scope.namespaces, lambda ns: f"namespace {ns}")


COLLECTOR = NamespacesCollector()
