"""raw/exec source=nvidia-smi-xml (``nvidia-smi -q -x``) -> gpus + gpu_samples.

Reads every schema seen in the wild: no DOCTYPE (R418), DTD v10/v11 (``power_readings``,
``clocks_throttle_reasons``), v12 (``gpu_power_readings``, ``clocks_event_reasons``) and v13
(``average_power_draw``/``instant_power_draw``, deprecated fields). Values carry units or read
``N/A``/``[N/A]``/``Requested functionality has been deprecated`` (-> null).

One gpus row and one gpu_samples row (ts = the exec's ``captured_at``) per ``<gpu>``, plus one of
each per MIG device (key ``MIG-<parent uuid>/<gpu_instance_id>``, see ``gpu_common``).
``gpu_index`` is the position of the ``<gpu>`` element: nvidia-smi lists GPUs in NVML index order.

Two paths, same rows: ``nvidia_smi_fast`` reads documents without building a tree (one split,
a plan per distinct tag skeleton; ~4x faster per core), and hands anything it does not
recognise (entities, CDATA, comments, malformed input, ...) to the ElementTree path below.

Safety: documents declaring entities (``<!ENTITY``) are rejected before parsing (no entity
expansion bombs); expat never fetches external DTDs. Garbage or truncated XML is a counted issue.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from k10s_forensics.parsers import nvidia_smi_fast
from k10s_forensics.parsers.common import normalize_pci_bus_id
from k10s_forensics.parsers.gpu_common import derive_exec_outputs, mig_key
from k10s_forensics.parsers.xml_paths import GPU_BLOCKS, NA_TEXT as _NA_TEXT, Paths, num as _num, text as _text
from k10s_forensics.parsers.xml_paths import throttle_bit as _throttle_bit, to_int as _int

SOURCE = "nvidia-smi-xml"
MAX_XML_CHARS = 64 << 20
_ENTITY_RE = re.compile(r"<!ENTITY", re.IGNORECASE)


def _declares_entity(text: str) -> bool:
    """``_ENTITY_RE.search(text)``, tried only where ``<!`` occurs (a regex scan of every document costs 1.3 ms/MB)."""
    at = text.find("<!")
    while at >= 0:
        if _ENTITY_RE.match(text, at):
            return True
        at = text.find("<!", at + 2)
    return False


def _str(el, path: str) -> str | None:
    """Text of ``path`` with the N/A / deprecated forms as None."""
    text = _text(el, path)
    return None if text is None or text.strip("[]").lower() in _NA_TEXT else text


def _yes(el: ET.Element | None, path: str) -> bool | None:
    text = (_text(el, path) or "").lower()
    return True if text in ("yes", "true", "1") else False if text in ("no", "false", "0") else None


def throttle_mask(gpu) -> int | None:
    """NVML clock-event bitmask from ``clocks_event_reasons`` / ``clocks_throttle_reasons``."""
    for block in ("clocks_event_reasons", "clocks_throttle_reasons"):
        el = gpu.find(block)
        if el is None:
            continue
        mask, known = 0, False
        for child in el:
            bit = _throttle_bit(child.tag)
            state = (child.text or "").strip().lower()
            if bit is None or state not in ("active", "not active"):
                continue
            known = True
            if state == "active":
                mask |= bit
        return mask if known else None
    return None


def _sum(*values: float | None) -> int | None:
    present = [v for v in values if v is not None]
    return int(sum(present)) if present else None


def _ecc(gpu: ET.Element, kind: str) -> tuple[int | None, int | None]:
    """(correctable, uncorrectable) ECC counts of ``volatile``/``aggregate`` in any schema."""
    el = gpu.find(f"ecc_errors/{kind}")
    if el is None:
        return None, None
    if el.find("single_bit") is not None or el.find("double_bit") is not None:  # before R450
        return _int(el, "single_bit/total"), _int(el, "double_bit/total")
    sbe = _sum(_num(el, "sram_correctable"), _num(el, "dram_correctable"))
    dbe = _sum(
        _num(el, "sram_uncorrectable"),
        _num(el, "sram_uncorrectable_parity"),
        _num(el, "sram_uncorrectable_secded"),
        _num(el, "dram_uncorrectable"),
    )
    return sbe, dbe


def _gpu(element: ET.Element, position: int, driver: str | None, cuda: str | None) -> tuple[list[dict], list[dict]]:
    gpu = Paths(element, GPU_BLOCKS)
    uuid = _text(gpu, "uuid")
    pci = normalize_pci_bus_id(_text(gpu, "pci/pci_bus_id") or element.get("id"))
    product = _text(gpu, "product_name")
    power = _num(
        gpu,
        "gpu_power_readings/instant_power_draw",
        "gpu_power_readings/average_power_draw",
        "gpu_power_readings/power_draw",
        "power_readings/instant_power_draw",
        "power_readings/average_power_draw",
        "power_readings/power_draw",
    )
    power_limit = _num(gpu, "gpu_power_readings/current_power_limit", "power_readings/enforced_power_limit", "power_readings/power_limit")
    sbe_vol, dbe_vol = _ecc(gpu, "volatile")
    sbe_agg, dbe_agg = _ecc(gpu, "aggregate")
    fb_total = _num(gpu, "fb_memory_usage/total")
    sample = {
        "gpu_uuid": uuid,
        "util_pct": _num(gpu, "utilization/gpu_util"),
        "mem_copy_util_pct": _num(gpu, "utilization/memory_util"),
        "power_w": power,
        "power_limit_w": power_limit,
        "fb_used_mib": _num(gpu, "fb_memory_usage/used"),
        "fb_total_mib": fb_total,
        "temp_c": _num(gpu, "temperature/gpu_temp"),
        "mem_temp_c": _num(gpu, "temperature/memory_temp"),
        "sm_clock_mhz": _num(gpu, "clocks/sm_clock"),
        "mem_clock_mhz": _num(gpu, "clocks/mem_clock"),
        "throttle_reasons": throttle_mask(gpu),
        "ecc_sbe_total": sbe_vol,
        "ecc_dbe_total": dbe_vol,
        "pcie_replay_total": _num(gpu, "pci/replay_counter"),
        "gpu_index": position,
        "pci_bus_id": pci,
        "model_name": product,
    }
    row = {
        "gpu_uuid": uuid,
        "gpu_index": position,
        "pci_bus_id": pci,
        "product": product if product else None,
        "memory_total_mib": None if fb_total is None else int(fb_total),
        "driver_version": driver,
        "cuda_version": cuda,
        "is_mig": False,
        "mig_mode": _str(gpu, "mig_mode/current_mig") or "N/A",
        "serial": _str(gpu, "serial"),
        "power_limit_w": power_limit,
        "max_sm_clock_mhz": _num(gpu, "max_clocks/sm_clock"),
        "ecc_sbe_volatile": sbe_vol,
        "ecc_dbe_volatile": dbe_vol,
        "ecc_sbe_aggregate": sbe_agg,
        "ecc_dbe_aggregate": dbe_agg,
        "retired_pages": _sum(
            _num(gpu, "retired_pages/multiple_single_bit_retirement/retired_count"),
            _num(gpu, "retired_pages/double_bit_retirement/retired_count"),
        ),
        "remapped_rows_uncorrectable": _int(gpu, "remapped_rows/remapped_row_unc"),
        "remapped_rows_pending": _yes(gpu, "remapped_rows/remapped_row_pending"),
        "remapped_rows_failure": _yes(gpu, "remapped_rows/remapped_row_failure"),
    }
    gpus, samples = [row], [sample]
    for mig in element.findall("mig_devices/mig_device"):
        gi = _int(mig, "gpu_instance_id")
        own = _text(mig, "uuid")
        key = own if own and own.upper().startswith("MIG-") else mig_key(uuid, gi)
        if key is None:
            continue
        mig_total = _num(mig, "fb_memory_usage/total")
        gpus.append(
            {
                "gpu_uuid": key,
                "gpu_index": position,
                "pci_bus_id": pci,
                "product": product,
                "memory_total_mib": None if mig_total is None else int(mig_total),
                "driver_version": driver,
                "cuda_version": row["cuda_version"],
                "is_mig": True,
                "parent_gpu_uuid": uuid,
                "mig_profile": _text(mig, "profile") or _text(mig, "gpu_instance_profile"),
                "gpu_instance_id": gi,
                "ecc_dbe_volatile": _int(mig, "ecc_error_count/volatile_count/sram_uncorrectable"),
            }
        )
        samples.append(
            {
                "gpu_uuid": key,
                "fb_used_mib": _num(mig, "fb_memory_usage/used"),
                "fb_total_mib": mig_total,
                "gpu_index": position,
                "pci_bus_id": pci,
                "model_name": product,
                "gpu_instance_id": gi,
            }
        )
    return gpus, samples


def parse_nvidia_smi_xml(text: str | None, *, fast: bool = True) -> tuple[list[dict], list[dict], list[tuple[str, str | None]]]:
    """Parse one ``nvidia-smi -q -x`` document.

    The fast path (``nvidia_smi_fast``, no tree) reads what it recognises; the rest -- and
    everything with ``fast=False`` -- goes through ElementTree. Both give the same rows.

    Returns:
        (gpus rows, gpu_samples rows, issues as (reason, example)); rows lack node/ts/source.
    """
    if text is None or not text.strip():
        return [], [], [("empty output", None)]
    if len(text) > MAX_XML_CHARS:
        return [], [], [("output too large to be nvidia-smi XML", f"{len(text)} characters")]
    start = text.find("<")
    if fast and start >= 0:
        # No entity check needed first: the fast path declines any '<!' but a plain prolog DOCTYPE.
        try:
            result = nvidia_smi_fast.parse(text[start:] if start else text)
        except Exception:  # noqa: BLE001 - whatever the fast path trips on, the tree parser reads (or words)
            result = None
        if result is not None:
            return result
    return _parse_tree(text, start)


def _parse_tree(text: str, start: int) -> tuple[list[dict], list[dict], list[tuple[str, str | None]]]:
    if _declares_entity(text):
        return [], [], [("XML with entity declarations rejected", text[:200])]
    if start < 0:
        return [], [], [("not XML", text[:200])]
    try:
        root = ET.fromstring(text[start:])
    except ET.ParseError as exc:
        return [], [], [("malformed XML", f"{exc}: {text[start:start + 120]!r}")]
    except (ValueError, RecursionError) as exc:  # e.g. NUL characters
        return [], [], [("malformed XML", f"{exc.__class__.__name__}: {exc}")]
    if root.tag != "nvidia_smi_log":
        return [], [], [("not an nvidia-smi XML document", f"root element <{root.tag}>")]
    gpus: list[dict] = []
    samples: list[dict] = []
    issues: list[tuple[str, str | None]] = []
    driver, cuda = _text(root, "driver_version"), _text(root, "cuda_version")
    for position, gpu in enumerate(root.findall("gpu")):
        g, s = _gpu(gpu, position, driver, cuda)
        if not g[0]["gpu_uuid"]:
            issues.append(("GPU without uuid", f"gpu id={gpu.get('id')}"))
            continue
        gpus += g
        samples += s
    if not gpus and not issues:
        issues.append(("no GPU in nvidia-smi XML", text[start:start + 200]))
    return gpus, samples, issues


#: False: ``derive`` reads every document with ElementTree (benchmarks compare both paths).
USE_FAST_PATH = True


def derive(ctx) -> None:
    """Emit gpus and gpu_samples rows from every nvidia-smi-xml exec row."""
    fast = USE_FAST_PATH
    derive_exec_outputs(ctx, SOURCE, lambda row: parse_nvidia_smi_xml(row.get("stdout"), fast=fast), stamp_time=True)


__all__ = ["derive", "parse_nvidia_smi_xml", "throttle_mask", "SOURCE"]
