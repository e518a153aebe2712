"""Benchmark: ``k10s watch`` — how fast a trigger becomes a capture, and what watching costs.

A. Played incidents (``k10s serve --play`` of ``k10s simulate rank-segfault``, one per seed):
   the watcher sees the rank fail through the watch API and captures. Reported per seed:
   change -> trigger, trigger -> capture started (target <= 2 s), capture seconds, whether
   the hang-time nvidia-smi and ss are in the bundle, whether analyze names the planted rank.
   Plus a manual trigger (HTTP POST /trigger -> capture started).
B. Idle: 1,000 running pods of 100 PyTorchJobs, nothing failing; ``k10s watch`` runs as its
   own process (watch streams on pods, events, jobs; one log follow stream per training
   container). Its CPU (utime+stime of all its threads) over the window and its memory
   (VmRSS, VmHWM) are read from /proc (targets <= 5 % of one core, <= 200 MB).

    python benchmarks/bench_watch.py                       # 3 seeds, 60 s idle window
    python benchmarks/bench_watch.py --seeds 2 --idle-s 20 --json out.json
"""

from __future__ import annotations

import argparse
import copy
import io
import json
import os
import platform
import re
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))

from watch_helpers import make_bundle, serve, wait_for, watcher  # noqa: E402

from k10s_forensics.serve.play import PODS, PlayTimes, running_version  # noqa: E402
from k10s_forensics.serve.store import Recording  # noqa: E402


def played(seed: int, root: Path) -> dict:
    import pyarrow.parquet as pq

    from k10s_forensics.analyze.runner import analyze
    from k10s_forensics.store.bundle import Bundle
    from k10s_forensics.simulate import simulate

    bundle = root / f"seed{seed}"
    truth = simulate("rank-segfault", bundle, seed=seed, nodes=2, gpus_per_node=4, minutes=5, truth_path=root / f"t{seed}.json")
    srv, play, _log = serve(bundle, PlayTimes(fail_s=1.5, hang_s=2.5, restart_s=15), clock=False)
    w = watcher(srv, root / f"w{seed}")
    play.start()
    try:
        inc = wait_for(lambda: next(iter(w.incidents.open.values()), None), timeout_s=20)
        wait_for(lambda: inc.capture_started_at, timeout_s=10)
        wait_for(lambda: w.first_done.is_set(), timeout_s=90, step_s=0.2)
        phases = play.describe()["phase_started"]
        first = min(t.at for t in inc.triggers)
        out = root / f"w{seed}" / "out" / inc.id / "bundle"
        rows = pq.read_table(out / "raw" / "exec.parquet").to_pylist()
        hang = {r["command"].split()[0] for r in rows if r["stdout"] and r["captured_at"].timestamp() < phases.get("restart", 1e18)}
        top = (analyze(Bundle.open(out))["findings"] or [{}])[0]
        cap_s = json.loads((out.parent / "incident.json").read_text())["capture"]["seconds"]
        expected = truth["expected"][0]
        return {"seed": seed, "job": truth["job"], "first_trigger": inc.triggers[0].reason,
                "change_to_trigger_s": round(first - phases["fail"], 3),
                "trigger_to_capture_s": round(inc.capture_started_at - first, 3),
                "capture_s": cap_s, "captured_before_restart": inc.capture_started_at + cap_s < phases.get("restart", 1e18),
                "hang_nvidia_smi": "nvidia-smi" in hang, "hang_ss": "ss" in hang,
                "culprit_named": top.get("ranks") == expected["ranks"] and top.get("rule") == expected["rule"]}
    finally:
        w.stop(5)
        srv.stop()


def manual(root: Path) -> float:
    bundle, truth = make_bundle(root / "manual")
    srv, _play, _log = serve(bundle, None, clock=False)
    w = watcher(srv, root / "manual")
    try:
        sent = time.time()
        req = urllib.request.Request(f"{w.url}/trigger", data=json.dumps({"job": truth["job"]}).encode(), method="POST",
                                     headers={"Content-Type": "application/json"})
        urllib.request.urlopen(req, timeout=10).read()
        inc = wait_for(lambda: next(iter(w.incidents.open.values()), None), timeout_s=10)
        wait_for(lambda: inc.capture_started_at, timeout_s=10)
        return round(inc.capture_started_at - sent, 3)
    finally:
        w.stop(5)
        srv.stop()


def fleet(root: Path, jobs: int, ranks: int):
    """A served cluster of ``jobs`` PyTorchJobs x ``ranks`` running pods, each with a log."""
    bundle, _truth = make_bundle(root / "fleet")
    srv, play, _log = serve(bundle, None, clock=False)
    store, log = srv.store, play.log
    template = running_version(play.originals[play.culprit], "2026-05-15T12:00:00Z")
    job_key = next(k for k in store.objects if k[2] == "pytorchjobs")
    job_template = json.loads(store.objects[job_key][0].raw)
    for j in range(jobs):
        job = copy.deepcopy(job_template)
        job["metadata"].update(name=f"bench-{j:03d}", uid=f"job-{j}")
        log.put(job_key, job)
        for r in range(ranks):
            pod = copy.deepcopy(template)
            name = f"bench-{j:03d}-worker-{r}"
            pod["metadata"].update(name=name, uid=f"pod-{j}-{r}")
            pod["metadata"]["labels"]["training.kubeflow.org/job-name"] = f"bench-{j:03d}"
            log.put(PODS, pod)
            body = "".join(f"2026-05-15T12:{m:02d}:00.000000Z step {m} loss 2.{m:02d}\n" for m in range(20))
            for c in (pod["spec"].get("containers") or []):
                store.logs[(pod["metadata"]["namespace"], name, c["name"], False)] = Recording(play.fail_at, {"body": body, "error": None})
    log.compact()
    return srv


def _proc(pid: int) -> tuple[float, int, int]:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    cpu_s = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    status = Path(f"/proc/{pid}/status").read_text()
    rss = int(re.search(r"VmRSS:\s+(\d+)", status).group(1)) * 1024
    hwm = int(re.search(r"VmHWM:\s+(\d+)", status).group(1)) * 1024
    return cpu_s, rss, hwm


def idle(root: Path, jobs: int, ranks: int, window_s: float) -> dict:
    srv = fleet(root, jobs, ranks)
    kubeconfig = srv.write_kubeconfig(root / "fleet.kubeconfig")
    proc = subprocess.Popen([sys.executable, "-m", "k10s_forensics", "watch", "--kubeconfig", str(kubeconfig),
                             "--out", str(root / "idle-out"), "--listen", "127.0.0.1:0"],
                            stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
    try:
        url = re.search(r"http on (http://\S+)", proc.stderr.readline()).group(1)
        wait_for(lambda: _healthy(url), timeout_s=60, step_s=0.5)
        started = time.time()
        wait_for(lambda: srv.counts.get("logs", 0) >= jobs * ranks, timeout_s=120, step_s=0.5)
        settle_s = time.time() - started
        time.sleep(5)
        cpu0, _, _ = _proc(proc.pid)
        t0 = time.monotonic()
        time.sleep(window_s)
        cpu1, rss, hwm = _proc(proc.pid)
        threads = len(os.listdir(f"/proc/{proc.pid}/task"))
        return {"pods": jobs * ranks, "jobs": jobs, "window_s": window_s, "settle_s": round(settle_s, 1),
                "cpu_pct_of_one_core": round(100 * (cpu1 - cpu0) / (time.monotonic() - t0), 2),
                "rss_mb": round(rss / 1e6, 1), "peak_rss_mb": round(hwm / 1e6, 1), "threads": threads,
                "log_streams": srv.counts.get("logs", 0), "watch_streams": srv.counts.get("watch", 0)}
    finally:
        proc.terminate()
        proc.wait(30)
        srv.stop()


def _healthy(url: str) -> bool:
    try:
        return urllib.request.urlopen(f"{url}/healthz", timeout=2).status == 200
    except OSError:
        return False


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--jobs", type=int, default=100)
    ap.add_argument("--ranks", type=int, default=10)
    ap.add_argument("--idle-s", type=float, default=60.0)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    result = {"machine": f"{platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}"}
    with tempfile.TemporaryDirectory(prefix="k10s-bench-watch-") as tmp:
        root = Path(tmp)
        result["played"] = [played(seed, root) for seed in range(2, 2 + args.seeds)]
        result["manual_trigger_to_capture_s"] = manual(root)
        result["idle"] = idle(root, args.jobs, args.ranks, args.idle_s)
    text = json.dumps(result, indent=2)
    print(text)
    if args.json:
        args.json.write_text(text + "\n")


if __name__ == "__main__":
    sys.stdout = io.TextIOWrapper(sys.stdout.buffer, line_buffering=True)
    main()
