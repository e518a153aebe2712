"""``k10s watch`` as a process: config file, ``k10s watch trigger`` over HTTP, ``--once``,
/healthz and /metrics, then ``k10s watch list``."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import urllib.request

from watch_helpers import make_bundle, serve, wait_for


def test_watch_process_trigger_once_and_list(tmp_path):
    bundle, truth = make_bundle(tmp_path)
    srv, _play, log = serve(bundle, None, clock=False)
    kubeconfig = srv.write_kubeconfig(tmp_path / "kc")
    config = tmp_path / "watch.yaml"
    config.write_text("listen: 127.0.0.1:0\ncooldown_s: 60\ncapture: {duration_s: 0, second_round_after_s: 0, table_jobs: 0}\n"
                      f"namespaces: [{truth['job'].split('/')[0]}]\n")
    out = tmp_path / "out"
    proc = subprocess.Popen([sys.executable, "-m", "k10s_forensics", "watch", "--kubeconfig", str(kubeconfig),
                             "--config", str(config), "--out", str(out), "--once"],
                            stderr=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        url = re.search(r"http on (http://\S+)", proc.stderr.readline()).group(1)
        wait_for(lambda: _get(f"{url}/healthz")[0] == 200, timeout_s=20)
        done = subprocess.run([sys.executable, "-m", "k10s_forensics", "watch", "trigger", truth["job"], "--url", url],
                              capture_output=True, text=True, timeout=30)
        assert done.returncode == 0 and done.stdout.strip() == f"{truth['job']}: started"
        assert "k10s watch: incidents" in _get(f"{url}/")[1]
        metrics = _get(f"{url}/metrics")[1]
        assert 'k10s_watch_triggers_total{reason="manual"} 1' in metrics
        assert proc.wait(120) == 0  # --once: exits after the first incident
    finally:
        if proc.poll() is None:
            proc.kill()
        srv.stop()
    listed = subprocess.run([sys.executable, "-m", "k10s_forensics", "watch", "list", "--out", str(out)],
                            capture_output=True, text=True, timeout=30)
    assert listed.returncode == 0 and truth["job"] in listed.stdout and "manual" in listed.stdout
    assert "found: no finding" in listed.stdout  # nothing had failed yet: a manual capture of a healthy job
    assert [line for line in log.lines() if '"GET ' not in line] == []


def _get(url):
    try:
        with urllib.request.urlopen(url, timeout=5) as resp:
            return resp.status, resp.read().decode()
    except OSError:
        return 0, ""


def test_serve_play_from_the_command_line(tmp_path):
    bundle, truth = make_bundle(tmp_path)
    proc = subprocess.Popen([sys.executable, "-m", "k10s_forensics", "serve", str(bundle), "--play",
                             "--play-times", "fail=300,hang=300,restart=300", "--kubeconfig", str(tmp_path / "kc")],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        url = re.search(r"on (http://\S+)", proc.stdout.readline()).group(1)
        state = json.loads(_get(f"{url}/k10s/play")[1])
        assert state["phase"] == "running" and state["job"] == truth["job"]
        assert json.loads(_post(f"{url}/k10s/play/fail"))["phase"] == "fail"
        pods = json.loads(_get(f"{url}/api/v1/namespaces/{truth['job'].split('/')[0]}/pods")[1])["items"]
        culprit = next(p for p in pods if p["metadata"]["name"] == state["culprit"])
        assert culprit["status"]["phase"] == "Failed"
        assert json.loads(_post(f"{url}/k10s/outage?seconds=2"))["down_s"] == 2
        assert _get(f"{url}/api/v1/pods")[0] == 0  # the API server is away: no answer
        wait_for(lambda: _get(f"{url}/api/v1/pods")[0] == 200, timeout_s=10)
        bad = subprocess.run([sys.executable, "-m", "k10s_forensics", "serve", str(bundle), "--play", "--play-times", "fail=9,hang=1"],
                             capture_output=True, text=True, timeout=60)
        assert bad.returncode == 2 and "in order" in bad.stderr
    finally:
        proc.terminate()
        proc.wait(10)


def _post(url):
    req = urllib.request.Request(url, data=b"", method="POST")
    with urllib.request.urlopen(req, timeout=5) as resp:
        return resp.read().decode()


def test_a_watcher_killed_mid_capture_leaves_nothing_that_looks_complete(tmp_path):
    import signal

    bundle, truth = make_bundle(tmp_path)
    srv, _play, _log = serve(bundle, None, clock=False)
    kubeconfig = srv.write_kubeconfig(tmp_path / "kc")
    config = tmp_path / "watch.yaml"
    config.write_text("listen: 127.0.0.1:0\ncapture: {duration_s: 30, interval_s: 1, table_jobs: 0}\n")
    out = tmp_path / "out"
    proc = subprocess.Popen([sys.executable, "-m", "k10s_forensics", "watch", "--kubeconfig", str(kubeconfig),
                             "--config", str(config), "--out", str(out)], stderr=subprocess.PIPE, text=True)
    try:
        url = re.search(r"http on (http://\S+)", proc.stderr.readline()).group(1)
        wait_for(lambda: _get(f"{url}/healthz")[0] == 200, timeout_s=20)
        subprocess.run([sys.executable, "-m", "k10s_forensics", "watch", "trigger", truth["job"], "--url", url],
                       check=True, capture_output=True, timeout=30)
        partial = wait_for(lambda: [p for p in out.iterdir() if p.name.endswith(".partial") and (p / "bundle" / "manifest.json").is_file()],
                           timeout_s=20)[0]
        proc.send_signal(signal.SIGKILL)  # a crash: no cleanup runs
        proc.wait(10)
    finally:
        if proc.poll() is None:
            proc.kill()
        srv.stop()
    assert json.loads((partial / "bundle" / "manifest.json").read_text())["complete"] is False
    listed = subprocess.run([sys.executable, "-m", "k10s_forensics", "watch", "list", "--out", str(out), "--format", "json"],
                            capture_output=True, text=True, timeout=30)
    [row] = json.loads(listed.stdout)["incidents"]
    assert row["state"].startswith("incomplete") and not row["report"]
