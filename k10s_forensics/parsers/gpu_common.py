"""Shared pieces of the GPU parsers: failed-capture checks, MIG keys, the DCGM metric map.

MIG device key (``gpus.gpu_uuid`` / ``gpu_samples.gpu_uuid`` of a MIG device):

* the device's own ``MIG-<uuid>`` when the source reports one;
* otherwise ``MIG-<parent GPU uuid>/<gpu instance id>`` (``mig_key``). This is the legacy
  ``MIG-GPU-<uuid>/<gi>/<ci>`` device name of ``NVIDIA_VISIBLE_DEVICES`` without the compute
  instance: DCGM labels name the GPU instance only (``GPU_I_ID``), and nvidia-smi XML of
  these drivers gives no MIG UUID, so both sources agree on this key.
"""

from __future__ import annotations

from typing import Any, Mapping

from k10s_forensics.parsers.common import normalize_pci_bus_id

#: NVML clock event (throttle) reason bits, by the suffix nvidia-smi uses in XML/CSV names.
THROTTLE_BITS: dict[str, int] = {
    "gpu_idle": 0x1,
    "applications_clocks_setting": 0x2,
    "sw_power_cap": 0x4,
    "hw_slowdown": 0x8,
    "sync_boost": 0x10,
    "sw_thermal_slowdown": 0x20,
    "hw_thermal_slowdown": 0x40,
    "hw_power_brake_slowdown": 0x80,
    "display_clocks_setting": 0x100,
}


def mig_key(parent_uuid: str | None, gpu_instance_id: Any) -> str | None:
    """``MIG-<parent uuid>/<gi>``: the key of a MIG device that has no MIG UUID of its own."""
    if not parent_uuid or gpu_instance_id is None or str(gpu_instance_id).strip() == "":
        return None
    try:
        return f"MIG-{parent_uuid}/{int(float(gpu_instance_id))}"
    except (ValueError, OverflowError):  # a damaged label (not a number, NaN, inf): not a MIG key
        return None


def capture_failure(row: Mapping[str, Any]) -> str | None:
    """Why an exec/scrape row did not capture cleanly (issue reason), or None.

    ``error`` set, a non-zero ``exit_code`` (exec) or an HTTP ``status`` other than 200 (scrapes).
    """
    error = row.get("error")
    if error:
        first = str(error).strip().splitlines()[0] if str(error).strip() else "error"
        return f"command failed: {first[:100]}"
    if "exit_code" in row and row.get("exit_code") not in (None, 0):
        return f"command failed: exit code {row.get('exit_code')}"
    status = row.get("status")
    if "status" in row and status is not None and status != 200:
        return f"fetch failed: HTTP {status}"
    return None


def int_or_none(value: Any) -> int | None:
    """An integer, or None for absent, not-a-number, infinite or beyond-int64 values."""
    try:
        number = None if value is None or value == "" else int(float(value))
    except (TypeError, ValueError, OverflowError):
        return None
    return number if number is None or -(1 << 63) <= number < (1 << 63) else None


# ---- DCGM metric names -> gpu_samples columns --------------------------------------------
#: column -> metric names in DESCENDING priority (the first present wins). Names are matched
#: upper-cased, so lower-case ``dcgm_fi_*`` spellings and 1.x compat names both land here.
METRIC_COLUMNS: dict[str, tuple[str, ...]] = {
    "util_pct": ("DCGM_FI_DEV_GPU_UTIL", "DCGM_GPU_UTILIZATION"),
    "mem_copy_util_pct": ("DCGM_FI_DEV_MEM_COPY_UTIL", "DCGM_MEM_COPY_UTILIZATION"),
    "sm_active": ("DCGM_FI_PROF_SM_ACTIVE",),
    "tensor_active": ("DCGM_FI_PROF_PIPE_TENSOR_ACTIVE",),
    "gr_engine_active": ("DCGM_FI_PROF_GR_ENGINE_ACTIVE",),
    "dram_active": ("DCGM_FI_PROF_DRAM_ACTIVE",),
    "power_w": ("DCGM_FI_DEV_POWER_USAGE", "DCGM_FI_DEV_POWER_USAGE_INSTANT", "DCGM_POWER_USAGE"),
    "power_limit_w": ("DCGM_FI_DEV_ENFORCED_POWER_LIMIT", "DCGM_FI_DEV_POWER_MGMT_LIMIT"),
    "fb_used_mib": ("DCGM_FI_DEV_FB_USED", "DCGM_FB_USED"),
    "fb_total_mib": ("DCGM_FI_DEV_FB_TOTAL", "DCGM_FB_TOTAL"),
    "_fb_free": ("DCGM_FI_DEV_FB_FREE", "DCGM_FB_FREE"),
    "_fb_reserved": ("DCGM_FI_DEV_FB_RESERVED",),
    "temp_c": ("DCGM_FI_DEV_GPU_TEMP", "DCGM_GPU_TEMP"),
    "mem_temp_c": ("DCGM_FI_DEV_MEMORY_TEMP", "DCGM_MEMORY_TEMP"),
    "sm_clock_mhz": ("DCGM_FI_DEV_SM_CLOCK", "DCGM_SM_CLOCK"),
    "mem_clock_mhz": ("DCGM_FI_DEV_MEM_CLOCK", "DCGM_MEMORY_CLOCK"),
    "throttle_reasons": ("DCGM_FI_DEV_CLOCKS_EVENT_REASONS", "DCGM_FI_DEV_CLOCK_THROTTLE_REASONS"),
    "xid": ("DCGM_FI_DEV_XID_ERRORS", "DCGM_XID_ERRORS"),
    "ecc_dbe_total": ("DCGM_FI_DEV_ECC_DBE_VOL_TOTAL", "DCGM_FI_DEV_ECC_DBE_AGG_TOTAL", "DCGM_ECC_DBE_VOLATILE_TOTAL", "DCGM_ECC_DBE_AGGREGATE_TOTAL"),
    "ecc_sbe_total": ("DCGM_FI_DEV_ECC_SBE_VOL_TOTAL", "DCGM_FI_DEV_ECC_SBE_AGG_TOTAL", "DCGM_ECC_SBE_VOLATILE_TOTAL", "DCGM_ECC_SBE_AGGREGATE_TOTAL"),
    "pcie_replay_total": ("DCGM_FI_DEV_PCIE_REPLAY_COUNTER", "DCGM_PCIE_REPLAY_COUNTER"),
}
#: metric name (upper case) -> (column, priority rank; 0 = best)
METRIC_INDEX: dict[str, tuple[str, int]] = {name: (col, rank) for col, names in METRIC_COLUMNS.items() for rank, name in enumerate(names)}
SAMPLE_COLUMNS: tuple[str, ...] = tuple(METRIC_COLUMNS)
INT_COLUMNS = frozenset({"throttle_reasons", "xid"})


def metric_column(name: str) -> tuple[str, int] | None:
    """(column, priority) of a DCGM metric name in any spelling; None for metrics we do not use."""
    return METRIC_INDEX.get(name.upper())


def _first(labels: Mapping[str, str], *names: str) -> str | None:
    for n in names:
        v = labels.get(n)
        if v is not None:
            return v
    return None


def _blank_none(value: str | None) -> str | None:
    return value if value not in (None, "") else None


def dcgm_identity(labels: Mapping[str, str]) -> dict[str, Any] | None:
    """What a dcgm-exporter label set says about the device and its pod; None without a UUID.

    Accepts ``UUID``/``uuid``, ``pod``/``pod_name``, ``namespace``/``pod_namespace``,
    ``container``/``container_name``, ``Hostname``/``hostname``, MIG ``GPU_I_PROFILE``/``GPU_I_ID``.
    Empty pod labels mean an unallocated GPU and become None.
    """
    uuid = _blank_none(_first(labels, "UUID", "uuid"))
    if uuid is None:
        return None
    gi = _blank_none(_first(labels, "GPU_I_ID", "gpu_i_id"))
    profile = _blank_none(_first(labels, "GPU_I_PROFILE", "gpu_i_profile"))
    parent = None
    gpu_uuid = uuid
    if uuid.startswith("MIG-"):
        gpu_uuid = uuid
    elif gi is not None:
        parent = uuid
        gpu_uuid = mig_key(uuid, gi) or uuid
    model = _blank_none(_first(labels, "modelName", "modelname", "model_name"))
    return {
        "gpu_uuid": gpu_uuid,
        "parent_gpu_uuid": parent,
        "is_mig": parent is not None or uuid.startswith("MIG-"),
        "gpu_index": int_or_none(labels.get("gpu")),
        "pci_bus_id": normalize_pci_bus_id(labels.get("pci_bus_id")),
        "model_name": model,
        "mig_profile": profile,
        "gpu_instance_id": int_or_none(gi),
        "namespace": _blank_none(_first(labels, "namespace", "pod_namespace")),
        "pod": _blank_none(_first(labels, "pod", "pod_name")),
        "container": _blank_none(_first(labels, "container", "container_name")),
        "pod_uid": _blank_none(labels.get("pod_uid")),
        "driver_version": _blank_none(_first(labels, "DCGM_FI_DRIVER_VERSION", "driver_version")),
        "hostname": _blank_none(_first(labels, "Hostname", "hostname")),
    }



EXEC_COLUMNS = ["captured_at", "node", "command", "exit_code", "stdout", "error", "_row"]


def derive_exec_outputs(ctx, source: str, parse, *, stamp_time: bool) -> None:
    """The loop shared by the nvidia-smi parsers: raw exec rows of ``source`` -> gpus, gpu_samples.

    ``parse(row) -> (gpus, samples, issues)`` reads one command output. Failed commands are
    counted (their output is still parsed when there is some); a parser bug costs one row.
    With ``stamp_time`` the samples take the exec time (``ts``) and the GPUs first/last seen.
    Raw rows are read one Parquet row group at a time, so memory stays flat.
    """
    issue_source, raw_file = f"exec:{source}", "raw/exec.parquet"
    for table in ctx.raw_groups("exec", source=source):
        all_gpus: list[dict] = []
        all_samples: list[dict] = []
        for row in table.select(EXEC_COLUMNS).to_pylist():
            failure = capture_failure(row)
            if failure:
                ctx.issue(issue_source, failure, row.get("error") or (row.get("stdout") or "")[:200], raw_file, row["_row"])
                if row.get("error") or not (row.get("stdout") or "").strip():
                    continue
            try:
                gpus, samples, issues = parse(row)
            except Exception as exc:  # a parser bug costs this row only
                gpus, samples, issues = [], [], [(f"parser error ({exc.__class__.__name__})", str(exc)[:200])]
            for reason, example in issues:
                ctx.issue(issue_source, reason, example, raw_file, row["_row"])
            when, node = row["captured_at"], row["node"]
            for g in gpus:
                g.update(node=node, source=source)
                if stamp_time:
                    g.update(first_seen_at=when, last_seen_at=when)
            for sample in samples:
                sample.update(node=node, source=source)
                if stamp_time:
                    sample["ts"] = when
            all_gpus += gpus
            all_samples += samples
        if all_gpus:
            ctx.emit("gpus", all_gpus)
        if all_samples:
            ctx.emit("gpu_samples", all_samples)

__all__ = [
    "THROTTLE_BITS",
    "METRIC_COLUMNS",
    "SAMPLE_COLUMNS",
    "INT_COLUMNS",
    "mig_key",
    "capture_failure",
    "metric_column",
    "dcgm_identity",
    "int_or_none",
]
