"""Headless Chromium over the DevTools protocol: open a report, record what it did.

Used by the browser tests, the benchmark and ``docs/report.md`` screenshots. One
``Chromium`` process serves many pages; ``open_page`` returns a ``PageVisit`` with the
console errors, exceptions and every network request the page attempted (anything that
is not the file itself, ``data:`` or ``blob:`` is a request a self-contained report must
never make).

Flags keep Chromium from calling home (background networking, component updates, sync,
QUIC), so the only requests recorded are the page's own.
"""

from __future__ import annotations

import base64
import json
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

CHROMIUM = "/usr/bin/chromium"
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-extensions",
    "--disable-default-apps",
    "--mute-audio",
    "--hide-scrollbars",
)


class BrowserError(RuntimeError):
    """Chromium could not be started or did not answer."""


@dataclass
class PageVisit:
    """What happened while a page loaded."""

    url: str
    console_errors: list[str] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)
    load_ms: float = 0.0
    ready_ms: float = 0.0

    @property
    def external_requests(self) -> list[str]:
        """Requests other than the page itself, ``data:`` and ``blob:`` URLs."""
        return [u for u in self.requests if u != self.url and not u.startswith(("data:", "blob:"))]


class Chromium:
    """A headless Chromium process driven over its DevTools websocket."""

    def __init__(self, binary: str = CHROMIUM, timeout_s: float = 30.0):
        import websocket  # websocket-client

        self._websocket = websocket
        self.timeout_s = timeout_s
        self.profile = Path(tempfile.mkdtemp(prefix="k10s-chromium-"))
        self.proc = subprocess.Popen(
            [binary, *FLAGS, "--remote-debugging-port=0", f"--user-data-dir={self.profile}", "about:blank"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        self.port = self._wait_port()
        self._ws = None
        self._id = 0
        self._events: list[dict[str, Any]] = []

    def _wait_port(self) -> int:
        marker = self.profile / "DevToolsActivePort"
        deadline = time.monotonic() + self.timeout_s
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise BrowserError(f"chromium exited with code {self.proc.returncode} before opening DevTools")
            if marker.is_file():
                lines = marker.read_text().split()
                if lines:
                    return int(lines[0])
            time.sleep(0.05)
        self.close()
        raise BrowserError("chromium did not open its DevTools port in time")

    # -- protocol ---------------------------------------------------------------------------

    def _connect_page(self) -> None:
        import urllib.request

        with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/json/list", timeout=self.timeout_s) as resp:
            targets = json.load(resp)
        pages = [t for t in targets if t.get("type") == "page"]
        if not pages:
            request = urllib.request.Request(f"http://127.0.0.1:{self.port}/json/new?about:blank", method="PUT")
            with urllib.request.urlopen(request, timeout=self.timeout_s) as resp:
                pages = [json.load(resp)]
        page = pages[0]
        self._ws = self._websocket.create_connection(page["webSocketDebuggerUrl"], timeout=self.timeout_s, suppress_origin=True)
        for method in ("Runtime.enable", "Log.enable", "Network.enable", "Page.enable"):
            self.send(method)

    def send(self, method: str, **params: Any) -> dict[str, Any]:
        """Send one command and wait for its answer (events seen meanwhile are kept)."""
        if self._ws is None:
            self._connect_page()
        self._id += 1
        msg_id = self._id
        self._ws.send(json.dumps({"id": msg_id, "method": method, "params": params}))
        deadline = time.monotonic() + self.timeout_s
        while time.monotonic() < deadline:
            msg = json.loads(self._ws.recv())
            if msg.get("id") == msg_id:
                if "error" in msg:
                    raise BrowserError(f"{method}: {msg['error'].get('message')}")
                return msg.get("result", {})
            if "method" in msg:
                self._events.append(msg)
        raise BrowserError(f"{method}: no answer in {self.timeout_s:.0f}s")

    def _pump(self, until: str, timeout_s: float) -> bool:
        """Read events until one named ``until`` arrives."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            self._ws.settimeout(max(0.05, deadline - time.monotonic()))
            try:
                msg = json.loads(self._ws.recv())
            except self._websocket.WebSocketTimeoutException:
                break
            finally:
                self._ws.settimeout(self.timeout_s)
            if "method" in msg:
                self._events.append(msg)
                if msg["method"] == until:
                    return True
        return False

    def evaluate(self, expression: str) -> Any:
        """Evaluate JavaScript in the page and return its JSON value."""
        result = self.send("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in result:
            raise BrowserError(f"evaluate failed: {result['exceptionDetails'].get('text')}")
        return result.get("result", {}).get("value")

    # -- pages -------------------------------------------------------------------------------

    def open_page(self, path: Path, width: int = 1400, height: int = 1000, ready: str = "window.__k10sReady === true") -> PageVisit:
        """Load ``path`` and wait until ``ready`` is true in the page (the report sets it)."""
        url = Path(path).resolve().as_uri()
        if self._ws is None:
            self._connect_page()
        self.send("Emulation.setDeviceMetricsOverride", width=width, height=height, deviceScaleFactor=1, mobile=False)
        self.send("Page.navigate", url="about:blank")
        self._pump("Page.loadEventFired", 5)
        self._events.clear()
        t0 = time.monotonic()
        self.send("Page.navigate", url=url)
        self._pump("Page.loadEventFired", self.timeout_s)
        visit = PageVisit(url=url, load_ms=(time.monotonic() - t0) * 1000)
        deadline = time.monotonic() + self.timeout_s
        while not self.evaluate(f"Boolean({ready})"):
            if time.monotonic() > deadline:
                raise BrowserError(f"{url}: not ready after {self.timeout_s:.0f}s")
            time.sleep(0.02)
        visit.ready_ms = (time.monotonic() - t0) * 1000
        self._pump("__none__", 0.2)  # late console messages
        self._collect(visit)
        return visit

    def _collect(self, visit: PageVisit) -> None:
        for ev in self._events:
            method, p = ev["method"], ev.get("params", {})
            if method == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
                visit.console_errors.append(" ".join(str(a.get("value", a.get("description", ""))) for a in p.get("args", [])))
            elif method == "Runtime.exceptionThrown":
                d = p.get("exceptionDetails", {})
                visit.console_errors.append(d.get("exception", {}).get("description") or d.get("text", "exception"))
            elif method == "Log.entryAdded" and p.get("entry", {}).get("level") == "error":
                visit.console_errors.append(p["entry"].get("text", ""))
            elif method == "Network.requestWillBeSent":
                visit.requests.append(p.get("request", {}).get("url", ""))

    def screenshot(self, out: Path, full_page: bool = False) -> Path:
        """PNG of the current page (the viewport, or the whole page)."""
        params: dict[str, Any] = {"format": "png"}
        if full_page:
            params["captureBeyondViewport"] = True
            size = self.evaluate("[document.documentElement.scrollWidth, document.documentElement.scrollHeight]")
            params["clip"] = {"x": 0, "y": 0, "width": size[0], "height": size[1], "scale": 1}
        data = self.send("Page.captureScreenshot", **params)["data"]
        Path(out).write_bytes(base64.b64decode(data))
        return Path(out)

    def print_pdf(self, out: Path) -> Path:
        """Print the current page to PDF (A4, backgrounds on), as a user's "Save as PDF"."""
        data = self.send("Page.printToPDF", printBackground=True, paperWidth=8.27, paperHeight=11.69, preferCSSPageSize=True)["data"]
        Path(out).write_bytes(base64.b64decode(data))
        return Path(out)

    def close(self) -> None:
        """Stop Chromium (only the process this object started) and remove its profile."""
        try:
            if self._ws is not None:
                self._ws.close()
        except Exception:
            pass
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)
        shutil.rmtree(self.profile, ignore_errors=True)

    def __enter__(self) -> "Chromium":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def available(binary: str = CHROMIUM) -> bool:
    """True when the Chromium binary exists here."""
    return Path(binary).is_file()


__all__ = ["Chromium", "PageVisit", "BrowserError", "available", "CHROMIUM"]
