"""k10s pack and k10s verify on real bundles, through the library and the real CLI."""

from __future__ import annotations

import json
import subprocess
import sys
import tarfile
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from k10s_forensics.store.bundle import Bundle
from k10s_forensics.errors import BundleError
from k10s_forensics.rebuild.run import rebuild
from k10s_forensics.sharing.pack import pack
from k10s_forensics.sharing.verify import verify
from canary_kit import build_canary_bundle


@pytest.fixture(autouse=True)
def _cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("K10S_CACHE_DIR", str(tmp_path / "cache"))


@pytest.fixture()
def bundle(tmp_path: Path) -> Path:
    path = build_canary_bundle(tmp_path / "incident-42")
    rebuild(Bundle.open(path))
    return path


def k10s(*args: str, env_cache: Path) -> subprocess.CompletedProcess:
    import os

    env = {**os.environ, "K10S_CACHE_DIR": str(env_cache)}
    return subprocess.run([sys.executable, "-m", "k10s_forensics", *args], capture_output=True, text=True, env=env, timeout=120)


def test_pack_is_reproducible_and_ordered(bundle: Path, tmp_path: Path) -> None:
    first = pack(bundle, tmp_path / "one.tar.gz")
    second = pack(bundle, tmp_path / "two.tar.gz")
    assert first.path.read_bytes() == second.path.read_bytes()
    assert first.sha256 == second.sha256
    with tarfile.open(first.path) as tf:
        names = tf.getnames()
        infos = tf.getmembers()
    manifest = json.loads((bundle / "manifest.json").read_text())
    assert names[0] == "incident-42/manifest.json"
    assert names[1:] == [f"incident-42/{rel}" for rel in sorted(manifest["files"])]
    assert not any(n.startswith("incident-42/tables/") for n in names), "derived tables are rebuilt by the recipient, never shipped"
    assert all(i.isreg() and i.mode == 0o644 and i.uid == 0 and i.uname == "" for i in infos)


def test_pack_default_output_and_verify_archive(bundle: Path) -> None:
    result = pack(bundle)
    assert result.path == bundle.parent / "incident-42.tar.gz"
    checked = verify(result.path)
    assert checked.problems == [] and checked.is_archive
    assert checked.files_checked == len(json.loads((bundle / "manifest.json").read_text())["files"])
    assert checked.parquet_checked == checked.files_checked


def test_pack_refuses_a_bundle_edited_after_its_manifest(bundle: Path, tmp_path: Path) -> None:
    path = bundle / "raw" / "logs.parquet"
    data = bytearray(path.read_bytes())
    data[100] ^= 0x01
    path.write_bytes(bytes(data))
    with pytest.raises(BundleError, match="raw/logs.parquet changed since the manifest was written"):
        pack(bundle, tmp_path / "x.tar.gz")
    assert not (tmp_path / "x.tar.gz").exists() and not (tmp_path / "x.tar.gz.partial").exists()


def test_verify_folder_names_every_problem(bundle: Path) -> None:
    assert verify(bundle).problems == []
    manifest = json.loads((bundle / "manifest.json").read_text())
    # evidence: 1. a tampered file, 2. a deleted file, 3. an unlisted file, 4. a damaged Parquet file with a matching manifest entry
    logs = bundle / "raw" / "logs.parquet"
    logs.write_bytes(logs.read_bytes()[:-10] + b"0123456789")
    (bundle / "raw" / "exec.parquet").unlink()
    (bundle / "raw" / "notes.txt").write_text("added later")
    broken = bundle / "raw" / "scrapes.parquet"
    broken.write_bytes(b"PAR1" + b"\x00" * 100 + b"PAR1")
    import hashlib

    manifest["files"]["raw/scrapes.parquet"] = {"sha256": hashlib.sha256(broken.read_bytes()).hexdigest(), "bytes": broken.stat().st_size}
    (bundle / "manifest.json").write_text(json.dumps(manifest))
    # derived, reported apart: a deleted table and a damaged one
    (bundle / "tables" / "events.parquet").unlink()
    (bundle / "tables" / "pods.parquet").write_bytes(b"PAR1" + b"\x00" * 100 + b"PAR1")
    result = verify(bundle)
    problems = result.problems
    assert any(p.startswith("raw/logs.parquet: checksum mismatch") for p in problems)
    assert "raw/exec.parquet: listed in the manifest but missing" in problems
    assert any(p.startswith("raw/notes.txt: present but not listed") for p in problems)
    assert any(p.startswith("raw/scrapes.parquet: unreadable Parquet") for p in problems)
    assert not any("tables/" in p for p in problems)
    derived = result.derived_problems
    assert any(p.startswith("tables/events.parquet: listed in the manifest but missing") for p in derived)
    assert any(p.startswith("tables/pods.parquet: checksum mismatch") for p in derived)
    assert any(p.startswith("tables/pods.parquet: unreadable Parquet") for p in derived)


def test_verify_checks_format_version_and_columns(bundle: Path) -> None:
    manifest = json.loads((bundle / "manifest.json").read_text())
    manifest["format_version"] = 99
    del manifest["window"]
    bad = pa.table({"captured_at": pa.array(["not a time"]), "body": pa.array(["x"])})
    pq.write_table(bad, bundle / "raw" / "scrapes.parquet")
    import hashlib

    p = bundle / "raw" / "scrapes.parquet"
    manifest["files"]["raw/scrapes.parquet"] = {"sha256": hashlib.sha256(p.read_bytes()).hexdigest(), "bytes": p.stat().st_size}
    (bundle / "manifest.json").write_text(json.dumps(manifest))
    problems = verify(bundle).problems
    assert any("format_version 99 is not supported" in p for p in problems)
    assert any("missing key 'window'" in p for p in problems)
    assert any("raw/scrapes.parquet: column 'captured_at' is string" in p for p in problems)
    assert any("raw/scrapes.parquet: missing required column 'url'" in p for p in problems)


def test_cli_pack_verify_and_commands_on_archives(bundle: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cli-cache"
    out = tmp_path / "shared.tar.gz"
    packed = k10s("pack", str(bundle), "-o", str(out), env_cache=cache)
    assert packed.returncode == 0, packed.stderr
    assert "sha256" in packed.stdout and out.is_file()
    ok = k10s("verify", str(out), env_cache=cache)
    assert ok.returncode == 0 and ok.stdout.strip().endswith("OK"), ok.stdout + ok.stderr
    sql = k10s("sql", str(out), "SELECT count(*) AS n FROM raw_objects", "--format", "csv", env_cache=cache)
    assert sql.returncode == 0, sql.stderr
    assert sql.stdout.strip().splitlines()[-1] == str(pq.read_metadata(bundle / "raw" / "objects.parquet").num_rows)
    rebuilt = k10s("rebuild", str(out), env_cache=cache)
    assert rebuilt.returncode == 0 and str(cache) in rebuilt.stdout
    (bundle / "raw" / "extra.txt").write_text("x")
    bad = k10s("verify", str(bundle), env_cache=cache)
    assert bad.returncode == 1 and "PROBLEM raw/extra.txt: present but not listed" in bad.stdout
    missing = k10s("verify", str(tmp_path / "nope"), env_cache=cache)
    assert missing.returncode == 2 and "no such file" in missing.stderr and "Traceback" not in missing.stderr
