"""The ``k10s view`` application: modes (one per view), global keys, live state banner.

Views never query the bundle on the UI thread: each loads in a worker thread through
:class:`~k10s_forensics.view.data.ViewData` and shows "loading…" meanwhile; after Fleet is
up, the other views (their queries, their rows, then their screens) are prefetched in the
background, so opening one later shows it at once. (``/`` and ``< > !`` query only the view's own small
row index, :mod:`.rowindex`, a few milliseconds.) In live mode a
:class:`~k10s_forensics.view.live.LiveSession` runs capture rounds in its own thread and
hands over a new ViewData after each; the screens reload, the banner says how fresh the
data is, and a lost connection shows as a red banner while it retries.
"""

from __future__ import annotations

import gc
import time
import webbrowser
from pathlib import Path
from typing import Any

from textual import work
from textual.app import App, ScreenStackError, UnknownModeError
from textual.binding import Binding
from textual.widgets import Static

from .data import ViewData
from .keys import VIEWS
from .screens.events import EventsScreen, LogsScreen
from .screens.findings import FindingsScreen
from .screens.fleet import FleetScreen
from .screens.help import HelpScreen
from .screens.jobs import JobsScreen
from .screens.queue import QueueScreen


class K10sApp(App):
    """``k10s view`` over one bundle (``data``) or live (``live``)."""

    CSS_PATH = "styles.tcss"
    TITLE = "k10s view"
    MODES = {"fleet": FleetScreen, "jobs": JobsScreen, "queue": QueueScreen, "findings": FindingsScreen,
             "events": EventsScreen, "logs": LogsScreen}
    BINDINGS = [
        Binding("question_mark", "help", "help"),
        Binding("r", "report", "report"),
        Binding("s", "save", "save (live)", show=False),
        Binding("R", "retry", "retry (live)", show=False),
        Binding("q", "quit", "quit"),
    ]

    def __init__(self, data: ViewData | None = None, *, live: Any = None, report_path: str | Path = "k10s-report.html",
                 open_browser: bool = True, save_dir: str | Path = "."):
        super().__init__()
        self.data = data
        self.live = live
        self.report_path = Path(report_path)
        self.open_browser = open_browser
        self.save_dir = Path(save_dir)
        self.data_generation = 0
        self.last_report: Path | None = None
        self._prefetched: ViewData | None = None

    def on_mount(self) -> None:
        self.switch_mode("fleet")
        if self.live is not None:
            self.live.start(self)
            self.set_interval(1.0, self.tick)

    def on_unmount(self) -> None:
        gc.unfreeze()  # what the prefetch froze is ordinary garbage again once the app ends
        if self.live is not None:
            self.live.detach()

    # -- data --------------------------------------------------------------------------------

    def view_loaded(self, screen: Any) -> None:
        """A view has its rows on screen: now compute the others in the background (the
        landing view first, so Fleet never waits behind the analysis)."""
        if self.data is not None and self._prefetched is not self.data:
            self._prefetched = self.data
            self._prefetch(self.data)

    @work(thread=True, group="prefetch", exclusive=True)
    def _prefetch(self, data: ViewData) -> None:
        from textual.worker import get_current_worker

        worker = get_current_worker()
        stop = lambda: worker.is_cancelled or data is not self.data
        try:
            data.prefetch(stop)
            for screen in self.MODES.values():  # then each view's rows, as the view shows them
                if stop():
                    return
                screen.prepared(data)
            # What was just computed lives as long as this window. Python's full garbage
            # collections would walk all of it again and again (60-100 ms each on a
            # 1024-GPU bundle, landing in the middle of key presses): keep it out of them.
            gc.freeze()
            self.call_from_thread(self._prepare_modes)
        except Exception as exc:  # a view that cannot load says so when opened
            self.call_from_thread(self.notify, f"background loading stopped: {exc}", severity="warning")

    def _prepare_modes(self) -> None:
        """Build every view's screen now, while the user reads Fleet, so that opening one
        later only resumes it: making, styling and laying out a new screen's widgets was
        most of what was left of a first view switch (20-40 ms of a 50 ms :jobs). Textual
        has no public call for it; its own mode start-up (``_init_mode``: make the screen,
        mount it, not show it) is used when present, else views are made when opened."""
        init, stacks = getattr(self, "_init_mode", None), getattr(self, "_screen_stacks", None)
        # the prefetch may end while the app shuts down (the user quit): Textual is then iterating
        # the stacks to close them, and a new one would break it (a traceback on quitting)
        if init is None or stacks is None or not getattr(self, "_running", True):
            return
        for mode in self.MODES:
            if mode not in stacks:
                try:
                    init(mode)
                except Exception:  # made when opened instead, as Textual does
                    return

    def swap_data(self, data: ViewData) -> None:
        """Live mode: a new window is ready; every screen reloads from it (UI thread)."""
        old, self.data = self.data, data
        self.data_generation += 1
        gc.unfreeze()  # the old window's objects may be collected again; the new one is frozen once prefetched
        screen = self.screen
        if hasattr(screen, "reload"):
            screen.reload()
        self.tick()
        if old is not None:
            self._close_later(old)

    @work(thread=True, group="close")
    def _close_later(self, old: ViewData) -> None:
        time.sleep(5)  # let workers still reading the old window finish
        old.close()

    # -- banner ------------------------------------------------------------------------------

    def banner_text(self) -> tuple[str, str]:
        """(text, css class) of the banner: bundle and window, or the live state."""
        if self.live is not None:
            return self.live.banner()
        if self.data is None:
            return "", ""
        w = self.data.window
        return f"{self.data.bundle.path} · window {w.get('start') or '---'} → {w.get('end') or '---'}", ""

    def refresh_banner(self, screen: Any) -> None:
        try:
            banner = screen.query_one("#banner", Static)
        except Exception:
            return
        text, css = self.banner_text()
        banner.update(text)
        banner.set_classes(css)
        banner.display = bool(text)

    def tick(self) -> None:
        """Live mode, each second: the banner. Not once the app stops running: its timer may fire
        while Textual closes the screens (no screen left: a ScreenStackError on quitting)."""
        if not getattr(self, "_running", True):
            return
        try:
            screen = self.screen
        except (ScreenStackError, UnknownModeError):
            return
        self.refresh_banner(screen)

    # -- commands ----------------------------------------------------------------------------

    def run_command(self, command: str) -> None:
        name = command.strip().lower()
        if name in VIEWS:
            self.switch_mode(name)
        elif name in ("help", "?"):
            self.action_help()
        elif name in ("q", "quit", "q!"):
            self.exit()
        elif name:
            self.notify(f"unknown command :{name} (try {', '.join(VIEWS)})", severity="error")

    def action_help(self) -> None:
        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen())

    def action_report(self) -> None:
        if self.data is None:
            self.notify("no data yet", severity="warning")
            return
        self.notify(f"writing the report to {self.report_path}…")
        self._write_report(self.data)

    @work(thread=True, group="report", exclusive=True)
    def _write_report(self, data: ViewData) -> None:
        try:
            path = data.write_report(self.report_path)
        except Exception as exc:
            self.call_from_thread(self.notify, f"report failed: {exc}", severity="error")
            return
        self.last_report = path
        self.call_from_thread(self.notify, f"report written: {path}")
        if self.open_browser:
            webbrowser.open(path.resolve().as_uri())

    def action_save(self) -> None:
        if self.live is None:
            self.notify("s saves the live window; this is already a bundle", severity="warning")
            return
        self._save()

    @work(thread=True, group="save", exclusive=True)
    def _save(self) -> None:
        try:
            path = self.live.save(self.save_dir)
        except Exception as exc:
            self.call_from_thread(self.notify, f"save failed: {exc}", severity="error")
            return
        self.call_from_thread(self.notify, f"saved the window as bundle {path}")

    def action_retry(self) -> None:
        if self.live is not None:
            self.live.retry_now()
