"""The installed ``k10s view`` in a real terminal (tmux): send keys, read the screen.

The newcomer's path of the issue, keystroke by keystroke: open the OOM sample, land on
Fleet, ``:jobs``, ↓ to the culprit rank, ``y``, read culprit, cascade and fix, ``q``.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import REPO, SAMPLE_BUNDLES

TMUX = shutil.which("tmux")
pytestmark = pytest.mark.skipif(TMUX is None, reason="tmux not installed (./dev.sh setup installs it)")
TRUTH = json.loads((SAMPLE_BUNDLES / "oom-crashloop.truth.json").read_text())["expected"][0]


#: A private tmux server (own socket, no config file): other tmux users on the machine
#: cannot change its window size or keys.
SOCKET = f"k10s-view-test-{os.getpid()}"


def _tmux(*args: str) -> str:
    return subprocess.run([TMUX, "-L", SOCKET, "-f", "/dev/null", *args], check=True, capture_output=True, text=True,
                          timeout=30).stdout


def _screen(session: str) -> str:
    return _tmux("capture-pane", "-p", "-t", session)


def _wait_for(session: str, needle: str, timeout_s: float = 90) -> str:
    end = time.monotonic() + timeout_s
    while time.monotonic() < end:
        text = _screen(session)
        if needle in text:
            return text
        time.sleep(0.3)
    raise AssertionError(f"{needle!r} never appeared; the screen:\n{_screen(session)}")


def _culprit_y(session: str, jobs: str) -> str:
    """From the Jobs screen ``jobs``: ↓ to the culprit rank, press y, return the screen."""
    lines = jobs.splitlines()
    header = next(i for i, line in enumerate(lines) if line.strip().startswith("RANK"))
    row = next(i for i, line in enumerate(lines) if line.split()[:1] == [str(TRUTH["ranks"][0])])
    for _ in range(row - header - 1):     # the cursor starts on the job's own row
        _tmux("send-keys", "-t", session, "Down")
    time.sleep(0.5)
    _tmux("send-keys", "-t", session, "y")
    return _wait_for(session, "Fix:")


def test_newcomer_path_in_a_real_terminal(tmp_path):
    k10s = Path(sys.executable).with_name("k10s")
    assert k10s.is_file(), "the k10s entry point is not installed in this environment"
    session = f"k10s-view-test-{os.getpid()}"
    done = tmp_path / "exit-code"
    # pytest exports COLUMNS/LINES of its own terminal; the app must see the pane's size
    shell = (f"cd {REPO} && env -u COLUMNS -u LINES {k10s} view sample-bundles/oom-crashloop --no-browser --report {tmp_path / 'r.html'};"
             f" echo $? > {done}; sleep 60")
    _tmux("new-session", "-d", "-s", session, "-x", "200", "-y", "50", shell)
    try:
        _wait_for(session, "Fleet — GPU nodes")
        fleet = _wait_for(session, TRUTH["nodes"][0])
        assert "NODE" in fleet and "busy" in fleet
        _tmux("send-keys", "-t", session, ":", "jobs", "Enter")
        _wait_for(session, "Jobs — one row per rank")
        text = _culprit_y(session, _wait_for(session, "oom-cascade"))
        rank = TRUTH["ranks"][0]
        assert f"rank {rank}" in text and f"Rank {rank} OOM" in text        # the culprit
        assert "hit NCCL watchdog timeout" in text                           # the cascade
        assert "Fix: Reduce the per-rank batch size" in text                 # the fix
        _tmux("send-keys", "-t", session, "Escape")
        _wait_for(session, "rows · ? help")
        time.sleep(0.5)  # Esc followed at once by q would read as Alt+q
        _tmux("send-keys", "-t", session, "q")
        end = time.monotonic() + 30
        while not done.exists() and time.monotonic() < end:
            time.sleep(0.2)
        assert done.exists() and done.read_text().strip() == "0", _screen(session)
    finally:
        subprocess.run([TMUX, "-L", SOCKET, "kill-server"], capture_output=True)


def test_live_against_serve_in_a_real_terminal(tmp_path):
    from k10s_forensics.serve import Faults, start_server

    k10s = Path(sys.executable).with_name("k10s")
    srv = start_server(SAMPLE_BUNDLES / "oom-crashloop", faults=Faults(latency_ms=10, error_rate_429=0.05))
    kubeconfig = srv.write_kubeconfig(tmp_path / "kc")
    session = f"k10s-view-live-{os.getpid()}"
    done = tmp_path / "exit-code"
    shell = (f"cd {tmp_path} && env -u COLUMNS -u LINES {k10s} view --live --kubeconfig {kubeconfig} -A --interval 3s"
             f" --save-dir {tmp_path} --no-browser; echo $? > {done}; sleep 60")
    _tmux("new-session", "-d", "-s", session, "-x", "200", "-y", "50", shell)
    try:
        _wait_for(session, "LIVE · ")
        _wait_for(session, TRUTH["nodes"][0])
        _tmux("send-keys", "-t", session, ":", "jobs", "Enter")
        text = _culprit_y(session, _wait_for(session, "oom-cascade", timeout_s=120))
        assert f"Rank {TRUTH['ranks'][0]} OOM" in text
        _tmux("send-keys", "-t", session, "Escape")
        time.sleep(0.5)
        _tmux("send-keys", "-t", session, "s")
        _wait_for(session, "saved the window as bundle")
        time.sleep(0.5)
        _tmux("send-keys", "-t", session, "q")
        end = time.monotonic() + 30
        while not done.exists() and time.monotonic() < end:
            time.sleep(0.2)
        assert done.exists() and done.read_text().strip() == "0", _screen(session)
        saved = list(tmp_path.glob("k10s-live-*"))
        assert len(saved) == 1 and (saved[0] / "manifest.json").is_file()
    finally:
        subprocess.run([TMUX, "-L", SOCKET, "kill-server"], capture_output=True)
        srv.stop()
