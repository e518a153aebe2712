"""``pods/{pod}/exec``: replay recorded commands over the Kubernetes websocket exec protocol.

The protocol (``v5.channel.k8s.io`` / ``v4.channel.k8s.io``): an RFC 6455 websocket whose
binary messages start with a channel byte: 1 stdout, 2 stderr, 3 the final Status JSON.
Status ``Success``, or ``Failure`` with reason ``NonZeroExitCode`` and
``details.causes[{reason: ExitCode, message: "<code>"}]`` (kubectl exits with that code),
or ``InternalError`` when the command never ran. Then a close frame.

Replay: (namespace, pod, container, command joined with single spaces) selects the
recordings in raw/exec (oldest first); call i returns recording i, after the last the last
again. A command the bundle does not hold answers exit code 126 with
``command not captured in this bundle`` on stderr.
"""

from __future__ import annotations

import base64
import hashlib
import json
import socket
import struct
import time
from dataclasses import dataclass
from typing import Any, BinaryIO

from k10s_forensics.serve.logs import default_container, pod_containers
from k10s_forensics.serve.store import Store

WS_GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
SUBPROTOCOLS = ("v5.channel.k8s.io", "v4.channel.k8s.io")
NOT_CAPTURED_EXIT = 126
NOT_CAPTURED_MESSAGE = "command not captured in this bundle"
CHUNK = 32 * 1024
STDOUT, STDERR, ERROR = 1, 2, 3
#: Seconds between the upgrade answer and the first frame. A kubelet's first byte comes after the
#: command has started; client-go's websocket executor (kubectl >= 1.30) registers its stream readers
#: after the upgrade, concurrently with the goroutine that reads frames, and drops a frame whose
#: stream is not registered yet ("Unknown stream id 1, discarding message": an empty stdout).
FIRST_FRAME_DELAY_S = 0.1
#: k10s's own exec client (capture and watch) reads every frame into its channel's buffer as it comes:
#: no pause for it (a capture makes thousands of execs).
OWN_CLIENT_AGENT = "k10s-capture"


@dataclass
class ExecResult:
    """What the replayed command writes and how it ends."""

    stdout: str
    stderr: str
    status: dict[str, Any]


def success_status() -> dict[str, Any]:
    return {"metadata": {}, "status": "Success"}


def exit_status(code: int) -> dict[str, Any]:
    return {
        "metadata": {},
        "status": "Failure",
        "message": f"command terminated with non-zero exit code: exit status {code}",
        "reason": "NonZeroExitCode",
        "details": {"causes": [{"reason": "ExitCode", "message": str(code)}]},
    }


def internal_error_status(error: str) -> dict[str, Any]:
    return {
        "metadata": {},
        "status": "Failure",
        "message": f"Internal error occurred: {error}",
        "reason": "InternalError",
        "details": {"causes": [{"message": error}]},
        "code": 500,
    }


def resolve_container(store: Store, namespace: str, pod: str, requested: str | None) -> tuple[str | None, str | None]:
    """(container, error message) for an exec without or with ``container=``."""
    if requested:
        return requested, None
    obj = store.pod(namespace, pod)
    named = default_container(obj.body if obj else None)
    if named:
        return named, None
    names = pod_containers(obj.body if obj else None) or store.exec_containers(namespace, pod)
    if len(names) == 1:
        return names[0], None
    return None, f"a container name must be specified for pod {pod}, choose one of: [{' '.join(names)}]"


def replay(store: Store, namespace: str, pod: str, container: str, argv: list[str]) -> ExecResult:
    """The next recorded answer for this command (see the module doc for the cursor)."""
    command = " ".join(" ".join(argv).split())
    recordings = store.exec_recordings(namespace, pod, container, command)
    if not recordings:
        return ExecResult("", NOT_CAPTURED_MESSAGE + "\n", exit_status(NOT_CAPTURED_EXIT))
    row = store.exec_cursors.take((namespace, pod, container, command), recordings)
    stdout, stderr = row.get("stdout") or "", row.get("stderr") or ""
    code, error = row.get("exit_code"), row.get("error")
    if code is None:
        return ExecResult(stdout, stderr, internal_error_status(error or "command did not run"))
    if code != 0:
        return ExecResult(stdout, stderr, exit_status(int(code)))
    return ExecResult(stdout, stderr, success_status())


def first_frame_delay(headers: Any) -> float:
    """The pause before the first frame for the client that sent ``headers`` (see FIRST_FRAME_DELAY_S)."""
    agent = headers.get("User-Agent") or ""
    return 0.0 if agent.startswith(OWN_CLIENT_AGENT) else FIRST_FRAME_DELAY_S


def accept_key(key: str) -> str:
    return base64.b64encode(hashlib.sha1((key + WS_GUID).encode()).digest()).decode()


def choose_subprotocol(header: str | None) -> str | None:
    offered = [p.strip() for p in (header or "").split(",") if p.strip()]
    for proto in SUBPROTOCOLS:
        if proto in offered:
            return proto
    return None


def encode_frame(opcode: int, payload: bytes) -> bytes:
    """A final, unmasked server frame."""
    head = bytes([0x80 | opcode])
    n = len(payload)
    if n < 126:
        head += bytes([n])
    elif n < 1 << 16:
        head += bytes([126]) + struct.pack("!H", n)
    else:
        head += bytes([127]) + struct.pack("!Q", n)
    return head + payload


def read_frame(stream: BinaryIO) -> tuple[int, bytes] | None:
    """One client frame (opcode, unmasked payload), or None at end of stream."""
    head = stream.read(2)
    if len(head) < 2:
        return None
    opcode, length, masked = head[0] & 0x0F, head[1] & 0x7F, head[1] & 0x80
    if length == 126:
        length = struct.unpack("!H", stream.read(2))[0]
    elif length == 127:
        length = struct.unpack("!Q", stream.read(8))[0]
    mask = stream.read(4) if masked else b""
    payload = stream.read(length)
    if masked:
        payload = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
    return opcode, payload


def channel_frames(channel: int, text: str) -> list[bytes]:
    data = text.encode("utf-8")
    return [encode_frame(0x2, bytes([channel]) + data[i : i + CHUNK]) for i in range(0, len(data), CHUNK)]


def stream_result(
    handler: Any, result: ExecResult, protocol: str, want_stdout: bool, want_stderr: bool,
    first_frame_delay_s: float = FIRST_FRAME_DELAY_S,
) -> None:
    """Complete the upgrade on ``handler`` (a BaseHTTPRequestHandler) and send the result,
    ``first_frame_delay_s`` after the upgrade answer (see FIRST_FRAME_DELAY_S)."""
    handler.send_response(101, "Switching Protocols")
    handler.send_header("Upgrade", "websocket")
    handler.send_header("Connection", "Upgrade")
    handler.send_header("Sec-WebSocket-Accept", accept_key(handler.headers.get("Sec-WebSocket-Key", "")))
    handler.send_header("Sec-WebSocket-Protocol", protocol)
    frames: list[bytes] = []
    if want_stdout:
        frames += channel_frames(STDOUT, result.stdout)
    if want_stderr:
        frames += channel_frames(STDERR, result.stderr)
    frames.append(encode_frame(0x2, bytes([ERROR]) + json.dumps(result.status).encode()))
    frames.append(encode_frame(0x8, struct.pack("!H", 1000)))
    if first_frame_delay_s <= 0 and hasattr(handler, "end_headers_with"):  # the upgrade answer and frames in one write
        handler.end_headers_with(b"".join(frames))
    else:
        handler.end_headers()
        handler.wfile.flush()
        time.sleep(first_frame_delay_s)
        handler.wfile.write(b"".join(frames))
    handler.wfile.flush()
    _await_close(handler)
    handler.close_connection = True


def _await_close(handler: Any, timeout_s: float = 2.0) -> None:
    """Read client frames until its close frame (answering pings), at most ``timeout_s``."""
    try:
        handler.connection.settimeout(timeout_s)
        while True:
            frame = read_frame(handler.rfile)
            if frame is None or frame[0] == 0x8:
                return
            if frame[0] == 0x9:
                handler.wfile.write(encode_frame(0xA, frame[1]))
    except (OSError, socket.timeout, struct.error):
        return


__all__ = [
    "FIRST_FRAME_DELAY_S",
    "ExecResult",
    "NOT_CAPTURED_EXIT",
    "NOT_CAPTURED_MESSAGE",
    "SUBPROTOCOLS",
    "accept_key",
    "choose_subprotocol",
    "encode_frame",
    "exit_status",
    "first_frame_delay",
    "internal_error_status",
    "read_frame",
    "replay",
    "resolve_container",
    "stream_result",
    "success_status",
]
