"""Narrative for nic-open findings: ranks whose NCCL could not open a network device their peers use."""

from __future__ import annotations

from typing import Any


def narrate(finding: dict[str, Any], row: dict[str, Any]) -> dict[str, Any]:
    ranks = ", ".join(str(r) for r in finding.get("ranks") or [])
    nodes = ", ".join(finding.get("nodes") or []) or "their node"
    healthy = ", ".join(str(r) for r in row.get("healthy_ranks") or [])
    devices = ", ".join(row.get("devices") or [])
    what = f"could not open {devices}" if devices else "found no IB/RoCE device"
    finding["title"] = f"NCCL on rank{'s' if len(finding.get('ranks') or []) != 1 else ''} {ranks} ({nodes}) {what}"
    finding["summary"] = (f"NCCL's IB/RoCE transport on rank(s) {ranks} {what}, while rank(s) {healthy} of the same job listed their "
                          f"devices with no failure: {nodes} lacks a network device its peers use. Channels the peers place on it "
                          f"wait for a peer that never comes (a hang, silent under NCCL_IGNORE_NET_MISMATCH=1), or the job falls "
                          f"back to a slower path.")
    finding["recommendation"] = (f"Check the RDMA devices of {nodes} inside the container (ibv_devices, ibv_devinfo, the RDMA device "
                                 f"plugin's allocation, /dev/infiniband) against a healthy node's; pin NCCL_IB_HCA to the devices every "
                                 f"node has, or move the pods off that node.")
    return finding
