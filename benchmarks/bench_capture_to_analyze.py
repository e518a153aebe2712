"""Time from the end of ``k10s capture`` to ``k10s analyze`` output, with and without ``--tables``.

    python benchmarks/bench_capture_to_analyze.py                  # 128 nodes x 8 GPUs, 5 min @ 30 s
    python benchmarks/bench_capture_to_analyze.py --nodes 16 --minutes 2

A simulated cluster (scenario straggler-compute) is served by a real ``k10s serve`` (in this
process); two real ``k10s capture -A`` processes sample every recorded round, one with
``--tables`` (tables derived while capturing) and one without. Right after each capture
exits, a ``k10s analyze`` process runs on its bundle (without tables it must rebuild first).
Reported per variant: the capture's wall time, the analyze wall time (= end of capture to
analysis output; target <= 5 s at 1024 GPUs) and whether the planted culprit was named.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_scale import culprit_found, k10s, run_step  # noqa: E402

from k10s_forensics.serve import Faults, start_server  # noqa: E402
from k10s_forensics.simulate import simulate  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--nodes", type=int, default=128)
    ap.add_argument("--minutes", type=float, default=5)
    ap.add_argument("--interval", type=float, default=30)
    ap.add_argument("--capture-interval", type=float, default=1.0, help="seconds between capture rounds")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="k10s-cap2an-") as tmp:
        root = Path(tmp)
        truth = simulate("straggler-compute", root / "sim", seed=11, nodes=args.nodes, gpus_per_node=8, minutes=args.minutes,
                         interval_s=args.interval, nproc_per_node=8)
        rounds = int(args.minutes * 60 // args.interval)
        srv = start_server(root / "sim", faults=Faults())
        rows = []
        try:
            kubeconfig = srv.write_kubeconfig(root / "kc")
            for variant, extra in (("--tables", ["--tables"]), ("no tables", [])):
                out = root / variant.strip("-").replace(" ", "-")
                cap = run_step(k10s("capture", "-A", "-q", "-o", str(out), "--kubeconfig", str(kubeconfig), "--skip", "prometheus",
                                    "--duration", f"{(rounds - 1) * args.capture_interval}s", "--interval", f"{args.capture_interval}s", *extra))
                assert cap["rc"] == 0, cap["stderr"]
                started = time.perf_counter()
                an = run_step(k10s("analyze", str(out), "--format", "json", "-o", str(root / "a.json")))
                after = time.perf_counter() - started
                found = culprit_found(json.loads((root / "a.json").read_text()), truth)
                rows.append((variant, cap, an, after, found))
        finally:
            srv.stop()
    load = os.getloadavg()
    print(f"{args.nodes * 8} GPUs ({args.nodes} nodes x 8), {rounds} rounds; {os.cpu_count()} cores; load average "
          f"{load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f}\n")
    print("| capture | capture wall s | end of capture -> analyze output s | analyze peak RSS MiB | culprit named |")
    print("|---|---:|---:|---:|---|")
    for variant, cap, an, after, found in rows:
        print(f"| `k10s capture {variant}` | {cap['wall_s']:.1f} | {after:.1f} | {an['peak_mib']:.0f} | {found} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
