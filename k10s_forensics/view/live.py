"""Live mode: read-only capture rounds every ``--interval`` into a rolling window.

One thread (never the UI's) runs the loop: capture one round (the ordinary ``capture``
with the same read-only RBAC, into ``ROOT/rounds/<UTC time>``), drop rounds older than
``--keep`` or beyond the disk cap, merge the rest into ``ROOT/window-<n>`` (an ordinary
bundle, see :mod:`.window`), open it, compute Fleet, and hand it to the app. A failed
round (API server unreachable, every collector failed) keeps the last good window on
screen, shows a red banner with the error, and retries with a growing back-off (``R``
retries now). ``s`` copies the current window to an ordinary bundle.
"""

from __future__ import annotations

import datetime as dt
import shutil
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from k10s_forensics.store.bundle import utcnow

from . import window as rolling
from .data import ViewData

MAX_BACKOFF_S = 60.0


class LiveSession:
    """The capture loop behind ``k10s view --live`` and the state its banner shows."""

    def __init__(self, connection: Any, *, namespaces: tuple[str, ...] = (), all_namespaces: bool = False,
                 jobs: tuple[str, ...] = (), interval_s: float = 30.0, keep_s: float = 1800.0,
                 disk_cap_bytes: int = 2 << 30, timeout_s: float = 15.0, root: str | Path | None = None):
        self.connection = connection
        self.scope = dict(namespaces=tuple(namespaces), all_namespaces=all_namespaces, jobs=tuple(jobs))
        self.interval_s, self.keep_s, self.disk_cap_bytes, self.timeout_s = interval_s, keep_s, disk_cap_bytes, timeout_s
        self._own_root = root is None
        self.root = Path(root) if root else Path(tempfile.mkdtemp(prefix="k10s-live-"))
        (self.root / "rounds").mkdir(parents=True, exist_ok=True)
        self.rounds: list[Path] = []
        self.window: Path | None = None
        self.generation = 0
        self.last_ok: float | None = None
        self.error: str | None = None
        self.failures = 0
        self.next_at: float = 0.0
        self._stop = threading.Event()
        self._wake = threading.Event()
        self._thread: threading.Thread | None = None
        self._app: Any = None
        self._lock = threading.Lock()

    # -- loop --------------------------------------------------------------------------------

    def start(self, app: Any) -> None:
        self._app = app
        self._thread = threading.Thread(target=self._loop, name="k10s-live", daemon=True)
        self._thread.start()

    def stop(self) -> bool:
        """Stop the rounds; False when one is still running after 3 s (abandoned, a daemon thread:
        quitting stays quick; ``view_cmd.finish_live`` then ends the process at once)."""
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout=3.0)
        if self._own_root:
            shutil.rmtree(self.root, ignore_errors=True)
        return self._thread is None or not self._thread.is_alive()

    def retry_now(self) -> None:
        self._wake.set()

    def _loop(self) -> None:
        while not self._stop.is_set():
            started = time.monotonic()
            try:
                data = self.run_round()
            except Exception as exc:  # a lost connection or a failed round: banner, back-off, retry
                self.failures += 1
                self.error = str(exc).splitlines()[0] if str(exc) else exc.__class__.__name__
                wait = min(self.interval_s * 2 ** (self.failures - 1), max(MAX_BACKOFF_S, self.interval_s))
            else:
                self.failures, self.error, self.last_ok = 0, None, time.monotonic()
                self._deliver(data)
                wait = max(0.0, self.interval_s - (time.monotonic() - started))
            self.next_at = time.monotonic() + wait
            self._notify()
            self._wake.wait(wait)
            self._wake.clear()

    def run_round(self) -> ViewData:
        """Capture one round, roll the window, open it; raises when the round failed."""
        from k10s_forensics.capture import CaptureOptions, capture
        from k10s_forensics.capture.progress import NullProgress
        from k10s_forensics.errors import K10sError

        out = self.root / "rounds" / utcnow().strftime("%Y%m%dT%H%M%S%fZ")
        options = CaptureOptions(duration_s=0.0, interval_s=self.interval_s, timeout_s=self.timeout_s,
                                 deadline_s=max(60.0, 4 * self.interval_s), exec_timeout_s=self.timeout_s)
        result = capture(out, connection=self.connection, options=options, progress=NullProgress(), **self.scope)
        entries = result.bundle.manifest.get("collectors") or []
        if entries and all(e.get("status") == "failed" for e in entries):
            first = next((err for e in entries for err in e.get("errors") or []), "every collector failed")
            rolling.remove(out)
            raise K10sError(f"capture round failed: {first}")
        with self._lock:
            self.rounds, dropped = rolling.prune(self.rounds + [out], keep_s=self.keep_s, disk_cap_bytes=self.disk_cap_bytes,
                                                 now=utcnow())
            for path in dropped:
                rolling.remove(path)
            self.generation += 1
            target = self.root / f"window-{self.generation}"
            bundle = rolling.merge(self.rounds, target)
        data = ViewData(bundle)
        data.fleet()  # rebuild and the landing view's query happen here, not on the UI thread
        return data

    def detach(self) -> None:
        """The app is closing: stop handing it windows (the loop ends with :meth:`stop`)."""
        self._app = None

    def _deliver(self, data: ViewData) -> None:
        with self._lock:
            old, self.window = self.window, data.bundle.path
        app = self._app
        if app is not None:
            try:
                app.call_from_thread(app.swap_data, data)
            except Exception:  # the app closed between the check and the call
                data.close()
        if old is not None:
            threading.Timer(30.0, rolling.remove, args=(old,)).start()  # readers of the old window have moved on

    def _notify(self) -> None:
        app = self._app
        if app is not None and not self._stop.is_set():
            try:
                app.call_from_thread(app.tick)
            except Exception:
                pass  # the app has already exited

    # -- state for the banner ----------------------------------------------------------------

    def age_s(self) -> float | None:
        return None if self.last_ok is None else time.monotonic() - self.last_ok

    def is_stale(self) -> bool:
        age = self.age_s()
        return age is not None and age > 2 * self.interval_s + self.timeout_s

    def banner(self) -> tuple[str, str]:
        """(text, css class): live state, 'stale' after two missed rounds, 'lost' on failure."""
        age = self.age_s()
        next_in = max(0, int(self.next_at - time.monotonic()))
        shown = f"showing data from {int(age)}s ago" if age is not None else "no data yet"
        if self.error:
            return f"CONNECTION LOST: {self.error} · retry {self.failures} in {next_in}s (R: now) · {shown}", "lost"
        if age is None:
            return "LIVE · first capture round…", ""
        text = (f"LIVE · {len(self.rounds)} round(s) kept (--keep {int(self.keep_s)}s) · updated {int(age)}s ago"
                f" · next in {next_in}s · s: save")
        return (f"STALE · {text}", "stale") if self.is_stale() else (text, "")

    def save(self, dest_dir: str | Path) -> Path:
        """Copy the current window to ``dest_dir/k10s-live-<UTC time>`` (an ordinary bundle)."""
        with self._lock:
            if self.window is None:
                from k10s_forensics.errors import BundleError

                raise BundleError("no window captured yet")
            dest = Path(dest_dir) / f"k10s-live-{dt.datetime.now(dt.timezone.utc).strftime('%Y%m%dT%H%M%SZ')}"
            n = 1
            while dest.exists():
                dest = dest.with_name(f"{dest.name.split('.')[0]}.{n}")
                n += 1
            shutil.copytree(self.window, dest)
        return dest


__all__ = ["LiveSession"]
