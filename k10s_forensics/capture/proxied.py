"""GETs through the kubernetes client's urllib3 pool: capture's transport behind an HTTP proxy.

``make_transport`` picks it or the raw keep-alive transport (``capture.transport``).
"""

from __future__ import annotations

from typing import Any, Callable

from k10s_forensics.capture.transport import RawTransport, Response, TransportError


class Urllib3Transport:
    """The kubernetes client's urllib3 pool (used behind an HTTP proxy)."""

    def __init__(self, configuration: Any, pool_size: int):
        from kubernetes import client

        configuration.connection_pool_maxsize = pool_size
        self._pool = client.ApiClient(configuration).rest_client.pool_manager
        self._host = configuration.host.rstrip("/")

    def request(self, method: str, target: str, headers: dict[str, str], timeout_s: float, limit_bytes: int,
                stopped: Callable[[], bool] | None = None) -> Response:
        import urllib3

        if method != "GET":
            raise ValueError("capture only reads: GET is the only method it sends")
        try:
            resp = self._pool.request("GET", self._host + target, headers=headers, preload_content=False, retries=False,
                                      redirect=False, timeout=urllib3.Timeout(connect=timeout_s, read=timeout_s))
        except urllib3.exceptions.TimeoutError as exc:
            raise TransportError(f"timeout after {timeout_s:.0f}s", "timeout") from exc
        except urllib3.exceptions.HTTPError as exc:
            raise TransportError(exc.__class__.__name__, "connection") from exc
        chunks: list[bytes] = []
        total, cut = 0, False
        try:
            for chunk in resp.stream(1 << 16, decode_content=True):
                chunks.append(chunk)
                total += len(chunk)
                if total >= limit_bytes or (stopped is not None and stopped()):
                    cut = total >= limit_bytes
                    break
        except urllib3.exceptions.HTTPError as exc:
            raise TransportError(f"reading the answer failed: {exc.__class__.__name__}", "timeout") from exc
        finally:
            resp.release_conn()
        return Response(resp.status, {k.lower(): v for k, v in resp.headers.items()}, b"".join(chunks)[:limit_bytes], cut)

    def close(self) -> None:
        self._pool.clear()


def make_transport(configuration: Any, pool_size: int) -> Any:
    """The raw keep-alive transport, or urllib3 when the configuration names an HTTP proxy."""
    if getattr(configuration, "proxy", None):
        return Urllib3Transport(configuration, pool_size)
    return RawTransport(configuration)


__all__ = ["Urllib3Transport", "make_transport"]
