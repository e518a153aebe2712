"""raw/exec.parquet: one source per row group at capture; rebuild of older (mixed) layouts."""

from __future__ import annotations

import shutil

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from k10s_forensics.store.bundle import RAW_SCHEMAS, Bundle, RawWriter, split_groups
from k10s_forensics.store.columns import ColumnWriter
from k10s_forensics.rebuild.raw_layer import _group_holds
from k10s_forensics.rebuild.run import rebuild
from k10s_forensics.simulate import simulate


def _sources_per_group(path) -> list[set]:
    pf = pq.ParquetFile(path)
    return [set(pf.read_row_group(i, columns=["source"])["source"].to_pylist()) for i in range(pf.num_row_groups)]


def test_split_groups_keeps_each_sources_order_and_puts_nulls_last():
    t = pa.table({"source": ["a", "b", None, "a", "c", "b"], "n": [0, 1, 2, 3, 4, 5]})
    parts = split_groups(t, "source")
    assert [p["n"].to_pylist() for p in parts] == [[0, 3], [1, 5], [4], [2]]
    assert split_groups(t, None) == [t]


@pytest.mark.parametrize("writer_class", [RawWriter, ColumnWriter])
def test_writers_give_each_source_its_own_row_groups(tmp_path, writer_class):
    base = RawWriter(tmp_path / "exec.parquet", RAW_SCHEMAS["exec"], flush_rows=10, group_by="source")
    writer = base if writer_class is RawWriter else ColumnWriter(base, 1 << 20)
    seen = []
    if writer_class is ColumnWriter:
        writer.listeners.append(lambda table, first: seen.append((first, table["stdout"].to_pylist())))
    for i in range(25):
        writer.append({"source": ("ss", "dmesg", "nvidia-smi-xml")[i % 3], "stdout": f"out {i}", "node": "n1"})
    writer.close()
    groups = _sources_per_group(tmp_path / "exec.parquet")
    assert all(len(g) == 1 for g in groups) and len(groups) == 9
    stdout = pq.read_table(tmp_path / "exec.parquet")["stdout"].to_pylist()
    assert sorted(stdout) == sorted(f"out {i}" for i in range(25))
    for first, rows in seen:  # listeners get the raw row number of each row group's first row
        assert stdout[first:first + len(rows)] == rows


@pytest.fixture(scope="module", params=["straggler-network", "hang-flight-recorder", "hang-ras-dead"])
def simulated(tmp_path_factory, request):
    """Small bundles whose exec layer holds nvidia-smi, ss, dmesg, visible-devices, Flight Recorder, ncclras."""
    path = tmp_path_factory.mktemp("rg") / request.param
    simulate(request.param, path, nodes=2, gpus_per_node=4, minutes=5, seed=3)
    return path


def test_simulated_bundles_have_one_source_per_exec_row_group(simulated):
    groups = _sources_per_group(simulated / "raw" / "exec.parquet")
    assert len(groups) > 1 and all(len(g) == 1 for g in groups)
    pf = pq.ParquetFile(simulated / "raw" / "exec.parquet")
    for i, g in enumerate(groups):
        (source,) = g
        assert _group_holds(pf, i, "source", source) is True
        assert _group_holds(pf, i, "source", "zz-no-such-source") is False


def _tables(path) -> dict[str, pa.Table]:
    return {p.stem: pq.read_table(p) for p in sorted((path / "tables").glob("*.parquet"))}


@pytest.mark.parametrize("statistics", [True, False])
def test_mixed_row_groups_of_older_bundles_rebuild_to_the_same_tables(simulated, tmp_path, statistics):
    new = tmp_path / "new"
    old = tmp_path / "old"
    shutil.copytree(simulated, new)
    shutil.copytree(simulated, old)
    exec_path = old / "raw" / "exec.parquet"
    rows = pq.read_table(exec_path)
    pq.write_table(rows, exec_path, row_group_size=7, write_statistics=statistics)  # same rows, same order, mixed groups
    assert any(len(g) > 1 for g in _sources_per_group(exec_path))
    for path in (new, old):
        rebuild(Bundle.open(path), say=lambda *a, **k: None)
    expected, got = _tables(new), _tables(old)
    assert set(got) == set(expected)
    for name in expected:
        assert got[name].equals(expected[name]), name
