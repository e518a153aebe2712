"""GETs to a Prometheus HTTP API: a direct address (with auth and TLS) or an API-server service-proxy path.

``PromAccess`` holds what the ``--prometheus-*`` flags give: a bearer token file (re-read
per request, so a rotated token is picked up), basic auth (user + password file), extra
headers (``X-Scope-OrgID: tenant`` for Mimir/Cortex), a CA file or ``insecure``. Through
the service proxy (``URL`` starting with ``/``) the API server authenticates with the
kubeconfig's credentials and these settings do not apply.

Every request has a timeout (``--timeout``) and is retried on 429/502/503/504, timeouts
and dropped connections (honouring ``Retry-After``); a 4xx answer is returned as is (the
body holds Prometheus' ``error``).
"""

from __future__ import annotations

import base64
import ssl
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlencode

from k10s_forensics.capture.retry import CallError, call_with_retry, parse_retry_after
from k10s_forensics.errors import CollectorError

RETRIED = (429, 502, 503, 504)


@dataclass(frozen=True)
class PromAccess:
    """Credentials and TLS settings for a direct Prometheus address."""

    token_file: str | None = None
    user: str | None = None
    password_file: str | None = None
    headers: tuple[tuple[str, str], ...] = ()
    ca_file: str | None = None
    insecure: bool = False

    @staticmethod
    def parse_header(text: str) -> tuple[str, str]:
        """``'Name: value'`` -> (name, value).

        Raises:
            CollectorError: no colon or an empty name.
        """
        name, sep, value = text.partition(":")
        if not sep or not name.strip() or any(c in name for c in " \r\n") or any(c in value for c in "\r\n"):
            raise CollectorError(f"--prometheus-header wants 'Name: value', got {text!r}")
        return name.strip(), value.strip()

    def request_headers(self) -> dict[str, str]:
        """Headers for one request (the token and password files are read now).

        Raises:
            CollectorError: a credentials file cannot be read.
        """
        out = {"Accept": "application/json"}
        if self.token_file:
            out["Authorization"] = f"Bearer {_read_secret(self.token_file, '--prometheus-token-file')}"
        elif self.user is not None:
            password = _read_secret(self.password_file, "--prometheus-password-file") if self.password_file else ""
            out["Authorization"] = "Basic " + base64.b64encode(f"{self.user}:{password}".encode()).decode()
        out.update(dict(self.headers))
        return out

    def ssl_context(self) -> ssl.SSLContext:
        ctx = ssl.create_default_context(cafile=self.ca_file) if self.ca_file else ssl.create_default_context()
        if self.insecure:
            ctx.check_hostname = False
            ctx.verify_mode = ssl.CERT_NONE
        return ctx


def _read_secret(path: str | None, flag: str) -> str:
    try:
        return Path(path or "").read_text(encoding="utf-8").strip()
    except OSError as exc:
        raise CollectorError(f"{flag}: cannot read {path}: {exc.strerror or exc}") from None


@dataclass
class PromStats:
    requests: int = 0
    bytes: int = 0
    seconds: float = 0.0
    server_seconds: float = 0.0  # Prometheus' own evalTotalTime+execQueueTime, when it reports stats
    lock: object = field(default=None, repr=False)


class PromClient:
    """GET ``/api/v1/...`` from one Prometheus; returns (status, body, url)."""

    def __init__(self, base: str, ctx, access: PromAccess | None = None):
        import threading

        self.base = base.rstrip("/")
        self.ctx = ctx
        self.access = access or PromAccess()
        self.proxied = base.startswith("/")
        self._ssl = None if self.proxied or not self.base.startswith("https") else self.access.ssl_context()
        self.stats = PromStats(lock=threading.Lock())

    def url(self, path: str, params: dict[str, str] | list[tuple[str, str]]) -> str:
        return f"{self.base}{path}?{urlencode(params)}"

    def get(self, path: str, params: dict[str, str] | list[tuple[str, str]]) -> tuple[int, str, str]:
        """One API call.

        Raises:
            CallError: unreachable, timed out, or still 429/5xx after the retries.
        """
        url = self.url(path, params)
        started = time.monotonic()
        if self.proxied:
            status, body = self.ctx.source.proxy_get(url)
        else:
            status, body = call_with_retry(lambda: self._once(url), self.ctx.source.retry, self.ctx.deadline)
        with self.stats.lock:
            self.stats.requests += 1
            self.stats.bytes += len(body)
            self.stats.seconds += time.monotonic() - started
        return status, body, url

    def _once(self, url: str) -> tuple[int, str]:
        timeout = self.ctx.deadline.bound(self.ctx.options.timeout_s)
        try:
            headers = self.access.request_headers()
        except CollectorError as exc:
            raise CallError(str(exc), kind="config") from None
        request = urllib.request.Request(url, method="GET", headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=timeout, context=self._ssl) as resp:
                return resp.status, resp.read().decode("utf-8", errors="replace")
        except urllib.error.HTTPError as exc:
            body = exc.read().decode("utf-8", errors="replace")
            if exc.code in RETRIED:
                raise CallError(f"HTTP {exc.code}", status=exc.code, kind="server",
                                retry_after_s=parse_retry_after(exc.headers.get("Retry-After"))) from None
            return exc.code, body
        except (urllib.error.URLError, TimeoutError, OSError) as exc:
            reason = getattr(exc, "reason", exc)
            if isinstance(reason, ssl.SSLCertVerificationError):  # not retried: it will not get better
                raise CallError(f"TLS verification of {self.base} failed: {reason.verify_message or reason}"
                                " (give --prometheus-ca-file, or --prometheus-insecure)", kind="tls") from None
            raise CallError(f"cannot reach {self.base}: {reason}", kind="connection") from None


__all__ = ["PromAccess", "PromClient", "PromStats"]
