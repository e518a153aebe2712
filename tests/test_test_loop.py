"""The test loop's own wiring: dev.sh's library check and the allocator it preloads into the test
processes (tests/conftest.py keeps it out of what the tests start, the determinism kit gives it to its
analysis servers)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def _dev_functions(call: str) -> subprocess.CompletedProcess:
    """Run ``call`` in bash with dev.sh's find_lib and have defined."""
    script = f'source <(sed -n "/^find_lib()/,/^}}/p;/^have()/,/^}}/p" {REPO / "dev.sh"}); {call}'
    return subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=30)


def _libc() -> str:
    found = _dev_functions("find_lib libc.so.6")
    assert found.returncode == 0 and Path(found.stdout.strip()).is_file(), found
    return found.stdout.strip()


def test_dev_sh_finds_a_library_the_linker_knows_and_not_one_it_does_not():
    assert _libc().endswith("libc.so.6")
    assert _dev_functions("have libc.so.6").returncode == 0
    assert _dev_functions("have libk10s-absent.so.9").returncode != 0
    assert _dev_functions("have bash").returncode == 0
    assert _dev_functions("have k10s-absent-tool").returncode != 0


INNER = '''
import os, sys, subprocess
sys.path.insert(0, {tests!r})
import determinism_kit

def test_inner():
    malloc = os.environ["K10S_TEST_MALLOC"]
    assert malloc not in os.environ.get("LD_PRELOAD", "").split()   # kept from what the test starts
    assert os.environ.get("LD_PRELOAD", "").split() == {others!r}    # a preload of the user's stays
    child = subprocess.run([sys.executable, "-c", "import os; print(os.environ.get('LD_PRELOAD', ''))"],
                           capture_output=True, text=True, check=True)
    assert malloc not in child.stdout.split()
    assert determinism_kit._env("1")["LD_PRELOAD"].split()[0] == malloc   # the analysis servers get it
    with open("/proc/self/maps") as maps:
        assert malloc in maps.read()                                    # this process was started with it
'''


@pytest.mark.parametrize("workers", ["0", "1"])
def test_the_test_allocator_stays_in_the_test_processes(tmp_path, workers):
    """Run as dev.sh runs pytest (with and without xdist), a harmless library standing for jemalloc."""
    libc = _libc()
    other = str(Path(libc).resolve())  # the same library by another path: a preload of the user's
    (tmp_path / "test_inner.py").write_text(INNER.format(tests=str(REPO / "tests"), others=[other]), encoding="utf-8")
    (tmp_path / "conftest.py").write_text((REPO / "tests" / "conftest.py").read_text(encoding="utf-8"), encoding="utf-8")
    env = {**os.environ, "K10S_TEST_MALLOC": libc, "LD_PRELOAD": f"{libc} {other}"}
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", workers, str(tmp_path)],
                         capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]
    assert "1 passed" in run.stdout


def test_no_binary_package_is_committed():
    """Dev tools come from pyproject's extras (issue 20): no wheel, egg or archive of a package in the repo."""
    root = Path(__file__).resolve().parents[1]
    if not (root / ".git").exists():
        pytest.skip("not a git checkout (an sdist or a copied tree)")
    tracked = subprocess.run(["git", "ls-files", "*.whl", "*.egg", "*.tar.gz", "*.zip"], cwd=root, capture_output=True,
                             text=True, check=True).stdout.split()
    assert tracked == [], tracked
