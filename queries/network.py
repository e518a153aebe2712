"""Narrative for network findings."""

from __future__ import annotations

from typing import Any

from k10s_forensics.queries._narrative import known


def narrate(finding: dict[str, Any], row: dict[str, Any]) -> dict[str, Any]:
    rate = 100 * (row.get("retrans_rate") or 0)
    ratio = row.get("rtt_ratio")
    stats = f"retransmit rate up to {rate:.2f}% (job baseline {100 * (row.get('job_retrans_rate') or 0):.4f}%), rtt/minrtt up to {ratio:.1f}" if ratio else f"retransmit rate up to {rate:.2f}%"
    if finding["cause"] == "pod-path":
        pod = finding["pods"][0] if finding["pods"] else "a pod"
        node = finding["nodes"][0] if finding["nodes"] else "its node"
        finding["title"] = f"{pod} on {node} has degraded NCCL paths to {known(row.get('degraded_peers'), 'not counted')} of {known(row.get('peers'), 'not counted')} peers"
        finding["summary"] = f"Its TCP sockets to most peers are degraded: {stats}. One pod bad towards everyone points at its NIC, host or switch port."
        finding["recommendation"] = f"Check the NIC and link of {node} (ethtool -S, ip -s link, switch port counters); move the pod off the node if it persists."
    else:
        finding["title"] = f"Degraded link between {' and '.join(finding['pods'])}"
        finding["summary"] = f"One pod pair's sockets are degraded while both ends are fine elsewhere: {stats}. Suspect the path between them (link, switch, ECMP)."
        finding["recommendation"] = "Check switch counters on the path between the two nodes; try NCCL_IB_HCA / NCCL_SOCKET_IFNAME to avoid a bad port."
    return finding
