"""raw/exec source=nvidia-smi-csv (``nvidia-smi --query-gpu=... --format=csv``) -> gpus + gpu_samples.

Any subset of fields, in any order; the header may carry units (``memory.used [MiB]``) or
not (``nounits``). Values may carry units or read ``[N/A]``/``[Not Supported]``.
A CSV without a header is read only when the row's ``command`` names the fields
(``--query-gpu=a,b,c``): the command text names columns, it never decides the parser.
``--query-compute-apps`` output (processes, no GPU rows) is recognised and counted.

``ts``: the CSV ``timestamp`` column (``YYYY/MM/DD HH:MM:SS.mmm``, host local time) shifted
by the whole quarter-hours between it and the exec's ``captured_at`` (time-zone offset, at
most 14 h); beyond 14 h the host clock is wrong and rows are placed relative to
``captured_at``; the exec's ``captured_at`` when there is no timestamp column.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import re
from typing import Any

from k10s_forensics.parsers.common import normalize_pci_bus_id, number
from k10s_forensics.parsers.gpu_common import THROTTLE_BITS, derive_exec_outputs, int_or_none

SOURCE = "nvidia-smi-csv"
_NA = {"", "n/a", "[n/a]", "[not supported]", "not supported", "[unknown error]", "[insufficient permissions]", "[gpu requires reset]", "requested functionality has been deprecated", "[requested functionality has been deprecated]"}
_FIELD_RE = re.compile(r"^[a-z][a-zA-Z0-9_]*(?:\.[a-zA-Z0-9_]+)*(?: \[[^\]]*\])?$")
_APPS_FIELDS = {"pid", "process_name", "used_gpu_memory", "used_memory", "gpu_serial", "gpu_bus_id", "gpu_name"}
_QUARTER = dt.timedelta(minutes=15)
_MAX_TZ = dt.timedelta(hours=14)

#: output column -> CSV field names (units stripped) in descending priority.
SAMPLE_FIELDS: dict[str, tuple[str, ...]] = {
    "util_pct": ("utilization.gpu",),
    "mem_copy_util_pct": ("utilization.memory",),
    "power_w": ("power.draw.instant", "power.draw.average", "power.draw"),
    "power_limit_w": ("enforced.power.limit", "power.limit"),
    "fb_used_mib": ("memory.used",),
    "fb_total_mib": ("memory.total",),
    "temp_c": ("temperature.gpu",),
    "mem_temp_c": ("temperature.memory",),
    "sm_clock_mhz": ("clocks.current.sm", "clocks.sm"),
    "mem_clock_mhz": ("clocks.current.memory", "clocks.mem"),
    "ecc_sbe_total": ("ecc.errors.corrected.volatile.total",),
    "ecc_dbe_total": ("ecc.errors.uncorrected.volatile.total",),
}


def _value(row: dict[str, str], *fields: str) -> str | None:
    for f in fields:
        v = row.get(f)
        if v is not None and v.strip().lower() not in _NA:
            return v.strip()
    return None


def _num(row: dict[str, str], *fields: str) -> float | None:
    for f in fields:
        v = number(_value(row, f))
        if v is not None:
            return v
    return None


def _throttle(row: dict[str, str]) -> int | None:
    text = _value(row, "clocks_event_reasons.active", "clocks_throttle_reasons.active")
    if text:
        try:
            return int(text, 16) if text.lower().startswith("0x") else int(float(text))
        except ValueError:
            return None
    mask, known = 0, False
    for name, bit in THROTTLE_BITS.items():
        state = (_value(row, f"clocks_event_reasons.{name}", f"clocks_throttle_reasons.{name}") or "").lower()
        if state in ("active", "not active"):
            known = True
            mask |= bit if state == "active" else 0
    return mask if known else None


def _ts(text: str | None) -> dt.datetime | None:
    if not text:
        return None
    for fmt in ("%Y/%m/%d %H:%M:%S.%f", "%Y/%m/%d %H:%M:%S"):
        try:
            return dt.datetime.strptime(text.strip(), fmt).replace(tzinfo=dt.timezone.utc)
        except ValueError:
            continue
    return None


def _fields_from_command(command: str | None) -> list[str] | None:
    """Field names of ``--query-gpu=`` / ``--query-compute-apps=`` in the argv (column names only)."""
    m = re.search(r"--query-(?:gpu|compute-apps|accounted-apps)[= ]([A-Za-z0-9_.,]+)", command or "")
    return m.group(1).split(",") if m else None


def _is_header(cells: list[str]) -> bool:
    return bool(cells) and all(_FIELD_RE.match(c) for c in cells) and any("." in c or c in ("uuid", "index", "name", "timestamp", "pid") for c in cells)


def _weak_uuid(row: dict[str, str], node: str | None, position: int) -> str:
    """An identity for a GPU row without ``uuid``: node + PCI bus id, index or row position + name."""
    pci = normalize_pci_bus_id(_value(row, "pci.bus_id"))
    index = _value(row, "index")
    where = f"pci-{pci}" if pci else f"index-{index}" if index else f"row-{position}"
    return f"weak:{node or 'unknown-node'}:{where}:{_value(row, 'name', 'gpu_name') or 'unknown-model'}"


def parse_nvidia_smi_csv(text: str | None, command: str | None = None, captured_at: dt.datetime | None = None,
                         node: str | None = None) -> tuple[list[dict], list[dict], list[tuple[str, str | None]]]:
    """Parse one ``--query-gpu`` CSV output.

    A field list without ``uuid`` still yields rows: they are keyed ``weak:<node>:<pci, index
    or row position>:<name>`` and counted under the issue "weak GPU identity".

    Returns:
        (gpus rows, gpu_samples rows, issues as (reason, example)); rows lack node/source.
    """
    if text is None or not text.strip():
        return [], [], [("empty output", None)]
    try:
        reader = csv.reader(io.StringIO(text.replace("\x00", "")), skipinitialspace=True)
        records = [[c.strip() for c in r] for r in reader if any(c.strip() for c in r)]
    except csv.Error as exc:  # e.g. a field over the csv module's size limit
        return [], [], [("malformed csv", f"{exc}: {text[:120]!r}")]
    if not records:
        return [], [], [("empty output", None)]
    first = records[0]
    if _is_header(first):
        header = [re.sub(r"\s*\[[^\]]*\]$", "", c) for c in first]
        records = records[1:]
    else:
        header = _fields_from_command(command)
        if header is None:
            return [], [], [("csv without header", text[:200])]
    if "uuid" not in header and (_APPS_FIELDS & set(header) or "gpu_uuid" in header):
        return [], [], [("not a GPU query (--query-compute-apps output)", ", ".join(header)[:200])]
    gpus: list[dict] = []
    samples: list[dict] = []
    issues: list[tuple[str, str | None]] = []
    shift = None
    for position, cells in enumerate(records):
        if len(cells) != len(header):
            issues.append(("csv row with a different number of fields than the header", ",".join(cells)[:200]))
            continue
        row = dict(zip(header, cells))
        uuid = _value(row, "uuid", "gpu_uuid")
        if not uuid:
            uuid = _weak_uuid(row, node, position)
            issues.append(("weak GPU identity: csv row without uuid, keyed by node, pci/index/position and name", ",".join(cells)[:200]))
        when = _ts(row.get("timestamp"))
        if when is not None and captured_at is not None:
            if shift is None:
                offset = captured_at - when
                # a time-zone offset: whole quarter-hours; anything larger is a wrong clock
                shift = round(offset / _QUARTER) * _QUARTER if abs(offset) <= _MAX_TZ else offset
            when = when + shift
        sample: dict[str, Any] = {k: _num(row, *names) for k, names in SAMPLE_FIELDS.items()}
        if sample["fb_total_mib"] is None and sample["fb_used_mib"] is not None and _num(row, "memory.free") is not None:
            sample["fb_total_mib"] = sample["fb_used_mib"] + _num(row, "memory.free") + (_num(row, "memory.reserved") or 0.0)
        pci = normalize_pci_bus_id(_value(row, "pci.bus_id"))
        index = int_or_none(_num(row, "index"))
        sample.update(
            gpu_uuid=uuid,
            ts=when or captured_at,
            throttle_reasons=_throttle(row),
            gpu_index=index,
            pci_bus_id=pci,
            model_name=_value(row, "name", "gpu_name"),
        )
        for k in ("ecc_sbe_total", "ecc_dbe_total"):
            sample[k] = int_or_none(sample[k])
        samples.append(sample)
        retired = [_num(row, "retired_pages.single_bit_ecc.count", "retired_pages.sbe"), _num(row, "retired_pages.double_bit.count", "retired_pages.dbe")]
        pending = _value(row, "remapped_rows.pending")
        failure = _value(row, "remapped_rows.failure")
        gpus.append(
            {
                "gpu_uuid": uuid,
                "gpu_index": index,
                "pci_bus_id": pci,
                "product": sample["model_name"],
                "memory_total_mib": int_or_none(sample["fb_total_mib"]),
                "driver_version": _value(row, "driver_version"),
                "is_mig": False,
                "mig_mode": _value(row, "mig.mode.current"),
                "serial": _value(row, "serial"),
                "power_limit_w": sample["power_limit_w"],
                "max_sm_clock_mhz": _num(row, "clocks.max.sm", "clocks.max.sm_clock"),
                "ecc_sbe_volatile": sample["ecc_sbe_total"],
                "ecc_dbe_volatile": sample["ecc_dbe_total"],
                "ecc_sbe_aggregate": int_or_none(_num(row, "ecc.errors.corrected.aggregate.total")),
                "ecc_dbe_aggregate": int_or_none(_num(row, "ecc.errors.uncorrected.aggregate.total")),
                "retired_pages": int(sum(v for v in retired if v is not None)) if any(v is not None for v in retired) else None,
                "remapped_rows_uncorrectable": int_or_none(_num(row, "remapped_rows.uncorrectable")),
                "remapped_rows_pending": None if pending is None else pending.lower() in ("yes", "true", "1"),
                "remapped_rows_failure": None if failure is None else failure.lower() in ("yes", "true", "1"),
                "first_seen_at": sample["ts"],
                "last_seen_at": sample["ts"],
            }
        )
    if not samples and not issues:
        issues.append(("no GPU rows in csv", text[:200]))
    return gpus, samples, issues


def derive(ctx) -> None:
    """Emit gpus and gpu_samples rows from every nvidia-smi-csv exec row."""
    derive_exec_outputs(
        ctx, SOURCE, lambda row: parse_nvidia_smi_csv(row.get("stdout"), row.get("command"), row.get("captured_at"), row.get("node")),
        stamp_time=False
    )


__all__ = ["derive", "parse_nvidia_smi_csv", "SOURCE"]
