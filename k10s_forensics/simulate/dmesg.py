"""``dmesg --time-format iso`` output of a GPU node: boot lines, benign noise, scenario lines."""

from __future__ import annotations

import datetime as dt

from k10s_forensics.simulate.cluster import Node


def iso_time(ts: dt.datetime) -> str:
    """dmesg's ISO format: 2026-03-02T08:01:02,123456+00:00."""
    return ts.strftime("%Y-%m-%dT%H:%M:%S") + f",{ts.microsecond:06d}+00:00"


def render(sim, node: Node, extra: list[tuple[dt.datetime, str]]) -> str:
    """The node's kernel log: boot messages, container veth noise in the window, then ``extra``."""
    rng = sim.rng
    boot = sim.cluster.base_time - dt.timedelta(days=2, hours=3, minutes=rng.randrange(0, 59))
    s = dt.timedelta(seconds=1)
    lines = [
        (boot, "Linux version 5.15.0-1071-aws (buildd@lcy02-amd64-020) (gcc (Ubuntu 11.4.0-1ubuntu1~22.04) 11.4.0, GNU ld (GNU Binutils for Ubuntu) 2.38) #77~20.04.1-Ubuntu SMP"),
        (boot + s * 0.4, "Command line: BOOT_IMAGE=/boot/vmlinuz-5.15.0-1071-aws root=PARTUUID=5f1e1f4e-01 ro console=tty1 console=ttyS0 nvme_core.io_timeout=4294967295"),
        (boot + s * 41.2, "nvidia: loading out-of-tree module taints kernel."),
        (boot + s * 41.3, "nvidia-nvlink: Nvlink Core is being initialized, major device number 511"),
        (boot + s * 41.9, f"NVRM: loading NVIDIA UNIX x86_64 Kernel Module  {node.driver or sim.cluster.driver}  Tue Jul  9 19:51:05 UTC 2024"),
        (boot + s * 42.4, "nvidia-modeset: Loading NVIDIA Kernel Mode Setting Driver for UNIX platforms  " + (node.driver or sim.cluster.driver)),
        (boot + s * 43.0, "nvidia-uvm: Loaded the UVM driver, major device number 509."),
        (boot + s * 44.1, "nvidia_peermem: module using GPL-only symbols uses symbols from proprietary module nvidia."),
    ]
    for g in node.gpus:
        lines.append((boot + s * (42.0 + g.index * 0.05), f"nvidia 0000:{g.bus.lower()}:00.0: enabling device (0000 -> 0002)"))
    t = sim.start - dt.timedelta(minutes=rng.randrange(3, 30))
    while t < sim.end:
        veth = "cali" + "".join(rng.choice("0123456789abcdef") for _ in range(11))
        choice = rng.random()
        if choice < 0.4:
            lines.append((t, f"IPv6: ADDRCONF(NETDEV_CHANGE): {veth}: link becomes ready"))
        elif choice < 0.7:
            lines.append((t, f'audit: type=1400 audit({t.timestamp():.3f}:{rng.randrange(200, 900)}): apparmor="STATUS" operation="profile_replace" info="same as current profile, skipping" profile="cri-containerd.apparmor.d" pid={rng.randrange(10000, 99999)} comm="apparmor_parser"'))
        elif choice < 0.85:
            lines.append((t, "EXT4-fs (nvme1n1): mounted filesystem with ordered data mode. Opts: (null). Quota mode: none."))
        else:
            lines.append((t, f"eth0: renamed from tmp{rng.randrange(10000, 99999)}"))
        t += dt.timedelta(seconds=rng.uniform(60, 420))
    lines.extend(extra)
    lines.sort(key=lambda x: x[0])
    return "".join(f"{iso_time(ts)} {text}\n" for ts, text in lines if ts <= sim.end)
