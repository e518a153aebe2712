"""Regenerate (or ``--check``) the committed sample bundles in ``sample-bundles/``.

``python -m k10s_forensics.simulate.samples [--out DIR] [--check]`` writes one small bundle
per scenario to ``DIR/<scenario>/`` and its truth to ``DIR/<scenario>.truth.json``. With
``--check`` it simulates into a temporary folder and compares manifest essentials and raw
rows with what is committed (``tables/`` added by ``k10s rebuild`` are ignored).
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

from k10s_forensics.store.bundle import RAW_NAMES
from k10s_forensics.simulate import simulate
from k10s_forensics.simulate.constants import SCENARIOS

#: Arguments of each sample: small clusters, short windows (a few MB in all).
SAMPLES: dict[str, dict[str, Any]] = {
    "healthy": dict(seed=101, nodes=2, gpus_per_node=8, minutes=10, interval_s=30),
    "straggler-compute": dict(seed=102, nodes=3, gpus_per_node=4, minutes=12, interval_s=30),
    "straggler-input": dict(seed=103, nodes=2, gpus_per_node=8, minutes=12, interval_s=30),
    "straggler-network": dict(seed=104, nodes=3, gpus_per_node=4, minutes=12, interval_s=30),
    "oom-crashloop": dict(seed=105, nodes=2, gpus_per_node=4, minutes=15, interval_s=30),
    "nccl-hang": dict(seed=106, nodes=3, gpus_per_node=4, minutes=15, interval_s=30),
    "idle-gpus": dict(seed=107, nodes=3, gpus_per_node=4, minutes=10, interval_s=30),
    "pending-taint": dict(seed=108, nodes=2, gpus_per_node=8, minutes=10, interval_s=30),
    "pending-capacity": dict(seed=109, nodes=4, gpus_per_node=4, minutes=10, interval_s=30),
    "pending-quota": dict(seed=110, nodes=2, gpus_per_node=8, minutes=10, interval_s=30),
    "xid-79": dict(seed=111, nodes=2, gpus_per_node=8, minutes=15, interval_s=30),
    "node-lost": dict(seed=127, nodes=3, gpus_per_node=4, minutes=12, interval_s=30),
    "pod-disrupted": dict(seed=4, nodes=3, gpus_per_node=4, minutes=12, interval_s=30),
    "rank-host-oom": dict(seed=112, nodes=2, gpus_per_node=8, minutes=12, interval_s=30),
    "rank-segfault": dict(seed=113, nodes=4, gpus_per_node=1, minutes=12, interval_s=30),
    "rank-exception": dict(seed=114, nodes=3, gpus_per_node=4, minutes=12, interval_s=30),
    "rank-cuda-error": dict(seed=115, nodes=2, gpus_per_node=8, minutes=12, interval_s=30),
    "nccl-size-mismatch": dict(seed=112, nodes=2, gpus_per_node=8, minutes=15, interval_s=30),
    "nccl-desync-report": dict(seed=113, nodes=4, gpus_per_node=1, minutes=15, interval_s=30),
    "collective-mismatch": dict(seed=114, nodes=3, gpus_per_node=4, minutes=12, interval_s=30),
    "nccl-stall-all": dict(seed=115, nodes=4, gpus_per_node=2, minutes=15, interval_s=30),
    "hang-flight-recorder": dict(seed=116, nodes=2, gpus_per_node=4, minutes=12, interval_s=30),
    "hang-ras-dead": dict(seed=117, nodes=3, gpus_per_node=2, minutes=10, interval_s=30),
    "startup-toolkit-mismatch": dict(seed=118, nodes=2, gpus_per_node=4, minutes=8, interval_s=30),
    "startup-no-runtime": dict(seed=119, nodes=2, gpus_per_node=4, minutes=8, interval_s=30),
    "startup-cuda-too-old": dict(seed=120, nodes=2, gpus_per_node=4, minutes=8, interval_s=30),
    "startup-device-plugin": dict(seed=121, nodes=2, gpus_per_node=4, minutes=8, interval_s=30),
    "startup-mig-mismatch": dict(seed=122, nodes=2, gpus_per_node=4, minutes=8, interval_s=30),
    "startup-time-slicing": dict(seed=126, nodes=2, gpus_per_node=4, minutes=8, interval_s=30),
    "startup-image-pull-slow": dict(seed=123, nodes=2, gpus_per_node=4, minutes=8, interval_s=30),
    "startup-image-pull-backoff": dict(seed=124, nodes=2, gpus_per_node=4, minutes=8, interval_s=30),
    "startup-shm": dict(seed=125, nodes=2, gpus_per_node=4, minutes=8, interval_s=30),
}
DESCRIPTIONS = {
    "healthy": "A DDP job training normally: every rank computes ~90% of each step; GPU util, power and tensor activity alike across ranks. No finding should fire.",
    "straggler-compute": "One GPU thermally throttles (HW+SW thermal slowdown bits 0x60, SM clock down, temperature +20 C). Its power and tensor activity stay high while its peers wait in NCCL at ~100% util and low power; every rank's step time grows.",
    "straggler-input": "One rank is starved by its data loader: its GPU idles (low util, power, tensor) while peers spin in NCCL at ~100% util and low power. The culprit's log may carry the DataLoader worker warning.",
    "straggler-network": "One pod's NCCL TCP flows (to and from it) show rtt/minrtt >> 1, retransmits and bytes_retrans in `ss -tin`; everyone slows.",
    "oom-crashloop": "One rank's FB_USED climbs to the total and it raises torch.OutOfMemoryError at the same step again and again; same-pod siblings are SIGTERM'd, other ranks get ncclRemoteError naming the culprit pod's IP or watchdog timeouts on one SeqNum; torchrun restarts the worker group once (`Worker group FAILED. 1/1 attempts left`), then the container restarts (restartCount, lastState exit 1, previous logs).",
    "nccl-hang": "One rank stops making progress (no step lines, GPU idle); every other rank times out on the same SeqNum/OpType after Timeout(ms); the culprit is silent or (desync) waits on a different collective.",
    "idle-gpus": "A job that finished training hours ago still holds its GPUs (container sleeps): ~0 activity, idle power, near-zero FB. A GPU or two per node are unallocated and idle (fragmentation).",
    "pending-taint": "All gang pods Pending: every GPU node carries nvidia.com/gpu=present:NoSchedule and the pod template lacks the toleration (FailedScheduling events in the scheduler's grammar).",
    "pending-capacity": "Part of the gang runs and holds GPUs; the rest is Pending with `Insufficient nvidia.com/gpu` although enough GPUs are free in total, spread over nodes held partly by another tenant's inference pods (fragmentation).",
    "pending-quota": "Kueue keeps the job suspended: Workload QuotaReserved=False (`insufficient unused quota for nvidia.com/gpu in flavor ..., N more needed`), no pods; ClusterQueue usage vs nominalQuota shows why.",
    "rank-host-oom": "The host's OOM killer SIGKILLs one worker (dmesg `Out of memory: Killed process`); torchrun reports exitcode -9 for it with no SIGTERM before, SIGTERMs its siblings (one is SIGKILLed after the grace period: an escalation, not a second OOM kill); the other pods' ranks get remote errors or watchdog timeouts.",
    "rank-segfault": "One worker dies of SIGSEGV (faulthandler's `Fatal Python error: Segmentation fault`, exitcode -11); the same teardown. One rank per pod.",
    "rank-exception": "One worker raises a Python exception (traceback, exit status 1) while its peers are healthy; the same teardown; lines behind a log shipper's prefix.",
    "rank-cuda-error": "One worker hits `CUDA error: an illegal memory access was encountered` with an Xid 31/13/43 on its GPU; the same teardown.",
    "hang-flight-recorder": "The job sets TORCH_NCCL_TRACE_BUFFER_SIZE / TORCH_NCCL_DUMP_ON_TIMEOUT (async error handling off, so the pods stay Running). One rank never enters collective N; the others time out on it and every rank dumps its Flight Recorder ring buffer (pickle or JSON; in one variant the culprit writes none). The capture reads the dumps; k10s_hang_evidence_fr names the rank missing from collective N.",
    "hang-ras-dead": "One training process freezes while the others wait in the collective, long before the 30-minute watchdog: no log line names anyone. NCCL (>= 2.26) RAS declares the process dead (pod IP, pid, GPU); the capture asks ncclras in one pod (text or JSON) and k10s_hang_evidence_ras resolves the process to its rank.",
    "xid-79": "A GPU falls off the bus (dmesg `NVRM: Xid (PCI:...): 79`), its samples stop, the node's allocatable nvidia.com/gpu drops by one, the rank on it dies with a CUDA error and its peers time out or get remote errors.",
    "node-lost": "A node dies whole mid-training (power, a kernel panic, a spot VM reclaimed without notice): its Ready condition turns Unknown (`NodeStatusUnknown`, the kubelet stopped posting status), its pods' containers still read running, every log, exec and scrape of it times out, and the other ranks time out or get NCCL's remote error naming its pod's address.",
    "pod-disrupted": "Kubernetes itself stops one pod mid-training: the scheduler preempts it for a higher-priority pod (DisruptionTarget `PreemptionByScheduler`, a `Preempted` event; torchrun gets SIGTERM and the pod is deleted, its logs with it); the other ranks wait in the all-reduce until the watchdog fires. (The scenario's other seeds draw a kubelet eviction for memory pressure or a graceful node shutdown.)",
    "nccl-size-mismatch": "Every rank times out in the watchdog on the same SeqNum/OpType, but one rank entered the collective with a different NumelIn/NumelOut (a size mismatch): the watchdog lines compared across ranks name it.",
    "nccl-desync-report": "One rank stalls; the others time out and some print PyTorch's TORCH_NCCL_DESYNC_DEBUG report (multi-line) naming it as the lagging rank ('finished collective #N, but didn't join collective #N+1' or 'joined but didn't finish').",
    "collective-mismatch": "TORCH_DISTRIBUTED_DEBUG=DETAIL: one rank issues a different collective (op or shape); every rank raises 'Detected mismatch between collectives on ranks' naming it (the culprit's own report names rank 0), and the job fails.",
    "nccl-stall-all": "Every rank joined the same collective and none finished it (a fabric stall): all ranks time out and the desync reports say every rank 'joined but didn't finish' - no single culprit, and nccl-hang must say so without naming a rank.",
    "startup-toolkit-mismatch": "One pod of the gang is bound to its node but its container never starts: RunContainerError, the NVIDIA container toolkit hook fails with `nvidia-container-cli: initialization error: nvml error: driver/library version mismatch` (a driver upgraded without a reboot); the rest of the gang waits in rendezvous holding its GPUs.",
    "startup-no-runtime": "The pod asks for RuntimeClass nvidia; its node has no such runtime handler: ContainerCreating with FailedCreatePodSandBox `no runtime for \"nvidia\" is configured`.",
    "startup-cuda-too-old": "The image needs a newer CUDA than the node's driver: RunContainerError `requirement error: unsatisfied condition: cuda>=12.6`.",
    "startup-device-plugin": "The device plugin on the pod's node crash-loops and the node advertises 0 nvidia.com/gpu: the kubelet rejects the pod (UnexpectedAdmissionError, `Allocate failed due to no healthy devices present`).",
    "startup-mig-mismatch": "The pod's node was switched to MIG (mixed strategy, only nvidia.com/mig-1g.10gb advertised) while the pod asks for nvidia.com/gpu: UnexpectedAdmissionError `requested number of devices unavailable for nvidia.com/gpu`.",
    "startup-time-slicing": "The pod's node shares each GPU 4 ways (device-plugin time-slicing with failRequestsGreaterThanOne; GFD labels `nvidia.com/gpu.replicas=4` and a `-SHARED` product) and the pod asks for 4 GPUs: UnexpectedAdmissionError `request for 'nvidia.com/gpu: 4' too large: maximum request size for shared resources is 1`.",
    "startup-image-pull-slow": "One pod pulls the 20 GB training image cold: the kubelet's `Successfully pulled image ... in 5m3.2s` event; its peers wait meanwhile (a slow start, warning).",
    "startup-image-pull-backoff": "One pod's image tag does not exist: ImagePullBackOff with the registry's `not found`.",
    "startup-shm": "One pod's DataLoader workers die of SIGBUS (exit 135, `DataLoader worker ... is killed by signal: Bus error`) with no memory-backed /dev/shm; the container crash-loops.",
}
README_HEAD = """# Sample bundles

One small simulated bundle per `k10s simulate` scenario (raw layer + manifest; `k10s rebuild` adds `tables/`),
each with its ground truth beside it in `<scenario>.truth.json` (never inside the bundle). They are made
by the simulator, not captured from a cluster: see docs/simulator.md. This file is written by the generator.

Regenerate all of them: `python -m k10s_forensics.simulate.samples`; check they match the simulator:
`python -m k10s_forensics.simulate.samples --check` (a test does the same; it compares raw rows and
manifest essentials, so `tables/` written by `k10s rebuild` do not matter).

Try one: `k10s analyze sample-bundles/oom-crashloop`, `k10s report sample-bundles/straggler-compute -o r.html`,
`k10s sql sample-bundles/xid-79 "select * from nodes"`.
"""
DEFAULT_DIR = Path(__file__).resolve().parents[2] / "sample-bundles"
MANIFEST_KEYS = ("format", "format_version", "cluster", "scope", "window", "complete", "simulated")


def command_for(scenario: str) -> str:
    a = SAMPLES[scenario]
    return (f"k10s simulate {scenario} -o sample-bundles/{scenario} --seed {a['seed']} --nodes {a['nodes']} "
            f"--gpus-per-node {a['gpus_per_node']} --minutes {a['minutes']} --interval {a['interval_s']}")


def generate(out: Path, scenarios: tuple[str, ...] = SCENARIOS) -> None:
    out.mkdir(parents=True, exist_ok=True)
    for name in scenarios:
        target = out / name
        if target.exists():
            shutil.rmtree(target)
        simulate(name, target, **SAMPLES[name])
    write_readme(out)


def write_readme(out: Path) -> None:
    """sample-bundles/README.md: what each sample shows and the command that reproduces it."""
    lines = [README_HEAD]
    for name in SAMPLES:
        tfile = out / f"{name}.truth.json"
        if not tfile.is_file():
            continue
        truth = json.loads(tfile.read_text(encoding="utf-8"))
        a = SAMPLES[name]
        exp = "; ".join(f"{e['rule']} ({e['cause']}) ranks {e['ranks'] or '-'} pods {', '.join(e['pods']) or '-'}"
                        for e in truth["expected"]) or "nothing"
        lines += [f"## {name}", "", DESCRIPTIONS[name], "",
                  f"- cluster: {a['nodes']} nodes x {a['gpus_per_node']} {truth['cluster']['gpu_product']}, job {truth.get('job')} "
                  f"({truth.get('job_kind')}, world size {truth.get('world_size')})",
                  f"- expected findings: {exp}", f"- reproduce: `{command_for(name)}`", ""]
    (out / "README.md").write_text("\n".join(lines), encoding="utf-8")


def essentials(bundle: Path) -> dict[str, Any]:
    """Manifest keys that must match (no checksums, no parser version, no collector timing)."""
    manifest = json.loads((bundle / "manifest.json").read_text(encoding="utf-8"))
    out = {k: manifest.get(k) for k in MANIFEST_KEYS}
    out["collectors"] = [{k: c.get(k) for k in ("name", "status", "rows", "errors")} for c in manifest.get("collectors", [])]
    return out


def raw_rows(bundle: Path, name: str) -> list[dict]:
    path = bundle / "raw" / f"{name}.parquet"
    return pq.read_table(path).to_pylist() if path.is_file() else []


def differences(expected: Path, actual: Path, scenarios: tuple[str, ...] = SCENARIOS) -> list[str]:
    """What differs between two sample folders (empty when equal)."""
    problems = []
    for name in scenarios:
        a, b = expected / name, actual / name
        if not (a / "manifest.json").is_file():
            problems.append(f"{name}: missing in {expected}")
            continue
        if essentials(a) != essentials(b):
            problems.append(f"{name}: manifest differs")
        for raw in RAW_NAMES:
            ra, rb = raw_rows(a, raw), raw_rows(b, raw)
            if ra != rb:
                problems.append(f"{name}: raw/{raw} differs ({len(ra)} vs {len(rb)} rows)")
        ta, tb = expected / f"{name}.truth.json", actual / f"{name}.truth.json"
        if not ta.is_file() or json.loads(ta.read_text()) != json.loads(tb.read_text()):
            problems.append(f"{name}: truth differs")
    return problems


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=DEFAULT_DIR)
    ap.add_argument("--check", action="store_true", help="compare with the simulator's current output instead of writing")
    args = ap.parse_args(argv)
    if not args.check:
        generate(args.out)
        print(f"wrote {len(SAMPLES)} sample bundles to {args.out}")
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        generate(Path(tmp))
        problems = differences(args.out, Path(tmp))
    for p in problems:
        print(p, file=sys.stderr)
    print("sample bundles are up to date" if not problems else f"{len(problems)} differences; rerun without --check")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
