"""Rebuild's allocator settings: mimalloc keeps freed pages (set at import, before pyarrow loads,
unless the environment says otherwise) and glibc keeps numpy's large temporaries."""

from __future__ import annotations

import platform
import subprocess
import sys

import pytest

from k10s_forensics.rebuild.memory import keep_freed_memory

PROBE = "import k10s_forensics, pyarrow as pa; pa.array([1]); print(pa.default_memory_pool().backend_name)"


def _mimalloc_options(env_value: str | None) -> str:
    env = {"MIMALLOC_VERBOSE": "1", "PATH": "/usr/bin:/bin"}
    if env_value is not None:
        env["MIMALLOC_PURGE_DELAY"] = env_value
    out = subprocess.run([sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, check=True)
    if out.stdout.strip() != "mimalloc":
        pytest.skip(f"pyarrow allocates with {out.stdout.strip()}, not mimalloc")
    return out.stderr


def test_import_keeps_freed_pages_unless_the_environment_says():
    assert "option 'purge_delay': -1" in _mimalloc_options(None)
    assert "option 'purge_delay': 250" in _mimalloc_options("250")


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="mallopt thresholds are glibc's")
def test_glibc_takes_the_thresholds_once():
    assert keep_freed_memory() is True
    assert keep_freed_memory() is True  # idempotent


def test_a_long_lived_process_gives_memory_back():
    """k10s watch runs for days: pyarrow switches to the system pool and glibc's thresholds stay put."""
    probe = ("import k10s_forensics, pyarrow as pa\n"
             "from k10s_forensics.rebuild.memory import give_back_freed_memory, keep_freed_memory\n"
             "give_back_freed_memory()\n"
             "print(pa.default_memory_pool().backend_name, keep_freed_memory())\n")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=60)
    assert out.stdout.split() == ["system", "False"]


def test_watch_command_asks_for_it():
    import inspect

    from k10s_forensics.commands import watch_cmd

    assert "give_back_freed_memory()" in inspect.getsource(watch_cmd.watch_cmd.callback)
