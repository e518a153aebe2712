"""Bad input to every command: one line on stderr, exit 2, no traceback, nothing written outside the output path."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from integrity_helpers import run


def _inputs(root: Path) -> dict[str, Path]:
    (root / "empty-dir").mkdir(parents=True)
    (root / "text.txt").write_text("not a bundle\n")
    (root / "wrong-format").mkdir()
    (root / "wrong-format" / "manifest.json").write_text(json.dumps({"format": "something-else"}))
    (root / "future").mkdir()
    (root / "future" / "manifest.json").write_text(json.dumps({"format": "k10s-bundle", "format_version": 99}))
    (root / "bad-json").mkdir()
    (root / "bad-json" / "manifest.json").write_bytes(b"{\xff\xfe not json")
    (root / "trunc.tar.gz").write_bytes(b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff" + b"\x00" * 7)
    return {"missing": root / "no-such-bundle", "empty-dir": root / "empty-dir", "text": root / "text.txt",
            "wrong-format": root / "wrong-format", "future": root / "future", "bad-json": root / "bad-json", "trunc-archive": root / "trunc.tar.gz"}


COMMANDS = {
    "analyze": lambda b, out: ["analyze", str(b), "--format", "json"],
    "analyze-html": lambda b, out: ["analyze", str(b), "--html", str(out / "r.html")],
    "sql": lambda b, out: ["sql", str(b), "SELECT 1"],
    "rebuild": lambda b, out: ["rebuild", str(b)],
    "report": lambda b, out: ["report", str(b), "-o", str(out / "r.html")],
    "pack": lambda b, out: ["pack", str(b), "-o", str(out / "b.tar.gz")],
    "redact": lambda b, out: ["redact", str(b), "-o", str(out / "red")],
}


def _tree(root: Path) -> set[str]:
    return {p.relative_to(root).as_posix() for p in root.rglob("*")}


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_bad_bundle_input(command: str, tmp_path: Path) -> None:
    inputs = _inputs(tmp_path / "in")
    out = tmp_path / "out"
    out.mkdir()
    for name, path in inputs.items():
        if command == "pack" and name == "trunc-archive":
            continue  # pack takes a folder: refused with its own message below
        before = _tree(tmp_path / "in")
        proc = run(*COMMANDS[command](path, out), cache=tmp_path / "cache", timeout=120)
        lines = [line for line in proc.stderr.splitlines() if line.strip()]
        where = f"{command} {name}: rc={proc.returncode} stderr={proc.stderr!r}"
        assert proc.returncode == 2, where
        assert len(lines) == 1 and lines[0].startswith("k10s: error:"), where
        assert "Traceback" not in proc.stderr, where
        assert _tree(tmp_path / "in") == before, f"{where}: wrote into the input"
        assert not list(out.iterdir()), f"{where}: left output behind"


def test_verify_names_bad_input(tmp_path: Path) -> None:
    inputs = _inputs(tmp_path / "in")
    for name, path in inputs.items():
        proc = run("verify", str(path), cache=tmp_path / "cache", timeout=120)
        assert proc.returncode in (1, 2) and "Traceback" not in proc.stderr, f"{name}: {proc.stderr}"
        assert (proc.stdout + proc.stderr).strip(), name
