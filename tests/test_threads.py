"""K10S_THREADS: the DuckDB threads of every database k10s opens when no --threads says so."""

from __future__ import annotations

import shutil
import subprocess
import sys

import pytest

from conftest import SAMPLE_BUNDLES
from k10s_forensics import engine
from k10s_forensics.errors import InputError
from k10s_forensics.store.bundle import Bundle
from k10s_forensics.threads import default_threads, threads_or_default


def _threads(con) -> int:
    return int(con.execute("SELECT current_setting('threads')").fetchall()[0][0])


@pytest.mark.parametrize(("value", "want"), [("", None), ("1", 1), (" 3 ", 3), ("1024", 1024)])
def test_default_threads_reads_the_variable(monkeypatch, value, want):
    monkeypatch.setenv("K10S_THREADS", value)
    assert default_threads() == want
    assert threads_or_default(7) == 7  # an explicit number wins


@pytest.mark.parametrize("value", ["0", "-1", "two", "1.5", "1025"])
def test_a_bad_value_is_one_clear_error(monkeypatch, value):
    monkeypatch.setenv("K10S_THREADS", value)
    with pytest.raises(InputError, match="K10S_THREADS must be a whole number of threads from 1 to 1024"):
        default_threads()


def test_analysis_database_uses_it_unless_told(monkeypatch, tmp_path):
    shutil.copytree(SAMPLE_BUNDLES / "healthy", tmp_path / "b")
    bundle = Bundle.open(tmp_path / "b")
    monkeypatch.setenv("K10S_THREADS", "3")
    assert _threads(engine.connect(bundle)) == 3
    assert _threads(engine.connect(bundle, threads=2)) == 2
    monkeypatch.delenv("K10S_THREADS")
    assert _threads(engine.connect(bundle, threads=2)) == 2


def test_cli_bad_value_exit_2_one_line():
    env = {"K10S_THREADS": "many", "PATH": "/usr/bin:/bin"}
    res = subprocess.run([sys.executable, "-m", "k10s_forensics", "analyze", str(SAMPLE_BUNDLES / "healthy")],
                         capture_output=True, text=True, env=env, check=False)
    assert res.returncode == 2
    assert res.stderr.strip().splitlines() == ["k10s: error: K10S_THREADS must be a whole number of threads from 1 to 1024, not 'many'"]


def test_parsers_scratch_database_uses_it(tmp_path):
    code = ("from k10s_forensics.parsers import scratch; c = scratch.connection(); "
            "print(c.execute(\"SELECT current_setting('threads')\").fetchall()[0][0])")
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={"K10S_THREADS": "2", "PATH": "/usr/bin:/bin"}, cwd=tmp_path)
    assert res.stdout.strip() == "2"
