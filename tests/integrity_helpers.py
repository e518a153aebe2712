"""Helpers for the integrity tests: k10s as a real subprocess, bundle snapshots, verify."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from conftest import SAMPLE_BUNDLES


def k10s_cmd(*args: str) -> list[str]:
    return [sys.executable, "-m", "k10s_forensics", *args]


def env(cache: Path) -> dict[str, str]:
    return {**os.environ, "K10S_CACHE_DIR": str(cache), "PYTHONDONTWRITEBYTECODE": "1"}


def run(*args: str, cache: Path, timeout: float = 300, **kw) -> subprocess.CompletedProcess:
    return subprocess.run(k10s_cmd(*args), capture_output=True, text=True, timeout=timeout, env=env(cache), **kw)


def start(*args: str, cache: Path) -> subprocess.Popen:
    return subprocess.Popen(k10s_cmd(*args), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env(cache))


def evidence_copy(sample: str, dst: Path) -> Path:
    """A sample bundle's evidence only (manifest + raw/): tables must be derived."""
    (dst / "raw").mkdir(parents=True)
    src = SAMPLE_BUNDLES / sample
    shutil.copy2(src / "manifest.json", dst / "manifest.json")
    for p in (src / "raw").iterdir():
        shutil.copy2(p, dst / "raw" / p.name)
    return dst


def evidence_digest(bundle: Path) -> dict[str, str]:
    """SHA-256 of manifest.json and every raw file (the evidence must never change)."""
    files = [bundle / "manifest.json", *sorted((bundle / "raw").iterdir())]
    return {p.relative_to(bundle).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest() for p in files}


def findings_key(stdout: str) -> list[tuple]:
    data = json.loads(stdout)
    return [(f["rule"], f["severity"], f["title"], tuple(f["ranks"]), tuple(f["nodes"])) for f in data["findings"]]


def assert_verify_clean(bundle: Path, cache: Path) -> str:
    proc = run("verify", str(bundle), cache=cache)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "PROBLEM" not in proc.stdout
    return proc.stdout
