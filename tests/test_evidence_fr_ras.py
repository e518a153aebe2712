"""The contract views k10s_hang_evidence_fr / k10s_hang_evidence_ras on many shapes and seeds.

Dumps are built as PyTorch writes them (simulate.fr_dumps), read by the real parser and
placed in a bundle; the views run on real DuckDB. Every scenario is checked for the right
culprit AND for no culprit on the healthy/control shapes.
"""

from __future__ import annotations

import json
import random

import pytest

from k10s_forensics.parsers import flight_recorder
from k10s_forensics.parsers.ncclras_text import parse_output
from k10s_forensics.simulate.fr_dumps import encode_dump, envelope, fr_dump, fr_entry, ras_text
from tests._analyze_kit import at, gang, prepare_views, table_bundle

CONTRACT = ["job_key", "evidence", "culprit_ranks", "suspect_ranks", "confidence", "pg", "seq_num", "op_type", "ts", "detail"]
T_NS = int(at(0).timestamp() * 1e9)


def _rank_dump(rank: int, world: int, last_seq: int, last_state: str, buffer: int, fmt: str, numel=lambda s: 4096, op=lambda s: "ALLREDUCE"):
    first = max(1, last_seq - buffer + 1)
    entries = []
    for i, seq in enumerate(range(first, last_seq + 1)):
        state = last_state if seq == last_seq else "completed"
        entries.append(fr_entry(i, seq, op(seq), numel(seq), state, T_NS + seq * 1_000_000))
    return encode_dump(fr_dump(entries, list(range(world))), fmt)


def _fr_rows(g, dumps: dict[int, bytes], unread: tuple[str, ...] = ()) -> tuple[list[dict], list[dict]]:
    """What rebuild derives when the reader ran in every pod of ``g`` (but ``unread`` ones)."""
    entries, files = [], []
    for p in g["pods"]:
        if p["pod"] in unread:
            continue
        found = {f"/tmp/nccl_trace_rank_{r['rank']}": dumps[r["rank"]] for r in g["ranks"] if r["pod"] == p["pod"] and r["rank"] in dumps}
        where = {"namespace": p["namespace"], "pod": p["pod"], "node": p["node"], "container": "pytorch", "captured_at": at(600)}
        got_dumps, got_entries = flight_recorder.envelope_rows(envelope(found))
        files += [{**where, **d} for d in got_dumps]
        entries += [{**where, **e} for e in got_entries]
    return entries, files


def _evidence(tmp_path, tables, view):
    con = prepare_views(table_bundle(tmp_path / "b", tables), view)
    try:
        cols = [c[0] for c in con.sql(f"DESCRIBE {view}").fetchall()]
        assert cols == CONTRACT
        return [dict(zip(CONTRACT, row)) for row in con.sql(f"SELECT * FROM {view} ORDER BY job_key, pg").fetchall()]
    finally:
        con.close()


SHAPES = [(2, 1), (4, 1), (3, 2), (2, 8), (8, 1), (4, 4)]


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("pods,per_pod", SHAPES)
def test_fr_names_the_rank_that_never_entered_the_collective(tmp_path, seed, pods, per_pod):
    rnd = random.Random(seed * 100 + pods * 10 + per_pod)
    g = gang(pods=pods, per_pod=per_pod)
    world = pods * per_pod
    culprit = rnd.randrange(world)
    stuck = rnd.randrange(50, 5000)
    buffer = rnd.choice((20, 200, 2000))
    mode = rnd.choice(("lag", "no-dump"))
    dumps = {}
    for rank in range(world):
        if rank == culprit:
            if mode == "no-dump":
                continue
            dumps[rank] = _rank_dump(rank, world, stuck - 1, "completed", buffer, rnd.choice(("pickle", "json")))
        else:
            dumps[rank] = _rank_dump(rank, world, stuck, rnd.choice(("scheduled", "started")), buffer, rnd.choice(("pickle", "json")))
    entries, files = _fr_rows(g, dumps)
    rows = _evidence(tmp_path, {**g, "flight_recorder": entries, "flight_recorder_dumps": files}, "k10s_hang_evidence_fr")
    assert len(rows) == 1, rows
    (row,) = rows
    assert row["evidence"] == "flight-recorder" and row["culprit_ranks"] == [culprit], row
    assert row["seq_num"] == stuck and row["pg"] == "0" and row["op_type"] == "nccl:all_reduce"
    assert row["confidence"] == ("high" if mode == "lag" else "medium")
    assert str(culprit) in row["detail"]


@pytest.mark.parametrize("seed", range(2))
@pytest.mark.parametrize("pods,per_pod", SHAPES)
def test_fr_size_mismatch_names_the_odd_rank(tmp_path, seed, pods, per_pod):
    rnd = random.Random(seed)
    g = gang(pods=pods, per_pod=per_pod)
    world = pods * per_pod
    if world < 3:
        pytest.skip("a majority needs three ranks")
    culprit, stuck = rnd.randrange(world), rnd.randrange(50, 500)
    dumps = {r: _rank_dump(r, world, stuck, "started", 50, "pickle",
                           numel=(lambda s, r=r: 777 if r == culprit and s == stuck else 4096)) for r in range(world)}
    entries, files = _fr_rows(g, dumps)
    (row,) = _evidence(tmp_path, {**g, "flight_recorder": entries, "flight_recorder_dumps": files}, "k10s_hang_evidence_fr")
    assert row["culprit_ranks"] == [culprit] and row["seq_num"] == stuck and "777" in row["detail"], row


def test_fr_two_ranks_disagreeing_are_both_suspects_not_culprits(tmp_path):
    g = gang(pods=2)
    dumps = {r: _rank_dump(r, 2, 9, "started", 50, "json", numel=(lambda s, r=r: 10 + r if s == 9 else 5)) for r in range(2)}
    entries, files = _fr_rows(g, dumps)
    (row,) = _evidence(tmp_path, {**g, "flight_recorder": entries, "flight_recorder_dumps": files}, "k10s_hang_evidence_fr")
    assert row["culprit_ranks"] == [] and row["suspect_ranks"] == [0, 1] and row["confidence"] == "low"


@pytest.mark.parametrize("pods,per_pod", SHAPES)
def test_fr_controls_every_rank_joined_or_all_completed(tmp_path, pods, per_pod):
    g = gang(pods=pods, per_pod=per_pod)
    world = pods * per_pod
    joined = {r: _rank_dump(r, world, 300, "started", 100, "pickle") for r in range(world)}
    entries, files = _fr_rows(g, joined)
    (row,) = _evidence(tmp_path / "joined", {**g, "flight_recorder": entries, "flight_recorder_dumps": files}, "k10s_hang_evidence_fr")
    assert row["culprit_ranks"] == [] and row["confidence"] == "none" and "no single culprit" in row["detail"]
    done = {r: _rank_dump(r, world, 300, "completed", 100, "json") for r in range(world)}
    entries, files = _fr_rows(g, done)
    assert _evidence(tmp_path / "done", {**g, "flight_recorder": entries, "flight_recorder_dumps": files}, "k10s_hang_evidence_fr") == []


def test_fr_a_pod_that_was_not_read_is_not_blamed(tmp_path):
    g = gang(pods=4)
    dumps = {r: _rank_dump(r, 4, 300, "started", 50, "pickle") for r in range(4) if r != 2}
    entries, files = _fr_rows(g, dumps, unread=("llama-worker-2",))
    (row,) = _evidence(tmp_path / "unread", {**g, "flight_recorder": entries, "flight_recorder_dumps": files}, "k10s_hang_evidence_fr")
    assert row["culprit_ranks"] == [] and row["suspect_ranks"] == [2] and row["confidence"] == "low", row
    entries, files = _fr_rows(g, dumps)  # read, and no file for rank 2: that is evidence
    (row,) = _evidence(tmp_path / "read", {**g, "flight_recorder": entries, "flight_recorder_dumps": files}, "k10s_hang_evidence_fr")
    assert row["culprit_ranks"] == [2] and row["confidence"] == "medium"


def test_fr_dumps_of_a_running_job_at_different_moments_are_not_a_hang(tmp_path):
    g = gang(pods=4)
    dumps = {r: _rank_dump(r, 4, 300 + (r % 2), "completed", 50, "pickle") for r in range(4)}
    entries, files = _fr_rows(g, dumps)
    assert _evidence(tmp_path, {**g, "flight_recorder": entries, "flight_recorder_dumps": files}, "k10s_hang_evidence_fr") == []


def test_fr_uneven_sizes_of_an_all_to_all_are_not_a_mismatch(tmp_path):
    g = gang(pods=4)
    dumps = {r: _rank_dump(r, 4, 40, "started", 50, "json", numel=(lambda s, r=r: 100 + r), op=lambda s: "nccl:all_to_all")
             for r in range(4)}
    entries, files = _fr_rows(g, dumps)
    (row,) = _evidence(tmp_path, {**g, "flight_recorder": entries, "flight_recorder_dumps": files}, "k10s_hang_evidence_fr")
    assert row["culprit_ranks"] == [] and row["confidence"] == "none"


def test_fr_views_exist_without_any_table(tmp_path):
    assert _evidence(tmp_path, {}, "k10s_hang_evidence_fr") == []
    assert _evidence(tmp_path / "r", {}, "k10s_hang_evidence_ras") == []


def test_printed_fr_trace_output_counts(tmp_path):
    g = gang(pods=8)
    events = [{"ts": at(100), "namespace": "team-a", "pod": "llama-worker-0", "pod_uid": "uid-llama-worker-0", "container": "pytorch",
               "rank": r, "kind": "flight_recorder_missing_ranks", "line": "missing ranks: {3}", "seq_num": 31117,
               "op_type": "nccl:all_reduce", "pg": "0:default_pg"} for r in (3,)]
    (row,) = _evidence(tmp_path, {**g, "log_events": events}, "k10s_hang_evidence_fr")
    assert row["culprit_ranks"] == [3] and row["confidence"] == "high" and row["seq_num"] == 31117


def _ras_rows(pod: str, text: str, node: str = "gpu-node-0") -> list[dict]:
    rows, fmt = parse_output(text)
    return [{**r, "namespace": "team-a", "pod": pod, "node": node, "container": "pytorch", "origin": f"exec-{fmt}", "raw_row": 0,
             "ts": at(600), "captured_at": at(600)} for r in rows]


@pytest.mark.parametrize("seed", range(2))
@pytest.mark.parametrize("pods,per_pod", SHAPES)
def test_ras_dead_process_resolves_host_ip_and_gpu_to_the_rank(tmp_path, seed, pods, per_pod):
    rnd = random.Random(seed)
    g = gang(pods=pods, per_pod=per_pod)
    culprit = rnd.randrange(pods * per_pod)
    r = next(x for x in g["ranks"] if x["rank"] == culprit)
    pod = next(p for p in g["pods"] if p["pod"] == r["pod"])
    node = next(n for n in g["nodes"] if n["node"] == r["node"])
    host = rnd.choice((pod["pod_ip"], node["internal_ip"]))  # hostNetwork pods show the node's address
    text = ras_text(pods, per_pod, dead=[(host, 4000 + culprit, r["local_rank"], 99999)])  # comm rank 99999: not trusted as global
    (row,) = _evidence(tmp_path, {**g, "nccl_ras": _ras_rows(g["pods"][0]["pod"], text)}, "k10s_hang_evidence_ras")
    assert row["evidence"] == "ras" and row["culprit_ranks"] == [culprit] and row["confidence"] == "high", row
    assert host in row["detail"]


def test_ras_missing_rank_of_a_whole_job_communicator_is_the_global_rank(tmp_path):
    g = gang(pods=4, per_pod=2)
    text = ras_text(4, 2, dead=[("203.0.113.9", 1, 0, 5)])  # unknown address: only the comm rank helps
    (row,) = _evidence(tmp_path, {**g, "nccl_ras": _ras_rows("llama-worker-0", text)}, "k10s_hang_evidence_ras")
    assert row["culprit_ranks"] == [5]


MISMATCH = """Communicators... (0.20s)
=============

Group     Comms     Nodes     Ranks     Ranks     Ranks    Status  Errors
    #  in group  per comm  per node  per comm  in group
    0         1         4         2         8         8   RUNNING  MISMATCH

Warnings
========

#0-0 (27a079b828ff1a75) MISMATCH
    Communicator ranks have different collective operation counts
    {big} ranks have launched up to operation {big_n}
    {small} ranks have launched up to operation {small_n}
{members}
"""


@pytest.mark.parametrize("minority_behind", [True, False])
def test_ras_mismatch_decides_which_group_is_behind(tmp_path, minority_behind):
    g = gang(pods=4, per_pod=2)
    listed = [6]
    members = "\n".join(f"    Rank {r} -- GPU {r % 2} managed by process {100 + r} on node 10.1.{r // 2}.5" for r in listed)
    small_n, big_n = (6649, 6650) if minority_behind else (6651, 6650)
    text = MISMATCH.format(big=7, big_n=big_n, small=1, small_n=small_n, members=members)
    (row,) = _evidence(tmp_path, {**g, "nccl_ras": _ras_rows("llama-worker-0", text)}, "k10s_hang_evidence_ras")
    if minority_behind:
        assert row["culprit_ranks"] == [6] and row["confidence"] == "medium"
    else:  # the one listed rank is ahead: the seven others are behind, and RAS did not list them
        assert row["culprit_ranks"] == [] and row["confidence"] == "low" and "larger group is behind" in row["detail"]


def test_ras_json_counts_name_the_rank_behind(tmp_path):
    g = gang(pods=4)
    ranks = [{"rank": r, "host": f"10.1.{r}.5", "pid": 10 + r, "cuda_dev": 0, "nvml_dev": 0,
              "collective_counts": {"AllReduce": 500 if r == 2 else 501, "Broadcast": 3}} for r in range(4)]
    text = json.dumps({"nccl_version": "2.28.9", "communicators": [{"hash": "0x1", "size": 4, "ranks": ranks, "missing_ranks": []}]})
    (row,) = _evidence(tmp_path, {**g, "nccl_ras": _ras_rows("llama-worker-1", text)}, "k10s_hang_evidence_ras")
    assert row["culprit_ranks"] == [2] and row["confidence"] == "medium"


def test_ras_all_ok_is_no_culprit(tmp_path, real_samples):
    g = gang(pods=2, per_pod=8)
    text = (real_samples / "incidents/nccl-1730-ras-ok-rank118-timeout/log.txt").read_text()
    (row,) = _evidence(tmp_path, {**g, "nccl_ras": _ras_rows("llama-worker-1", text)}, "k10s_hang_evidence_ras")
    assert row["culprit_ranks"] == [] and row["confidence"] == "none" and "no single culprit" in row["detail"]


def test_ras_single_rank_group_behind_is_the_culprit(tmp_path):
    g = gang(pods=4, per_pod=2)
    text = MISMATCH.format(big=7, big_n=6650, small=1, small_n=6649, members="").replace(
        "    1 ranks have launched up to operation 6649\n", "    Rank 5 has launched up to operation 6649 -- GPU 1 managed by process 105 on node 10.1.2.5\n")
    (row,) = _evidence(tmp_path, {**g, "nccl_ras": _ras_rows("llama-worker-0", text)}, "k10s_hang_evidence_ras")
    assert row["culprit_ranks"] == [5] and row["confidence"] == "medium", row
