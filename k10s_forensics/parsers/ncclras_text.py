"""NCCL RAS status output (``ncclras``, NCCL >= 2.24) -> ``nccl_ras`` rows, text and JSON.

Text, as NCCL's documentation shows it (docs.nvidia.com, NCCL user guide, "RAS"): a
``Job summary`` table (nodes, processes per node, GPUs per process, processes, GPUs), a
``Communicators`` table (group #, comms in group, nodes per comm, ranks per node, ranks per
comm, ranks in group, status, errors), then ``Errors`` and ``Warnings`` sections with blocks:

* ``INCOMPLETE`` / ``DEAD`` (job level): ``Process <pid> on node <ip> managing GPU <n>``;
* ``#<group>-<comm> (<hash>) INCOMPLETE``: ``The missing rank: 21`` (ranks of that
  communicator);
* ``#<group>-<comm> (<hash>) MISMATCH``: ``26 ranks have launched up to operation 6650`` /
  ``6 ranks have status RUNNING`` (optionally per operation type), each group followed by
  ``Rank <r> -- GPU <g> managed by process <pid> on node <ip>`` for the outlier members; a
  group of one rank is one line, ``Rank <r> has launched up to operation <n> -- GPU ...``
  (and ``[process information not found]`` when RAS lost the process);
* ``TIMEOUT``: timeouts while gathering data.

JSON (``ncclras -f json``, NCCL >= 2.28.7): ``communicators[]`` with ``ranks[]``
(``rank``, ``host``, ``pid``, ``cuda_dev``, ``nvml_dev``, ``status``, ``collective_counts``)
and ``missing_ranks[]`` (``status.unresponsive`` / ``considered_dead``).

Row kinds (column ``kind``): ``job``, ``comm_group``, ``process_missing`` (status DEAD or
INCOMPLETE), ``rank_missing``, ``mismatch_group``, ``mismatch_rank``, ``rank_counts`` (JSON:
every rank with its total collective count), ``timeout``. Lines that match nothing are
ignored, so the parser reads RAS output pasted inside a container log as well.
"""

from __future__ import annotations

import json
import re
from typing import Any

_VERSION = re.compile(r"NCCL version (\d+\.\d+\.\d+)")
_JOB_HEAD = re.compile(r"\(total\)\s+per node\s+per process")
_NUMS5 = re.compile(r"^\s*(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s*$")
_GROUP_ROW = re.compile(r"^\s*(\d+)\s+(\d+)\s+(\d+)\s+(\d+(?:-\d+)?)\s+(\d+)\s+(\d+)\s+([A-Z_]+)\s+([A-Z_]+(?:,\s*[A-Z_]+)*)\s*$")
_SECTION = re.compile(r"^\s*(Errors|Warnings)\s*$")
_JOB_BLOCK = re.compile(r"^\s*(INCOMPLETE|DEAD|TIMEOUT|MISMATCH)\s*$")
_COMM_BLOCK = re.compile(r"#(\d+)-(\d+)\s+\(([0-9a-fA-Fx]+)\)\s+([A-Z_]+)")
_PROCESS = re.compile(r"Process (\d+) on node (\S+?) managing GPUs? ([\d, ]+)")
_MISSING = re.compile(r"The missing ranks?: ([\d, \-]+)")
_GROUP_OPS = re.compile(r"(\d+) ranks? ha(?:s|ve) launched up to (?:(\w+) )?operation (\d+)")
_GROUP_STATUS = re.compile(r"(\d+) ranks? ha(?:s|ve) status (\w+)")
_RANK = re.compile(r"Rank (\d+) -- (?:GPU (\d+)(?: \(NVML \d+\))? managed by process (\d+) on node (\S+)|\[process information not found\])")
#: A group of one rank is printed on one line (no "1 rank has launched ..." header).
_RANK_OPS = re.compile(r"Rank (\d+) has launched up to (?:(\w+) )?operation (\d+)(?: -- (?:GPU (\d+)(?: \(NVML \d+\))? managed by process (\d+) on node (\S+)|\[process information not found\]))?")
#: a communicator's block pasted alone (the ``Errors``/``Warnings`` header above it cut): the section its status is printed in
_PASTED_BLOCKS = {"MISMATCH": "warnings", "INCOMPLETE": "errors", "DEAD": "errors"}
_STARTS = re.compile(r"^\s*(Job summary|Communicators\.\.\.|NCCL version)")


def _int(text: str | None) -> int | None:
    return int(text) if text else None


def _ints(text: str) -> list[int]:
    out: list[int] = []
    for part in re.split(r"[,\s]+", text.strip()):
        if re.fullmatch(r"\d+-\d+", part):
            a, b = (int(x) for x in part.split("-"))
            out += list(range(a, min(b, a + 100000) + 1))
        elif part.isdigit():
            out.append(int(part))
    return out


class _TextState:
    def __init__(self) -> None:
        self.rows: list[dict[str, Any]] = []
        self.report = -1
        self.version: str | None = None
        self.section = "summary"
        self.block: str | None = None
        self.comm: dict[str, Any] = {}
        self.group: dict[str, Any] = {}
        self.want_job_row = False

    def add(self, kind: str, line: str, **values: Any) -> None:
        self.rows.append({"kind": kind, "report": max(self.report, 0), "nccl_version": self.version, "section": self.section,
                          "status": self.block, **self.comm, **values, "detail": line.strip()[:500]})

    def new_report(self) -> None:
        self.report += 1
        self.section, self.block, self.comm, self.group = "summary", None, {}, {}

    def line(self, line: str) -> None:
        start = _STARTS.search(line)
        if start:
            mine = [r for r in self.rows if r["report"] == self.report]
            has_comms = any(r["kind"] == "comm_group" for r in mine)
            if self.report < 0 or (mine and (start.group(1) != "Communicators..." or has_comms or self.section != "summary")):
                self.new_report()
        m = _VERSION.search(line)
        if m:
            self.version = m.group(1)
            return
        if _JOB_HEAD.search(line):
            self.want_job_row = True
            return
        if self.want_job_row:
            m = _NUMS5.match(line)
            if m:
                self.want_job_row = False
                n = [int(x) for x in m.groups()]
                self.add("job", line, nodes=n[0], processes=n[3], gpus=n[4])
                return
        m = _GROUP_ROW.match(line)
        if m and self.section == "summary":
            g = m.groups()
            self.rows.append({"kind": "comm_group", "report": max(self.report, 0), "nccl_version": self.version, "section": "summary",
                              "comm_group": int(g[0]), "comms": int(g[1]), "nodes": int(g[2]), "comm_ranks": int(g[4]),
                              "processes": int(g[5]), "status": g[6], "errors": g[7], "detail": line.strip()[:500]})
            return
        m = _SECTION.match(line)
        if m:
            self.section, self.block, self.comm, self.group = m.group(1).lower(), None, {}, {}
            return
        m = _COMM_BLOCK.search(line)
        if m and self.section == "summary" and m.group(4) in _PASTED_BLOCKS:  # a block pasted without its section's header
            self.section = _PASTED_BLOCKS[m.group(4)]
        if self.section == "summary":
            return
        if m:
            self.block, self.group = m.group(4), {}
            self.comm = {"comm": f"#{m.group(1)}-{m.group(2)}", "comm_group": int(m.group(1)), "comm_hash": m.group(3)}
            return
        m = _JOB_BLOCK.match(line)
        if m:
            self.block, self.comm, self.group = m.group(1), {}, {}
            return
        self._block_line(line)

    def _block_line(self, line: str) -> None:
        m = _PROCESS.search(line)
        if m:
            for gpu in _ints(m.group(3)):
                self.add("process_missing", line, pid=int(m.group(1)), host=m.group(2), gpu=gpu)
            return
        m = _MISSING.search(line)
        if m:
            for rank in _ints(m.group(1)):
                self.add("rank_missing", line, rank=rank)
            return
        m = _GROUP_OPS.search(line)
        if m:
            self.group = {"group_ranks": int(m.group(1)), "op_count": int(m.group(3)), "group_value": f"{m.group(2) or 'operation'} {m.group(3)}"}
            self.add("mismatch_group", line, **self.group)
            return
        m = _GROUP_STATUS.search(line)
        if m:
            self.group = {"group_ranks": int(m.group(1)), "group_value": f"status {m.group(2)}"}
            self.add("mismatch_group", line, **self.group)
            return
        m = _RANK_OPS.search(line)
        if m:
            self.group = {"group_ranks": 1, "op_count": int(m.group(3)), "group_value": f"{m.group(2) or 'operation'} {m.group(3)}"}
            self.add("mismatch_group", line, **self.group)
            self.add("mismatch_rank", line, rank=int(m.group(1)), gpu=_int(m.group(4)), pid=_int(m.group(5)), host=m.group(6), **self.group)
            return
        m = _RANK.search(line)
        if m:
            self.add("mismatch_rank" if self.block == "MISMATCH" else "rank_missing", line, rank=int(m.group(1)), gpu=_int(m.group(2)),
                     pid=_int(m.group(3)), host=m.group(4), **self.group)
        elif self.block == "TIMEOUT" and "timeout" in line.lower():
            self.add("timeout", line)


def parse_text(text: str) -> list[dict[str, Any]]:
    """nccl_ras rows of one or more text RAS reports (unknown lines ignored)."""
    state = _TextState()
    for line in text.splitlines():
        state.line(line)
    return state.rows


def _count(value: Any) -> int:
    if isinstance(value, dict):
        return sum(_count(v) for v in value.values())
    return int(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else 0


def parse_json(doc: dict[str, Any]) -> list[dict[str, Any]]:
    """nccl_ras rows of one ``ncclras -f json`` answer."""
    version = str(doc.get("nccl_version")) if doc.get("nccl_version") is not None else None
    rows: list[dict[str, Any]] = []
    comms = doc.get("communicators") if isinstance(doc.get("communicators"), list) else []
    for i, c in enumerate(comms):
        if not isinstance(c, dict):
            continue
        base = {"report": 0, "nccl_version": version, "comm": f"#json-{i}", "comm_hash": str(c.get("hash")), "comm_ranks": c.get("size")}
        ranks = [r for r in c.get("ranks") or [] if isinstance(r, dict)]
        missing = [r for r in c.get("missing_ranks") or [] if isinstance(r, dict)]
        status = "INCOMPLETE" if missing else "RUNNING"
        rows.append({**base, "kind": "comm_group", "section": "summary", "comm_group": i, "comms": 1, "processes": len(ranks) + len(missing),
                     "status": status, "errors": "INCOMPLETE" if missing else "OK", "detail": json.dumps({k: c.get(k) for k in ("hash", "size", "ranks_count", "missing_ranks_count")})})
        for r in ranks:
            rows.append({**base, "kind": "rank_counts", "section": "summary", "rank": r.get("rank"), "host": r.get("host"), "pid": r.get("pid"),
                         "gpu": r.get("nvml_dev", r.get("cuda_dev")), "op_count": _count(r.get("collective_counts")),
                         "detail": json.dumps(r.get("collective_counts"))[:500]})
        for r in missing:
            st = r.get("status") if isinstance(r.get("status"), dict) else {}
            rows.append({**base, "kind": "rank_missing", "section": "errors", "status": "DEAD" if st.get("considered_dead") else "INCOMPLETE",
                         "rank": r.get("rank"), "host": r.get("host"), "pid": r.get("pid"), "gpu": r.get("nvml_dev", r.get("cuda_dev")),
                         "detail": json.dumps(st)[:500]})
    ras = doc.get("ras") if isinstance(doc.get("ras"), dict) else {}
    if _count(ras.get("timeouts_count")):
        rows.append({"report": 0, "nccl_version": version, "kind": "timeout", "section": "warnings", "detail": f"{ras.get('timeouts_count')} timeouts"})
    return rows


def parse_output(text: str) -> tuple[list[dict[str, Any]], str]:
    """(rows, ``json``/``text``) of one ncclras output."""
    stripped = text.lstrip()
    if stripped.startswith("{"):
        try:
            doc = json.loads(stripped)
        except ValueError:
            doc = None
        if isinstance(doc, dict):
            return parse_json(doc), "json"
    return parse_text(text), "text"


__all__ = ["parse_text", "parse_json", "parse_output"]
