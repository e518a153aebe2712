"""Reports one process prints about others, as real clusters print them (batch 10 of the real
incidents): Horovod's stall warning in its three wordings (``[missing ranks: 1]`` per tensor,
``[ready ranks: 0, 7, 3]`` per tensor, a ``Missing ranks:`` header with one row per rank), Open
MPI's ``mpirun.real noticed that process rank N``, and Ray's dead-actor report (the driver's,
not rank 0's; a verl worker-group actor ``<prefix>WorkerDict_0:<rank>`` names the rank).
Parser level first, then through ``import-logs`` and ``analyze`` as a user would.
"""

from __future__ import annotations

import datetime as dt

import pytest

from incident_kit import naming_findings
from parser_kit import body_events
from k10s_forensics.analyze.runner import analyze
from k10s_forensics.logimport import LogSource, import_logs
from k10s_forensics.parsers.log_classify import classify
from paste_damage import ansi, crlf, double_space, fences_quotes

NOW = dt.datetime(2026, 11, 28, 12, 0, tzinfo=dt.timezone.utc)
WARNING = ("[2021-02-02 21:19:07.345988: W horovod/common/stall_inspector.cc:105] One or more tensors were submitted to be reduced, "
           "gathered or broadcasted by subset of ranks and are waiting for remainder of ranks for more than 60 seconds. ")
MISSING_OLD = "[1,0]<stderr>:[2019-04-13 13:53:31.851506: W horovod/common/operations.cc:588] HorovodBroadcast_dense_{i}_bias_0 [missing ranks: {r}]"


def _events(text: str) -> list[tuple]:
    return [(e["kind"], e.get("subkind"), e.get("rank"), e.get("reporter_rank")) for e in body_events(text.split("\n"), NOW, prefiltered=False)]


def _named(tmp_path, text: str, **layout) -> list[tuple]:
    bundle, _ = import_logs([LogSource("paste.txt", text)], tmp_path / "b", job="train", namespace="team-a", now=NOW, **layout)
    return [(f["rule"], f["cause"], f["ranks"]) for f in naming_findings(analyze(bundle)["findings"])]


# ---- parser ----------------------------------------------------------------------------------
@pytest.mark.parametrize(("line", "want"), [
    (MISSING_OLD.format(i=1, r=1), [("nccl_desync", "horovod_missing", 1, 0)]),
    # two writes of rank 0 interleaved mid-line: the tag glued inside the record
    ("[1,0]<stderr>:[2019-04-13 13:53:31.[1,0]<stderr>:851588: W horovod/common/operations.cc:588] HorovodBroadcast_x_0 [missing ranks: 1, 3]",
     [("nccl_desync", "horovod_missing", 1, 0), ("nccl_desync", "horovod_missing", 3, 0)]),
    ("allreduce.conv1.weight [ready ranks: 0, 7, 3, 2], ", [("nccl_desync", "horovod_ready", r, None) for r in (0, 2, 3, 7)]),
    # several tensors on one line, the last cut mid-entry by a wrap: the ranks ready for any of them
    ("Stalled ops: allreduce.a [ready ranks: 2, 0], allreduce.b [ready ranks: 1, 0], allreduce.c [ready ",
     [("nccl_desync", "horovod_ready", r, None) for r in (0, 1, 2)]),
    # the flight-recorder analyzer's own "missing ranks: {3, 4}" is not Horovod's
    ("missing ranks: {3, 4}", [("flight_recorder_missing_ranks", None, 3, None), ("flight_recorder_missing_ranks", None, 4, None)]),
])
def test_stall_report_lines(line, want):
    assert [(e["kind"], e.get("subkind"), e.get("rank"), e.get("reporter_rank")) for e in classify(line)] == want


@pytest.mark.parametrize("tag", ["", "[1,0]<stderr>:", "Thu Aug 29 21:45:09 2019[0]<stderr>:"])
def test_missing_ranks_rows_under_their_header(tag):
    text = "\n".join([tag + WARNING, tag + "Missing ranks:", tag + "0: [cond_1/then/_10/DistributedSGD_Allreduce/HorovodAllreduce_grads_0]",
                      tag + "3: [allreduce.fc.weight, allreduce.fc.bias]", ""])
    reporter = 0 if tag else None
    assert [e for e in _events(text) if e[0] == "nccl_desync"] == [
        ("nccl_desync", "horovod_missing", 0, reporter), ("nccl_desync", "horovod_missing", 3, reporter)]


def test_a_row_away_from_the_header_is_nothing():
    text = "\n".join([WARNING, "Missing ranks:", *(["epoch 3 step 10 loss 0.1"] * 5), "2: [allreduce.fc.weight]", ""])
    assert [e for e in _events(text) if e[0] == "nccl_desync"] == []


# ---- through import-logs and analyze ------------------------------------------------------------
def test_tensors_missing_ranks_name_the_rank_that_never_joined(tmp_path):
    text = "\n".join([MISSING_OLD.format(i=i, r=1) for i in range(4)] + [""])
    assert _named(tmp_path, text, world_size=2) == [("nccl-hang", "never-joined", [1])]


@pytest.mark.parametrize(("world", "want"), [(8, [1, 5]), (None, [1, 5]), (9, [1, 5, 8])])
def test_ranks_ready_for_no_stalled_tensor_never_joined(tmp_path, world, want):
    """The job's ranks missing from every ready list: its known size, else up to the highest rank named."""
    rows = [f"allreduce.layer{i}.weight [ready ranks: 0, 7, 3, 2, 4, 6], " for i in range(4)]
    text = "\n".join(["Train Epoch     #80:  29% 366/1252 [11:52<58:45,  3.98s/it, loss=0.94]", WARNING, "Stalled ops: ", *rows, ""])
    layout = {"world_size": world, "nproc_per_node": 1} if world else {}
    assert _named(tmp_path, text, **layout) == [("nccl-hang", "never-joined", want)]


def test_missing_ranks_rows_name_their_ranks(tmp_path):
    text = "\n".join([WARNING, "Missing ranks:", "3: [allreduce.fc.weight, allreduce.fc.bias]", ""])
    assert _named(tmp_path, text, world_size=4, nproc_per_node=4) == [("nccl-hang", "never-joined", [3])]


@pytest.mark.parametrize("launcher", ["mpirun", "mpirun.real", "prterun"])
def test_mpirun_noticed_a_killed_rank(tmp_path, launcher):
    text = "\n".join(["-" * 74, f"{launcher} noticed that process rank 1 with PID 39 on node mpi-test-2-mpijob-worker-1 exited on signal 9 (Killed).",
                      "-" * 74, ""])
    assert _named(tmp_path, text, world_size=2, nproc_per_node=1) == [("rank-failure", "host-oom-kill", [1])]


DIED = """ray.exceptions.ActorDiedError: The actor died unexpectedly before finishing this task.
        class_name: create_colocated_worker_cls.<locals>.WorkerDict
        actor_id: 5066c201b724a3936948a11201000000
        pid: 87687
        name: 07GxnAWorkerDict_{group}:3
        namespace: b8860f81-d334-496c-a8f4-c7ed6a6b49f3
        ip: 10.29.214.5
The actor is dead because its worker process has died. Worker exit type: SYSTEM_ERROR Worker exit detail: Worker unexpectedly exits with a connection error code 2. End of file.
"""
DRIVER_TB = """Traceback (most recent call last):
  File "/usr/local/lib/python3.10/dist-packages/verl/trainer/main_ppo.py", line 262, in <module>
    main()
"""


@pytest.mark.parametrize(("group", "want"), [(0, [("rank-failure", "exit-unknown", [3])]), (1, [])])
def test_a_dead_verl_worker_names_its_rank_in_the_first_group(tmp_path, group, want):
    assert _named(tmp_path, DRIVER_TB + DIED.format(group=group)) == want


def test_the_driver_s_dead_actor_report_is_no_rank_s_failure(tmp_path):
    text = DRIVER_TB + DIED.format(group=0).replace("        name: 07GxnAWorkerDict_0:3\n", "")
    assert _named(tmp_path, text) == []


@pytest.mark.parametrize(("line", "subkind"), [
    ("RuntimeError: transform: failed to synchronize: cudaErrorECCUncorrectable: uncorrectable ECC error encountered", "ecc"),
    ("[rank3]: RuntimeError: cudaErrorIllegalAddress: an illegal memory access was encountered", "illegal-address"),
    ("RuntimeError: CUDA error: uncorrectable ECC error encountered", "ecc"),
])
def test_the_cuda_runtime_s_error_names_are_cuda_errors(line, subkind):
    assert [(e["kind"], e.get("subkind")) for e in classify(line)] == [("cuda_error", subkind)]


@pytest.mark.parametrize("damage", [double_space, crlf, fences_quotes, ansi], ids=["double-space", "crlf", "fences-quotes", "ansi"])
@pytest.mark.parametrize(("text", "layout", "want"), [
    ("\n".join([WARNING, "Missing ranks:", "3: [allreduce.fc.weight, allreduce.fc.bias]", ""]), {"world_size": 4, "nproc_per_node": 4},
     [("nccl-hang", "never-joined", [3])]),
    (DRIVER_TB + DIED.format(group=0), {}, [("rank-failure", "exit-unknown", [3])]),
])
def test_the_multi_line_reports_survive_pasting(tmp_path, damage, text, layout, want):
    assert _named(tmp_path, damage(text), **layout) == want
