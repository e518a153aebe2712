"""The layer lock: a lock held by a killed process is recovered; readers block rebuilds; one fd per process."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from k10s_forensics.store.bundle import Bundle
from k10s_forensics.store.derived import staleness
from k10s_forensics.rebuild.run import ensure_layer as ensure
from k10s_forensics.engine import connect, run_sql
from k10s_forensics.store.locking import LayerLock, holder_note, release_all

from integrity_helpers import evidence_copy, run

HOLD = """
import sys, time
from pathlib import Path
from k10s_forensics.store.locking import LayerLock
with LayerLock(Path(sys.argv[1])).exclusive("k10s rebuilding tables of test"):
    print("held", flush=True)
    time.sleep(120)
"""


def test_lock_of_a_killed_process_is_recovered(tmp_path: Path) -> None:
    path = tmp_path / ".k10s.lock"
    proc = subprocess.Popen([sys.executable, "-c", HOLD, str(path)], stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "held"
    assert f"pid {proc.pid}" in holder_note(path)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(10)
    lock = LayerLock(path)
    started = time.monotonic()
    messages: list[str] = []
    with lock.exclusive("test", messages.append):
        assert f"pid {proc.pid}" in lock.previous, "the dead holder is named"
    assert time.monotonic() - started < 5 and not messages, "no waiting on a dead holder"
    release_all()


def test_a_killed_rebuild_is_named_and_cleaned_by_the_next_run(tmp_path: Path) -> None:
    bundle_dir = evidence_copy("healthy", tmp_path / "b")
    path = bundle_dir / ".k10s.lock"
    (bundle_dir / "tables.tmp-999999-deadbeef").mkdir()
    (bundle_dir / "tables.tmp-999999-deadbeef" / "pods.parquet").write_bytes(b"PAR1 half")
    proc = subprocess.Popen([sys.executable, "-c", HOLD, str(path)], stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "held"
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(10)
    result = run("sql", str(bundle_dir), "SELECT count(*) FROM pods", "--format", "csv", cache=tmp_path / "cache")
    assert result.returncode == 0, result.stderr
    assert f"pid {proc.pid}" in result.stderr and "tables.tmp-999999-deadbeef" in result.stderr
    assert not (bundle_dir / "tables.tmp-999999-deadbeef").exists()


def test_open_connection_keeps_rebuilds_out_until_closed(tmp_path: Path) -> None:
    bundle_dir = evidence_copy("healthy", tmp_path / "b")
    bundle = Bundle.open(bundle_dir)
    con = connect(bundle)
    assert staleness(bundle) is None
    proc = subprocess.Popen([sys.executable, "-m", "k10s_forensics", "rebuild", "-q", str(bundle_dir)], stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "K10S_CACHE_DIR": str(tmp_path / "cache")})
    time.sleep(2.5)
    assert proc.poll() is None, "the rebuild waits for the reader"
    assert run_sql(con, "SELECT count(*) AS n FROM pods").to_pylist()[0]["n"] > 0
    con.close()
    del con
    import gc

    gc.collect()
    _out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    assert "waiting for" in err
    # in one process, connect then rebuild does not deadlock on its own lock
    con = connect(Bundle.open(bundle_dir))
    from k10s_forensics.rebuild.run import rebuild

    rebuild(Bundle.open(bundle_dir), say=None)
    ensure(Bundle.open(bundle_dir), say=None)
    con.close()
    release_all()
