"""Concurrent runs: analyze, sql and rebuild started together on one bundle, as real processes."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from k10s_forensics.store.locking import LayerLock, holder_note, release_all

from integrity_helpers import assert_verify_clean, evidence_copy, evidence_digest, findings_key, run, start

ROUNDS = int(os.environ.get("K10S_CONCURRENCY_ROUNDS", "2"))


@pytest.mark.parametrize("sample", ["oom-crashloop", "nccl-hang"])
def test_concurrent_runs_agree_and_leave_the_bundle_whole(sample: str, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    bundle = evidence_copy(sample, tmp_path / "b")
    evidence = evidence_digest(bundle)
    reference = None
    for round_no in range(ROUNDS):
        if round_no:  # start again from evidence only: every round races on a missing derived layer
            import shutil

            shutil.rmtree(bundle / "tables", ignore_errors=True)
        procs = {
            "analyze-1": start("analyze", str(bundle), "--format", "json", cache=cache),
            "analyze-2": start("analyze", str(bundle), "--format", "json", cache=cache),
            "sql-1": start("sql", str(bundle), "SELECT count(*) AS n FROM pods", "--format", "csv", cache=cache),
            "sql-2": start("sql", str(bundle), "SELECT count(*) AS n FROM containers", "--format", "csv", cache=cache),
            "rebuild": start("rebuild", "-q", str(bundle), cache=cache),
        }
        if round_no == 0 and sample == "oom-crashloop":  # the report too (slower: once)
            procs["report"] = start("report", str(bundle), "-o", str(tmp_path / "report.html"), cache=cache)
        outs = {name: p.communicate(timeout=300) for name, p in procs.items()}
        for name, p in procs.items():
            assert p.returncode == 0, f"{name}: {outs[name][1]}"
            assert "Traceback" not in outs[name][1] and "internal error" not in outs[name][1], outs[name][1]
        keys = [findings_key(outs[n][0]) for n in ("analyze-1", "analyze-2")]
        assert keys[0] == keys[1] and keys[0], "both analyses name the same findings"
        reference = reference or keys[0]
        assert keys[0] == reference, "every round finds the same"
        assert int(outs["sql-1"][0].splitlines()[1]) > 0
        assert evidence_digest(bundle) == evidence, "manifest.json and raw/ are byte-identical"
        out = assert_verify_clean(bundle, cache)
        assert "derived (tables/): current" in out
        assert not [p.name for p in bundle.iterdir() if p.name.startswith("tables.")]


def test_second_run_waits_with_a_message_then_reuses(tmp_path: Path) -> None:
    """A rebuild holding the lock makes analyze wait (it says so), then analyze uses the result."""
    cache = tmp_path / "cache"
    bundle = evidence_copy("oom-crashloop", tmp_path / "b")
    lock = LayerLock(bundle / ".k10s.lock")
    entered = threading.Event()
    release = threading.Event()

    def hold() -> None:
        with lock.exclusive("test holding the lock"):
            entered.set()
            release.wait(60)

    holder = threading.Thread(target=hold)
    holder.start()
    try:
        assert entered.wait(10)
        assert "test holding the lock" in holder_note(bundle / ".k10s.lock")
        proc = start("analyze", str(bundle), "--format", "json", cache=cache)
        first_line = proc.stderr.readline()  # blocks until analyze says it waits (it cannot finish meanwhile)
        assert proc.poll() is None, "analyze waits while the lock is held"
        release.set()
        stdout, rest = proc.communicate(timeout=300)
        stderr = first_line + rest
    finally:
        release.set()
        holder.join()
        release_all()
    assert proc.returncode == 0, stderr
    assert "waiting for test holding the lock" in stderr
    assert findings_key(stdout)


def test_read_only_bundle_derives_into_the_cache(tmp_path: Path) -> None:
    """A bundle folder that cannot be written: tables go to the per-user cache, keyed by the raw checksums."""
    cache = tmp_path / "cache"
    bundle = evidence_copy("oom-crashloop", tmp_path / "b")
    evidence = evidence_digest(bundle)
    before = sorted(p.relative_to(bundle).as_posix() for p in bundle.rglob("*"))
    as_root = os.geteuid() == 0  # root ignores permissions: simulate the read-only mount
    folders = [bundle, bundle / "raw"]
    if as_root:
        os.environ["K10S_READONLY_BUNDLES"] = "1"
    else:
        for folder in folders:
            folder.chmod(0o555)
    try:
        first = run("analyze", str(bundle), "--format", "json", cache=cache)
        second = run("sql", str(bundle), "SELECT count(*) FROM pods", "--format", "csv", cache=cache)
    finally:
        os.environ.pop("K10S_READONLY_BUNDLES", None)
        for folder in folders:
            folder.chmod(0o755)
    assert first.returncode == 0 and second.returncode == 0, first.stderr + second.stderr
    assert findings_key(first.stdout)
    assert sorted(p.relative_to(bundle).as_posix() for p in bundle.rglob("*")) == before, "nothing written into the bundle"
    assert evidence_digest(bundle) == evidence
    entries = list((cache / "derived").iterdir())
    assert len(entries) == 1 and (entries[0] / "tables" / "derived.json").is_file()
    assert "rebuilt" not in second.stderr


def test_concurrent_runs_on_one_archive(tmp_path: Path) -> None:
    """Several runs unpack the same archive into the cache at once: one copy wins, all agree."""
    cache = tmp_path / "cache"
    bundle = evidence_copy("oom-crashloop", tmp_path / "b")
    packed = run("pack", str(bundle), "-o", str(tmp_path / "b.tar.gz"), cache=cache)
    assert packed.returncode == 0, packed.stderr
    procs = [start("analyze", str(tmp_path / "b.tar.gz"), "--format", "json", cache=cache) for _ in range(3)]
    procs.append(start("sql", str(tmp_path / "b.tar.gz"), "SELECT count(*) FROM pods", cache=cache))
    outs = [p.communicate(timeout=300) for p in procs]
    assert all(p.returncode == 0 for p in procs), [o[1] for o in outs]
    keys = {tuple(findings_key(o[0])) for o in outs[:3]}
    assert len(keys) == 1
    assert_verify_clean(tmp_path / "b.tar.gz", cache)
