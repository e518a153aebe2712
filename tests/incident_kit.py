"""Real incident logs as a new user would bring them: a bundle, then ``analyze`` in-process.

An incident folder (tests/data/real-samples/incidents/<name>/log.txt) holds lines pasted from
a public issue thread. ``incident_bundle`` turns it into a bundle with the product's own
importer (``k10s import-logs``, k10s_forensics/logimport.py): a PyTorchJob with
``world_size / nproc_per_node`` pods, one per node, and each pasted line in the log of the
pod of the rank its prefix names (a line with none stays with the line before it). No GPU
metrics, no container statuses, no events: only what the paste holds. The expectation
gives the processes per node and world size, as the issue thread states them.

The bundle is then rebuilt (the real parsers) and analyzed with the built-in rules.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from k10s_forensics.analyze.runner import analyze
from k10s_forensics.store.bundle import Bundle
from k10s_forensics.logimport import LogSource, import_logs
from k10s_forensics.parsers.log_lines import fallback_ts
from k10s_forensics.parsers.log_time import dated_ts

UTC = dt.timezone.utc
CAPTURED = dt.datetime(2026, 11, 21, 10, 5, tzinfo=UTC)
NAMESPACE = "team-a"
JOB = "incident"
HERE = Path(__file__).resolve().parent
OWN_EXPECTATIONS = HERE / "data" / "incident_expectations.json"
REAL_SAMPLES_DIR = HERE / "data" / "real-samples"
REAL_INCIDENTS_DIR = HERE / "data" / "real-incidents"

_WORLD_HINTS = (re.compile(r"n[Rr]anks (\d+)"),)
_ANY_RANK = re.compile(r"\[rank(\d+)\]|\[rank=(\d+)\]|\bRank (\d+)\b")


@dataclass
class Case:
    """One expectation: an entry of expected.json or of tests/data/incident_expectations.json."""

    incident: str
    cause: str
    culprit_ranks: list[int]
    victim_ranks: list[int]
    nproc_per_node: int | None  # None: not known from the thread (the importer infers it from the log)
    world_size: int | None = None
    source: str = ""
    extra: dict[str, Any] = field(default_factory=dict)
    folder: Path | None = None  # where <incident>/log.txt lies

    @property
    def control(self) -> bool:
        return not self.culprit_ranks


def load_cases(real_samples: Path) -> list[Case]:
    """Every expectation: expected.json first, then our own for the folders it does not list."""
    entries = json.loads((real_samples / "incidents" / "expected.json").read_text(encoding="utf-8"))
    listed = {e["incident"] for e in entries}
    own = json.loads(OWN_EXPECTATIONS.read_text(encoding="utf-8")) if OWN_EXPECTATIONS.is_file() else []
    return _cases(entries + [e for e in own if e["incident"] not in listed], real_samples / "incidents")


def load_corpus(folder: Path) -> list[Case]:
    """The expectations of a corpus folder laid out like tests/data/real-samples/incidents
    (``expected.json`` beside one ``<incident>/log.txt`` folder per entry)."""
    return _cases(json.loads((folder / "expected.json").read_text(encoding="utf-8")), folder)


def spread(cases: list[Case], n: int) -> list[Case]:
    """``n`` cases spread evenly over ``cases`` (every k-th, the same ones on every run): a sample whose size stays
    put as the corpus grows (every 40th case grew with each batch, and with it the tests that take it)."""
    return cases[::max(1, len(cases) // n)][:n]


def _cases(entries: list[dict[str, Any]], folder: Path) -> list[Case]:
    known = {"incident", "cause", "culprit_ranks", "victim_ranks", "nproc_per_node", "world_size", "source"}
    return [
        Case(
            incident=e["incident"], cause=e["cause"], culprit_ranks=list(e.get("culprit_ranks") or []),
            victim_ranks=list(e.get("victim_ranks") or []),
            nproc_per_node=int(e["nproc_per_node"]) if e.get("nproc_per_node") else None,
            world_size=e.get("world_size"), source=e.get("source", ""),
            extra={k: v for k, v in e.items() if k not in known}, folder=folder,
        )
        for e in entries
    ]


def world_size(case: Case, lines: list[str]) -> int | None:
    """The expectation's world size, else the smallest multiple of nproc that holds every rank seen
    (None when neither is known: the importer infers both)."""
    if case.world_size:
        return int(case.world_size)
    nproc = case.nproc_per_node
    if nproc is None:
        return None
    top = max([*case.culprit_ranks, *case.victim_ranks, 0])
    for line in lines:
        for m in _ANY_RANK.finditer(line):
            top = max(top, int(next(g for g in m.groups() if g is not None)))
        for rx in _WORLD_HINTS:
            for m in rx.finditer(line):
                top = max(top, int(m.group(1)) - 1)
    return max(nproc, -(-(top + 1) // nproc) * nproc)


def api_stamped(lines: list[str]) -> list[str]:
    """Lines as ``kubectl logs --timestamps`` would serve them: the time the line carries itself,
    else 1 ms after the line before (lines before the first stamped one: 1 ms apart before it).
    A paste without any clock is returned as it is: inventing one would invent the incident's
    timeline (a watchdog that waited 10 minutes a few milliseconds after the failure). A yearless clock
    (glog) is placed in the year of the paste's own dated lines, as the server's clock would have it."""
    dated = [t for t in (dated_ts(line) for line in lines) if t is not None]
    ref = min(CAPTURED, max(dated) + dt.timedelta(days=1)) if dated else CAPTURED
    own = [fallback_ts(line, ref) for line in lines]
    first = next((i for i, t in enumerate(own) if t is not None), None)
    if first is None:
        return list(lines)
    stamps: list[dt.datetime] = []
    last = own[first] - dt.timedelta(milliseconds=first + 1)
    for t in own:
        last = t if t is not None and t >= last else last + dt.timedelta(milliseconds=1)
        stamps.append(last)
    return [t.strftime("%Y-%m-%dT%H:%M:%S.%fZ ") + line for t, line in zip(stamps, lines)]


def incident_bundle(path: Path, case: Case, log_text: str, *, api_timestamps: bool = False, one_log: bool = False,
                    derive: bool = True) -> Bundle:
    """A bundle for ``case`` made by the product's importer (``k10s import-logs``), rebuilt.

    The expectation gives the processes per node and the world size (as the issue thread
    states them); ``api_timestamps``: prefix every line as the API does with
    ``timestamps=true``; ``one_log``: every line in the first pod's log (no routing); ``derive=False``: the raw
    layer only, for ``bundle_batch.merge`` (which rebuilds the merged bundle once).
    """
    lines = log_text.split("\n")
    nproc = case.nproc_per_node
    world = world_size(case, lines)
    text = "\n".join(api_stamped(lines)) if api_timestamps else log_text
    nodes = world // nproc if world and nproc else None
    bundle, _ = import_logs([LogSource("log.txt", text)], path, nproc_per_node=nproc, world_size=world, nodes=nodes,
                            job=JOB, namespace=NAMESPACE, split=not one_log, now=CAPTURED, derive=derive)
    return bundle


def analyze_incident(tmp_path: Path, case: Case, **how: bool) -> list[dict[str, Any]]:
    """Findings of ``analyze`` on the bundle made from the incident's log (``how``: see incident_bundle)."""
    text = (case.folder / case.incident / "log.txt").read_text(encoding="utf-8")
    bundle = incident_bundle(tmp_path / case.incident, case, text, **how)
    return analyze(bundle)["findings"]


def misses(case: Case, findings: list[dict[str, Any]], *, check_cause: bool = True) -> str | None:
    """Why ``findings`` miss the case's expectation (None: they meet it).

    A culprit case: some critical or warning finding names exactly the culprit ranks (with the
    expected cause), and none names only ranks outside them. A control case: no critical or
    warning finding names a rank (one may say there is no single culprit, with no ranks).
    """
    named = naming_findings(findings)
    shown = [(f["rule"], f["severity"], f["cause"], f["ranks"]) for f in findings]
    if case.control:
        return f"control case: no finding may name a culprit; got {shown}" if named else None
    want = sorted(case.culprit_ranks)
    if not [f for f in named if f["ranks"] == want and (_same_cause(case.cause, f["cause"]) or not check_cause)]:
        return f"want ranks {want} cause {case.cause}; got {shown}"
    if [f for f in named if not set(f["ranks"]) & set(want)]:
        return f"findings naming other ranks only: {shown}"
    return None


def _same_cause(expected: str | None, found: str | None) -> bool:
    """An expectation whose cause is null says the log shows only an exit status: a finding that
    claims no cause beyond that status (``exit-<code>``, ``exit-unknown``) meets it."""
    if expected is None:
        return found is None or found.startswith("exit-")
    return found == expected


def corpus_log(incident: str) -> str:
    """The verbatim ``log.txt`` of one incident of tests/data/real-incidents."""
    return (REAL_INCIDENTS_DIR / incident / "log.txt").read_text(encoding="utf-8")


def corpus_lines(prefix: str) -> list[str]:
    """The lines of the one ``log.txt`` of tests/data/real-incidents whose folder name starts with ``prefix``."""
    (folder,) = [p for p in REAL_INCIDENTS_DIR.iterdir() if p.name.startswith(prefix)]
    return (folder / "log.txt").read_text(encoding="utf-8").splitlines()


def sample_lines(prefix: str) -> list[str]:
    """The lines of the one ``log.txt`` of tests/data/real-samples/incidents whose folder name starts with ``prefix``."""
    (folder,) = [p for p in (REAL_SAMPLES_DIR / "incidents").iterdir() if p.name.startswith(prefix)]
    return (folder / "log.txt").read_text(encoding="utf-8").splitlines()


def naming_findings(findings: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Critical and warning findings that name culprit ranks."""
    return [f for f in findings if f["severity"] in ("critical", "warning") and f.get("ranks")]




def named_in_paste(tmp_path: Path, text: str, nproc: int | None, world: int | None, now) -> list[tuple]:
    """(rule, cause, ranks) of each finding naming a culprit, for ``text`` imported as one pasted log."""
    from k10s_forensics.analyze.runner import analyze
    from k10s_forensics.logimport import LogSource, import_logs

    bundle, _ = import_logs([LogSource("log.txt", text)], tmp_path / "b", nproc_per_node=nproc, world_size=world,
                            job="train", namespace="team-a", now=now)
    return [(f["rule"], f["cause"], f["ranks"]) for f in naming_findings(analyze(bundle)["findings"])]


__all__ = ["REAL_INCIDENTS_DIR", "REAL_SAMPLES_DIR", "Case", "corpus_log", "api_stamped", "load_cases", "load_corpus", "incident_bundle", "analyze_incident", "misses", "named_in_paste", "naming_findings", "spread", "world_size"]
