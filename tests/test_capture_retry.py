"""Retry/backoff mechanics of KubeSource against a minimal scripted HTTP stub.

Only the retry mechanics are tested against a stub (scripted status sequences are not
something ``k10s serve`` can produce on demand); everything else runs against real serve.
"""

from __future__ import annotations

import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from kubernetes import client

from k10s_forensics.capture.retry import CallError, Deadline, RetryPolicy, Stopped, parse_retry_after
from k10s_forensics.capture.source import ClusterConnection, KubeSource


class Script:
    def __init__(self, answers):
        self.answers = list(answers)  # (status, headers, body) ... last one repeats
        self.times: list[float] = []
        self.lock = threading.Lock()

    def next(self):
        with self.lock:
            self.times.append(time.monotonic())
            return self.answers.pop(0) if len(self.answers) > 1 else self.answers[0]


@pytest.fixture
def stub():
    servers = []

    def make(answers, delay_s=0.0):
        script = Script(answers)

        class H(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *a):
                pass

            def do_GET(self):  # noqa: N802
                status, headers, body = script.next()
                if delay_s:
                    time.sleep(delay_s)
                data = body.encode()
                self.send_response(status)
                for k, v in headers.items():
                    self.send_header(k, v)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        httpd = ThreadingHTTPServer(("127.0.0.1", 0), H)
        httpd.daemon_threads = True
        threading.Thread(target=httpd.serve_forever, daemon=True).start()
        servers.append(httpd)
        url = f"http://127.0.0.1:{httpd.server_address[1]}"
        return script, url

    yield make
    for s in servers:
        s.shutdown()
        s.server_close()


def source_for(url, deadline_s=30.0, timeout_s=5.0, attempts=4):
    conn = ClusterConnection(client.Configuration(host=url), "stub", url, "default")
    return KubeSource(conn, Deadline(deadline_s), timeout_s=timeout_s, retry=RetryPolicy(attempts=attempts, base_s=0.05, max_s=0.2))


OK = (200, {"Content-Type": "application/json"}, '{"kind":"Namespace","metadata":{"name":"a"}}')
THROTTLED = (429, {"Retry-After": "1", "Content-Type": "application/json"}, '{"kind":"Status","code":429,"message":"slow down"}')


def test_429_waits_for_retry_after_then_succeeds(stub):
    script, url = stub([THROTTLED, OK])
    source = source_for(url)
    doc = source.get("/api/v1/namespaces/a")
    assert doc["metadata"]["name"] == "a"
    assert len(script.times) == 2
    assert script.times[1] - script.times[0] >= 0.95, "Retry-After: 1 was not honoured"
    assert source.stats.retries == 1


def test_5xx_retried_with_growing_backoff_then_given_up(stub):
    script, url = stub([(503, {}, '{"message":"unavailable"}')])
    source = source_for(url, attempts=4)
    with pytest.raises(CallError) as err:
        source.get("/api/v1/namespaces/a")
    assert err.value.status == 503 and err.value.kind == "server"
    assert len(script.times) == 4
    assert source.stats.retries == 3


@pytest.mark.parametrize("status,kind", [(403, "forbidden"), (404, "not-found"), (401, "unauthorized")])
def test_client_errors_are_not_retried(stub, status, kind):
    script, url = stub([(status, {}, '{"kind":"Status","message":"pods is forbidden: User x cannot list"}')])
    source = source_for(url)
    with pytest.raises(CallError) as err:
        source.get("/api/v1/pods")
    assert err.value.kind == kind and len(script.times) == 1
    if status == 403:
        assert str(err.value).startswith("forbidden: pods is forbidden")


def test_per_call_timeout_then_retry(stub):
    script, url = stub([OK], delay_s=1.0)
    source = source_for(url, timeout_s=0.3, attempts=2)
    started = time.monotonic()
    with pytest.raises(CallError) as err:
        source.get("/api/v1/namespaces/a")
    assert err.value.kind == "timeout"
    assert len(script.times) == 2
    assert time.monotonic() - started < 2.0


def test_deadline_cuts_retries_short(stub):
    script, url = stub([(429, {"Retry-After": "30"}, "{}")])
    source = source_for(url, deadline_s=1.0)
    started = time.monotonic()
    with pytest.raises((CallError, Stopped)):
        source.get("/api/v1/namespaces/a")
    assert time.monotonic() - started < 2.0, "a Retry-After beyond the deadline must not be waited for"


def test_retry_after_parsing():
    assert parse_retry_after("3") == 3.0
    assert parse_retry_after(None) is None
    assert parse_retry_after("soon") is None
    assert parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT") == 0.0
    policy = RetryPolicy(base_s=0.1, max_s=1.0)
    assert policy.delay(1, CallError("x", status=429, retry_after_s=5)) >= 5
    assert all(policy.delay(n, CallError("x", status=500)) <= 1.0 for n in range(1, 10))
