"""The watch's image, flags and config against its manifests (deploy/watch, rendered by the real
``kubectl kustomize``): the Containerfile's ENTRYPOINT, CMD and USER agree with the Deployment, the build
context lets in only the package, every flag the Deployment passes exists, every overlay's config loads,
and the Alertmanager overlay points at the Service (checked by the real ``amtool``)."""

from __future__ import annotations

import shutil
import subprocess
import tomllib

import pytest
import yaml

from deploy_helpers import DEPLOY, OVERLAYS, REPO, container, containerfile, deployment, one, render_overlays


@pytest.fixture(scope="module")
def rendered() -> dict[str, list[dict]]:
    return render_overlays()


# ---- image <-> manifests ---------------------------------------------------------------------
def test_image_cmd_user_and_deployment_agree(rendered):
    import json

    cf = containerfile()
    version = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["version"]
    assert json.loads(cf["ENTRYPOINT"][-1]) == ["k10s"]
    cmd = json.loads(cf["CMD"][-1])
    assert cmd == ["watch", "--in-cluster", "--config", "/etc/k10s/watch.yaml"]
    assert cf["USER"][-1] == "65532:65532" and cf["EXPOSE"][-1] == "8080"
    assert cf["ARG"][0] == "BASE=python:3.12-slim" and all(f.startswith("${BASE}") for f in cf["FROM"])
    assert not any("kubectl" in run for run in cf["RUN"]), "no kubectl in the image: capture speaks the API in Python"
    for name, docs in rendered.items():
        c = container(docs)
        assert "command" not in c, "the image's ENTRYPOINT (k10s) runs"
        assert c["args"][:len(cmd)] == cmd, name
        assert c["image"] == f"k10s-forensics:{version}", "the name deploy/build-image.sh tags"
        assert deployment(docs)["spec"]["template"]["spec"]["securityContext"]["runAsUser"] == int(cf["USER"][-1].split(":")[0])
        config_mount = next(m["mountPath"] for m in c["volumeMounts"] if m["name"] == "config")
        assert cmd[-1].startswith(config_mount + "/") and cmd[-1].rsplit("/", 1)[1] in one(docs, "ConfigMap")["data"]
    script = (DEPLOY / "build-image.sh").read_text()
    assert 'TAG="k10s-forensics:$VERSION"' in script and "BASE=python:3.12-slim" in script


def test_build_context_lets_in_only_the_package():
    ignore = (REPO / ".containerignore").read_text()
    assert ignore == (REPO / ".dockerignore").read_text()
    allowed = {line[1:].rstrip("/") for line in ignore.splitlines() if line.startswith("!")}
    setuptools = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]
    assert set(setuptools["package-dir"].values()) | {"pyproject.toml", "README.md"} == allowed
    assert ignore.splitlines()[2] == "*", "deny by default"
    copied = {arg.split()[0] for arg in containerfile()["COPY"] if not arg.startswith("--from")}
    assert copied | {"README.md"} >= allowed - {"README.md"} and "pyproject.toml" in copied


def test_watch_flags_in_the_deployment_exist_when_watch_is_built(rendered):
    import click

    from k10s_forensics.cli import cli

    watch = cli.get_command(click.Context(cli), "watch")
    if watch is None:
        pytest.skip("`k10s watch` is not in this checkout yet (built on the watch branch)")
    flags = {opt for p in watch.params for opt in getattr(p, "opts", [])}
    for overlay, docs in rendered.items():
        for arg in container(docs)["args"][1:]:
            if arg.startswith("--"):
                assert arg in flags, f"{overlay}: k10s watch has no {arg}"


def test_watch_reads_every_overlays_config(rendered, tmp_path):
    config = pytest.importorskip("k10s_forensics.watch.config", reason="`k10s watch` is not in this checkout yet (built on the watch branch)")
    for overlay, docs in rendered.items():
        path = tmp_path / f"{overlay}.yaml"
        path.write_text(one(docs, "ConfigMap")["data"]["watch.yaml"])
        cfg = config.load(str(path), {})
        assert str(cfg.out) == "/var/lib/k10s/bundles" and cfg.events is False


# ---- Alertmanager ------------------------------------------------------------------------------
def _receiver_url(docs) -> str:
    svc = one(docs, "Service")
    return f"http://{svc['metadata']['name']}.{svc['metadata']['namespace']}.svc:{svc['spec']['ports'][0]['port']}/alertmanager"


def test_alertmanager_overlay_points_at_the_service(rendered):
    docs = rendered["alertmanager"]
    url = _receiver_url(docs)
    amc = one(docs, "AlertmanagerConfig")
    assert amc["apiVersion"] == "monitoring.coreos.com/v1alpha1" and amc["metadata"]["namespace"] == "monitoring"
    receivers = {r["name"]: r for r in amc["spec"]["receivers"]}
    assert set(receivers) == {amc["spec"]["route"]["receiver"]}
    assert [w["url"] for r in receivers.values() for w in r["webhookConfigs"]] == [url]
    assert amc["spec"]["route"]["continue"] is True and amc["spec"]["route"]["groupWait"] == "0s"
    snippet = yaml.safe_load((OVERLAYS["alertmanager"] / "alertmanager-receiver.yaml").read_text())
    assert [w["url"] for r in snippet["receivers"] for w in r["webhook_configs"]] == [url]
    np = one(docs, "NetworkPolicy")
    assert np["spec"]["ingress"][0]["from"][0]["namespaceSelector"]["matchLabels"]["kubernetes.io/metadata.name"] == amc["metadata"]["namespace"]


def test_alertmanager_snippet_is_a_valid_alertmanager_config(tmp_path):
    amtool = shutil.which("amtool")
    if amtool is None:
        pytest.skip("amtool is not installed (Debian's prometheus-alertmanager; ./dev.sh setup)")
    snippet = yaml.safe_load((OVERLAYS["alertmanager"] / "alertmanager-receiver.yaml").read_text())
    config = {"route": {"receiver": "default", **snippet["route"]}, "receivers": [{"name": "default"}, *snippet["receivers"]]}
    path = tmp_path / "alertmanager.yml"
    path.write_text(yaml.safe_dump(config))
    out = subprocess.run([amtool, "check-config", str(path)], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "1 receivers" not in out.stdout and "SUCCESS" in out.stdout
    test = subprocess.run([amtool, "config", "routes", "test", "--config.file", str(path), "k10s=capture", "alertname=GpuXid"],
                          capture_output=True, text=True, timeout=60)
    assert test.returncode == 0 and test.stdout.split() == ["k10s-watch"], test.stdout + test.stderr
