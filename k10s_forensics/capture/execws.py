"""Exec over WebSocket (the ``v5``/``v4.channel.k8s.io`` protocols kubectl speaks).

Each binary message starts with a channel byte: 1 stdout, 2 stderr, 3 the final
``metav1.Status`` (exit code), 255 close (v5). We send nothing on stdin. The command line
was checked against ``source.ALLOWED_COMMANDS`` before we get here.
"""

from __future__ import annotations

import json
import ssl
import time
from typing import Any

import websocket

from k10s_forensics.capture.retry import CallError

PROTOCOLS = "v5.channel.k8s.io,v4.channel.k8s.io"


def _connect(configuration: Any, url: str, headers: dict[str, str], timeout_s: float) -> websocket.WebSocket:
    ws_url = "wss://" + url[len("https://"):] if url.startswith("https://") else "ws://" + url[len("http://"):]
    if ws_url.startswith("wss://") and configuration.verify_ssl:
        sslopt: dict[str, Any] = {"cert_reqs": ssl.CERT_REQUIRED}
        if configuration.ssl_ca_cert:
            sslopt["ca_certs"] = configuration.ssl_ca_cert
        if configuration.assert_hostname is not None:
            sslopt["check_hostname"] = configuration.assert_hostname
    else:
        sslopt = {"cert_reqs": ssl.CERT_NONE}
    if configuration.cert_file:
        sslopt["certfile"] = configuration.cert_file
    if configuration.key_file:
        sslopt["keyfile"] = configuration.key_file
    if getattr(configuration, "tls_server_name", None):
        sslopt["server_hostname"] = configuration.tls_server_name
    header = [f"sec-websocket-protocol: {PROTOCOLS}"]
    if headers.get("authorization"):
        header.append(f"authorization: {headers['authorization']}")
    opts: dict[str, Any] = {"header": header, "timeout": timeout_s}
    if configuration.proxy:
        from kubernetes.stream.ws_client import websocket_proxycare

        opts = websocket_proxycare(opts, configuration, url, headers)
    ws = websocket.WebSocket(sslopt=sslopt, skip_utf8_validation=True)
    ws.connect(ws_url, **opts)
    return ws


def run_exec(configuration: Any, endpoint: Any, target: str, headers: dict[str, str], timeout_s: float, max_bytes: int):
    """Run the exec at ``target`` (API path and query); returns an ``ExecResult``.

    Uses a small built-in WebSocket reader (one buffered socket, no per-byte reads: exec is
    most of a capture's calls); through an HTTP proxy it falls back to websocket-client.

    Raises:
        CallError: the exec was refused (forbidden, pod/container not found) or never connected.
    """
    if configuration.proxy or endpoint is None:
        url = configuration.host.rstrip("/") + target
        return _run_exec_websocket_client(configuration, url, headers, timeout_s, max_bytes)
    from k10s_forensics.capture.fastws import exec_frames

    started = time.monotonic()
    messages, problem = exec_frames(endpoint, target, headers, timeout_s, max_bytes)
    return _result(messages, problem, started)


def _result(messages: list[bytes], problem: str | None, started: float):
    from k10s_forensics.capture.calls import ExecResult

    out: list[bytes] = []
    err: list[bytes] = []
    status_doc: dict[str, Any] | None = None
    for data in messages:
        if not data:
            continue
        channel, payload = data[0], data[1:]
        if channel == 1:
            out.append(payload)
        elif channel == 2:
            err.append(payload)
        elif channel == 3:
            try:
                status_doc = json.loads(payload.decode("utf-8", errors="replace"))
            except ValueError:
                status_doc = {"status": "Failure", "message": payload.decode("utf-8", errors="replace")}
    exit_code, error = _exit_status(status_doc)
    if problem is not None:
        error = problem if error is None else f"{problem}; {error}"
    return ExecResult(exit_code=exit_code, stdout=b"".join(out).decode("utf-8", errors="replace"),
                      stderr=b"".join(err).decode("utf-8", errors="replace"), error=error,
                      duration_ms=int((time.monotonic() - started) * 1000))


def _run_exec_websocket_client(configuration: Any, url: str, headers: dict[str, str], timeout_s: float, max_bytes: int):
    from k10s_forensics.capture.calls import ExecResult

    started = time.monotonic()
    try:
        ws = _connect(configuration, url, headers, timeout_s)
    except websocket.WebSocketBadStatusException as exc:
        raise _bad_status(exc) from None
    except (websocket.WebSocketTimeoutException, TimeoutError) as exc:
        raise CallError(f"timeout after {timeout_s:.0f}s starting exec", kind="timeout") from exc
    except (OSError, websocket.WebSocketException) as exc:
        raise CallError(f"exec connection failed: {exc.__class__.__name__}: {exc}", kind="connection") from exc
    out: list[bytes] = []
    err: list[bytes] = []
    status_doc: dict[str, Any] | None = None
    size = 0
    problem: str | None = None
    try:
        while True:
            left = timeout_s - (time.monotonic() - started)
            if left <= 0:
                problem = f"timeout: command still running after {timeout_s:.0f}s"
                break
            ws.settimeout(left)
            try:
                opcode, data = ws.recv_data()
            except websocket.WebSocketTimeoutException:
                problem = f"timeout: command still running after {timeout_s:.0f}s"
                break
            except websocket.WebSocketConnectionClosedException:
                break
            if opcode == websocket.ABNF.OPCODE_CLOSE:
                break
            if opcode not in (websocket.ABNF.OPCODE_BINARY, websocket.ABNF.OPCODE_TEXT) or not data:
                continue
            if isinstance(data, str):
                data = data.encode("utf-8")
            channel, payload = data[0], data[1:]
            if channel == 1:
                out.append(payload)
            elif channel == 2:
                err.append(payload)
            elif channel == 3:
                try:
                    status_doc = json.loads(bytes(payload).decode("utf-8", errors="replace"))
                except ValueError:
                    status_doc = {"status": "Failure", "message": bytes(payload).decode("utf-8", errors="replace")}
            size += len(payload)
            if size > max_bytes:
                problem = f"output cut at {max_bytes} bytes"
                break
    finally:
        try:
            ws.close(timeout=1)
        except Exception:  # closing a broken socket: nothing left to save
            pass
    duration_ms = int((time.monotonic() - started) * 1000)
    stdout = b"".join(out).decode("utf-8", errors="replace")
    stderr = b"".join(err).decode("utf-8", errors="replace")
    exit_code, error = _exit_status(status_doc)
    if problem is not None:
        error = problem if error is None else f"{problem}; {error}"
    return ExecResult(exit_code=exit_code, stdout=stdout, stderr=stderr, error=error, duration_ms=duration_ms)


def _exit_status(doc: dict[str, Any] | None) -> tuple[int | None, str | None]:
    """(exit code, error) from the status message; exit code None when the command never ran."""
    if doc is None:
        return None, "exec ended without an exit status"
    if doc.get("status") == "Success":
        return 0, None
    for cause in (doc.get("details") or {}).get("causes") or []:
        if cause.get("reason") == "ExitCode":
            try:
                return int(cause.get("message")), None
            except (TypeError, ValueError):
                break
    return None, str(doc.get("message") or doc.get("reason") or "exec failed")


def _bad_status(exc: websocket.WebSocketBadStatusException) -> CallError:
    status = getattr(exc, "status_code", None)
    body = getattr(exc, "resp_body", None) or b""
    message = body.decode("utf-8", errors="replace").strip()[:300] if isinstance(body, bytes) else str(body)
    try:
        doc = json.loads(message)
        message = doc.get("message") or message
    except ValueError:
        pass
    kind = {401: "unauthorized", 403: "forbidden", 404: "not-found", 429: "throttled"}.get(status or 0, "server" if (status or 0) >= 500 else "http")
    label = {"forbidden": "forbidden", "not-found": "not found"}.get(kind, f"HTTP {status}")
    headers = getattr(exc, "resp_headers", None) or {}
    from k10s_forensics.capture.retry import parse_retry_after

    retry_after = parse_retry_after(headers.get("retry-after") or headers.get("Retry-After"))
    return CallError(f"{label}: {message or 'exec refused'}", status=status, kind=kind, retry_after_s=retry_after)
