"""Read-only SQL: `k10s sql`, `--rules` rules and the shell cannot write, attach, load or read other files."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from k10s_forensics.store.bundle import Bundle
from k10s_forensics.engine import connect, run_sql
from k10s_forensics.errors import QueryError

from conftest import SAMPLE_BUNDLES


@pytest.fixture(scope="module")
def bundle_dir(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("ro-sql")
    shutil.copytree(SAMPLE_BUNDLES / "oom-crashloop", root / "b")
    secret = root / "secret.csv"
    secret.write_text("token\nhunter2\n")
    return root / "b"


def _escapes(root: Path) -> dict[str, str]:
    """Each escape, with a file path it would write or read."""
    out = root / "escaped"
    return {
        "copy-out": f"COPY (SELECT 1 AS x) TO '{out}.csv'",
        "copy-into-bundle": f"COPY (SELECT 1 AS x) TO '{root / 'b' / 'tables' / 'pods.parquet'}' (FORMAT parquet)",
        "copy-table": f"COPY pods TO '{out}.parquet'",
        "export": f"EXPORT DATABASE '{out}'",
        "attach": f"ATTACH '{out}.duckdb' AS other",
        "install": "INSTALL httpfs",
        "load": "LOAD httpfs",
        "read-other-file": f"SELECT * FROM read_csv('{root / 'secret.csv'}')",
        "read-text": "SELECT * FROM read_text('/etc/hostname')",
        "glob": f"SELECT * FROM glob('{root}/*')",
        "network": "SELECT * FROM read_parquet('https://example.invalid/x.parquet')",
        "unlock": "SET enable_external_access = true",
        "widen": "SET allowed_directories = ['/']",
        "profile-out": f"SET profiling_output = '{out}.json'",
        "second-statement": f"SELECT 1; COPY (SELECT 2) TO '{out}-2.csv'",
    }


def test_every_escape_is_refused_in_process(bundle_dir: Path) -> None:
    con = connect(Bundle.open(bundle_dir))
    assert run_sql(con, "SELECT count(*) AS n FROM pods").to_pylist()[0]["n"] > 0
    for name, sql in _escapes(bundle_dir.parent).items():
        with pytest.raises(QueryError) as err:
            run_sql(con, sql, origin=name)
        assert "\n" not in str(err.value), name
    assert not list(bundle_dir.parent.glob("escaped*")), "nothing was written"
    # read-only views over the bundle still work afterwards
    assert run_sql(con, "SELECT count(*) AS n FROM raw_objects").to_pylist()[0]["n"] > 0


@pytest.mark.parametrize("name", ["copy-out", "attach", "install", "read-other-file", "unlock"])
def test_cli_sql_refuses_with_one_line(bundle_dir: Path, name: str) -> None:
    sql = _escapes(bundle_dir.parent)[name]
    before = (bundle_dir / "manifest.json").read_bytes()
    proc = subprocess.run([sys.executable, "-m", "k10s_forensics", "sql", str(bundle_dir), sql], capture_output=True, text=True, timeout=120)
    assert proc.returncode != 0
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("k10s: error:"), proc.stderr
    assert "Traceback" not in proc.stderr
    assert not list(bundle_dir.parent.glob("escaped*"))
    assert (bundle_dir / "manifest.json").read_bytes() == before


def test_user_rule_cannot_write(bundle_dir: Path, tmp_path: Path) -> None:
    rules = tmp_path / "rules"
    rules.mkdir()
    target = tmp_path / "stolen.csv"
    header = "-- id: {id}\n-- severity: info\n-- title: t\n-- description: d\n-- requires: pods\n-- columns:\n--   summary VARCHAR -- text\n"
    (rules / "evil.sql").write_text(header.format(id="evil") + f"COPY (SELECT pod AS summary FROM pods) TO '{target}'\n")
    (rules / "evil_attach.sql").write_text(header.format(id="evil-attach") + f"ATTACH '{tmp_path / 'x.duckdb'}' AS x\n")
    proc = subprocess.run([sys.executable, "-m", "k10s_forensics", "analyze", str(bundle_dir), "--rules", str(rules), "--format", "json",
                           "--rule", "evil", "--rule", "evil-attach"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert not target.exists() and not (tmp_path / "x.duckdb").exists()
    import json

    skipped = {s["rule"]: s["reason"] for s in json.loads(proc.stdout)["skipped"]}
    assert "read-only" in skipped["evil"] and "read-only" in skipped["evil-attach"]


def test_shell_is_locked_unless_unsafe(bundle_dir: Path) -> None:
    target = bundle_dir.parent / "shell-out.csv"
    script = f"COPY (SELECT 1) TO '{target}';\nSELECT count(*) AS n FROM pods;\n.quit\n"
    env = {k: v for k, v in os.environ.items()}
    proc = subprocess.run([sys.executable, "-m", "k10s_forensics", "shell", str(bundle_dir)], input=script, capture_output=True, text=True,
                          timeout=120, env=env)
    assert proc.returncode == 0, proc.stderr
    assert "read-only" in proc.stdout and not target.exists()
    proc = subprocess.run([sys.executable, "-m", "k10s_forensics", "shell", "--unsafe", str(bundle_dir)], input=script, capture_output=True,
                          text=True, timeout=120, env=env)
    assert proc.returncode == 0, proc.stderr
    assert target.exists(), "--unsafe opens an unlocked database"
