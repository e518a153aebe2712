"""``k10s rebuild --jobs N``: the same tables and parse errors as a serial rebuild, whatever N."""

from __future__ import annotations

import json
import shutil

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

from k10s_forensics.rebuild import pool as rebuild_pool
from k10s_forensics.store.derived import read_record
from k10s_forensics.store.bundle import Bundle
from k10s_forensics.rebuild.run import rebuild
from k10s_forensics.simulate import simulate


def _damage_some_xml(path) -> int:
    """Replace every 7th nvidia-smi XML output with garbage, keeping the row groups."""
    pf = pq.ParquetFile(path)
    writer = pq.ParquetWriter(str(path) + ".new", pf.schema_arrow)
    damaged = 0
    for i in range(pf.num_row_groups):
        table = pf.read_row_group(i)
        out = table["stdout"].to_pylist()
        for j, source in enumerate(table["source"].to_pylist()):
            if source == "nvidia-smi-xml" and (i + j) % 7 == 0:
                out[j] = f"<nvidia_smi_log><gpu>cut short {i}/{j}"
                damaged += 1
        writer.write_table(table.set_column(table.schema.get_field_index("stdout"), "stdout", pa.array(out, pa.string())))
    writer.close()
    shutil.move(str(path) + ".new", path)
    return damaged


@pytest.fixture(scope="module")
def raw_bundle(tmp_path_factory):
    path = tmp_path_factory.mktemp("par") / "raw"
    simulate("straggler-network", path, nodes=6, gpus_per_node=8, minutes=30, seed=11)
    assert _damage_some_xml(path / "raw" / "exec.parquet") > 2
    for name in ("exec", "scrapes"):
        assert pq.ParquetFile(path / "raw" / f"{name}.parquet").num_row_groups >= 4, "need several row groups to shard"
    return path


@pytest.fixture(scope="module")
def serial(raw_bundle, tmp_path_factory):
    path = tmp_path_factory.mktemp("serial") / "b"
    shutil.copytree(raw_bundle, path)
    rebuild(Bundle.open(path))
    return path


def _tables(path) -> dict[str, pa.Table]:
    return {p.stem: pq.read_table(p) for p in sorted((path / "tables").glob("*.parquet"))}


@pytest.mark.parametrize("jobs,shard_bytes", [(2, 1), (3, 300_000)])
def test_parallel_rebuild_writes_what_a_serial_one_writes(raw_bundle, serial, tmp_path, monkeypatch, jobs, shard_bytes):
    monkeypatch.setattr(rebuild_pool, "SHARD_BYTES", shard_bytes)
    tasks = rebuild_pool.plan(Bundle.open(raw_bundle))
    assert sum(t.parser == "nvidia_smi_xml" for t in tasks) >= 2  # really split by row group
    path = tmp_path / "b"
    shutil.copytree(raw_bundle, path)
    issues = rebuild_pool.rebuild_parallel(Bundle.open(path), jobs)
    expected, got = _tables(serial), _tables(path)
    assert set(got) == set(expected)
    for name, table in expected.items():
        assert got[name].equals(table), name
    errors = got["parse_errors"]
    xml = errors.filter(pc.equal(errors["source"], "exec:nvidia-smi-xml"))
    assert xml.num_rows and xml["count"][0].as_py() > 2  # the damage is counted once, with its examples
    assert issues.total() == sum(errors["count"].to_pylist())
    record, serial_record = read_record(path / "tables"), read_record(serial / "tables")
    assert record["parse_errors"] == serial_record["parse_errors"] and set(record["files"]) == set(serial_record["files"])


def test_auto_jobs_parses_small_bundles_in_process(raw_bundle):
    bundle = Bundle.open(raw_bundle)
    assert rebuild_pool.effective_jobs(bundle, 0) == 1
    assert rebuild_pool.effective_jobs(bundle, 5) == 5


def test_plan_covers_every_row_group_once(raw_bundle, monkeypatch):
    monkeypatch.setattr(rebuild_pool, "SHARD_BYTES", 1)
    bundle = Bundle.open(raw_bundle)
    groups = pq.ParquetFile(bundle.raw_path("exec")).num_row_groups
    for parser in ("nvidia_smi_xml", "ss"):
        ranges = [(t.first, t.stop) for t in rebuild_pool.plan(bundle) if t.parser == parser]
        assert ranges == [(i, i + 1) for i in range(groups)]


def test_history_parsers_see_the_pods_the_api_listed(tmp_path):
    """prom_ksm/prometheus read derived pods and nodes: in a worker they saw none (pods listed twice)."""
    path = tmp_path / "b"
    simulate("healthy", path, nodes=2, gpus_per_node=2, minutes=3, seed=4)
    pods = [r for r in _serial_pods(path)]
    pod = pods[0]
    scrapes = pq.read_table(path / "raw" / "scrapes.parquet").to_pylist()
    series = [
        {"metric": {"__name__": "kube_pod_info", "namespace": pod["namespace"], "pod": pod["pod"], "uid": pod["pod_uid"],
                    "node": pod["node"]}, "values": [[1763719200, "1"]]},
        {"metric": {"__name__": "kube_pod_info", "namespace": "gone", "pod": "p-0", "uid": "u-gone", "node": pod["node"]},
         "values": [[1763719200, "1"]]},
        {"metric": {"__name__": "DCGM_FI_DEV_GPU_UTIL", "Hostname": pod["node"], "UUID": "GPU-hist", "gpu": "0",
                    "pod": pod["pod"], "namespace": pod["namespace"]}, "values": [[1763719200, "97"]]},
    ]
    body = json.dumps({"status": "success", "data": {"resultType": "matrix", "result": series}})
    extra = {**scrapes[0], "source": "prometheus-query", "status": 200, "error": None, "body": body,
             "url": "http://prom/api/v1/query_range?query=kube_pod_info"}
    from k10s_forensics.store.bundle import write_raw_table

    write_raw_table(path, "scrapes", scrapes + [extra])
    serial = tmp_path / "serial"
    shutil.copytree(path, serial)
    rebuild(Bundle.open(serial))
    rebuild_pool.rebuild_parallel(Bundle.open(path), 2)
    expected, got = _tables(serial), _tables(path)
    assert expected["pods"].num_rows == len(pods) + 1  # the pod only history knows, once
    for name, table in expected.items():
        assert got[name].equals(table), name


def _serial_pods(path) -> list[dict]:
    copy = path.parent / "pods-only"
    shutil.copytree(path, copy)
    rebuild(Bundle.open(copy))
    return pq.read_table(copy / "tables" / "pods.parquet").to_pylist()
