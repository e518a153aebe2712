"""Write a simulated fleet as tiny but real bundles (raw layer + manifest).

Each bundle holds what the Xid story needs and nothing more: the Node objects (with
``status.nodeInfo.systemUUID``/``machineID``, so renames keep the node key), one
``nvidia-smi -q -x`` per node (serial, UUID, driver, VBIOS; left out on the bundles that
"saw the GPUs only through DCGM", so the fleet must resolve UUID -> serial), and a kernel
log per node with the plan's Xid lines. Findings then come from the real parsers and the
real ``gpu-health`` rule, so ``k10s fleet index`` is exercised end to end. Non-Xid noise
(OOMs, hangs, ...) exists only in the row generator (fleet_rows).
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

from k10s_forensics.store.bundle import BundleWriter, iso, new_manifest
from k10s_forensics.simulate.fleet import FleetPlan, SimBundle, SimGpu, SimNode

SEC = dt.timedelta(seconds=1)


def _node_object(n: SimNode, name: str, at: dt.datetime) -> dict:
    labels = {"kubernetes.io/hostname": name, "nvidia.com/gpu.product": n.product.replace(" ", "-"), "nvidia.com/gpu.count": str(len(n.gpus)),
              "node.kubernetes.io/instance-type": "p5.48xlarge"}
    return {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "uid": n.system_uuid[:8] + "-node-" + name[-6:], "creationTimestamp": iso(at - dt.timedelta(days=30)), "labels": labels},
            "status": {"capacity": {"nvidia.com/gpu": "8"}, "allocatable": {"nvidia.com/gpu": "8"},
                       "addresses": [{"type": "Hostname", "address": name}],
                       "conditions": [{"type": "Ready", "status": "True", "reason": "KubeletReady", "lastTransitionTime": iso(at - dt.timedelta(days=1))}],
                       "nodeInfo": {"systemUUID": n.system_uuid, "machineID": n.machine_id, "kubeletVersion": "v1.31.2"}}}


def _smi_xml(n: SimNode, gpus: list[SimGpu], at: dt.datetime) -> str:
    blocks = "".join(
        f'\t<gpu id="00000000:{g.bus.upper()}:00.0">\n\t\t<product_name>{n.product}</product_name>\n\t\t<serial>{g.serial}</serial>\n'
        f"\t\t<uuid>{g.uuid}</uuid>\n\t\t<minor_number>{i}</minor_number>\n\t\t<vbios_version>96.00.89.00.01</vbios_version>\n"
        f"\t\t<pci>\n\t\t\t<pci_bus>{g.bus.upper()}</pci_bus>\n\t\t\t<pci_bus_id>00000000:{g.bus.upper()}:00.0</pci_bus_id>\n\t\t</pci>\n\t</gpu>\n"
        for i, g in enumerate(gpus))
    return (f'<?xml version="1.0" ?>\n<nvidia_smi_log>\n\t<timestamp>{at.strftime("%a %b %d %H:%M:%S %Y")}</timestamp>\n'
            f"\t<driver_version>{n.driver}</driver_version>\n\t<cuda_version>12.4</cuda_version>\n\t<attached_gpus>{len(gpus)}</attached_gpus>\n"
            f"{blocks}</nvidia_smi_log>\n")


def _dmesg(lines: list[tuple[dt.datetime, str]]) -> str:
    return "".join(f"{t.strftime('%Y-%m-%dT%H:%M:%S')},{t.microsecond:06d}+00:00 {text}\n" for t, text in sorted(lines))


def write_bundle(b: SimBundle, out: Path) -> None:
    manifest = new_manifest(cluster={"context": b.cluster, "server": f"https://{b.cluster}.k10s.invalid:6443", "kubernetes_version": "v1.31.2"},
                            scope={"namespaces": [b.namespace], "jobs": []}, window_start=b.start, window_end=b.end, created_at=b.end)
    manifest["simulated"] = {"generator": "fleet"}
    bw = BundleWriter(out, manifest)
    t = b.start + SEC * 5
    xids: dict[str, list[tuple[dt.datetime, str]]] = {n.name: [] for n in b.nodes}
    for f in b.findings:
        if f.xid and f.gpu and f.node:
            pci = f"0000:{f.gpu.bus}:00"
            xids[f.node.name].append((f.at, f"NVRM: Xid (PCI:{pci}): {f.xid}, pid=4242, name=python3, Ch 00000010"))
    for node, gpu, code, at in b.app_xids:
        xids[node.name].append((at, f"NVRM: Xid (PCI:0000:{gpu.bus}:00): {code}, pid=4243, name=python3, Ch 00000008"))
    for n in b.nodes:
        name = n.name_at(b.start)
        body = _node_object(n, name, b.start)
        bw.add("objects", {"captured_at": t, "api_version": "v1", "kind": "Node", "namespace": None, "name": name,
                           "uid": body["metadata"]["uid"], "body": json.dumps(body)})
        common = {"captured_at": t, "duration_ms": 120, "node": name, "namespace": "gpu-operator", "pod": f"nvidia-driver-{name[-5:]}",
                  "container": "nvidia-driver", "exit_code": 0, "stderr": "", "error": None}
        if b.has_serials:
            bw.add("exec", {**common, "source": "nvidia-smi-xml", "command": "nvidia-smi -q -x", "stdout": _smi_xml(n, b.layout[n.key], t)})
        bw.add("exec", {**common, "source": "dmesg", "command": "dmesg --time-format iso", "stdout": _dmesg(xids[n.name] + [(b.start, "IPv6: ADDRCONF(NETDEV_CHANGE): cali0: link becomes ready")])})
    for name in ("nodes", "nvidia-smi", "dmesg"):
        bw.record_collector({"name": name, "status": "ok", "rows": len(b.nodes), "errors": []})
    bw.close()


def write_bundles(plan: FleetPlan, out_dir: str | Path) -> list[Path]:
    """One bundle folder per planned bundle under ``out_dir`` (``bundle-0000`` ...)."""
    root = Path(out_dir)
    root.mkdir(parents=True, exist_ok=True)
    paths = []
    for i, b in enumerate(plan.bundles):
        path = root / f"bundle-{i:04d}"
        write_bundle(b, path)
        paths.append(path)
    return paths


__all__ = ["write_bundles", "write_bundle"]
