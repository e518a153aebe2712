"""raw/exec source=dmesg -> log_events kinds ``xid``, ``host_oom`` and ``cgroup_oom``.

Lines are split and filtered with pyarrow.compute (RE2); only the few matching lines are
read in Python. Timestamps, per line:

* ISO (``dmesg --time-format=iso``): ``2026-11-21T10:01:02,123456+00:00``;
* any of these after a ``dmesg --decode`` prefix (``kern  :warn  : 2026-11-21T10:01:02,...``);
* ``dmesg -T``: ``[Sat Nov 21 10:01:02 2026]`` (read as UTC: the host's local time);
* raw monotonic ``[12345.678901]`` seconds since boot: cannot be placed in time without the
  boot time, so ``ts`` is the exec's ``captured_at`` (an upper bound) and the rows are
  counted under the issue "monotonic dmesg timestamps: ts is the capture time".

``xid``: ``NVRM: Xid (PCI:0000:3b:00): 79, pid=..., GPU has fallen off the bus.`` -> xid,
bus_id (normalised ``0000:3b:00.0``), pid; a consequence naming its cause (``… 45, … caused by previous Xid 149``)
adds the root Xid as a row of its own (subkind ``caused_later_xid``, same GPU and time, no pid). ``host_oom``: the kernel OOM killer acting for
the whole node (``Out of memory: Killed process``, ``oom-kill:constraint=CONSTRAINT_NONE``);
``cgroup_oom``: a memory cgroup limit (``Memory cgroup out of memory``, ``CONSTRAINT_MEMCG``).
One kill prints both an ``oom-kill:`` and a ``Killed process`` line; the second is dropped
when the first named the same pid. ``pod_uid`` comes from the ``task_memcg`` path.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from k10s_forensics.store.bundle import parse_iso
from k10s_forensics.parsers.common import normalize_pci_bus_id
from k10s_forensics.parsers.gpu_common import capture_failure
from k10s_forensics.parsers.log_cuda_calls import gpu_init_failed
from k10s_forensics.parsers.log_patterns_cuda import XID_CAUSE

SOURCE = "dmesg"
ISSUE_SOURCE = "exec:dmesg"
RAW_FILE = "raw/exec.parquet"
_INTERESTING = r"NVRM: Xid|RmInitAdapter failed|rm_init_adapter failed|[Oo]ut of memory: Killed process|oom-kill:"
_ISO_RE = re.compile(r"^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:[,.]\d+)?(?:Z|[+-]\d\d:?\d\d)?)\s+(.*)$")
_CTIME_RE = re.compile(r"^\[\s*(\w{3} \w{3} +\d+ \d\d:\d\d:\d\d \d{4})\]\s*(.*)$")
_MONO_RE = re.compile(r"^\[\s*(\d+\.\d+)\]\s*(.*)$")
#: ``dmesg --decode`` (``-x``) puts ``facility:level :`` before the time: ``kern  :warn  : 2026-...``.
_DECODE_RE = re.compile(r"^(?:kern|user|mail|daemon|auth|syslog|lpr|news|uucp|cron|authpriv|ftp|local[0-7])\s*:\s*"
                        r"(?:emerg|alert|crit|err|warn|notice|info|debug)\s*:\s?")
_XID_RE = re.compile(r"NVRM: Xid \(PCI:([0-9a-fA-F:.]+)\): (\d+)(?:, pid=(\d+|'<unknown>'))?")
_KILLED_RE = re.compile(r"(Memory cgroup out of memory|Out of memory): Killed process (\d+) \(([^)]*)\)")
_OOMKILL_RE = re.compile(r"oom-kill:constraint=(\w+).*?task_memcg=(\S*?),task=([^,]*),pid=(\d+)")
_POD_UID_RE = re.compile(r"pod([0-9a-f]{8}[-_][0-9a-f]{4}[-_][0-9a-f]{4}[-_][0-9a-f]{4}[-_][0-9a-f]{12})")


def _line_time(line: str) -> tuple[dt.datetime | None, str, str]:
    """(timestamp or None, message, timestamp kind: iso/ctime/monotonic/none)."""
    line = _DECODE_RE.sub("", line, count=1)
    m = _ISO_RE.match(line)
    if m:
        return parse_iso(m.group(1).replace(",", ".")), m.group(2), "iso"
    m = _CTIME_RE.match(line)
    if m:
        try:
            when = dt.datetime.strptime(re.sub(r" +", " ", m.group(1)), "%a %b %d %H:%M:%S %Y").replace(tzinfo=dt.timezone.utc)
        except ValueError:
            when = None
        return when, m.group(2), "ctime"
    m = _MONO_RE.match(line)
    if m:
        return None, m.group(2), "monotonic"
    return None, line, "none"


def parse_dmesg_lines(lines: list[str], captured_at: dt.datetime | None = None) -> tuple[list[dict], int]:
    """log_events rows (without node) of already-filtered dmesg lines; and how many had no usable time."""
    rows: list[dict[str, Any]] = []
    untimed = 0
    memcg_pids: set[int] = set()
    for line_no, line in lines:
        when, message, kind = _line_time(line.rstrip("\r"))
        if when is None:
            untimed += 1
            when = captured_at
        row: dict[str, Any] = {"ts": when, "line": message, "line_no": line_no}
        m = _XID_RE.search(message)
        if m:
            bus = normalize_pci_bus_id(m.group(1) if "." in m.group(1) else m.group(1) + ".0")
            pid = m.group(3)
            row.update(kind="xid", xid=int(m.group(2)), bus_id=bus, pid=int(pid) if pid and pid.isdigit() else None)
            rows.append(row)
            cause = XID_CAUSE.search(message)  # ``… 45, … caused by previous Xid 149``: the root Xid, an event of its own
            if cause and int(cause.group(1)) not in (0, row["xid"]):
                rows.append({**row, "xid": int(cause.group(1)), "pid": None, "subkind": "caused_later_xid"})
            continue
        init = gpu_init_failed(message)  # the driver could not bring the GPU up
        if init is not None:
            rows.append({**row, **init})
            continue
        m = _OOMKILL_RE.search(message)
        if m:
            uid = _POD_UID_RE.search(m.group(2))
            pid = int(m.group(4))
            memcg_pids.add(pid)
            row.update(kind="host_oom" if m.group(1) == "CONSTRAINT_NONE" else "cgroup_oom", pid=pid, pod_uid=uid.group(1).replace("_", "-") if uid else None)
            rows.append(row)
            continue
        m = _KILLED_RE.search(message)
        if m:
            pid = int(m.group(2))
            if pid in memcg_pids:
                continue
            row.update(kind="cgroup_oom" if m.group(1).startswith("Memory cgroup") else "host_oom", pid=pid)
            rows.append(row)
    return rows, untimed


def parse_dmesg(text: str | None, captured_at: dt.datetime | None = None) -> tuple[list[dict], int]:
    """Parse one dmesg output (tests, tools): log_events rows and the count of untimed lines."""
    table = _matching_lines(pa.array([text or ""], pa.string()))
    return parse_dmesg_lines(list(zip(table["line_no"].to_pylist(), table["line"].to_pylist())), captured_at)


def _matching_lines(stdout: pa.Array) -> pa.Table:
    """(parent row, 1-based line number, line) of the lines worth reading, vectorised."""
    lists = pc.split_pattern(pc.fill_null(stdout, ""), "\n")
    lines = pc.list_flatten(lists)
    parents = pc.list_parent_indices(lists)
    offsets = pa.array(lists.offsets.to_numpy()[:-1])
    line_no = pc.add(pc.subtract(pa.array(range(len(lines)), pa.int64()), pc.take(offsets, parents).cast(pa.int64())), 1)
    keep = pc.match_substring_regex(lines, _INTERESTING)
    return pa.table({"parent": pc.filter(parents, keep), "line_no": pc.filter(line_no, keep), "line": pc.filter(lines, keep)})


def derive(ctx) -> None:
    """Emit log_events rows from every dmesg exec row."""
    table = ctx.raw("exec", source=SOURCE)
    if table.num_rows == 0:
        return
    meta = table.select(["captured_at", "node", "exit_code", "error", "_row"]).to_pylist()
    for i, row in enumerate(meta):
        failure = capture_failure(row)
        if failure:
            ctx.issue(ISSUE_SOURCE, failure, row.get("error") or (table["stderr"][i].as_py() or "")[:200], RAW_FILE, row["_row"])
    try:
        found = _matching_lines(table["stdout"].combine_chunks())
    except Exception as exc:  # e.g. offsets overflow on absurd sizes: count it, emit nothing
        ctx.issue(ISSUE_SOURCE, f"dmesg output could not be split ({exc.__class__.__name__})", str(exc)[:200], RAW_FILE)
        return
    by_parent: dict[int, list[tuple[int, str]]] = {}
    for parent, line_no, line in zip(found["parent"].to_pylist(), found["line_no"].to_pylist(), found["line"].to_pylist()):
        by_parent.setdefault(parent, []).append((line_no, line))
    out: list[dict] = []
    for parent, lines in by_parent.items():
        row = meta[parent]
        events, untimed = parse_dmesg_lines(lines, row["captured_at"])
        if untimed:
            ctx.issue(ISSUE_SOURCE, "monotonic dmesg timestamps: ts is the capture time", lines[0][1][:200], RAW_FILE, row["_row"], count=untimed)
        for e in events:
            e["node"] = row["node"]
        out += events
    if out:
        ctx.emit("log_events", out)


__all__ = ["derive", "parse_dmesg", "parse_dmesg_lines", "SOURCE"]
