"""The krew plugin for `kubectl k10s`: the manifest's structure (krew's v1alpha2 Plugin), and the
archive deploy/krew/build-plugin.sh builds: reproducible, matching the manifest it writes, and
working as a real kubectl plugin (kubectl finds it on PATH; it installs its wheel on first use)."""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import site
import subprocess
import sys
import tarfile
import tomllib
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[1]
KREW = REPO / "deploy" / "krew"
# build-plugin.sh builds the wheel in the source tree (setuptools writes build/ and *.egg-info
# there), as test_packaging does: the two must not run at once on different workers.
pytestmark = pytest.mark.xdist_group("wheel-build")
VERSION = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["version"]


def _check_manifest(doc: dict) -> None:
    """What krew's validation requires of a plugin manifest (and the name kubectl runs it by)."""
    assert doc["apiVersion"] == "krew.googlecontainertools.github.com/v1alpha2" and doc["kind"] == "Plugin"
    assert re.fullmatch(r"[a-z0-9][a-z0-9-]*", doc["metadata"]["name"]) and doc["metadata"]["name"] == "k10s"
    spec = doc["spec"]
    assert spec["version"] == f"v{VERSION}"
    assert 0 < len(spec["shortDescription"]) <= 50 and spec["description"].strip() and spec["homepage"].startswith("https://")
    assert spec["platforms"]
    for platform in spec["platforms"]:
        assert platform["selector"]["matchExpressions"] or platform["selector"]["matchLabels"]
        assert platform["uri"].startswith("https://") and platform["uri"].endswith(f"/kubectl-k10s-v{VERSION}.tar.gz")
        assert re.fullmatch(r"[0-9a-f]{64}", platform["sha256"])
        assert platform["bin"] == "kubectl-k10s"
        sources = [f["from"] for f in platform["files"]]
        assert platform["bin"] in sources and f"k10s_forensics-{VERSION}-py3-none-any.whl" in sources
        assert all(f["to"] == "." for f in platform["files"])


def test_manifest_is_a_krew_plugin():
    _check_manifest(yaml.safe_load((KREW / "k10s.yaml").read_text()))


def test_wrapper_version_and_console_script_match_the_package():
    assert f"\nVERSION={VERSION}\n" in (KREW / "kubectl-k10s").read_text()
    assert os.access(KREW / "kubectl-k10s", os.X_OK) and os.access(KREW / "build-plugin.sh", os.X_OK)
    scripts = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["scripts"]
    assert scripts["kubectl-k10s"] == scripts["k10s"], "pip installs kubectl-k10s too: the same CLI"


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    out = tmp_path_factory.mktemp("krew")
    run = subprocess.run([str(KREW / "build-plugin.sh"), str(out), "https://downloads.example.org/k10s"],
                         capture_output=True, text=True, timeout=600, env=dict(os.environ, PYTHON=sys.executable))
    assert run.returncode == 0, run.stderr[-3000:]
    return out


@pytest.mark.slow
def test_built_manifest_names_the_archive_and_its_sha256(built):
    archive = built / f"kubectl-k10s-v{VERSION}.tar.gz"
    doc = yaml.safe_load((built / "k10s.yaml").read_text())
    _check_manifest(doc)
    platform = doc["spec"]["platforms"][0]
    assert platform["sha256"] == hashlib.sha256(archive.read_bytes()).hexdigest()
    assert platform["uri"] == f"https://downloads.example.org/k10s/{archive.name}"
    with tarfile.open(archive) as tar:
        members = {m.name.removeprefix("./"): m for m in tar.getmembers() if m.isfile()}
    assert set(members) == {f["from"] for f in platform["files"]}
    assert members["kubectl-k10s"].mode & 0o111 and all(m.uid == 0 and m.mtime == members["README.md"].mtime for m in members.values())


@pytest.mark.slow
def test_archive_works_as_a_kubectl_plugin(built, tmp_path):
    kubectl = shutil.which("kubectl")
    if kubectl is None:
        pytest.skip("kubectl is not installed (./dev.sh setup installs Debian's kubernetes-client)")
    plugin_dir = tmp_path / "store"
    with tarfile.open(built / f"kubectl-k10s-v{VERSION}.tar.gz") as tar:
        tar.extractall(plugin_dir, filter="data")
    bin_dir = tmp_path / "bin"  # krew links bin/kubectl-<name> to the installed file
    bin_dir.mkdir()
    (bin_dir / "kubectl-k10s").symlink_to(plugin_dir / "kubectl-k10s")
    # Offline here: the private virtualenv sees this interpreter's packages for the dependencies.
    env = dict(os.environ, PATH=f"{bin_dir}{os.pathsep}/usr/bin{os.pathsep}/bin", XDG_DATA_HOME=str(tmp_path / "data"),
               K10S_PYTHON=sys.executable, K10S_VENV_ARGS="--system-site-packages", K10S_PIP_ARGS="--no-deps --no-index",
               KUBECONFIG=str(tmp_path / "none"))
    first = subprocess.run([kubectl, "k10s", "--version"], capture_output=True, text=True, env=env, timeout=600)
    assert first.returncode == 0, first.stderr
    assert "k10s" in first.stdout and "first use" in first.stderr
    venv = tmp_path / "data" / "k10s" / f"krew-{VERSION}"
    where = subprocess.run([str(venv / "bin" / "python"), "-c", "import k10s_forensics; print(k10s_forensics.__file__)"],
                           capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert where.stdout.startswith(str(venv)), "the wheel from the archive runs, not the checkout"
    # Offline, the wheel went in without its dependencies; `--system-site-packages` gives the private virtualenv
    # the base interpreter's packages, which lack them when the tests run from a project virtualenv: a .pth
    # adds this interpreter's site-packages after the virtualenv's own (the wheel's k10s_forensics still wins;
    # a .pth inside a directory a .pth names is not read, so the checkout's editable finder is not either).
    site_dir = Path(where.stdout.strip()).parent.parent
    (site_dir / "k10s-test-dependencies.pth").write_text("\n".join(site.getsitepackages()) + "\n", encoding="utf-8")
    again = subprocess.run([kubectl, "k10s", "capture", "--help"], capture_output=True, text=True, env=env, timeout=120)
    assert again.returncode == 0 and "--job [KIND/]NS/NAME" in again.stdout and "first use" not in again.stderr
    still = subprocess.run([str(venv / "bin" / "python"), "-c", "import k10s_forensics; print(k10s_forensics.__file__)"],
                           capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert still.stdout == where.stdout, "the wheel from the archive still runs, not the checkout"
    assert not list(venv.parent.glob("*.tmp.*")), "the temporary virtualenv was moved into place"
