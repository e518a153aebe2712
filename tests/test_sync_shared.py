"""tests/tools/sync_shared.py: new samples are copied, changed ones reported and kept unless --update."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from conftest import REAL_SAMPLES, REPO

_spec = importlib.util.spec_from_file_location("sync_shared", REPO / "tests" / "tools" / "sync_shared.py")
sync_shared = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(sync_shared)


def _tree(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


def test_new_files_are_copied_and_changed_ones_kept_until_update(tmp_path):
    source = _tree(tmp_path / "shared", {"logs/a.log": "a\n", "logs/b.log": "new b\n", "ss/new.txt": "n\n"})
    target = _tree(tmp_path / "data", {"logs/a.log": "a\n", "logs/b.log": "old b\n", "logs/gone.log": "g\n"})
    report = sync_shared.sync(source, target)
    assert report == {"new": ["ss/new.txt"], "changed": ["logs/b.log"], "only_in_tests": ["logs/gone.log"]}
    assert (target / "ss/new.txt").read_text() == "n\n"
    assert (target / "logs/b.log").read_text() == "old b\n"
    sync_shared.sync(source, target, update=True)
    assert (target / "logs/b.log").read_text() == "new b\n"


def test_dry_run_copies_nothing(tmp_path):
    source = _tree(tmp_path / "shared", {"x/y.txt": "y\n"})
    target = tmp_path / "data"
    assert sync_shared.sync(source, target, dry_run=True)["new"] == ["x/y.txt"]
    assert not target.exists()


def test_the_vendored_samples_are_whole():
    assert (REAL_SAMPLES / "SOURCES.md").is_file()
    assert len(list((REAL_SAMPLES / "incidents").iterdir())) >= 30
