"""Parsers: raw evidence -> derived tables.

Each module here parses one kind of raw source and exposes ``derive(ctx)``, which reads
the raw layer through ``ctx`` and emits rows of derived tables with ``ctx.emit``. What a
parser cannot read it records with ``ctx.issue`` (counted per source and reason, with the
first examples): rebuild never crashes on bad input.

``DERIVERS`` is the ordered registry; a test fails when a module is left out. Order
matters: ``ranks`` reads pods, jobs and GPU samples; ``prometheus`` places series with the
pods ``prom_ksm`` rebuilt from history (exporter pods included); ``gpus`` merges what the GPU parsers
emitted.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from k10s_forensics.parsers.context import DeriveContext

from k10s_forensics import PARSER_VERSION  # noqa: F401 (defined at the root: the store reads it too)

#: Module names under k10s_forensics.parsers, in the order rebuild runs them.
DERIVERS: tuple[str, ...] = (
    "k8s_nodes",
    "k8s_pods",
    "k8s_events",
    "k8s_runtime",
    "k8s_jobs",
    "kueue",
    "nvidia_smi_xml",
    "nvidia_smi_csv",
    "dcgm",
    "prom_ksm",
    "prometheus",
    "ss",
    "logs",
    "dmesg",
    "flight_recorder",
    "ncclras",
    "ranks",
    "gpus",
)

MAX_EXAMPLES = 3
EXAMPLE_CHARS = 200


def load_deriver(name: str) -> Callable[["DeriveContext"], None]:
    module = importlib.import_module(f"k10s_forensics.parsers.{name}")
    return module.derive


@dataclass
class IssueBucket:
    source: str
    reason: str
    raw_file: str | None
    first_raw_row: int | None
    count: int = 0
    examples: list[str] = field(default_factory=list)


class ParseIssues:
    """Counts what could not be parsed, per (source, reason), keeping the first examples."""

    def __init__(self) -> None:
        self._buckets: dict[tuple[str, str], IssueBucket] = {}

    def add(
        self,
        source: str,
        reason: str,
        example: str | None = None,
        raw_file: str | None = None,
        raw_row: int | None = None,
        count: int = 1,
    ) -> None:
        key = (source, reason)
        bucket = self._buckets.get(key)
        if bucket is None:
            bucket = self._buckets[key] = IssueBucket(source, reason, raw_file, raw_row)
        bucket.count += count
        if example is not None and len(bucket.examples) < MAX_EXAMPLES:
            text = example if len(example) <= EXAMPLE_CHARS else example[:EXAMPLE_CHARS] + "..."
            bucket.examples.append(text)

    def merge(self, other: "ParseIssues") -> None:
        """Add ``other``'s counts and examples after this log's own (as if added here, in order)."""
        for b in other._buckets.values():
            self.add(b.source, b.reason, b.examples[0] if b.examples else None, b.raw_file, b.first_raw_row, b.count)
            bucket = self._buckets[(b.source, b.reason)]
            for example in b.examples[1:]:
                if len(bucket.examples) < MAX_EXAMPLES:
                    bucket.examples.append(example)

    def __len__(self) -> int:
        return len(self._buckets)

    def total(self) -> int:
        return sum(b.count for b in self._buckets.values())

    def buckets(self) -> list[IssueBucket]:
        return sorted(self._buckets.values(), key=lambda b: (b.source, b.reason))

    def rows(self) -> list[dict[str, Any]]:
        return [
            {
                "source": b.source,
                "reason": b.reason,
                "count": b.count,
                "examples": b.examples,
                "raw_file": b.raw_file,
                "first_raw_row": b.first_raw_row,
            }
            for b in self.buckets()
        ]

    def summary(self) -> dict[str, dict[str, Any]]:
        """Per source: total count and the first examples (for the manifest)."""
        out: dict[str, dict[str, Any]] = {}
        for b in self.buckets():
            entry = out.setdefault(b.source, {"count": 0, "reasons": {}, "examples": []})
            entry["count"] += b.count
            entry["reasons"][b.reason] = entry["reasons"].get(b.reason, 0) + b.count
            for ex in b.examples:
                if len(entry["examples"]) < MAX_EXAMPLES:
                    entry["examples"].append(ex)
        return out


__all__ = ["DERIVERS", "PARSER_VERSION", "ParseIssues", "load_deriver"]
