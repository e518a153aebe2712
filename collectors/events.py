"""Events in scope from both APIs: core ``v1`` and ``events.k8s.io/v1``, plus node events.

Both APIs are kept because clusters differ in which one their components write to and
the two carry different fields (``series``, ``regarding``/``related``, ``note``).
"""

from __future__ import annotations

from k10s_forensics.collectors import Access, Collector


class EventsCollector(Collector):
    name = "events"
    phases = ("start", "end")
    access = (Access("list", "events"), Access("list", "events", group="events.k8s.io"))
    description = "list events (core and events.k8s.io) in scope, and Node events"

    def run(self, ctx, phase: str) -> None:
        scope = ctx.scope
        jobs: list[tuple[str, str, str, dict]] = [(p, "v1", "Event", {}) for p in scope.ns_paths("/api/v1", "events")]
        if "Event" in ctx.source.resources("events.k8s.io", "v1"):
            jobs += [(p, "events.k8s.io/v1", "Event", {}) for p in scope.ns_paths("/apis/events.k8s.io/v1", "events")]
        else:
            ctx.note_skipped("events.k8s.io/v1 Event not served by this cluster")
        if not scope.all_namespaces:
            # Node events live outside the scope's namespaces (usually in "default").
            jobs.append(("/api/v1/events", "v1", "Event", {"field": "involvedObject.kind=Node", "attr": "involvedObject"}))

        def list_one(job: tuple[str, str, str, dict]) -> None:
            path, api_version, kind, node_filter = job
            params = None
            keep = None
            if node_filter:
                params = [("fieldSelector", node_filter["field"])]
                attr = node_filter["attr"]

                def keep(item: dict, attr: str = attr) -> bool:
                    obj = item.get(attr) or {}
                    return obj.get("kind") == "Node" and not scope.in_namespaces((item.get("metadata") or {}).get("namespace"))
            ctx.try_list(path, api_version, kind, params=params, keep=keep)

        ctx.fan_out(list_one, jobs, lambda j: f"events {j[0]}")


COLLECTOR = EventsCollector()
