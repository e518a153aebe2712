"""Capture's lean HTTP client, column-wise raw writers and the writer-thread sink.

The client is tested against a small scripted stdlib server because the cases (chunked
and gzip bodies, a server closing kept-alive connections) are about HTTP itself; the whole
path against real ``k10s serve`` is in test_capture_e2e.py.
"""

from __future__ import annotations

import datetime as dt
import gzip
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pyarrow.parquet as pq
import pytest
from kubernetes import client

from k10s_forensics.store.bundle import RAW_SCHEMAS, BundleWriter, RawWriter
from k10s_forensics.store.columns import ColumnWriter, use_column_writers
from k10s_forensics.capture.sink import Sink
from k10s_forensics.capture.proxied import Urllib3Transport
from k10s_forensics.capture.proxied import make_transport
from k10s_forensics.capture.transport import RawTransport, TransportError

BODY = b'{"kind":"PodList","items":[' + b",".join(b'{"n":%d}' % i for i in range(2000)) + b"]}"


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    connections: set = set()

    def log_message(self, *args):
        pass

    def do_GET(self):  # noqa: N802
        type(self).connections.add(self.client_address)
        mode = self.path.strip("/")
        self.send_response(200)
        if mode == "chunked":
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            for i in range(0, len(BODY), 1000):
                part = BODY[i:i + 1000]
                self.wfile.write(b"%x\r\n" % len(part) + part + b"\r\n")
            self.wfile.write(b"0\r\n\r\n")
            return
        data = gzip.compress(BODY) if mode == "gzip" else BODY
        if mode == "gzip":
            self.send_header("Content-Encoding", "gzip")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
        if mode == "drop":  # closes a kept-alive connection without saying so
            self.close_connection = True


@pytest.fixture(scope="module")
def httpd():
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    httpd.daemon_threads = True
    threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    yield httpd
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture
def server(httpd):
    _Handler.connections = set()
    transport = RawTransport(client.Configuration(host=f"http://127.0.0.1:{httpd.server_address[1]}"))
    yield transport
    transport.close()


@pytest.mark.parametrize("mode", ["plain", "chunked", "gzip"])
def test_bodies_arrive_whole_and_the_connection_is_reused(server, mode):
    for _ in range(3):
        resp = server.request("GET", f"/{mode}", {"Accept": "application/json"}, 5, 1 << 20)
        assert (resp.status, resp.body, resp.cut) == (200, BODY, False)
    assert len(_Handler.connections) == 1


def test_a_connection_the_server_dropped_is_reopened_once(server):
    for _ in range(3):
        assert server.request("GET", "/drop", {}, 5, 1 << 20).body == BODY
    assert len(_Handler.connections) == 3


@pytest.mark.parametrize("mode", ["plain", "chunked", "gzip"])
def test_bodies_are_cut_at_the_limit(server, mode):
    resp = server.request("GET", f"/{mode}", {}, 5, 100)
    assert resp.cut and resp.body == BODY[:100]
    assert server.request("GET", "/plain", {}, 5, 1 << 20).body == BODY  # a fresh connection after a cut


def test_behind_a_proxy_the_urllib3_pool_answers_the_same(httpd):
    config = client.Configuration(host=f"http://127.0.0.1:{httpd.server_address[1]}")
    config.proxy = "http://127.0.0.1:9"
    assert isinstance(make_transport(config, 4), Urllib3Transport)
    config.proxy = None  # no proxy runs here: the same pool, straight to the server
    pooled = Urllib3Transport(config, 4)
    for mode in ("plain", "chunked", "gzip"):
        resp = pooled.request("GET", f"/{mode}", {}, 5, 1 << 20)
        assert (resp.status, resp.body, resp.cut) == (200, BODY, False)
    cut = pooled.request("GET", "/plain", {}, 5, 100)
    assert (cut.status, cut.body, cut.cut) == (200, BODY[:100], True)
    pooled.close()


def test_only_get_is_sent_and_a_dead_port_is_a_connection_error(server):
    with pytest.raises(ValueError, match="GET"):
        server.request("POST", "/plain", {}, 5, 100)
    dead = RawTransport(client.Configuration(host="http://127.0.0.1:9"))
    with pytest.raises(TransportError) as info:
        dead.request("GET", "/", {}, 2, 100)
    assert info.value.kind == "connection"


ROWS = [
    {"captured_at": dt.datetime(2026, 1, 1, tzinfo=dt.timezone.utc), "duration_ms": 5, "source": "ss", "node": None,
     "namespace": "a", "pod": "p\ud800x", "container": b"c\xff", "command": "ss -tin", "exit_code": 0,
     "stdout": "é" * 10, "stderr": "", "error": None},
    {"captured_at": dt.datetime(2026, 1, 1, 0, 0, 1, tzinfo=dt.timezone.utc), "source": "x", "stdout": "ok"},
]


def test_column_writer_writes_what_raw_writer_writes(tmp_path):
    plain = RawWriter(tmp_path / "a.parquet", RAW_SCHEMAS["exec"])
    columns = ColumnWriter(RawWriter(tmp_path / "b.parquet", RAW_SCHEMAS["exec"]), 1 << 20)
    for row in ROWS * 3:
        plain.append(row)
        columns.append(row)
    plain.close()
    columns.close()
    a, b = pq.read_table(tmp_path / "a.parquet"), pq.read_table(tmp_path / "b.parquet")
    assert a.equals(b) and b.num_rows == 6
    assert b.column("pod")[0].as_py() == "p?x" and b.column("container")[0].as_py() == "c\ufffd"


def test_sink_writes_every_accepted_row_and_drops_later_ones(tmp_path):
    writer = BundleWriter(tmp_path / "b")
    use_column_writers(writer, 1 << 20)
    sink = Sink(writer)
    threads = [threading.Thread(target=lambda: [sink.add("exec", ROWS[1]) for _ in range(500)]) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    sink.checkpoint(wait=True)
    assert writer.writers["exec"].rows_written == 2000  # flushed to Parquet at the checkpoint
    bundle = sink.close(complete=True)
    assert sink.add("exec", ROWS[1]) is False and sink.dropped == 1
    assert pq.read_table(bundle.raw_path("exec")).num_rows == 2000
