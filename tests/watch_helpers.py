"""Shared parts of the ``k10s watch`` tests: a played incident on ``k10s serve`` and a
watcher pointed at it, with short timeouts."""

from __future__ import annotations

import io
import threading
import time
from pathlib import Path
from typing import Any, Callable

from k10s_forensics.capture.connection import load_connection
from k10s_forensics.serve.app import ServeServer
from k10s_forensics.serve.live import start_play
from k10s_forensics.serve.play import PlayTimes
from k10s_forensics.serve.store import Store
from k10s_forensics.simulate import simulate
from k10s_forensics.watch import runner
from k10s_forensics.watch.config import load
from k10s_forensics.watch.watcher import Watcher

SCENARIO, SEED = "rank-segfault", 2  # a PyTorchJob: rank 2 segfaults, the other pod's ranks hit the watchdog


def make_bundle(root: Path) -> tuple[Path, dict[str, Any]]:
    bundle = root / "played"
    truth = simulate(SCENARIO, bundle, seed=SEED, nodes=2, gpus_per_node=4, minutes=5, interval_s=10,
                     truth_path=root / "truth.json")
    return bundle, truth


class SafeLog(io.StringIO):
    """An access log several server threads write to."""

    def __init__(self) -> None:
        super().__init__()
        self._lock = threading.Lock()

    def write(self, text: str) -> int:
        with self._lock:
            return super().write(text)

    def lines(self) -> list[str]:
        with self._lock:
            return self.getvalue().splitlines()


def serve(bundle: Path, times: PlayTimes | None, clock: bool = True) -> tuple[ServeServer, Any, SafeLog]:
    log = SafeLog()
    srv = ServeServer(Store.load(bundle), access_log=log).start()
    srv.bookmark_s = 0.5
    play = start_play(srv, times or PlayTimes(), clock=clock)
    return srv, play, log


def watcher(srv: ServeServer, tmp: Path, **overrides: Any) -> Watcher:
    kubeconfig = srv.write_kubeconfig(tmp / "kubeconfig")
    cfg = load(None, {"out": str(tmp / "out"), "listen": "127.0.0.1:0"})
    cfg.capture.duration_s = 0
    cfg.capture.second_round_after_s = overrides.pop("second_round_after_s", 0)
    cfg.capture.table_jobs = 0
    cfg.log_retry_s, cfg.backoff_max_s, cfg.watch_timeout_s = 0.3, 1.0, 30
    for key, value in overrides.items():
        setattr(cfg, key, value)
    w = Watcher(cfg, load_connection(str(kubeconfig)), log=io.StringIO()).start()
    assert w.wait_synced(10), w.health()
    return w


def wait_for(check: Callable[[], Any], timeout_s: float = 30.0, step_s: float = 0.1) -> Any:
    end = time.time() + timeout_s
    while time.time() < end:
        value = check()
        if value:
            return value
        time.sleep(step_s)
    raise AssertionError(f"timed out after {timeout_s}s waiting for {check}")


def stub_analysis(monkeypatch) -> None:
    """Fault tests check the incident logic, not the analysis: skip analyze and report."""
    monkeypatch.setattr(runner, "analyze_and_report", lambda bundle, report: {"findings": [], "y": "stub", "analysis_error": ""})


def incident_dirs(out: Path) -> list[Path]:
    return sorted(p for p in out.iterdir() if p.is_dir()) if out.is_dir() else []


def non_get_requests(log: SafeLog) -> list[str]:
    """Request lines of the access log that are not GET (the read-only proof)."""
    return [line for line in log.lines() if '"' in line and not line.split('"', 2)[1].startswith("GET ")]
