"""HTTP GETs to the API server: a lean keep-alive client, one connection per worker thread.

Capture makes thousands of small calls; urllib3's request machinery costs more CPU per call
than the call itself on a busy machine. ``RawTransport`` speaks the small part of HTTP/1.1 a
Kubernetes API server answers with (``Content-Length`` or chunked bodies, optional gzip) over
one kept-alive socket per thread, with the connection settings of the kubernetes client's
configuration (host, TLS verification, CA, client certificate, SNI name). Behind an HTTP
proxy (``configuration.proxy``) ``proxied.Urllib3Transport`` is used instead. Both only send GET.
"""

from __future__ import annotations

import socket
import ssl
import threading
import zlib
from dataclasses import dataclass, field
from typing import Any, Callable, NamedTuple
from urllib.parse import urlsplit


class Response(NamedTuple):
    status: int
    headers: dict[str, str]
    body: bytes
    cut: bool


class TransportError(Exception):
    """The call got no complete answer; ``kind`` is ``timeout`` or ``connection``."""

    def __init__(self, message: str, kind: str):
        super().__init__(message)
        self.kind = kind


def tls_context(configuration: Any) -> ssl.SSLContext:
    """The TLS settings of a kubernetes client ``Configuration`` as an ``SSLContext``."""
    if configuration.verify_ssl:
        ctx = ssl.create_default_context(cafile=configuration.ssl_ca_cert or None)
        if configuration.assert_hostname is False:
            ctx.check_hostname = False
    else:
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        ctx.check_hostname = False
        ctx.verify_mode = ssl.CERT_NONE
    if configuration.cert_file:
        ctx.load_cert_chain(configuration.cert_file, configuration.key_file)
    return ctx


@dataclass
class Endpoint:
    """Where the API server is and how to open a socket to it (TLS context built once)."""

    host: str
    port: int
    tls: bool
    host_header: str
    server_name: str
    ssl_context: ssl.SSLContext | None = None
    base_path: str = ""
    _addr: Any = field(default=None, repr=False)

    @classmethod
    def from_configuration(cls, configuration: Any) -> "Endpoint":
        parts = urlsplit(configuration.host)
        tls = parts.scheme == "https"
        host = parts.hostname or "localhost"
        port = parts.port or (443 if tls else 80)
        named = f"[{host}]" if ":" in host else host  # an IPv6 address in the Host header
        return cls(host=host, port=port, tls=tls, host_header=named if parts.port is None else f"{named}:{parts.port}",
                   server_name=getattr(configuration, "tls_server_name", None) or host,
                   ssl_context=tls_context(configuration) if tls else None, base_path=parts.path.rstrip("/"))

    def connect(self, timeout_s: float) -> socket.socket:
        if self._addr is None:
            info = socket.getaddrinfo(self.host, self.port, type=socket.SOCK_STREAM)
            self._addr = [(fam, addr) for fam, _, _, _, addr in info]
        error: OSError | None = None
        for family, addr in self._addr:
            sock = socket.socket(family, socket.SOCK_STREAM)
            try:
                sock.settimeout(timeout_s)
                sock.connect(addr)
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                if self.ssl_context is not None:
                    sock = self.ssl_context.wrap_socket(sock, server_hostname=self.server_name)
                return sock
            except OSError as exc:
                sock.close()
                error = exc
        raise error or OSError(f"cannot resolve {self.host}")


class BufferedSocket:
    """A socket with a read buffer; every wait is bounded by ``timeout_s`` (per read)."""

    def __init__(self, sock: socket.socket, timeout_s: float, stopped: Callable[[], bool] | None = None):
        self.sock = sock
        self.buf = bytearray()
        self.timeout_s = timeout_s
        self.stopped = stopped
        self.eof = False

    def fill(self) -> None:
        if self.stopped is not None and self.stopped():
            raise TimeoutError("capture stopped")
        self.sock.settimeout(self.timeout_s)
        chunk = self.sock.recv(1 << 16)
        if not chunk:
            self.eof = True
            raise ConnectionError("connection closed by the server")
        self.buf += chunk

    def take(self, n: int) -> bytes:
        while len(self.buf) < n:
            self.fill()
        data = bytes(self.buf[:n])
        del self.buf[:n]
        return data

    def line(self, limit: int = 1 << 16) -> bytes:
        while True:
            i = self.buf.find(b"\r\n")
            if i >= 0:
                data = bytes(self.buf[:i])
                del self.buf[: i + 2]
                return data
            if len(self.buf) > limit:
                raise ConnectionError("header line too long")
            self.fill()

    def head(self) -> tuple[int, dict[str, str]]:
        """Status code and lower-cased headers of the next response (1xx skipped)."""
        while True:
            while b"\r\n\r\n" not in self.buf:
                if len(self.buf) > 1 << 20:
                    raise ConnectionError("response head too long")
                self.fill()
            raw, _, rest = bytes(self.buf).partition(b"\r\n\r\n")
            self.buf = bytearray(rest)
            status_line, *lines = raw.decode("latin-1").split("\r\n")
            try:
                status = int(status_line.split(None, 2)[1])
            except (IndexError, ValueError):
                raise ConnectionError(f"not an HTTP answer: {status_line[:60]!r}") from None
            headers: dict[str, str] = {}
            for line in lines:
                key, _, value = line.partition(":")
                headers[key.strip().lower()] = value.strip()
            if status >= 200 or status == 101:
                return status, headers


def read_body(conn: BufferedSocket, status: int, headers: dict[str, str], limit_bytes: int) -> tuple[bytes, bool, bool]:
    """(body, cut at limit_bytes, connection reusable) of the response whose head was read.

    ``limit_bytes`` bounds the decoded body; a cut body leaves the connection unusable.
    """
    if status in (204, 304) or 100 <= status < 200:
        return b"", False, True
    encoded = headers.get("content-encoding", "").lower() in ("gzip", "deflate")
    cap = limit_bytes * 16 if encoded else limit_bytes  # compressed bytes read for limit_bytes of text
    cut, reusable = False, True
    if "chunked" in headers.get("transfer-encoding", "").lower():
        parts, total = [], 0
        while True:
            size = int(conn.line().split(b";", 1)[0].strip() or b"0", 16)
            if size == 0:
                while conn.line():  # trailers
                    pass
                break
            parts.append(conn.take(size))
            conn.take(2)
            total += size
            if total > cap:
                cut, reusable = True, False
                break
        body = b"".join(parts)
    elif "content-length" in headers:
        length = int(headers["content-length"])
        if length > cap:
            cut, reusable = True, False
        body = conn.take(min(length, cap))
    else:  # until the server closes
        try:
            while len(conn.buf) <= cap:
                conn.fill()
        except ConnectionError:
            pass
        body, cut, reusable = bytes(conn.buf), len(conn.buf) > cap, False
    if encoded:
        body = zlib.decompressobj(zlib.MAX_WBITS | 32).decompress(body, limit_bytes + 1)
    cut = cut or len(body) > limit_bytes
    if headers.get("connection", "").lower() == "close":
        reusable = False
    return body[:limit_bytes], cut, reusable


class RawTransport:
    """Keep-alive GETs over one socket per thread (``request`` only accepts GET)."""

    def __init__(self, configuration: Any):
        self.endpoint = Endpoint.from_configuration(configuration)
        self._local = threading.local()
        self._all: list[socket.socket] = []
        self._lock = threading.Lock()

    def request(self, method: str, target: str, headers: dict[str, str], timeout_s: float, limit_bytes: int,
                stopped: Callable[[], bool] | None = None) -> Response:
        if method != "GET":
            raise ValueError("capture only reads: GET is the only method it sends")
        lines = [f"GET {self.endpoint.base_path}{target} HTTP/1.1", f"Host: {self.endpoint.host_header}"]
        lines += [f"{k}: {v}" for k, v in headers.items()]
        data = ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")
        for attempt in (1, 2):
            conn = getattr(self._local, "conn", None)
            reused = conn is not None
            try:
                if conn is None:
                    conn = self._open(timeout_s)
                conn.timeout_s, conn.stopped = timeout_s, stopped
                conn.sock.settimeout(timeout_s)
                conn.sock.sendall(data)
                status, head = conn.head()
                body, cut, reusable = read_body(conn, status, head, limit_bytes)
            except (socket.timeout, TimeoutError) as exc:
                self._drop()
                raise TransportError(f"timeout after {timeout_s:.0f}s", "timeout") from exc
            except (OSError, ConnectionError, ValueError) as exc:
                self._drop()
                # A kept-alive socket the server closed meanwhile: one fresh try (GET is idempotent).
                if reused and attempt == 1 and (conn.eof or isinstance(exc, (BrokenPipeError, ConnectionResetError))):
                    continue
                raise TransportError(f"{exc.__class__.__name__}: {exc}", "connection") from exc
            if not reusable:
                self._drop()
            return Response(status, head, body, cut)
        raise TransportError("connection closed", "connection")  # pragma: no cover - loop always returns or raises

    def _open(self, timeout_s: float) -> BufferedSocket:
        sock = self.endpoint.connect(timeout_s)
        conn = BufferedSocket(sock, timeout_s)
        self._local.conn = conn
        with self._lock:
            self._all.append(sock)
        return conn

    def _drop(self) -> None:
        conn = getattr(self._local, "conn", None)
        self._local.conn = None
        if conn is not None:
            with self._lock:
                if conn.sock in self._all:
                    self._all.remove(conn.sock)
            conn.sock.close()

    def close(self) -> None:
        with self._lock:
            socks, self._all = self._all, []
        for sock in socks:
            try:
                sock.close()
            except OSError:
                pass


__all__ = ["BufferedSocket", "Endpoint", "RawTransport", "Response", "TransportError", "read_body",
           "tls_context"]
