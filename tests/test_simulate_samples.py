"""The committed sample bundles equal the simulator's current output and parse cleanly."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from k10s_forensics.store.bundle import Bundle
from k10s_forensics.simulate import samples
from k10s_forensics.simulate.constants import SCENARIOS

SAMPLES = Path(__file__).resolve().parents[1] / "sample-bundles"
#: parse issues the samples are meant to carry (realistic partial captures), by (source, reason prefix)
EXPECTED_ISSUES = (("exec:ss", "ss failed: container not running"), ("exec:ss", "ss exited with code 126"),
                   ("scrapes:dcgm-exporter", "command failed: context deadline exceeded"))


def test_every_scenario_has_a_sample_and_a_readme_entry():
    assert set(samples.SAMPLES) == set(SCENARIOS)
    readme = (SAMPLES / "README.md").read_text(encoding="utf-8")
    for name in SCENARIOS:
        assert (SAMPLES / name / "manifest.json").is_file(), name
        assert (SAMPLES / f"{name}.truth.json").is_file(), name
        assert samples.command_for(name) in readme, name


@pytest.fixture(scope="module")
def fresh(tmp_path_factory):
    out = tmp_path_factory.mktemp("samples")
    samples.generate(out)
    return out


def test_committed_samples_equal_current_simulator_output(fresh):
    assert samples.differences(SAMPLES, fresh) == []


def test_differences_notices_an_edit(fresh, tmp_path):
    shutil.copytree(fresh / "healthy", tmp_path / "healthy")
    (tmp_path / "healthy.truth.json").write_text('{"scenario": "edited"}')
    assert samples.differences(fresh, tmp_path, ("healthy",)) == ["healthy: truth differs"]
    shutil.rmtree(tmp_path / "healthy")
    shutil.copytree(fresh / "pending-quota", tmp_path / "healthy")
    shutil.copy(fresh / "healthy.truth.json", tmp_path / "healthy.truth.json")
    problems = samples.differences(fresh, tmp_path, ("healthy",))
    assert "healthy: manifest differs" in problems and any("raw/scrapes differs" in p for p in problems)


@pytest.mark.parametrize("scenario", ["oom-crashloop", "straggler-network", "straggler-compute", "xid-79"])
def test_rebuild_of_a_sample_has_only_expected_parse_issues(tmp_path, scenario):
    pytest.importorskip("k10s_forensics.parsers.dcgm")
    from k10s_forensics.rebuild.run import rebuild

    shutil.copytree(SAMPLES / scenario, tmp_path / scenario, ignore=shutil.ignore_patterns("tables", "tables.tmp"))
    issues = rebuild(Bundle.open(tmp_path / scenario))
    unexpected = [(b.source, b.reason, b.examples[:1]) for b in issues.buckets()
                  if not any(b.source == s and b.reason.startswith(r) for s, r in EXPECTED_ISSUES)]
    assert unexpected == []


def test_cli_command_in_the_readme_reproduces_a_sample(tmp_path):
    from click.testing import CliRunner

    from k10s_forensics.cli import cli

    args = samples.command_for("pending-taint").split()[1:]
    args[args.index("-o") + 1] = str(tmp_path / "pending-taint")
    res = CliRunner().invoke(cli, args)
    assert res.exit_code == 0, res.output
    for raw in ("objects", "scrapes", "exec"):
        assert samples.raw_rows(tmp_path / "pending-taint", raw) == samples.raw_rows(SAMPLES / "pending-taint", raw)
