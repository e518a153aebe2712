"""Small modules: every Python file of the repository is under 300 lines (README, "Style").

A module that grows past the limit is split by what it holds (docs/architecture.md, "Modules split to
stay under 300 lines"); a test module's builders and fixtures move to a ``*_kit.py`` beside it.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
LIMIT_LINES = 300
#: Folders that are not the project's code (a virtual environment, caches, build outputs).
NOT_OURS = {".venv", "venv", ".git", "build", "dist", "__pycache__", ".pytest_cache", ".ruff_cache", "node_modules"}


def python_files(root: Path) -> list[Path]:
    """The ``.py`` files git tracks under ``root`` (untracked, unignored ones too); every one under it
    outside ``NOT_OURS`` where ``root`` is no git checkout."""
    listed = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z", "--", "*.py"],
                            cwd=root, capture_output=True, timeout=60)
    if listed.returncode == 0:
        return sorted(root / name for name in listed.stdout.decode().split("\0") if name and (root / name).is_file())
    return sorted(p for p in root.rglob("*.py") if not NOT_OURS & set(p.relative_to(root).parts))


def too_long(files: list[Path], root: Path) -> list[str]:
    """``path: N lines`` for each file of ``LIMIT_LINES`` lines or more."""
    counts = {f: len(f.read_text(encoding="utf-8", errors="replace").splitlines()) for f in files}
    return [f"{f.relative_to(root)}: {n} lines" for f, n in counts.items() if n >= LIMIT_LINES]


def test_every_python_module_is_under_300_lines():
    files = python_files(REPO)
    assert len(files) > 100 and REPO / "k10s_forensics" / "cli.py" in files
    assert too_long(files, REPO) == [], "split these by what they hold"


def test_the_size_check_names_a_long_module_and_only_it(tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "long.py").write_text("x = 1\n" * LIMIT_LINES)
    (tmp_path / "pkg" / "short.py").write_text("x = 1\n" * (LIMIT_LINES - 1))
    (tmp_path / ".venv").mkdir()
    (tmp_path / ".venv" / "site.py").write_text("x = 1\n" * 5000)
    files = python_files(tmp_path)  # no git checkout: every file outside NOT_OURS
    assert [f.name for f in files] == ["long.py", "short.py"]
    assert too_long(files, tmp_path) == [f"pkg/long.py: {LIMIT_LINES} lines"]


#: A shared SQL statement (queries/_views*.sql, _failure_line.sql, _incident*.sql, …) longer than this is split into
#: steps of its own, each a TEMP table the next reads back under its step's name (docs/architecture.md, "`k10s_incident`
#: in steps"): k10s_incident was one statement of 1,228 lines until session 47.
SQL_STATEMENT_LIMIT_LINES = 750


def test_every_shared_sql_statement_is_under_750_lines():
    from k10s_forensics.analyze import viewplan

    sizes = {st.name: len(st.sql.splitlines()) for st in viewplan.statements()}
    assert "k10s_incident" in sizes and "k10s_incident_own" in sizes
    assert [f"{n}: {k} lines" for n, k in sizes.items() if k >= SQL_STATEMENT_LIMIT_LINES] == [], "split it into steps"
