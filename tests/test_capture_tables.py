"""Tables during capture: the bundle capture writes has tables/, equal to what rebuild derives."""

from __future__ import annotations

import shutil

import pyarrow.parquet as pq

from k10s_forensics.rebuild import pool as rebuild_pool
from k10s_forensics.store.bundle import Bundle
from k10s_forensics.capture import CaptureOptions, capture
from k10s_forensics.engine import connect
from k10s_forensics.store.derived import staleness
from k10s_forensics.rebuild.run import rebuild
from k10s_forensics.serve import Faults, start_server
from k10s_forensics.simulate import simulate

from capture_helpers import EXEC_KEY, recordings


def test_capture_writes_the_tables_rebuild_would(tmp_path, monkeypatch):
    source = tmp_path / "sim"
    simulate("straggler-compute", source, seed=4, nodes=3, gpus_per_node=2, minutes=2, interval_s=20)
    rounds = max(len(r) for r in list(recordings(source, "exec", EXEC_KEY).values()) + list(recordings(source, "scrapes", ("url",)).values()))
    used: list[dict] = []
    real = rebuild_pool.usable_precomputed

    def spy(*args, **kwargs):
        used.append(real(*args, **kwargs))
        return used[-1]

    monkeypatch.setattr(rebuild_pool, "usable_precomputed", spy)
    srv = start_server(source, faults=Faults())
    try:
        kubeconfig = srv.write_kubeconfig(tmp_path / "kc")
        options = CaptureOptions(duration_s=(rounds - 1) * 0.15, interval_s=0.15, timeout_s=10, table_jobs=2)
        result = capture(tmp_path / "cap", kubeconfig=str(kubeconfig), options=options, all_namespaces=True)
    finally:
        srv.stop()
    captured = result.bundle.path
    assert pq.ParquetFile(captured / "raw" / "exec.parquet").num_row_groups > 1  # row groups arrived round by round
    assert used and set(used[0]) == set(rebuild_pool.SHARDED)  # every heavy parser ran during capture
    assert staleness(Bundle.open(captured)) is None  # analyze starts at once
    assert "tables_error" not in Bundle.open(captured).manifest["capture"]
    again = tmp_path / "again"
    shutil.copytree(captured, again, ignore=shutil.ignore_patterns("tables"))
    rebuild(Bundle.open(again))
    for path in sorted((again / "tables").glob("*.parquet")):
        assert pq.read_table(captured / "tables" / path.name).equals(pq.read_table(path)), path.stem
    con = connect(Bundle.open(captured), rebuild_if_needed=False)
    assert con.sql("SELECT count(*) FROM gpu_samples").fetchall()[0][0] > 0
    assert con.sql("SELECT count(*) FROM tcp_samples").fetchall()[0][0] > 0
