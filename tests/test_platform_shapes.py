"""Readers of what kubectl's other habits, training platforms and chat pastes hand a user (tests/platform_shapes.py:
``kubectl logs -l`` without ``--prefix``, ``--previous`` above the restarted attempt, ``--all-containers`` with an Istio
sidecar, SkyPilot's ``sky logs``, Vertex AI's ``gcloud ai custom-jobs stream-logs``, Azure Monitor's ContainerLogV2 CSV,
a Slack paste), each on a few lines of its format. The recordings in each shape run in tests/test_launcher_shapes.py
(one run a shape); the whole sweep: ``tests/tools/score_export_shapes.py --family platform``."""

from __future__ import annotations

import pytest

import platform_shapes
from k10s_forensics.parsers.log_export_records import parse_time_ns
from k10s_forensics.parsers.log_exports import split_export
from k10s_forensics.parsers.log_launcher_prefix import split_launcher
from k10s_forensics.parsers.log_paste import repair_paste
from k10s_forensics.parsers.log_quotes import straight_quotes

T = "2026-11-28T12:05:03.010223000Z"


def test_the_generator_is_deterministic_and_makes_every_shape():
    node = f"{T} [default0]:[rank0]: step 1\n{T} [default0]:[rank0]: KeyError: 'x'\n"
    assert platform_shapes.shapes([node, node], 1) == platform_shapes.shapes([node, node], 1)
    assert set(platform_shapes.shapes([node], 1)) == set(platform_shapes.SHAPES)


def test_skypilot_logs_are_split_by_the_node_the_tag_names():
    """``(head, rank=0, pid=P)`` / ``(worker1, rank=1, pid=P, ip=A)``: the rank is the node's (torchrun runs once per
    node); torchrun's own tags behind it name the processes."""
    text = ("(head, rank=0, pid=3808) [default1]:[rank1]: step 1\n"
            "(worker1, rank=1, pid=3845, ip=10.0.0.3) [default1]:[rank3]: KeyError: 'x'\n"
            "(worker1, rank=1, pid=3845, ip=10.0.0.3) [default0]:[rank2]: step 1\n"
            "(head, rank=0, pid=3808) [default0]:[rank0]: step 1\n")
    logs, how = split_launcher("sky-logs.txt", text)
    assert how.startswith("sky logs: one node per task (2")
    assert [t.split("\n") for _, t in logs] == [["[default1]:[rank1]: step 1", "[default0]:[rank0]: step 1"],
                                                ["[default1]:[rank3]: KeyError: 'x'", "[default0]:[rank2]: step 1"]]
    one_process = "".join(f"(worker{r}, rank={r}, pid=9{r}, ip=10.0.0.{r}) step {s}\n" if r else f"(head, rank=0, pid=90) step {s}\n"
                          for s in range(3) for r in range(4))
    logs, how = split_launcher("sky-logs.txt", one_process)  # one process a node: a node each all the same, in rank order
    assert how == "sky logs: one node per task (4: 0, 1, 2, 3)" and [t.split("\n") for _, t in logs][3] == ["step 0", "step 1", "step 2"]


VERTEX = ("INFO\t2026-11-28 12:05:02 +0000\tworkerpool0-0\t[rank0]: step 4\n"
          "INFO\t2026-11-28 12:05:03 +0000\tworkerpool1-0\t[rank1]: step 4\n"
          "ERROR\t2026-11-28 12:05:03 +0000\tworkerpool1-0\t[rank1]: KeyError: 'labels'\n"
          "ERROR\t2026-11-28 13:05:04 +0100\tworkerpool0-0\t[rank0]: RuntimeError: Connection closed by peer\n")


@pytest.mark.parametrize("text", [VERTEX, VERTEX.replace("-0\t", "-0\t\t"), VERTEX.replace("-0\t", "-0\t7\t")],
                         ids=["custom-jobs", "ai-platform-no-trial", "ai-platform-trial-7"])
def test_vertex_stream_logs_are_one_pod_per_task(text):
    """gcloud's ``value(severity, timestamp, task_name, [trial_id,] message)``: tab-separated, the task the pod, its
    lines in time order (a line of the same second keeps its place); ai-platform's trial id column taken off."""
    logs, _, how = split_export([("vertex.log", text)], "imported")
    assert how == "gcloud stream-logs output, 4 records (2 pods: workerpool0-0, workerpool1-0)"
    assert [body.split("\n") for _, body in logs] == [
        ["2026-11-28T12:05:02.000000000Z [rank0]: step 4", "2026-11-28T12:05:04.000000000Z [rank0]: RuntimeError: Connection closed by peer"],
        ["2026-11-28T12:05:03.000000000Z [rank1]: step 4", "2026-11-28T12:05:03.000000000Z [rank1]: KeyError: 'labels'"]]
    assert split_export([("x.log", "INFO something happened\nERROR\tnot a stream line\n")], "imported") is None


@pytest.mark.parametrize("value,stamp", [
    ("11/28/2026, 6:49:10.466 PM", "2026-11-28T18:49:10.466"), ("11/28/2026, 12:05:03.281 AM", "2026-11-28T00:05:03.281"),
    ("1/2/2026, 12:00:00 PM", "2026-01-02T12:00:00.000"), ("13/28/2026, 6:49:10 PM", None), ("28/11/2026, 18:49:10", None)])
def test_the_azure_portals_date_is_read(value, stamp):
    import datetime as dt
    ns = parse_time_ns(value)
    assert (None if ns is None else dt.datetime.fromtimestamp(ns / 1e9, dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f")[:23]) == stamp


def test_an_azure_monitor_containerlogv2_csv_is_one_node_per_pod():
    """Log Analytics' CSV export (``TimeGenerated [UTC]``, ``PodName``, ``ContainerName``, ``LogMessage``), newest
    first: each pod a node, in time order."""
    text = ("TimeGenerated [UTC],Computer,PodNamespace,PodName,ContainerName,LogSource,LogMessage\r\n"
            '"11/28/2026, 12:05:04.595 PM",aks-gpu-0,team-a,train-master-0,pytorch,stderr,"[rank0]: RuntimeError: closed, by peer"\r\n'
            "\"11/28/2026, 12:05:03.281 PM\",aks-gpu-1,team-a,train-worker-0,pytorch,stderr,[rank1]: KeyError: 'labels'\r\n"
            '"11/28/2026, 12:05:02.900 PM",aks-gpu-0,team-a,train-master-0,pytorch,stdout,[rank0]: step 4\r\n')
    logs, job, how = split_export([("query_data.csv", text)], "imported")
    assert how.startswith("CSV export, 3 records") and job == "train"
    assert [[line.split(" ", 1)[1] for line in body.split("\n")] for _, body in logs] == [
        ["[rank0]: step 4", "[rank0]: RuntimeError: closed, by peer"], ["[rank1]: KeyError: 'labels'"]]


@pytest.mark.parametrize("lines,note", [
    (["[rank1]:   File \u201c/w/train.py\u201d, line 3, in <module>", "[rank1]: KeyError: \u2018labels\u2019"], "typographic quotes (2 lines)"),
    (["x \u2018a\u2019 y \u201cb\u201d", "z \u2018c\u2019"], "typographic quotes (2 lines)"),  # three words quoted so: an editor
    (["error: \u2018foo\u2019 was not declared in this scope"], None),  # a compiler's own quotes, once: left alone
    (["he said \u201cit works, mostly\u201d"], None),  # prose
    (["File \"/w/train.py\", line 3"], None),
])
def test_typographic_quotes_are_straightened_only_where_an_editor_made_them(lines, note):
    out, got = straight_quotes(lines)
    assert got == note
    assert out == ([line.translate({0x2018: 39, 0x2019: 39, 0x201c: 34, 0x201d: 34}) for line in lines] if note else lines)


def test_a_slack_paste_reads_as_the_log_it_holds():
    """Message headers and prose stay (they name no rank); the quotes are the program's again."""
    text = ("Dana Kim  10:42 PM\nhere\u2019s the log\n[pod/train-worker-0/pytorch] [rank1]:   File \u201c/w/t.py\u201d, line 3, in f\n"
            "[pod/train-worker-0/pytorch] [rank1]: KeyError: \u2018labels\u2019\n")
    repaired = repair_paste(text)
    assert repaired.notes == ["typographic quotes (3 lines)"]
    assert repaired.text.split("\n")[2:4] == ['[pod/train-worker-0/pytorch] [rank1]:   File "/w/t.py", line 3, in f',
                                              "[pod/train-worker-0/pytorch] [rank1]: KeyError: 'labels'"]


#: one recorded run for each shape a reader was changed for, and the pod-less interleaving (several nodes, a hang, a
#: segfault only its agent saw), all read in one analysis (tests/bundle_batch.py); every shape on a sample of runs:
#: the scoring tool's sweep (--family platform)
SAMPLE = {"kubectl-selector-follow": "2.13.0/torchrun-3x2-exception-filter1", "skypilot-logs": "2.13.0/torchrun-3x2-exception-filter1",
          "vertex-stream-logs": "2.14.1/t3-faulthandler-segfault", "azure-containerlogv2-csv": "2.13.0/t4-accel-2node-hang-node1",
          "slack-paste": "2.13.0/spawn-exception"}


@pytest.mark.slow
def test_a_recorded_run_reads_as_its_pod_logs_in_each_platform_shape(tmp_path):
    from torch_runs_kit import missed_shapes

    assert missed_shapes(platform_shapes.shapes, SAMPLE, tmp_path) == {}
