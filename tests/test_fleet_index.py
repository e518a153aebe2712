"""``k10s fleet index``/``analyze`` end to end on real (tiny, simulated) bundles.

The bundles go through the real parsers and the real bundle rules (gpu-health names the
Xid culprits); the fleet rules must find the planted bad board (moved between nodes) and
the flaky, renamed node. Also: incremental re-index, archives, strict-redacted bundles,
an interrupted batch, bad input, and the newcomer's command on sample-bundles/.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from k10s_forensics.fleet.analysis import analyze_fleet
from k10s_forensics.fleet.index import index_fleet
from k10s_forensics.fleet.store import FleetStore
from k10s_forensics.simulate.fleet import plan_fleet
from k10s_forensics.simulate.fleet_bundles import write_bundles
from tests.fleet_helpers import FINDING_RULES, expected, found

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def bundles(tmp_path_factory):
    root = tmp_path_factory.mktemp("fleet-bundles")
    plan = plan_fleet(31, 36)
    paths = write_bundles(plan, root / "bundles")
    return plan, paths


def _k10s(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "k10s_forensics", *args], capture_output=True, text=True, cwd=cwd, timeout=600)


def test_index_then_analyze_finds_the_planted_hardware(bundles, tmp_path):
    plan, paths = bundles
    result = index_fleet([str(paths[0].parent)], tmp_path / "fleet", jobs=2, batch_size=10)
    assert not result.failed and len(result.indexed) == len(paths)
    truth = expected(plan.truth)
    truth["driver-hangs"] = set()  # hangs exist only in the row generator
    assert found(analyze_fleet(str(tmp_path / "fleet"))) == truth


def test_reindex_touches_only_new_bundles(bundles, tmp_path):
    _, paths = bundles
    first = index_fleet([str(p) for p in paths[:20]], tmp_path / "fleet", jobs=1)
    files_before = {p: p.stat().st_mtime_ns for p in (tmp_path / "fleet").rglob("*.parquet")}
    again = index_fleet([str(p) for p in paths[:20]], tmp_path / "fleet", jobs=1)
    assert len(first.indexed) == 20 and again.indexed == [] and again.skipped == 20
    more = index_fleet([str(paths[0].parent)], tmp_path / "fleet", jobs=2)
    assert len(more.indexed) == len(paths) - 20 and more.skipped == 20
    for path, mtime in files_before.items():  # written files are never rewritten
        assert path.stat().st_mtime_ns == mtime
    ids = [i for p in FleetStore(tmp_path / "fleet").files("bundles") for i in pq.read_table(p).column("bundle_id").to_pylist()]
    assert len(ids) == len(set(ids)) == len(paths)


def test_archive_of_an_indexed_bundle_is_the_same_bundle(bundles, tmp_path):
    from k10s_forensics.sharing.pack import pack

    _, paths = bundles
    archive = tmp_path / "b.tar.gz"
    pack(paths[3], archive)
    index_fleet([str(paths[3])], tmp_path / "fleet", jobs=1)
    same = index_fleet([str(archive)], tmp_path / "fleet", jobs=1)
    assert same.indexed == [] and same.skipped == 1
    fresh = index_fleet([str(tmp_path / "*.tar.gz")], tmp_path / "fleet2", jobs=1)  # a glob of archives
    assert len(fresh.indexed) == 1 and not fresh.failed


def test_strict_redacted_bundles_index_with_shared_pseudonyms(bundles, tmp_path):
    from k10s_forensics.sharing.redact import redact

    plan, paths = bundles
    node = next(iter(plan.truth["recurring-node"]))
    flaky = [p for p, b in zip(paths, plan.bundles) if any(f.rule == "gpu-health" and f.xid == 79 and f.node.key == node for f in b.findings)]
    assert len(flaky) == 4
    key = tmp_path / "k.key"
    out = [tmp_path / "red" / p.name for p in flaky]
    for src, dst in zip(flaky, out):
        redact(src, dst, level="strict", key_file=key)
    result = index_fleet([str(tmp_path / "red")], tmp_path / "fleet", jobs=1)
    assert len(result.indexed) == 4 and not result.failed
    store = FleetStore(tmp_path / "fleet")
    bundles_rows = [r for p in store.files("bundles") for r in pq.read_table(p).to_pylist()]
    assert {r["redaction_level"] for r in bundles_rows} == {"strict"} and len({r["redaction_key_id"] for r in bundles_rows}) == 1
    originals = {b.nodes[0].name_at(b.start) for b in plan.bundles} | {b.nodes[1].name_at(b.start) for b in plan.bundles}
    names = {r["node"] for p in store.files("nodes") for r in pq.read_table(p).to_pylist()}
    assert names and not names & originals  # names are pseudonyms
    rows = found(analyze_fleet(str(tmp_path / "fleet")))
    assert len(rows["recurring-node"]) == 1  # the same key gave the same pseudonyms in all four


def test_interrupted_batch_is_dropped_and_redone(bundles, tmp_path):
    _, paths = bundles
    index_fleet([str(paths[0])], tmp_path / "fleet", jobs=1)
    store = FleetStore(tmp_path / "fleet")
    for path in store.files("gpus"):  # a batch whose bundles file never got written
        shutil.copy(path, path.with_name("part-20990101T000000-deadbeef.parquet"))
    result = index_fleet([str(paths[0]), str(paths[1])], tmp_path / "fleet", jobs=1)
    assert result.orphans_dropped >= 1 and len(result.indexed) == 1
    keys = [(r["bundle_id"], r["gpu_uuid"]) for p in store.files("gpus") for r in pq.read_table(p).to_pylist()]
    assert len({b for b, _ in keys}) == 2 and len(keys) == len(set(keys))  # no GPU row twice
    assert not list((tmp_path / "fleet").rglob("part-20990101T000000-deadbeef.parquet"))


def test_bad_inputs_are_one_line_and_nonzero(bundles, tmp_path):
    _, paths = bundles
    missing = _k10s("fleet", "index", str(tmp_path / "nope"), "-o", str(tmp_path / "f"))
    assert missing.returncode == 2 and missing.stderr.count("\n") == 1 and "Traceback" not in missing.stderr
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "manifest.json").write_text("{not json")
    partial = _k10s("fleet", "index", str(broken), str(paths[0]), "-o", str(tmp_path / "f"))
    assert partial.returncode == 1 and "not indexed" in partial.stderr and "broken" in partial.stderr
    assert "indexed 1 bundle" in partial.stdout  # the good one is kept
    notfleet = _k10s("fleet", "analyze", str(paths[0]))
    assert notfleet.returncode == 2 and "not a k10s fleet" in notfleet.stderr and "Traceback" not in notfleet.stderr
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "x.txt").write_text("mine")
    refused = _k10s("fleet", "index", str(paths[0]), "-o", str(tmp_path / "full"))
    assert refused.returncode == 2 and "not empty" in refused.stderr


def test_newcomer_command_on_sample_bundles(tmp_path):
    samples = sum(1 for p in (REPO / "sample-bundles").iterdir() if (p / "manifest.json").is_file())
    index = _k10s("fleet", "index", str(REPO / "sample-bundles"), "-o", str(tmp_path / "fleet"))
    assert index.returncode == 0, index.stderr
    assert f"indexed {samples} bundle(s)" in index.stdout
    analyze = _k10s("fleet", "analyze", str(tmp_path / "fleet"), "--format", "json")
    assert analyze.returncode == 0, analyze.stderr
    result = json.loads(analyze.stdout)
    assert result["fleet"]["bundles"] == samples and result["fleet"]["clusters"] == samples
    assert all(r["rule"] for r in result["results"])
    assert found(result) == {rule: set() for rule in FINDING_RULES}  # one incident each: nothing recurs
    by = {r["rule"]: r for r in result["results"]}
    assert by["cost-by-cause"]["rows"] and by["model-driver-rate"]["rows"]
    text = _k10s("fleet", "analyze", str(tmp_path / "fleet"))
    assert text.returncode == 0 and "recurring-gpu" in text.stdout


def test_compaction_keeps_every_row_and_survives_a_crash(tmp_path, monkeypatch):
    from k10s_forensics.fleet import compact as compaction
    from k10s_forensics.simulate.fleet_rows import write_rows
    from tests.fleet_helpers import rows_by_rule

    write_rows(plan_fleet(61, 300), tmp_path / "fleet", batch_size=20)
    store = FleetStore(tmp_path / "fleet")
    before = rows_by_rule(analyze_fleet(str(store.root)))
    files = len(list(store.root.rglob("*.parquet")))
    real_recover, calls = compaction.recover, []

    def crash_after_first_commit(s):
        calls.append(1)
        if len(calls) == 2:  # the first partition is committed, its old files still there
            raise KeyboardInterrupt
        return real_recover(s)

    monkeypatch.setattr(compaction, "recover", crash_after_first_commit)
    with pytest.raises(KeyboardInterrupt):
        compaction.compact(store)
    assert (store.root / compaction.JOURNAL).is_file()
    monkeypatch.setattr(compaction, "recover", real_recover)
    assert compaction.recover(store) > 0 and not (store.root / compaction.JOURNAL).exists()
    assert rows_by_rule(analyze_fleet(str(store.root))) == before
    done = compaction.compact(store)
    after = len(list(store.root.rglob("*.parquet")))
    assert done["partitions"] > 0 and after < files / 2
    assert all(len(list(p.glob("part-*.parquet"))) == 1 for p in store.root.glob("*/cluster=*/month=*"))
    assert rows_by_rule(analyze_fleet(str(store.root))) == before


def test_simulate_command_writes_a_fleet_and_its_truth(tmp_path):
    sim = _k10s("fleet", "simulate", "-o", str(tmp_path / "sim"), "--bundles", "150", "--seed", "3", "--rows")
    assert sim.returncode == 0, sim.stderr
    truth = json.loads((tmp_path / "sim.truth.json").read_text())
    analyze = _k10s("fleet", "analyze", str(tmp_path / "sim"), "--format", "json")
    assert analyze.returncode == 0, analyze.stderr
    assert found(json.loads(analyze.stdout)) == expected(truth["expected"])
    md = _k10s("fleet", "analyze", str(tmp_path / "sim"), "--format", "markdown", "--rule", "recurring-gpu")
    assert md.returncode == 0 and md.stdout.startswith("# Fleet analysis") and "| gpu_key |" in md.stdout
