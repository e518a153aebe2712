"""The OCI image, built and run for real with buildah + podman: `k10s --help` on a read-only root
filesystem, a non-root user, and `k10s capture` inside the image against `k10s serve` on the host
producing a bundle that `k10s analyze` on the host reads and that names the planted culprit.

Takes minutes (a Debian base from mmdebstrap, the image, vfs storage), so it runs only with
K10S_IMAGE_TESTS=1. K10S_IMAGE_STORE=DIR keeps the image store (DIR/storage, DIR/run) (base and layers) between runs;
K10S_IMAGE_BASE names another base (default localhost/base:bookworm, built when absent);
K10S_IMAGE_TAG=NAME tests an image deploy/build-image.sh already built in that store instead."""

from __future__ import annotations

import json
import os
import re
import resource
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from deploy_helpers import DEPLOY, OVERLAYS, kustomize_missing, one, render

pytestmark = [pytest.mark.slow, pytest.mark.container]

TAG = os.environ.get("K10S_IMAGE_TAG") or "localhost/k10s-forensics:test"
CA_DIR = Path("/usr/local/share/ca-certificates")


def _why_not() -> str | None:
    if os.environ.get("K10S_IMAGE_TESTS") != "1":
        return "set K10S_IMAGE_TESTS=1 to build and run the image (minutes: podman + buildah, see deploy/README.md)"
    missing = [t for t in ("podman", "buildah") if shutil.which(t) is None]
    if missing:
        return f"{' and '.join(missing)} not installed (apt-get install podman buildah runc uidmap mmdebstrap)"
    if os.geteuid() != 0:
        return "the image test runs rootful podman/buildah (as root, like CI)"
    return None


class Store:
    """podman/buildah with one vfs storage root (what deploy/build-image.sh uses via K10S_CTR_ROOT)."""

    def __init__(self, root: Path):
        self.root = root
        self.flags = ["--root", str(root / "storage"), "--runroot", str(root / "run"), "--storage-driver", "vfs"]
        self.env = dict(os.environ, K10S_CTR_ROOT=str(root / "storage"), K10S_CTR_RUNROOT=str(root / "run"))

    def podman(self, *args: str, timeout: float = 300) -> subprocess.CompletedProcess:
        return subprocess.run(["podman", *self.flags, *args], capture_output=True, text=True, timeout=timeout)

    def run(self, *args: str, timeout: float = 300) -> subprocess.CompletedProcess:
        """`podman run` the way it works on these machines: runc, host network, rlimits below the hard ones."""
        hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
        runtime = ["--runtime", "runc"] if shutil.which("runc") else []
        return self.podman(*runtime, "run", "--rm", "--read-only", "--network", "host",
                           "--ulimit", f"nofile={hard}:{hard}", "--ulimit", "nproc=16384:16384", *args, timeout=timeout)


@pytest.fixture(scope="module")
def image(tmp_path_factory) -> Store:
    why = _why_not()
    if why:
        pytest.skip(why)
    store = Store(Path(os.environ.get("K10S_IMAGE_STORE") or tmp_path_factory.mktemp("ctr")))
    if os.environ.get("K10S_IMAGE_TAG"):
        assert store.podman("image", "exists", TAG).returncode == 0, f"K10S_IMAGE_TAG={TAG} is not in {store.root}"
        return store
    base = os.environ.get("K10S_IMAGE_BASE", "localhost/base:bookworm")
    cmd = [str(DEPLOY / "build-image.sh"), "--tool", "buildah", "--base", base, "--tag", TAG, "--isolation", "chroot", "--network", "host"]
    if base.startswith("localhost/"):
        if store.podman("image", "exists", base).returncode != 0 and shutil.which("mmdebstrap") is None:
            pytest.skip(f"no {base} in the store and no mmdebstrap to build it")
        cmd.append("--local-base")
    for ca in sorted(CA_DIR.glob("*.crt")) if CA_DIR.is_dir() else []:
        cmd += ["--ca-file", str(ca)]  # this machine's TLS-intercepting proxy, for pip in the build
    start = time.monotonic()
    built = subprocess.run(cmd, capture_output=True, text=True, timeout=1800, env=store.env)
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    print(f"\nimage built in {time.monotonic() - start:.0f}s: {built.stdout.strip().splitlines()[-1]}")
    return store


def _inspect(store: Store) -> dict:
    out = store.podman("image", "inspect", TAG)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)[0]


def test_help_runs_on_a_read_only_root_filesystem(image):
    out = image.run(TAG, "--help")
    assert out.returncode == 0, out.stderr
    for command in ("capture", "analyze", "report", "serve"):
        assert command in out.stdout
    version = image.run(TAG, "--version")
    assert version.returncode == 0 and "k10s" in version.stdout


def test_runs_as_non_root_and_writes_only_under_tmp(image):
    script = "id -u; id -g; echo $HOME; touch /tmp/ok && echo tmp-writable; touch /opt/k10s/x 2>/dev/null || echo root-read-only; command -v kubectl || echo no-kubectl"
    out = image.run("--entrypoint", "sh", TAG, "-c", script)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["65532", "65532", "/tmp", "tmp-writable", "root-read-only", "no-kubectl"]
    config = _inspect(image)["Config"]
    assert config["User"] == "65532:65532" and config["Entrypoint"] == ["k10s"]
    assert config["Cmd"] == ["watch", "--in-cluster", "--config", "/etc/k10s/watch.yaml"]
    if kustomize_missing() is None:
        docs = render(OVERLAYS["base"])
        container = one(docs, "Deployment")["spec"]["template"]["spec"]["containers"][0]
        assert container["args"] == config["Cmd"], "the Deployment runs the image's default command"
        assert one(docs, "Deployment")["spec"]["template"]["spec"]["securityContext"]["runAsUser"] == int(config["User"].split(":")[0])


def test_capture_inside_the_image_from_k10s_serve_on_the_host(image, tmp_path):
    from k10s_forensics.serve import start_server
    from k10s_forensics.simulate import simulate

    truth = simulate("oom-crashloop", tmp_path / "sim", seed=7, nodes=2, gpus_per_node=4, minutes=2, interval_s=30)
    out_dir = tmp_path / "bundles"
    out_dir.mkdir()
    os.chown(out_dir, 65532, 65532)
    srv = start_server(tmp_path / "sim")
    try:
        kubeconfig = srv.write_kubeconfig(tmp_path / "kubeconfig")
        kubeconfig.chmod(0o644)
        start = time.monotonic()
        run = image.run("-v", f"{kubeconfig}:/etc/k10s/kubeconfig:ro", "-v", f"{out_dir}:/var/lib/k10s/bundles",
                        TAG, "capture", "--kubeconfig", "/etc/k10s/kubeconfig", "-A", "-o", "/var/lib/k10s/bundles/incident",
                        "--quiet", "--timeout", "30s", timeout=600)
        print(f"\ncapture in the image: {time.monotonic() - start:.1f}s")
    finally:
        srv.stop()
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout.strip() == "/var/lib/k10s/bundles/incident"
    bundle = out_dir / "incident"
    assert json.loads((bundle / "manifest.json").read_text())["complete"] is True
    assert all(p.stat().st_uid == 65532 for p in bundle.rglob("*")), "written by the image's user"
    analyze = subprocess.run([sys.executable, "-m", "k10s_forensics", "analyze", str(bundle), "--format", "json"], capture_output=True, text=True, timeout=300)
    assert analyze.returncode == 0, analyze.stderr
    findings = json.loads(analyze.stdout)["findings"]
    for want in truth["expected"]:
        assert any(f["rule"] == want["rule"] and f["ranks"] == want["ranks"] and f["pods"] == want["pods"] for f in findings), want


def _skip_without_watch() -> None:
    import click

    from k10s_forensics.cli import cli

    if cli.get_command(click.Context(cli), "watch") is None:
        pytest.skip("`k10s watch` is not in this checkout yet (built on the watch branch); the image's default CMD needs it")


def test_watch_help_in_the_image(image):
    _skip_without_watch()
    out = image.run(TAG, "watch", "--help")
    assert out.returncode == 0, out.stderr
    for flag in ("--in-cluster", "--config", "--out", "--listen", "--events", "--once"):
        assert flag in out.stdout


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _http(url: str, method: str = "GET") -> tuple[int, str]:
    try:
        with urllib.request.urlopen(urllib.request.Request(url, data=b"" if method == "POST" else None, method=method), timeout=5) as resp:
            return resp.status, resp.read().decode()
    except OSError:
        return 0, ""


def test_watch_in_the_image_captures_a_played_incident(image, tmp_path):
    """The watcher inside the image, scoped by a config file like the ConfigMap's, watching
    `k10s serve --play` on the host: the rank fails, the others hang, the watcher captures and
    analyses once (--once) and the bundle names the planted rank."""
    _skip_without_watch()
    from k10s_forensics.simulate import simulate

    truth = simulate("rank-segfault", tmp_path / "played", seed=2, nodes=2, gpus_per_node=4, minutes=5, interval_s=10,
                     truth_path=tmp_path / "truth.json")
    namespace = truth["job"].split("/")[0]
    port = _free_port()
    config = tmp_path / "watch.yaml"
    config.write_text(f"namespaces: [{namespace}]\nlisten: 127.0.0.1:{port}\ncooldown_s: 60\n"
                      "capture: {duration_s: 0, second_round_after_s: 0}\n")
    config.chmod(0o644)
    out_dir = tmp_path / "bundles"
    out_dir.mkdir()
    os.chown(out_dir, 65532, 65532)
    serve = subprocess.Popen([sys.executable, "-m", "k10s_forensics", "serve", str(tmp_path / "played"), "--play",
                              "--play-times", "fail=3000,hang=3000,restart=3000", "--kubeconfig", str(tmp_path / "kubeconfig")],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    watch = None
    try:
        api = re.search(r"on (http://\S+)", serve.stdout.readline()).group(1)
        (tmp_path / "kubeconfig").chmod(0o644)
        hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
        runtime = ["--runtime", "runc"] if shutil.which("runc") else []
        watch = subprocess.Popen(["podman", *image.flags, *runtime, "run", "--rm", "--read-only", "--network", "host",
                                  "--ulimit", f"nofile={hard}:{hard}", "--ulimit", "nproc=16384:16384",
                                  "-v", f"{tmp_path / 'kubeconfig'}:/etc/k10s/kubeconfig:ro", "-v", f"{config}:/etc/k10s/watch.yaml:ro",
                                  "-v", f"{out_dir}:/var/lib/k10s/bundles", TAG,
                                  "watch", "--kubeconfig", "/etc/k10s/kubeconfig", "--config", "/etc/k10s/watch.yaml", "--once"],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 600
        while _http(f"http://127.0.0.1:{port}/healthz")[0] != 200:
            assert watch.poll() is None, watch.communicate()[1][-3000:]
            assert time.monotonic() < deadline, "the watcher in the image never answered /healthz"
            time.sleep(1)
        time.sleep(3)  # its watch streams are open once it is healthy; let the first list settle
        for phase in ("fail", "hang"):
            assert _http(f"{api}/k10s/play/{phase}", "POST")[0] == 200
        stdout, stderr = watch.communicate(timeout=900)
        assert watch.returncode == 0, stderr[-3000:]
    finally:
        for proc in (watch, serve):
            if proc is not None and proc.poll() is None:
                proc.terminate()
                proc.wait(60)
    bundles = [m.parent for m in out_dir.rglob("manifest.json")]
    assert len(bundles) == 1, bundles
    analyze = subprocess.run([sys.executable, "-m", "k10s_forensics", "analyze", str(bundles[0]), "--format", "json"],
                             capture_output=True, text=True, timeout=300)
    assert analyze.returncode == 0, analyze.stderr
    ranks = {r for f in json.loads(analyze.stdout)["findings"] for r in f.get("ranks") or []}
    assert set(truth["expected"][0]["ranks"]) <= ranks, (truth["expected"][0], analyze.stdout[:2000])
