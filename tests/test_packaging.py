"""The built wheel works on its own: installed into a fresh virtualenv, run on a sample bundle."""

from __future__ import annotations

import importlib.resources
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def test_subpackages_resolve_to_the_top_level_folders():
    import k10s_forensics.collectors as collectors
    import k10s_forensics.queries as queries
    import k10s_forensics.reports as reports

    assert Path(collectors.__file__).resolve().parent == REPO / "collectors"
    assert Path(queries.__file__).resolve().parent == REPO / "queries"
    assert Path(reports.__file__).resolve().parent == REPO / "reports"
    assert "collectors" not in sys.modules and "queries" not in sys.modules


def test_sql_files_are_package_data():
    shipped = {p.name for p in importlib.resources.files("k10s_forensics.queries").iterdir() if p.name.endswith(".sql")}
    on_disk = {p.name for p in (REPO / "queries").glob("*.sql")}
    assert shipped == on_disk


@pytest.mark.slow
@pytest.mark.xdist_group("wheel-build")  # setuptools builds in the source tree: one build at a time (test_krew)
def test_wheel_installs_into_fresh_venv_and_runs(tmp_path):
    dist = tmp_path / "dist"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(dist), str(REPO)], check=True, timeout=300)
    wheels = list(dist.glob("k10s_forensics-*.whl"))
    assert len(wheels) == 1
    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=False).create(env_dir)
    py = env_dir / "bin" / "python"
    pip = [sys.executable, "-m", "pip", "--python", str(py), "install", "-q", "--disable-pip-version-check"]
    # The wheel's dependencies resolve from the index into the empty venv, as a user's install resolves them ...
    report = tmp_path / "report.json"
    subprocess.run([*pip, "--dry-run", "--report", str(report), str(wheels[0])], check=True, timeout=900)
    resolved = {i["metadata"]["name"].lower() for i in json.loads(report.read_text())["install"]}
    assert {"k10s-forensics", "duckdb", "pyarrow", "click", "jinja2", "plotly", "rich", "textual", "kubernetes"} <= resolved
    # ... and the wheel itself is installed; unpacking those dependencies again (~30 CPU s: duckdb, pyarrow, ...) is
    # what `./dev.sh setup` does on a fresh machine already: here they come from this interpreter's site-packages,
    # added by a path line (its .pth files, the checkout's editable finder among them, are not run from there)
    subprocess.run([*pip, "--no-deps", str(wheels[0])], check=True, timeout=300)
    purelib = Path(subprocess.run([str(py), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"], capture_output=True,
                                  text=True, check=True).stdout.strip())
    (purelib / "host-deps.pth").write_text(sysconfig.get_path("purelib") + "\n", encoding="utf-8")
    k10s = env_dir / "bin" / "k10s"
    # Run outside the source tree so nothing is imported from the checkout.
    bundle_src = next(p for p in sorted((REPO / "sample-bundles").iterdir()) if (p / "manifest.json").is_file())
    bundle = tmp_path / "bundle"
    shutil.copytree(bundle_src, bundle)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH",)}
    version = subprocess.run([str(k10s), "--version"], capture_output=True, text=True, cwd=tmp_path, env=env, timeout=60)
    assert version.returncode == 0 and "k10s" in version.stdout
    out = subprocess.run([str(k10s), "sql", str(bundle), "SELECT count(*) AS n FROM pods", "--format", "csv"], capture_output=True, text=True, cwd=tmp_path, env=env, timeout=300)
    assert out.returncode == 0, out.stderr
    assert int(out.stdout.splitlines()[1]) > 0
    where = subprocess.run([str(py), "-c", "import k10s_forensics.queries as q, k10s_forensics.collectors as c; print(q.__file__); print(c.__file__)"], capture_output=True, text=True, cwd=tmp_path, env=env, timeout=60)
    assert str(env_dir) in where.stdout and str(REPO) not in where.stdout
    view = subprocess.run([str(py), "-c", "import importlib.resources as r; f = r.files('k10s_forensics.view');"
                           " print(f.joinpath('styles.tcss').is_file(), sorted(p.name for p in f.joinpath('sql').iterdir()))"],
                          capture_output=True, text=True, cwd=tmp_path, env=env, timeout=60)
    assert view.stdout.startswith("True") and "fact_rank_oom.sql" in view.stdout, "k10s view's styles and SQL in the wheel"
    analyze = subprocess.run([str(k10s), "analyze", str(bundle), "--format", "json"], capture_output=True, text=True, cwd=tmp_path, env=env, timeout=300)
    assert analyze.returncode == 0, analyze.stderr
    assert set(json.loads(analyze.stdout)) >= {"bundle", "findings", "skipped"}
    report = subprocess.run([str(k10s), "report", str(bundle), "-o", str(tmp_path / "r.html")], capture_output=True, text=True, cwd=tmp_path, env=env, timeout=300)
    assert report.returncode == 0, report.stderr
    assert (tmp_path / "r.html").stat().st_size > 100_000, "report with embedded plotly.js and templates from the wheel"


def test_every_package_folder_is_listed_in_pyproject():
    import tomllib

    config = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]
    listed = set(config["packages"])
    mapping = config["package-dir"]
    found = set()
    for top, folder in mapping.items():
        root = REPO / folder
        for init in root.rglob("__init__.py"):
            rel = init.parent.relative_to(root).parts
            found.add(".".join((top, *rel)))
    assert found - listed == set(), f"package folders missing from pyproject [tool.setuptools] packages: {sorted(found - listed)}"
    assert listed - found == set(), f"listed packages without a folder: {sorted(listed - found)}"
