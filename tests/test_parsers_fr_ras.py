"""Flight Recorder dumps and NCCL RAS output: parsing, and refusal of hostile input."""

from __future__ import annotations

import base64
import json
import os
import pickle
from pathlib import Path

import pytest

from k10s_forensics.errors import ParseError
from k10s_forensics.parsers import flight_recorder, ncclras
from k10s_forensics.parsers.fr_unpickle import UnsafePickleError, loads_data
from k10s_forensics.parsers.ncclras_text import parse_json, parse_output, parse_text
from k10s_forensics.simulate.fr_dumps import encode_dump, envelope, fr_dump, fr_entry, ras_text
from tests.log_helpers import CAPTURED, derive, issue_counts, log_row, with_api_prefix


def _exec_row(source: str, stdout: str, command: str, exit_code: int | None = 0, error: str | None = None, stderr: str = "") -> dict:
    return dict(captured_at=CAPTURED, duration_ms=30, source=source, node="gpu-node-1", namespace="team-a", pod="train-worker-0",
                container="pytorch", command=command, exit_code=exit_code, stdout=stdout, stderr=stderr, error=error)


class _RunsCommand:
    """Unpickling this with plain pickle would run ``touch <marker>``."""

    def __init__(self, marker: Path):
        self.marker = marker

    def __reduce__(self):
        return (os.system, (f"touch {self.marker}",))


def test_a_pickle_that_would_run_a_command_is_refused_and_nothing_runs(tmp_path):
    marker = tmp_path / "ran"
    payload = pickle.dumps({"entries": [_RunsCommand(marker)]}, protocol=2)
    with pytest.raises(UnsafePickleError, match="refused pickle global (posix|os|nt).system"):
        loads_data(payload)
    assert not marker.exists()
    # The same bytes through plain pickle would have run it: the test payload is real.
    pickle.loads(payload)
    assert marker.exists()


@pytest.mark.parametrize("payload", [
    b"cbuiltins\neval\n(V__import__('os').system('true')\ntR.",  # GLOBAL + REDUCE
    pickle.dumps(os.system, protocol=4),                               # STACK_GLOBAL
    b"(S'true'\nios\nsystem\n.",                                   # INST
    b"\x80\x02\x82\xf0.",                                         # EXT1: code 240 registered below
    b"P1\n.",                                                         # persistent id
])
def test_every_way_to_reach_code_is_refused(payload, monkeypatch):
    import copyreg

    monkeypatch.setitem(copyreg._extension_registry, ("os", "system"), 240)
    monkeypatch.setitem(copyreg._inverted_registry, 240, ("os", "system"))
    with pytest.raises(UnsafePickleError, match="refused pickle"):
        loads_data(payload)


def test_torch_typed_list_markers_are_read_as_plain_lists():
    # torch's pickler writes List[int] as torch.jit._pickle.build_intlist([...]); no module is imported.
    payload = b"\x80\x02}q\x00X\x0b\x00\x00\x00input_sizesq\x01ctorch.jit._pickle\nbuild_intlist\nq\x02]q\x03(K\x04K\x05e\x85q\x04Rq\x05s."
    assert loads_data(payload) == {"input_sizes": [4, 5]}


def test_oversized_and_garbage_dumps_are_refused_with_a_reason():
    with pytest.raises(ParseError, match="over the 10-byte limit"):
        flight_recorder.decode_dump(b"x" * 11, max_bytes=10)
    with pytest.raises(ParseError, match="not a readable pickle"):
        flight_recorder.decode_dump(b"\x80\x02garbage")
    with pytest.raises(ParseError, match="not a dict"):
        flight_recorder.decode_dump(b"[1, 2]")


def _dump(rank_last_seq: int, state: str = "started", fmt: str = "pickle") -> bytes:
    entries = [fr_entry(i, i + 1, "ALLREDUCE", 1024, "completed", 1_763_000_000_000_000_000 + i) for i in range(rank_last_seq - 1)]
    entries.append(fr_entry(rank_last_seq - 1, rank_last_seq, "ALLREDUCE", 1024, state, 1_763_000_001_000_000_000))
    return encode_dump(fr_dump(entries, [0, 1, 2, 3]), fmt)


def test_dumps_pickle_and_json_become_entries_and_a_hostile_one_costs_only_itself(tmp_path):
    marker = tmp_path / "ran"
    files = {"/tmp/nccl_trace_rank_0": _dump(5), "/tmp/nccl_trace_rank_1": _dump(5, fmt="json"),
             "/tmp/nccl_trace_rank_2": pickle.dumps({"entries": [_RunsCommand(marker)]}, protocol=2)}
    out = envelope(files, skipped={"/tmp/nccl_trace_rank_3": "over the size limit"})
    ctx, issues = derive(tmp_path, flight_recorder, exec=[_exec_row("flight-recorder", out, "python3 -I -S -c ...")])
    entries = ctx.table("flight_recorder").to_pylist()
    dumps = {d["rank"]: d for d in ctx.table("flight_recorder_dumps").to_pylist()}
    assert not marker.exists()
    assert {e["rank"] for e in entries} == {0, 1}
    assert sorted(e["collective_seq_id"] for e in entries if e["rank"] == 1) == [1, 2, 3, 4, 5]
    last = next(e for e in entries if e["rank"] == 0 and e["collective_seq_id"] == 5)
    assert last["state"] == "started" and last["op"] == "nccl:all_reduce" and last["pg_ranks"] == [0, 1, 2, 3]
    assert last["pg_name"] == "0" and last["pg_desc"] == "default_pg" and json.loads(last["input_sizes"]) == [[1024]]
    assert dumps[0]["dump_format"] == "pickle" and dumps[1]["dump_format"] == "json"
    assert dumps[2]["status"] == "refused" and "refused pickle global" in dumps[2]["reason"]
    assert dumps[3]["status"] == "skipped" and dumps[3]["reason"] == "over the size limit"
    assert any("dump refused" in reason for _, reason in issue_counts(issues))


def test_a_reader_that_did_not_run_is_an_issue_not_a_crash(tmp_path):
    rows = [_exec_row("flight-recorder", "", "python3 -I -S -c ...", exit_code=127, stderr="python3: not found"),
            _exec_row("flight-recorder", "not json", "python3 -I -S -c ...")]
    ctx, issues = derive(tmp_path, flight_recorder, exec=rows)
    assert ctx.table("flight_recorder").num_rows == 0
    reasons = {reason for _, reason in issue_counts(issues)}
    assert "command failed: exit code 127" in reasons and any("not JSON" in r for r in reasons)


def test_ras_text_of_a_healthy_job(real_samples):
    text = (real_samples / "incidents/nccl-1730-ras-ok-rank118-timeout/log.txt").read_text()
    rows = parse_text(text)
    job = next(r for r in rows if r["kind"] == "job")
    assert (job["nodes"], job["processes"], job["gpus"], job["nccl_version"]) == (32, 256, 256, "2.26.2")
    group = next(r for r in rows if r["kind"] == "comm_group")
    assert (group["status"], group["errors"], group["comm_ranks"]) == ("RUNNING", "OK", 256)
    assert not [r for r in rows if r["kind"] in ("process_missing", "rank_missing", "mismatch_group")]


DOC_INCOMPLETE = """Communicators... (2.05s)
=============

Group     Comms     Nodes     Ranks     Ranks     Ranks    Status  Errors
    #  in group  per comm  per node  per comm  in group
    0         1         4       7-8        32        32   RUNNING  INCOMPLETE

Errors
======

DEAD
  1 job process is considered dead (unreachable via the RAS network)
  Process 3487984 on node 172.16.64.213 managing GPU 5

#0-0 (cf264af53edbe986) INCOMPLETE
  Missing communicator data from 1 rank
  The missing rank: 21

Warnings
========

#0-0 (27a079b828ff1a75) MISMATCH
    Communicator ranks have different collective operation counts
    26 ranks have launched up to operation 6650
    6 ranks have launched up to operation 6649
    Rank 0 -- GPU 0 managed by process 483072 on node 172.16.64.210
    Rank 2 -- GPU 2 managed by process 483074 on node 172.16.64.210

TIMEOUT
  Encountered 2 communication timeouts while gathering communicator data
"""


def test_ras_text_dead_incomplete_mismatch_and_timeout():
    rows = parse_text(DOC_INCOMPLETE)
    dead = [r for r in rows if r["kind"] == "process_missing"]
    assert [(r["status"], r["host"], r["pid"], r["gpu"]) for r in dead] == [("DEAD", "172.16.64.213", 3487984, 5)]
    assert [(r["comm"], r["rank"]) for r in rows if r["kind"] == "rank_missing"] == [("#0-0", 21)]
    groups = [(r["group_ranks"], r["op_count"]) for r in rows if r["kind"] == "mismatch_group"]
    assert groups == [(26, 6650), (6, 6649)]
    members = [(r["rank"], r["op_count"], r["host"]) for r in rows if r["kind"] == "mismatch_rank"]
    assert members == [(0, 6649, "172.16.64.210"), (2, 6649, "172.16.64.210")]
    assert [r["kind"] for r in rows].count("timeout") == 1


def test_ras_json_missing_and_counts():
    doc = {"nccl_version": "2.29.1", "communicators": [{
        "hash": "0xae94", "size": 2, "ranks": [{"rank": 0, "host": "10.0.0.1", "pid": 11, "cuda_dev": 0, "nvml_dev": 0,
                                                "collective_counts": {"AllReduce": 7, "Broadcast": 1}}],
        "missing_ranks": [{"rank": 1, "host": "10.0.0.2", "pid": 12, "cuda_dev": 1, "nvml_dev": 1,
                           "status": {"unresponsive": True, "considered_dead": True}}]}], "ras": {"timeouts_count": 0}}
    rows, fmt = parse_output(json.dumps(doc))
    assert fmt == "json"
    assert [(r["rank"], r["op_count"]) for r in rows if r["kind"] == "rank_counts"] == [(0, 8)]
    assert [(r["rank"], r["status"], r["host"], r["gpu"]) for r in rows if r["kind"] == "rank_missing"] == [(1, "DEAD", "10.0.0.2", 1)]
    assert parse_json({"communicators": "junk"}) == []


def test_ncclras_deriver_reads_exec_logs_and_says_when_the_binary_is_absent(tmp_path, real_samples):
    text = (real_samples / "incidents/nccl-1730-ras-ok-rank118-timeout/log.txt").read_text()
    execs = [_exec_row("ncclras", ras_text(2, 4, dead=[("10.1.0.7", 4242, 3, 7)]), "ncclras"),
             _exec_row("ncclras", "", "ncclras -f json", exit_code=None,
                       error='exec failed: exec: "ncclras": executable file not found in $PATH')]
    ctx, issues = derive(tmp_path, ncclras, exec=execs, logs=[log_row(with_api_prefix(text))])
    rows = ctx.table("nccl_ras").to_pylist()
    by_origin = {}
    for r in rows:
        by_origin.setdefault(r["origin"], []).append(r)
    assert [(r["host"], r["pid"], r["gpu"]) for r in by_origin["exec-text"] if r["kind"] == "process_missing"] == [("10.1.0.7", 4242, 3)]
    assert [r["rank"] for r in by_origin["exec-text"] if r["kind"] == "rank_missing"] == [7]
    (gone,) = by_origin["exec"]
    assert gone["kind"] == "unavailable" and "executable file not found" in gone["detail"]
    assert {r["kind"] for r in by_origin["log"]} == {"job", "comm_group"}
    assert by_origin["log"][0]["pod_uid"] == "uid-train-worker-0"
    assert not issue_counts(issues)  # a missing client is recorded as a row, not as a parse problem


def test_fr_dump_bytes_round_trip_through_base64_envelope():
    raw = _dump(3)
    env = json.loads(envelope({"/x/nccl_trace_rank_12": raw}, prefix="/x/nccl_trace_rank_"))
    dump, rows = flight_recorder.parse_file(env["files"][0], env["prefix"])
    assert dump["rank"] == 12 and dump["status"] == "parsed" and len(rows) == 3
    assert base64.b64decode(env["files"][0]["b64"]) == raw


def test_ras_single_rank_groups_are_one_line():
    text = """#0-0 (27a079b828ff1a75) MISMATCH
  Communicator ranks have different collective operation counts
  31 ranks have launched up to operation 6650
  Rank 21 has launched up to operation 6649 -- GPU 5 managed by process 3487984 on node 172.16.64.213
"""
    rows = parse_text("Warnings\n========\n\n" + text)
    assert [(r["group_ranks"], r["op_count"]) for r in rows if r["kind"] == "mismatch_group"] == [(31, 6650), (1, 6649)]
    (member,) = [r for r in rows if r["kind"] == "mismatch_rank"]
    assert (member["rank"], member["op_count"], member["gpu"], member["pid"], member["host"]) == (21, 6649, 5, 3487984, "172.16.64.213")
    nvml = parse_text("Warnings\n========\n#0-0 (ab) MISMATCH\n  3 ranks have launched up to operation 9\n"
                      "  Rank 4 -- GPU 0 (NVML 3) managed by process 77 on node 10.0.0.9\n")
    assert [(r["rank"], r["gpu"], r["pid"]) for r in nvml if r["kind"] == "mismatch_rank"] == [(4, 0, 77)]
    lost = parse_text("Warnings\n========\n#0-0 (ab) MISMATCH\n  3 ranks have launched up to operation 9\n  Rank 4 -- [process information not found]\n")
    assert [(r["kind"], r["rank"], r["host"]) for r in lost if r["kind"] == "mismatch_rank"] == [("mismatch_rank", 4, None)]


def test_a_ras_block_pasted_without_its_section_header_is_read():
    """Users paste only the block (NVIDIA/nccl#1911, batch 337): its status gives the section the header would."""
    block = ("#0-0 (fa93daea854b060b) MISMATCH\n  30 ranks have launched up to operation 640\n"
             "  2 ranks have launched up to operation 641\n  Rank 12 -- GPU 4 managed by process 323032 on node 10.137.190.124\n")
    rows = parse_text(block)
    assert [(r["kind"], r["section"], r.get("rank"), r.get("op_count")) for r in rows] == [
        ("mismatch_group", "warnings", None, 640), ("mismatch_group", "warnings", None, 641),
        ("mismatch_rank", "warnings", 12, 641)]
    dead = parse_text("#0-0 (0x1) INCOMPLETE\n  The missing rank: 21\n")
    assert [(r["kind"], r["section"], r["rank"]) for r in dead] == [("rank_missing", "errors", 21)]
