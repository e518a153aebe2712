"""Narrative for straggler findings (the statistics are in straggler.sql)."""

from __future__ import annotations

from typing import Any

from k10s_forensics.queries._narrative import known, ranks_text

RECOMMENDATIONS = {
    "gpu-throttle": "Check cooling and power on {nodes} (fans, inlet temperature, power cap: `nvidia-smi -q -d PERFORMANCE,TEMPERATURE,POWER`); cordon the node and move the job if it keeps throttling.",
    "gpu-degraded": "The GPU is slower with no visible throttling: run DCGM diagnostics (`dcgmi diag -r 3`) on {nodes}, check PCIe/NVLink width and speed, and cordon the node if it fails.",
    "host-input": "The rank waits for input, not for the GPU: profile its data loader (num_workers, pin_memory, storage throughput) and check CPU/memory pressure on {nodes}.",
    "network": "Check the NIC, cabling and switch port of {nodes} (`ethtool -S`, `ip -s link`), and NCCL_SOCKET_IFNAME; move the pod off the node if retransmits persist.",
}


def narrate(finding: dict[str, Any], row: dict[str, Any]) -> dict[str, Any]:
    cause = finding["cause"] or "gpu-degraded"
    ev = (row.get("evidence") or [{}])[0] or {}
    who = ranks_text(finding["ranks"])
    where = ", ".join(finding["nodes"]) or "its node"
    slowdown = row.get("slowdown") or 1.0
    parts = []
    if cause == "gpu-throttle":
        finding["title"] = f"{who} is a thermal/power-throttled straggler on {where}"
        parts.append(
            f"{who} runs at {known(ev.get('sm_clock_mhz'), 'not measured')} MHz SM clock vs the job median {known(ev.get('job_sm_clock_mhz'), 'not measured')} MHz"
            f" ({known(ev.get('temp_c'), 'not measured')} °C vs {known(ev.get('job_temp_c'), 'not measured')} °C) and stays busy while the other ranks wait in NCCL."
        )
        if ev.get("throttle_reasons"):
            parts.append(f"Clock-event reasons 0x{int(ev['throttle_reasons']):x} are set in {known(ev.get('throttled_windows'), 'not measured')} windows.")
    elif cause == "gpu-degraded":
        finding["title"] = f"{who} computes slower than its peers on {where} with no visible throttling"
        parts.append(f"{who} is busier than the job (power {known(ev.get('power_w'), 'not measured')} W vs {known(ev.get('job_power_w'), 'not measured')} W, tensor {known(ev.get('tensor_active'), 'not measured')} vs {known(ev.get('job_tensor_active'), 'not measured')}) while the others wait for it.")
    elif cause == "host-input":
        finding["title"] = f"{who} is input-bound: its GPU idles while the job waits for it"
        parts.append(f"GPU util {known(ev.get('util_pct'), 'not measured')}% vs the job median {known(ev.get('job_util_pct'), 'not measured')}% (peers spin in NCCL); power {known(ev.get('power_w'), 'not measured')} W vs {known(ev.get('job_power_w'), 'not measured')} W.")
    else:
        finding["title"] = f"{who} is slowed by its network path on {where}"
        parts.append(
            f"Its NCCL sockets are degraded towards {known(ev.get('net_degraded_peers'), 'not measured')} of {known(ev.get('net_peers'), 'not measured')} peer pods"
            f" (retransmit rate up to {100 * (ev.get('net_retrans_rate') or 0):.2f}%, rtt/minrtt up to {known(ev.get('net_rtt_ratio'), 'not measured')})."
        )
    parts.append(f"Outlier in {known(row.get('outlier_windows'), 'not measured')} of {known(row.get('job_windows'), 'not measured')} one-minute windows of a {known(row.get('job_ranks'), 'not measured')}-rank gang.")
    if finding.get("gpu_hours_lost") is not None:
        parts.append(f"Estimated job slowdown {slowdown:.2f}x, ≈{finding['gpu_hours_lost']:.2f} GPU-hours lost.")
    if ev.get("util_below_2sd_windows"):
        parts.append(f"(GPU util was more than 2 std dev below the job mean in {ev['util_below_2sd_windows']} windows.)")
    finding["summary"] = " ".join(parts)
    finding["recommendation"] = RECOMMENDATIONS.get(cause, RECOMMENDATIONS["gpu-degraded"]).format(nodes=where)
    return finding
