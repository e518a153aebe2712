"""Real incident logs as a new user would bring them: a bundle, then ``analyze`` in-process.

An incident folder (shared/real-samples/incidents/<name>/log.txt) holds lines pasted from
a public issue thread. ``incident_bundle`` turns it into a raw bundle the way a capture of
the cluster would have looked:

* a PyTorchJob with ``world_size / nproc_per_node`` pods (a master and workers), one pod per
  node, ``PET_NODE_RANK`` / ``PET_NPROC_PER_NODE`` / ``PET_NNODES`` in their env and the
  job's ``nprocPerNode``;
* the pasted lines as the pods' container logs (as pasted: no API timestamp prefix). A line
  goes to the pod of the global rank its prefix names (``[rankN]:``, ``[rank=N]``, mpirun's
  ``[1,N]<stderr>:``), or of the node a NCCL ``host:pid:tid [dev]`` prefix names (a host is
  placed by a ``comm ... rank N`` line it printed); a line with neither stays with the pod of
  the line before it (a traceback continues where it began);
* no GPU metrics, no container statuses, no events: only what the paste holds.

The bundle is then rebuilt (the real parsers) and analyzed with the built-in rules.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from k8s_builders import container, meta, obj_row, pod, pytorch_labels, pytorchjob
from k10s_forensics.analyze.runner import analyze
from k10s_forensics.bundle import Bundle, new_manifest, write_json_atomic, write_raw_table
from k10s_forensics.parsers.log_lines import fallback_ts
from k10s_forensics.rebuild import rebuild

UTC = dt.timezone.utc
CAPTURED = dt.datetime(2026, 11, 21, 10, 5, tzinfo=UTC)
POD_START = dt.datetime(2015, 1, 1, tzinfo=UTC)
NAMESPACE = "team-a"
JOB = "incident"
HERE = Path(__file__).resolve().parent
OWN_EXPECTATIONS = HERE / "data" / "incident_expectations.json"
REAL_SAMPLES_DIR = HERE.parents[1] / "shared" / "real-samples"

#: A global rank named by a prefix the launcher or log shipper put in front of the line.
_RANK_TAGS = (
    re.compile(r"\[rank(\d+)\]:"),
    re.compile(r"\[rank=(\d+)\]"),
    re.compile(r"^\[\d+,(\d+)\]<std(?:out|err)>:"),
)
_NCCL_HOST = re.compile(r"^(?:\[[^\]]*\] )?([A-Za-z0-9][\w.-]{0,252}):\d+:\d+ \[\d+\] ")
_COMM_RANK = re.compile(r"comm 0x[0-9a-fA-F]+ rank (\d+) n[Rr]anks (\d+)")
_WORLD_HINTS = (re.compile(r"n[Rr]anks (\d+)"),)
_ANY_RANK = re.compile(r"\[rank(\d+)\]|\[rank=(\d+)\]|\bRank (\d+)\b")


@dataclass
class Case:
    """One expectation: an entry of expected.json or of tests/data/incident_expectations.json."""

    incident: str
    cause: str
    culprit_ranks: list[int]
    victim_ranks: list[int]
    nproc_per_node: int
    world_size: int | None = None
    source: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def control(self) -> bool:
        return not self.culprit_ranks


def load_cases(real_samples: Path) -> list[Case]:
    """Every expectation: expected.json first, then our own for the folders it does not list."""
    entries = json.loads((real_samples / "incidents" / "expected.json").read_text(encoding="utf-8"))
    listed = {e["incident"] for e in entries}
    own = json.loads(OWN_EXPECTATIONS.read_text(encoding="utf-8")) if OWN_EXPECTATIONS.is_file() else []
    entries = entries + [e for e in own if e["incident"] not in listed]
    known = {"incident", "cause", "culprit_ranks", "victim_ranks", "nproc_per_node", "world_size", "source"}
    return [
        Case(
            incident=e["incident"], cause=e["cause"], culprit_ranks=list(e.get("culprit_ranks") or []),
            victim_ranks=list(e.get("victim_ranks") or []), nproc_per_node=int(e.get("nproc_per_node") or 1),
            world_size=e.get("world_size"), source=e.get("source", ""),
            extra={k: v for k, v in e.items() if k not in known},
        )
        for e in entries
    ]


def world_size(case: Case, lines: list[str]) -> int:
    """The expectation's world size, else the smallest multiple of nproc that holds every rank seen."""
    if case.world_size:
        return int(case.world_size)
    nproc = case.nproc_per_node
    top = max([*case.culprit_ranks, *case.victim_ranks, 0])
    for line in lines:
        for m in _ANY_RANK.finditer(line):
            top = max(top, int(next(g for g in m.groups() if g is not None)))
        for rx in _WORLD_HINTS:
            for m in rx.finditer(line):
                top = max(top, int(m.group(1)) - 1)
    return max(nproc, -(-(top + 1) // nproc) * nproc)


def route_lines(lines: list[str], nproc: int, nodes: int, stamped: list[str] | None = None) -> list[list[str]]:
    """The pasted lines split into one log body per node (see the module doc); ``stamped``: the
    same lines with an API timestamp prefix, routed as their bare versions are."""
    host_node: dict[str, int] = {}
    for line in lines:
        h, c = _NCCL_HOST.match(line), _COMM_RANK.search(line)
        if h and c:
            host_node.setdefault(h.group(1), int(c.group(1)) // nproc)
    bodies: list[list[str]] = [[] for _ in range(nodes)]
    current = 0
    for i, line in enumerate(lines):
        node = None
        for rx in _RANK_TAGS:
            m = rx.search(line)
            if m:
                node = int(m.group(1)) // nproc
                break
        if node is None:
            h = _NCCL_HOST.match(line)
            if h:
                node = host_node.get(h.group(1))
                if node is None:  # a host that never printed its rank: the next free node
                    used = set(host_node.values())
                    node = next((n for n in range(nodes) if n not in used), 0)
                    host_node[h.group(1)] = node
        if node is not None and 0 <= node < nodes:
            current = node
        bodies[current].append(stamped[i] if stamped else line)
    return bodies


def pod_name(node_rank: int) -> str:
    return f"{JOB}-master-0" if node_rank == 0 else f"{JOB}-worker-{node_rank - 1}"


def api_stamped(lines: list[str]) -> list[str]:
    """Lines as ``kubectl logs --timestamps`` would serve them: the time the line carries itself,
    else 1 ms after the line before (lines before the first stamped one: 1 ms apart before it).
    A paste without any clock is returned as it is: inventing one would invent the incident's
    timeline (a watchdog that waited 10 minutes a few milliseconds after the failure)."""
    own = [fallback_ts(line, CAPTURED) for line in lines]
    first = next((i for i, t in enumerate(own) if t is not None), None)
    if first is None:
        return list(lines)
    stamps: list[dt.datetime] = []
    last = own[first] - dt.timedelta(milliseconds=first + 1)
    for t in own:
        last = t if t is not None and t >= last else last + dt.timedelta(milliseconds=1)
        stamps.append(last)
    return [t.strftime("%Y-%m-%dT%H:%M:%S.%fZ ") + line for t, line in zip(stamps, lines)]


def incident_bundle(path: Path, case: Case, log_text: str, *, api_timestamps: bool = False, one_log: bool = False) -> Bundle:
    """A raw bundle for ``case`` (see the module doc), rebuilt.

    ``api_timestamps``: prefix every line as the API does with ``timestamps=true``;
    ``one_log``: every line in the first pod's log (a paste of several nodes' output).
    """
    lines = log_text.split("\n")
    nproc = case.nproc_per_node
    world = world_size(case, lines)
    nodes = world // nproc
    objects = [obj_row(_job_body(nodes, nproc), captured_at=CAPTURED)]
    log_rows = []
    routed = route_lines(lines, nproc, nodes, stamped=api_stamped(lines) if api_timestamps else None)
    bodies = [[ln for body in routed for ln in body]] + [[] for _ in range(nodes - 1)] if one_log else routed
    for node_rank, body in enumerate(bodies):
        name = pod_name(node_rank)
        rtype, idx = ("master", 0) if node_rank == 0 else ("worker", node_rank - 1)
        env = {"PET_NODE_RANK": node_rank, "PET_NPROC_PER_NODE": nproc, "PET_NNODES": nodes, "WORLD_SIZE": world}
        body_obj = pod(
            name, labels=pytorch_labels(JOB, rtype, idx), containers=[container("pytorch", gpus=nproc, env=env)],
            node=f"gpu-node-{node_rank}", owner=("PyTorchJob", JOB), namespace=NAMESPACE, started=POD_START,
        )
        body_obj["status"]["podIP"] = body_obj["status"]["podIPs"][0]["ip"] = f"10.1.{node_rank // 250}.{node_rank % 250 + 2}"
        objects.append(obj_row(body_obj, captured_at=CAPTURED))
        log_rows.append({
            "captured_at": CAPTURED, "node": f"gpu-node-{node_rank}", "namespace": NAMESPACE, "pod": name,
            "pod_uid": f"uid-{name}", "container": "pytorch", "previous": False,
            "body": "\n".join(body) if body else "", "error": None,
        })
    path.mkdir(parents=True, exist_ok=True)
    write_raw_table(path, "objects", objects)
    write_raw_table(path, "logs", log_rows)
    write_json_atomic(path / "manifest.json", new_manifest(window_start=POD_START, window_end=CAPTURED, created_at=CAPTURED))
    bundle = Bundle.open(path)
    rebuild(bundle)
    return Bundle.open(path)


def _job_body(nodes: int, nproc: int) -> dict[str, Any]:
    body = pytorchjob(JOB, workers=nodes - 1, gpus=nproc, nproc=nproc, master=True)
    body["metadata"] = meta(JOB, NAMESPACE)
    if nodes == 1:
        del body["spec"]["pytorchReplicaSpecs"]["Worker"]
    return body


def analyze_incident(tmp_path: Path, real_samples: Path, case: Case, **how: bool) -> list[dict[str, Any]]:
    """Findings of ``analyze`` on the bundle made from the incident's log (``how``: see incident_bundle)."""
    text = (real_samples / "incidents" / case.incident / "log.txt").read_text(encoding="utf-8")
    bundle = incident_bundle(tmp_path / case.incident, case, text, **how)
    return analyze(bundle)["findings"]


def naming_findings(findings: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Critical and warning findings that name culprit ranks."""
    return [f for f in findings if f["severity"] in ("critical", "warning") and f.get("ranks")]


__all__ = ["REAL_SAMPLES_DIR", "Case", "api_stamped", "load_cases", "incident_bundle", "analyze_incident", "naming_findings", "route_lines", "world_size"]
