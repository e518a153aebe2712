"""The fast path of the nvidia-smi XML parser: the same rows as ``nvidia_smi_xml``, no tree per document.

``parse(body)`` splits a document (``xml_fast.split``), looks its skeleton up in ``_PLANS``
and reads only the texts the rows need. A plan is built once per skeleton from the marker
tree (``xml_fast.skeleton``) with the tree parser's own lookups (``Paths``, ``Element.find``),
so a path names the same element on both paths; only the value rules (first number of a list
of paths, N/A forms, ECC sums, MIG keys) are repeated here, in the same order, and
``tests/test_parsers_gpu_fastpath.py`` compares both paths on every real sample, simulated
documents and mutated ones. ``parse`` returns None for whatever it does not recognise (no
plan: odd markup, malformed XML, a root other than ``<nvidia_smi_log>``); the caller then
runs the tree parser, which also words every issue.

Texts are read a GPU at a time with ``operator.itemgetter`` and converted through memo dicts
keyed by the raw text (``'  67.03 W '`` -> 67.03): values repeat across GPUs and documents.
"""

from __future__ import annotations

from operator import itemgetter

from k10s_forensics.parsers import xml_fast
from k10s_forensics.parsers.common import normalize_pci_bus_id
from k10s_forensics.parsers.gpu_common import mig_key
from k10s_forensics.parsers.xml_paths import (
    GPU_BLOCKS,
    NA_TEXT,
    Paths,
    number_of,
    throttle_bit,
)

_POWER = (
    "gpu_power_readings/instant_power_draw", "gpu_power_readings/average_power_draw", "gpu_power_readings/power_draw",
    "power_readings/instant_power_draw", "power_readings/average_power_draw", "power_readings/power_draw",
)
_POWER_LIMIT = ("gpu_power_readings/current_power_limit", "power_readings/enforced_power_limit", "power_readings/power_limit")
#: One-path numbers, in this order: the sample columns first (their names), then the rest.
_NUMS = (
    ("util_pct", "utilization/gpu_util"), ("mem_copy_util_pct", "utilization/memory_util"),
    ("fb_used_mib", "fb_memory_usage/used"), ("temp_c", "temperature/gpu_temp"), ("mem_temp_c", "temperature/memory_temp"),
    ("sm_clock_mhz", "clocks/sm_clock"), ("mem_clock_mhz", "clocks/mem_clock"), ("pcie_replay_total", "pci/replay_counter"),
    ("fb_total", "fb_memory_usage/total"), ("max_sm", "max_clocks/sm_clock"),
    ("retired_sbe", "retired_pages/multiple_single_bit_retirement/retired_count"),
    ("retired_dbe", "retired_pages/double_bit_retirement/retired_count"), ("remapped_unc", "remapped_rows/remapped_row_unc"),
)
_TEXTS = ("uuid", "pci/pci_bus_id", "product_name", "mig_mode/current_mig", "serial", "remapped_rows/remapped_row_pending",
          "remapped_rows/remapped_row_failure")
_MIG = ("gpu_instance_id", "uuid", "fb_memory_usage/total", "fb_memory_usage/used", "profile", "gpu_instance_profile",
        "ecc_error_count/volatile_count/sram_uncorrectable")
_ECC_NEW = (("sram_correctable", "dram_correctable"),
            ("sram_uncorrectable", "sram_uncorrectable_parity", "sram_uncorrectable_secded", "dram_uncorrectable"))
_THROTTLE_BLOCKS = ("clocks_event_reasons", "clocks_throttle_reasons")
_TEXT = xml_fast.Memo(xml_fast.clean)
_NUM = xml_fast.Memo(lambda raw: number_of(_TEXT[raw]))
_PCI = xml_fast.Memo(normalize_pci_bus_id)
#: skeleton -> plan (None: not for the fast path). Emptied when it holds more than _MAX_PLANS
#: plans or _MAX_PLAN_CHARS characters of skeletons (a skeleton is about half its document).
_PLANS: dict[str, tuple | None] = {}
_MAX_PLANS = 1024
_MAX_PLAN_CHARS = 32 << 20
_plan_chars = 0
#: Hashes of skeletons seen once: a plan costs about two tree parses, so it is built on the
#: second sight; a stream of never-repeating skeletons then costs the tree path + one split.
_SEEN: set[int] = set()


def _getter(slots):
    """parts -> tuple of the raw texts at ``slots`` (always a tuple, even for one slot)."""
    return itemgetter(*slots, 0) if len(slots) == 1 else itemgetter(*slots) if slots else (lambda parts: ())


def _first_num(raws) -> float | None:
    for raw in raws:
        value = _NUM[raw]
        if value is not None:
            return value
    return None


def _sum(*values):
    present = [v for v in values if v is not None]
    return int(sum(present)) if present else None


def _na(text: str | None) -> str | None:
    return None if text is None or text.strip("[]").lower() in NA_TEXT else text


def _yes(text: str | None) -> bool | None:
    text = (text or "").lower()
    return True if text in ("yes", "true", "1") else False if text in ("no", "false", "0") else None


class _GpuPlan:
    """Where one ``<gpu>``'s texts are, resolved on the marker tree as ``nvidia_smi_xml._gpu`` resolves them."""

    __slots__ = ("bits", "ecc_get", "ecc_memo", "ecc_modes", "id", "masks", "migs", "nums", "power", "power_limit", "texts", "throttle")

    def __init__(self, element):
        gpu = Paths(element, GPU_BLOCKS)
        at = lambda path: xml_fast.slot(gpu.find(path))
        self.id = element.get("id")
        self.nums = _getter([at(path) for _, path in _NUMS])
        self.texts = _getter([at(path) for path in _TEXTS])
        self.power = _getter([k for k in map(at, _POWER) if k])
        self.power_limit = _getter([k for k in map(at, _POWER_LIMIT) if k])
        eccs = [self._ecc_plan(gpu.find(f"ecc_errors/{kind}")) for kind in ("volatile", "aggregate")]
        self.ecc_modes = tuple((mode, len(slots)) for mode, slots in eccs)
        self.ecc_get = _getter([k for _, slots in eccs for k in slots])
        self.ecc_memo: dict[tuple, tuple] = {}
        blocks = [el for el in map(gpu.find, _THROTTLE_BLOCKS) if el is not None]
        reasons = [(bit, xml_fast.slot(child)) for child in (blocks[0] if blocks else ()) if (bit := throttle_bit(child.tag)) is not None]
        self.bits = tuple(bit for bit, _ in reasons)
        self.throttle = _getter([k for _, k in reasons])
        self.masks: dict[tuple, int | None] = {}
        self.migs = tuple(_getter([xml_fast.slot(mig.find(p)) for p in _MIG]) for mig in element.findall("mig_devices/mig_device"))

    @staticmethod
    def _ecc_plan(el) -> tuple[str | None, list[int]]:
        """(mode, slots) of ``ecc_errors/volatile`` or ``aggregate``: None (absent), "old" (before R450:
        single_bit/total, double_bit/total) or "new" (the SRAM/DRAM counters of ``_ECC_NEW``)."""
        if el is None:
            return None, []
        if el.find("single_bit") is not None or el.find("double_bit") is not None:
            return "old", [xml_fast.slot(el.find(p)) for p in ("single_bit/total", "double_bit/total")]
        return "new", [xml_fast.slot(el.find(p)) for group in _ECC_NEW for p in group]

    def ecc(self, parts) -> tuple:
        """(sbe volatile, dbe volatile, sbe aggregate, dbe aggregate), as ``nvidia_smi_xml._ecc`` counts them."""
        raws = self.ecc_get(parts)
        counts = self.ecc_memo.get(raws)
        if counts is None:
            values, out, i = [_NUM[raw] for raw in raws], [], 0
            for mode, n in self.ecc_modes:
                v = values[i:i + n]
                i += n
                if mode is None:
                    out += [None, None]
                elif mode == "old":
                    out += [None if x is None else int(x) for x in v]
                else:
                    out += [_sum(*v[:2]), _sum(*v[2:])]
            counts = tuple(out)
            if xml_fast.memo_key_ok(raws):
                if len(self.ecc_memo) > 4096:
                    self.ecc_memo.clear()
                self.ecc_memo[raws] = counts
        return counts

    def mask(self, parts) -> int | None:
        if not self.bits:
            return None
        states = self.throttle(parts)
        mask = self.masks.get(states, False)
        if mask is False:
            mask, known = 0, False
            for bit, raw in zip(self.bits, states):
                state = raw.strip().lower()
                if state in ("active", "not active"):
                    known = True
                    mask |= bit if state == "active" else 0
            mask = mask if known else None
            if xml_fast.memo_key_ok(states):
                if len(self.masks) > 4096:
                    self.masks.clear()
                self.masks[states] = mask
        return mask

    def rows(self, parts, position: int, driver, cuda) -> tuple[list[dict], list[dict]]:
        util, copy, fb_used, temp, mem_temp, sm, mem, replay, fb_total, max_sm, r_sbe, r_dbe, unc = map(_NUM.__getitem__, self.nums(parts))
        uuid, pci, product, mig_mode, serial, pending, failure = map(_TEXT.__getitem__, self.texts(parts))
        pci = _PCI[pci or self.id]
        power_limit = _first_num(self.power_limit(parts))
        sbe_vol, dbe_vol, sbe_agg, dbe_agg = self.ecc(parts)
        sample = {
            "gpu_uuid": uuid, "util_pct": util, "mem_copy_util_pct": copy, "power_w": _first_num(self.power(parts)),
            "power_limit_w": power_limit, "fb_used_mib": fb_used, "fb_total_mib": fb_total, "temp_c": temp,
            "mem_temp_c": mem_temp, "sm_clock_mhz": sm, "mem_clock_mhz": mem, "throttle_reasons": self.mask(parts),
            "ecc_sbe_total": sbe_vol, "ecc_dbe_total": dbe_vol, "pcie_replay_total": replay, "gpu_index": position,
            "pci_bus_id": pci, "model_name": product,
        }
        row = {
            "gpu_uuid": uuid, "gpu_index": position, "pci_bus_id": pci, "product": product,
            "memory_total_mib": None if fb_total is None else int(fb_total), "driver_version": driver, "cuda_version": cuda,
            "is_mig": False, "mig_mode": _na(mig_mode) or "N/A", "serial": _na(serial), "power_limit_w": power_limit,
            "max_sm_clock_mhz": max_sm, "ecc_sbe_volatile": sbe_vol, "ecc_dbe_volatile": dbe_vol, "ecc_sbe_aggregate": sbe_agg,
            "ecc_dbe_aggregate": dbe_agg, "retired_pages": _sum(r_sbe, r_dbe), "remapped_rows_uncorrectable": None if unc is None else int(unc),
            "remapped_rows_pending": _yes(pending), "remapped_rows_failure": _yes(failure),
        }
        gpus, samples = [row], [sample]
        for getter in self.migs:
            gi_raw, own_raw, total_raw, used_raw, profile_raw, gip_raw, ecc_raw = getter(parts)
            gi = _NUM[gi_raw]
            gi = None if gi is None else int(gi)
            own = _TEXT[own_raw]
            key = own if own and own.upper().startswith("MIG-") else mig_key(uuid, gi)
            if key is None:
                continue
            mig_total, ecc = _NUM[total_raw], _NUM[ecc_raw]
            gpus.append({
                "gpu_uuid": key, "gpu_index": position, "pci_bus_id": pci, "product": product,
                "memory_total_mib": None if mig_total is None else int(mig_total), "driver_version": driver, "cuda_version": cuda,
                "is_mig": True, "parent_gpu_uuid": uuid, "mig_profile": _TEXT[profile_raw] or _TEXT[gip_raw], "gpu_instance_id": gi,
                "ecc_dbe_volatile": None if ecc is None else int(ecc),
            })
            samples.append({
                "gpu_uuid": key, "fb_used_mib": _NUM[used_raw], "fb_total_mib": mig_total, "gpu_index": position,
                "pci_bus_id": pci, "model_name": product, "gpu_instance_id": gi,
            })
        return gpus, samples


def _plan(parts: list[str]) -> tuple | None:
    skeleton = xml_fast.skeleton(parts)
    if skeleton is None or skeleton.root.tag != "nvidia_smi_log":
        return None
    root = skeleton.root
    versions = _getter([xml_fast.slot(root.find(p)) for p in ("driver_version", "cuda_version")])
    return skeleton.outside, versions, [_GpuPlan(gpu) for gpu in root.findall("gpu")]


def parse(body: str):
    """(gpus, gpu_samples, issues) of a document starting at its first '<', or None (use the tree parser)."""
    parts = xml_fast.split(body)
    if parts is None:
        return None
    skey = xml_fast.key(parts)
    plan = _PLANS.get(skey, False)
    if plan is False:
        seen = hash(skey)
        if seen not in _SEEN:
            if len(_SEEN) >= 1 << 16:
                _SEEN.clear()
            _SEEN.add(seen)
            return None
        global _plan_chars
        if len(_PLANS) >= _MAX_PLANS or _plan_chars + len(skey) > _MAX_PLAN_CHARS:
            _PLANS.clear()
            _plan_chars = 0
        plan = _PLANS[skey] = _plan(parts)
        _plan_chars += len(skey)
    if plan is None:
        return None
    outside, versions, gpu_plans = plan
    if not xml_fast.outside_ok(parts, outside):
        return None
    driver, cuda = map(_TEXT.__getitem__, versions(parts))
    gpus: list[dict] = []
    samples: list[dict] = []
    issues: list[tuple[str, str | None]] = []
    for position, gpu in enumerate(gpu_plans):
        g, s = gpu.rows(parts, position, driver, cuda)
        if not g[0]["gpu_uuid"]:
            issues.append(("GPU without uuid", f"gpu id={gpu.id}"))
            continue
        gpus += g
        samples += s
    if not gpus and not issues:
        issues.append(("no GPU in nvidia-smi XML", body[:200]))
    return gpus, samples, issues


__all__ = ["parse"]
