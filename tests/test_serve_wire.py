"""serve's HTTP plumbing: query parsing, headers, reused threads and where the latency is spent."""

from __future__ import annotations

import socket
import threading
import time
from urllib.parse import parse_qs

import pytest

from k10s_forensics.serve import Faults, start_server
from k10s_forensics.serve.wire import Headers, parse_query


@pytest.mark.parametrize("query", ["", "a=1&b=2&a=3", "command=nvidia-smi&command=-q&command=-x&container=c", "flag&x=",
                                   "=v&&k=v", "labelSelector=app%3Dx&limit=500", "q=a+b", "k=%E2%9C%93"])
def test_parse_query_is_parse_qs(query):
    assert parse_query(query) == parse_qs(query, keep_blank_values=True)


def test_headers_ignore_case():
    h = Headers({"upgrade": "websocket"})
    assert h.get("Upgrade") == h["UPGRADE"] == "websocket" and "Upgrade" in h and h.get("Accept", "x") == "x"


@pytest.fixture(scope="module")
def slow_server(tmp_path_factory):
    from k10s_forensics.simulate import simulate

    bundle = tmp_path_factory.mktemp("wire") / "b"
    simulate("healthy", bundle, seed=2, nodes=1, gpus_per_node=1, minutes=1, interval_s=60)
    with start_server(bundle, faults=Faults(latency_ms=200)) as srv:
        yield srv


def _exchange(sock: socket.socket, path: str) -> tuple[bytes, bytes]:
    """(head, body) of one GET on ``sock``."""
    sock.sendall(f"GET {path} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
    data = b""
    while b"\r\n\r\n" not in data:
        data += sock.recv(65536)
    head, _, body = data.partition(b"\r\n\r\n")
    length = int([l.split(b":")[1] for l in head.split(b"\r\n") if l.lower().startswith(b"content-length")][0])
    while len(body) < length:
        body += sock.recv(65536)
    return head, body


def _get(sock: socket.socket, path: str) -> bytes:
    return _exchange(sock, path)[0]


def test_every_request_waits_the_latency_once_and_requests_overlap(slow_server):
    with socket.create_connection(("127.0.0.1", slow_server.port)) as sock:
        for _ in range(2):  # the first request waits in the accept queue, the next in its thread
            started = time.monotonic()
            assert _get(sock, "/api/v1/nodes").startswith(b"HTTP/1.1 200")
            assert 0.2 <= time.monotonic() - started < 0.4
    walls: list[float] = []

    def one() -> None:
        started = time.monotonic()
        with socket.create_connection(("127.0.0.1", slow_server.port)) as s:
            _get(s, "/version")
        walls.append(time.monotonic() - started)

    started = time.monotonic()
    threads = [threading.Thread(target=one) for _ in range(20)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(walls) == 20 and min(walls) >= 0.2
    assert time.monotonic() - started < 1.0  # 20 x 200 ms overlap


def test_exec_frames_follow_the_upgrade_after_a_pause(slow_server):
    """client-go registers its stream readers after the upgrade and drops frames of a stream it has not
    registered yet: the first frame must not ride in the same write as the 101 answer."""
    import json

    from k10s_forensics.serve.exec import FIRST_FRAME_DELAY_S

    with socket.create_connection(("127.0.0.1", slow_server.port)) as sock:
        pods = json.loads(_exchange(sock, "/api/v1/pods")[1])["items"]
        meta = pods[0]["metadata"]
    with socket.create_connection(("127.0.0.1", slow_server.port)) as sock:
        sock.sendall((f"POST /api/v1/namespaces/{meta['namespace']}/pods/{meta['name']}/exec?command=true&stderr=true "
                      "HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\n"
                      "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Protocol: v5.channel.k8s.io\r\n\r\n").encode())
        data = b""
        while b"\r\n\r\n" not in data:
            data += sock.recv(65536)
        upgraded = time.monotonic()
        head, _, rest = data.partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 101") and rest == b""
        first = sock.recv(65536)
        assert time.monotonic() - upgraded >= FIRST_FRAME_DELAY_S * 0.9
        assert first[0] == 0x82 and first[2] == 2  # a binary frame on stderr: "command not captured"



def test_only_k10s_own_exec_client_gets_its_frames_at_once():
    from k10s_forensics.serve.exec import FIRST_FRAME_DELAY_S, first_frame_delay

    assert first_frame_delay(Headers({"user-agent": "k10s-capture/0.1 (read-only)"})) == 0.0
    for agent in ("kubectl/v1.32.4 (linux/amd64) kubernetes/4e2d0c3", "OpenAPI-Generator/31.0.0/python", ""):
        assert first_frame_delay(Headers({"user-agent": agent})) == FIRST_FRAME_DELAY_S
    assert first_frame_delay(Headers({})) == FIRST_FRAME_DELAY_S
