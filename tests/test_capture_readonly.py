"""Capture only reads: KubeSource has no mutating method and exec is limited to read-only commands.

The end-to-end half of this guarantee (every request serve saw was a GET) is in
tests/test_capture_e2e.py::test_capture_sent_only_reads.
"""

from __future__ import annotations

import inspect
import re

import pytest
from kubernetes import client

from k10s_forensics.capture.retry import Deadline
from k10s_forensics.capture.source import ALLOWED_COMMANDS, ClusterConnection, KubeSource

READ_METHODS = {"get", "list", "version", "discovery", "resources", "logs", "proxy_get", "exec", "close"}
MUTATING = re.compile(r"create|update|patch|delete|replace|post|put|apply|evict|scale|drain|cordon|write", re.I)


def test_kubesource_exposes_only_read_verbs():
    public = {name for name, _ in inspect.getmembers(KubeSource, predicate=inspect.isfunction) if not name.startswith("_")}
    assert public == READ_METHODS, f"KubeSource public methods changed: {sorted(public ^ READ_METHODS)}"
    assert not [m for m in public if MUTATING.search(m)]


def test_every_http_call_in_kubesource_is_a_get():
    source = inspect.getsource(KubeSource)
    methods = set(re.findall(r'request\(\s*"([A-Z]+)"', source))
    assert methods == {"GET"}, methods


def test_the_exec_websocket_opens_with_a_get():
    from k10s_forensics.capture import fastws

    text = inspect.getsource(fastws)
    request_lines = re.findall(r'f"([A-Z]+) \{target\} HTTP/1.1"', text)
    assert request_lines == ["GET"]


def test_the_http_client_sends_only_get():
    from k10s_forensics.capture import transport

    text = inspect.getsource(transport)
    assert re.findall(r'f"([A-Z]+) \{self\.endpoint\.base_path\}\{target\} HTTP/1.1"', text) == ["GET"]
    assert 'if method != "GET"' in text  # RawTransport.request refuses anything else
    from k10s_forensics.capture import proxied

    assert set(re.findall(r'request\(\s*"([A-Z]+)"', inspect.getsource(proxied))) == {"GET"}


def test_allowed_commands_are_the_read_only_set():
    from k10s_forensics.capture.dump_commands import FR_COMMAND

    assert ALLOWED_COMMANDS == {("nvidia-smi", "-q", "-x"), ("ss", "-tin"), ("printenv", "NVIDIA_VISIBLE_DEVICES"),
                                ("dmesg", "--time-format", "iso"), FR_COMMAND, ("ncclras", "-f", "json"), ("ncclras",)}


def test_the_flight_recorder_reader_only_reads():
    """Static half: the fixed script opens files for reading only and calls nothing that writes."""
    from k10s_forensics.capture.dump_commands import FR_COMMAND, FR_SCRIPT

    assert FR_COMMAND[:4] == ("python3", "-I", "-S", "-c")
    assert re.findall(r"open\(([^)]*)\)", FR_SCRIPT) == ["f,'rb'"]
    assert re.findall(r"^import (.*)$", FR_SCRIPT, re.M) == ["base64,glob,json,os,stat"]
    forbidden = re.compile(r"remove|unlink|rename|rmdir|mkdir|system|popen|exec|spawn|kill|chmod|chown|truncate|write|subprocess|socket|__import__|eval")
    assert not forbidden.search(FR_SCRIPT.replace("json.dumps", "")), forbidden.search(FR_SCRIPT)


@pytest.mark.parametrize("argv", [("sh", "-c", "ls"), ("rm", "-rf", "/"), ("nvidia-smi", "-r"), ("dmesg", "-C"),
                                  ("nvidia-smi", "-q", "-x", "; reboot")])
def test_exec_refuses_commands_outside_the_allow_list_before_any_network(argv):
    # Port 9 on localhost: nothing listens; a network attempt would fail differently.
    conn = ClusterConnection(client.Configuration(host="http://127.0.0.1:9"), "t", "http://127.0.0.1:9", "default")
    source = KubeSource(conn, Deadline(5), timeout_s=1)
    with pytest.raises(PermissionError, match="not allowed"):
        source.exec("ns", "pod", "c", argv)
    assert source.stats.calls == 0
