"""The Flight Recorder dump reader run for real (python3 -I -S -c <script>) on a directory
holding dumps, a FIFO, a symlink to a secret and an oversized file."""

from __future__ import annotations

import base64
import hashlib
import json
import os
import shutil
import subprocess

import pytest

from k10s_forensics.capture.dump_commands import FR_COMMAND, FR_MAX_FILE_BYTES
from k10s_forensics.capture.inventory import PodInfo
from k10s_forensics.parsers.flight_recorder import parse_envelope, parse_file
from k10s_forensics.simulate.fr_dumps import encode_dump, fr_dump, fr_entry

pytestmark = pytest.mark.skipif(shutil.which("python3") is None, reason="python3 not on PATH")


def _snapshot(path):
    return {p.name: (p.lstat().st_mtime_ns, hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file() and not p.is_symlink() else None)
            for p in sorted(path.iterdir())}


def test_reader_prints_dumps_and_skips_what_is_not_a_regular_file(tmp_path):
    prefix = str(tmp_path / "trace_rank_")
    dump = encode_dump(fr_dump([fr_entry(0, 1, "ALLREDUCE", 8, "started", 1)], [0, 1]))
    (tmp_path / "trace_rank_0").write_bytes(dump)
    (tmp_path / "trace_rank_1").write_bytes(encode_dump(fr_dump([], [0, 1]), "json"))
    os.mkfifo(tmp_path / "trace_rank_0_pipe")  # opening it would block the reader forever
    secret = tmp_path / "secret"
    secret.write_text("token")
    (tmp_path / "trace_rank_2").symlink_to(secret)
    with open(tmp_path / "trace_rank_3", "wb") as f:
        f.truncate(FR_MAX_FILE_BYTES + 1)
    before = _snapshot(tmp_path)
    env = {"PATH": os.environ["PATH"], "TORCH_NCCL_DEBUG_INFO_TEMP_FILE": prefix, "PYTHONSTARTUP": "/nonexistent"}
    out = subprocess.run(list(FR_COMMAND), capture_output=True, text=True, env=env, timeout=30, check=True).stdout
    assert _snapshot(tmp_path) == before  # nothing written, moved or touched
    got_prefix, files = parse_envelope(out)
    assert got_prefix == prefix
    by_name = {os.path.basename(f["path"]): f for f in files}
    assert base64.b64decode(by_name["trace_rank_0"]["b64"]) == dump
    assert by_name["trace_rank_0_pipe"]["skipped"] == "not a regular file"
    assert by_name["trace_rank_2"]["skipped"] == "not a regular file" and "token" not in out
    assert by_name["trace_rank_3"]["skipped"] == "over the size limit" and "b64" not in by_name["trace_rank_3"]
    dumps = {os.path.basename(f["path"]): parse_file(f, got_prefix)[0] for f in files}
    assert dumps["trace_rank_0"]["status"] == "parsed" and dumps["trace_rank_0"]["rank"] == 0
    assert dumps["trace_rank_1"]["dump_format"] == "json"


def test_reader_without_dumps_prints_an_empty_envelope(tmp_path):
    env = {"PATH": os.environ["PATH"], "TORCH_NCCL_DEBUG_INFO_TEMP_FILE": str(tmp_path / "none_")}
    out = subprocess.run(list(FR_COMMAND), capture_output=True, text=True, env=env, timeout=30, check=True).stdout
    assert json.loads(out)["files"] == []


@pytest.mark.parametrize("container,expected", [
    ({"name": "pytorch", "env": [{"name": "TORCH_NCCL_TRACE_BUFFER_SIZE", "value": "2000"}]}, True),
    ({"name": "pytorch", "env": [{"name": "TORCH_NCCL_DUMP_ON_TIMEOUT", "value": "1"}]}, True),
    ({"name": "pytorch", "env": [{"name": "TORCH_NCCL_TRACE_BUFFER_SIZE", "value": "0"}]}, False),
    ({"name": "pytorch", "command": ["bash", "-c", "TORCH_NCCL_TRACE_BUFFER_SIZE=2000 torchrun train.py"]}, True),
    ({"name": "pytorch", "env": [{"name": "NCCL_DEBUG", "value": "INFO"}]}, False),
])
def test_flight_recorder_is_detected_from_the_pod_spec(container, expected):
    pod = PodInfo.from_object({"metadata": {"name": "p", "namespace": "n"}, "spec": {"containers": [container]}, "status": {}})
    assert pod.containers[0].flight_recorder is expected
