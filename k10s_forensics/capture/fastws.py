"""A minimal WebSocket client for exec: one HTTP upgrade, then read server frames.

Server frames are unmasked (RFC 6455 §5.1); we never send data frames (no stdin), only a
masked close at the end. Reads are buffered (64 KiB), unlike websocket-client's handshake
which reads a byte at a time: with thousands of execs per capture that CPU matters.
"""

from __future__ import annotations

import base64
import os
import socket
import ssl
import struct
import time

from k10s_forensics.capture.retry import CallError
from k10s_forensics.capture.transport import Endpoint

PROTOCOLS = "v5.channel.k8s.io,v4.channel.k8s.io"


class _Conn:
    def __init__(self, sock: socket.socket, deadline: float):
        self.sock = sock
        self.buf = bytearray()
        self.deadline = deadline

    def fill(self) -> None:
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError
        self.sock.settimeout(left)
        chunk = self.sock.recv(1 << 16)
        if not chunk:
            raise ConnectionError("closed")
        self.buf += chunk

    def take(self, n: int) -> bytes:
        while len(self.buf) < n:
            self.fill()
        data = bytes(self.buf[:n])
        del self.buf[:n]
        return data


def exec_frames(endpoint: Endpoint, target: str, headers: dict[str, str], timeout_s: float, max_bytes: int) -> tuple[list[bytes], str | None]:
    """The data messages of one exec session at ``target`` (path and query) and a note when
    it was cut short (timeout, size).

    Raises:
        CallError: the upgrade was refused (HTTP status) or the connection failed.
    """
    deadline = time.monotonic() + timeout_s
    host, target = endpoint.host_header, endpoint.base_path + target
    try:
        sock = endpoint.connect(timeout_s)
    except (socket.timeout, TimeoutError) as exc:
        raise CallError(f"timeout after {timeout_s:.0f}s starting exec", kind="timeout") from exc
    except (OSError, ssl.SSLError) as exc:
        raise CallError(f"exec connection failed: {exc.__class__.__name__}: {exc}", kind="connection") from exc
    conn = _Conn(sock, deadline)
    try:
        key = base64.b64encode(os.urandom(16)).decode()
        lines = [f"GET {target} HTTP/1.1", f"Host: {host}", "Upgrade: websocket", "Connection: Upgrade",
                 f"Sec-WebSocket-Key: {key}", "Sec-WebSocket-Version: 13", f"Sec-WebSocket-Protocol: {PROTOCOLS}",
                 f"User-Agent: {headers.get('User-Agent', 'k10s-capture')}"]
        if headers.get("authorization"):
            lines.append(f"Authorization: {headers['authorization']}")
        try:
            sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
            _handshake(conn)
        except (socket.timeout, TimeoutError) as exc:
            raise CallError(f"timeout after {timeout_s:.0f}s starting exec", kind="timeout") from exc
        except (OSError, ConnectionError) as exc:
            raise CallError(f"exec connection failed: {exc.__class__.__name__}: {exc}", kind="connection") from exc
        return _read_messages(conn, timeout_s, max_bytes)
    finally:
        try:
            sock.sendall(b"\x88\x82" + os.urandom(4) + b"\x00\x00")  # masked close; contents don't matter
        except OSError:
            pass
        sock.close()


def _handshake(conn: _Conn) -> None:
    while b"\r\n\r\n" not in conn.buf:
        conn.fill()
    head, _, rest = bytes(conn.buf).partition(b"\r\n\r\n")
    conn.buf = bytearray(rest)
    status_line, *header_lines = head.decode("latin-1").split("\r\n")
    try:
        status = int(status_line.split()[1])
    except (IndexError, ValueError):
        raise CallError(f"exec: bad answer {status_line[:80]!r}", kind="bad-answer") from None
    if status == 101:
        return
    fields = {k.strip().lower(): v.strip() for k, _, v in (h.partition(":") for h in header_lines)}
    length = int(fields.get("content-length") or 0)
    body = b""
    try:
        body = conn.take(min(length, 1 << 16)) if length else b""
    except (OSError, ConnectionError, TimeoutError):
        pass
    from k10s_forensics.capture.calls import http_error as _http_error
    from k10s_forensics.capture.retry import parse_retry_after

    raise _http_error(status, body.decode("utf-8", errors="replace"), "exec", parse_retry_after(fields.get("retry-after")))


def _read_messages(conn: _Conn, timeout_s: float, max_bytes: int) -> tuple[list[bytes], str | None]:
    messages: list[bytes] = []
    current = bytearray()
    size = 0
    try:
        while True:
            b0, b1 = conn.take(2)
            opcode, length = b0 & 0x0F, b1 & 0x7F
            if length == 126:
                length = struct.unpack("!H", conn.take(2))[0]
            elif length == 127:
                length = struct.unpack("!Q", conn.take(8))[0]
            mask = conn.take(4) if b1 & 0x80 else None
            payload = conn.take(length)
            if mask:
                payload = bytes(c ^ mask[i % 4] for i, c in enumerate(payload))
            if opcode == 0x8:
                break
            if opcode in (0x9, 0xA):
                continue  # ping/pong: the exec stream never needs an answer from us
            current += payload
            size += length
            if b0 & 0x80:
                messages.append(bytes(current))
                current = bytearray()
            if size > max_bytes:
                return messages, f"output cut at {max_bytes} bytes"
    except (socket.timeout, TimeoutError):
        return messages, f"timeout: command still running after {timeout_s:.0f}s"
    except (ConnectionError, OSError):
        pass  # the server closed without a close frame: what arrived is what there is
    if current:
        messages.append(bytes(current))
    return messages, None
