"""The live progress display (rich) on stderr, or nothing with ``--quiet``."""

from __future__ import annotations

import threading
import time
from typing import Any

STYLE = {"pending": "dim", "running": "cyan", "ok": "green", "partial": "yellow", "failed": "red", "skipped": "dim"}


class NullProgress:
    """Counts without drawing (``--quiet``, tests, the benchmark)."""

    def __init__(self) -> None:
        self.nodes_total = 0
        self.nodes_done = 0
        self.errors = 0
        self.phase = ""
        self._lock = threading.Lock()

    def start(self, engine: Any) -> None:
        self.engine = engine

    def stop(self) -> None:
        pass

    def set_phase(self, text: str) -> None:
        self.phase = text

    def add_node_tasks(self, n: int) -> None:
        with self._lock:
            self.nodes_total += n

    def node_done(self) -> None:
        with self._lock:
            self.nodes_done += 1

    def error(self, collector: str) -> None:
        with self._lock:
            self.errors += 1


class RichProgress(NullProgress):
    """A table of collectors (state, rows, errors) with phase, node tasks, calls and errors."""

    def __init__(self, console: Any = None) -> None:
        super().__init__()
        from rich.console import Console

        self.console = console or Console(stderr=True)
        self._live = None
        self._started = time.monotonic()

    def start(self, engine: Any) -> None:
        from rich.live import Live

        self.engine = engine
        self._started = time.monotonic()
        self._live = Live(self._render(), console=self.console, refresh_per_second=4, transient=False,
                          get_renderable=self._render)
        self._live.start()

    def stop(self) -> None:
        if self._live is not None:
            self._live.update(self._render())
            self._live.stop()
            self._live = None

    def _render(self) -> Any:
        from rich.table import Table

        engine = getattr(self, "engine", None)
        stats = engine.source.stats if engine is not None else None
        title = (f"k10s capture  {self.phase}  {time.monotonic() - self._started:5.1f}s  "
                 f"nodes/pods done {self.nodes_done}/{self.nodes_total}  "
                 f"calls {stats.calls if stats else 0}  retries {stats.retries if stats else 0}  errors {self.errors}")
        table = Table(title=title, title_justify="left", box=None, pad_edge=False)
        table.add_column("collector")
        table.add_column("state")
        table.add_column("rows", justify="right")
        table.add_column("errors", justify="right")
        table.add_column("last error", overflow="ellipsis", no_wrap=True, max_width=70)
        if engine is not None:
            for run in engine.runs.values():
                state = run.status if run.status in ("pending", "running") else run.final_status()
                last = run.errors[-1] if run.errors else (run.skip_reason or "")
                table.add_row(run.name, f"[{STYLE.get(state, '')}]{state}[/]", str(run.rows),
                              str(len(run.errors) + run.errors_dropped), last)
        return table
