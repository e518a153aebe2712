"""Driving ``k10s view`` headlessly with Textual's Pilot (no pytest plugin needed)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from textual import _wait

from k10s_forensics.view.app import K10sApp
from k10s_forensics.view.data import ViewData

SIZE = (200, 50)

# Pilot's ``pause()`` waits for "idle" by sleeping in 20 ms slices until one passes with under 1 ms of
# CPU (textual._wait): at least 20 ms of an idle core per wait, and a view test waits ~60 times (most
# of its wall time, a core the other xdist worker cannot use either). 2 ms slices with the same
# 1 ms threshold still require a quiet slice; settle() below checks the app's own work (workers)
# before trusting it.
_wait.SLEEP_GRANULARITY = 0.002


async def settle(app: K10sApp, pilot: Any, timeout_s: float = 60.0) -> None:
    """Wait until no worker is running and the screen has drawn what they produced."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout_s
    while True:
        await pilot.pause()
        busy = [w for w in app.workers if w.is_running and w.group not in ("close", "prefetch", "live")]
        if not busy:
            await pilot.pause()
            return
        if loop.time() > end:
            raise AssertionError(f"workers still running after {timeout_s}s: {[w.name for w in busy]}")
        await asyncio.sleep(0.01)


async def command(app: K10sApp, pilot: Any, name: str, *, typed: bool = False) -> None:
    """``:name`` + Enter. ``typed``: key by key, as a user types it; else ``:``, the name pasted
    into the prompt at once, Enter (Pilot waits for the app to idle after every key: a command
    typed key by key costs ~40 ms of waiting per character, most of a view test's wall time)."""
    if typed:
        await pilot.press("colon", *name, "enter")
    else:
        await pilot.press("colon")
        app.screen.query_one("#prompt").value = name
        await pilot.press("enter")
    await settle(app, pilot)


def run_app(bundle: str | Path | ViewData, script: Callable[[K10sApp, Any], Awaitable[Any]], **kwargs: Any) -> Any:
    """Open ``bundle`` in the app, run ``script(app, pilot)`` once Fleet is on screen. Given an open
    ``ViewData`` (a module's fixture: its analysis and views are built once for several tests), the
    app uses it and leaves it open."""
    async def main() -> Any:
        data = bundle if isinstance(bundle, ViewData) else ViewData.open(bundle)
        app = K10sApp(data, open_browser=False, **kwargs)
        try:
            async with app.run_test(size=SIZE) as pilot:
                await settle(app, pilot)
                return await script(app, pilot)
        finally:
            if data is not bundle:
                data.close()

    return asyncio.run(main())


def table_text(screen: Any) -> list[str]:
    """The rows the screen shows, each as its cells' plain text joined by ' | '."""
    return [" | ".join(str(c) for c in r.cells) for r in screen.shown]
