"""Readers of what k9s, Graylog and a Microsoft Teams thread hand a user (tests/viewer_shapes.py: k9s's saved log view,
Graylog's CSV export with and without its ``source`` column, a Teams paste), each on a few lines of its format; a sample
of recorded runs read in one analysis. The whole sweep: ``tests/tools/score_export_shapes.py --family viewer``."""

from __future__ import annotations

import pytest

import viewer_shapes
from k10s_forensics.parsers.log_export_records import Record
from k10s_forensics.parsers.log_export_text import read_text_export

T = "2026-11-28T12:05:03.010223000Z"


def test_the_generator_is_deterministic_and_makes_every_shape():
    node = f"{T} [default0]:[rank0]: step 1\n{T} [default0]:[rank0]: KeyError: 'x'\n"
    assert viewer_shapes.shapes([node, node], 1) == viewer_shapes.shapes([node, node], 1)
    assert set(viewer_shapes.shapes([node], 1)) == set(viewer_shapes.SHAPES)


#: k9s's view of a PyTorchJob's two pods saved: each line behind its pod's name and one space
K9S = ["train-master-0 [default0]:[rank0]: step 4", "train-worker-0 [default0]:[rank2]: step 4",
       "train-worker-0 [default1]:[rank3]: KeyError: 'labels'", "train-master-0 [default1]:[rank1]: step 4",
       "train-worker-0 E1128 12:05:03.300000 77 torch/distributed/elastic/multiprocessing/api.py:1] failed (exitcode: 1) "
       "local_rank: 1 (pid: 80) of binary: python", "train-worker-0   File \"train.py\", line 3, in <module>"]


def _records(text: str):
    found = read_text_export(text)
    return found[0], [(r.pod, r.text) if isinstance(r, Record) else r for r in found[1]]


@pytest.mark.parametrize("lines,pods", [
    (K9S, ["train-master-0", "train-worker-0", "train-worker-0", "train-master-0", "train-worker-0", "train-worker-0"]),
    ([f"{T} {line}" for line in K9S], None),  # the time column shown (``t``): the kubelet's time first
    ([line.replace("train-", "llm-trainer-0-") for line in K9S], None),  # a JobSet's pods
    (K9S[:1] * 4, ["train-master-0"] * 4),  # a workload of one pod
])
def test_a_saved_k9s_view_is_read_as_its_pods_lines(lines, pods):
    what, recs = _records("\n".join(lines) + "\n")
    assert what == "k9s log view"
    assert [text for _, text in recs] == [ln.split(" ", 2 if ln.startswith("2026") else 1)[-1] for ln in lines]
    if pods:
        assert [pod for pod, _ in recs] == pods


@pytest.mark.parametrize("text", [
    "".join(f"trainer step {i} loss 0.{i}\n" for i in range(6)),  # a first word that is no operator's pod name
    "".join(f"train-worker-{i}   1/1   Running   0   5m\n" for i in range(6)),  # kubectl get pods: each pod on one line
    "".join(f"[default{i % 2}]:[rank{i % 2}]: step {i}\n" for i in range(6)),
    "".join(f"2026-11-28 12:05:0{i}.281 UTC\t[rank{i % 2}]: step {i}\n" for i in range(6)),  # a console's date: no JobSet pod
])
def test_a_log_whose_first_word_is_no_pod_of_a_view_is_left(text):
    assert read_text_export(text) is None or read_text_export(text)[0] != "k9s log view"


GRAYLOG = ('"timestamp","source","message"\n'
           '"2026-11-28T13:05:03.300+01:00","gpu-node-1","[default1]:[rank3]: KeyError: \'labels\'"\n'
           '"2026-11-28T13:05:02.100+01:00","gpu-node-0","[default1]:[rank1]: step 4"\n'
           '"2026-11-28T13:05:02.000+01:00","gpu-node-1","[default0]:[rank2]: step 4"\n')


def test_graylogs_source_column_names_the_node_of_each_row():
    what, recs = _records(GRAYLOG)
    assert what == "CSV export"
    assert recs == [("gpu-node-1", "[default1]:[rank3]: KeyError: 'labels'"), ("gpu-node-0", "[default1]:[rank1]: step 4"),
                    ("gpu-node-1", "[default0]:[rank2]: step 4")]
    found = read_text_export(GRAYLOG)[1]
    assert found[0].ts_ns - found[1].ts_ns == 1_200_000_000  # the viewer's offset read


def test_a_pod_column_wins_over_graylogs_source():
    text = GRAYLOG.replace('"source","message"', '"source","kubernetes_pod_name","message"').replace('","[default', '","train-worker-0","[default')
    assert {pod for pod, _ in _records(text)[1]} == {"train-worker-0"}


#: one recorded run for each shape a reader was changed for (as generated, each named a wrong rank), read in one
#: analysis (tests/bundle_batch.py); every shape on a sample of runs: the scoring tool's sweep (--family viewer)
SAMPLE = {"k9s-logs-save": "2.13.0/t10-trun-weights-only-rank3", "graylog-csv": "2.13.0/t11-trun-elastic-1to3-node-leaves",
          "graylog-csv-no-source": "2.13.0/t11-trun-elastic-1to3-node-leaves"}  # no node named: the agents that speak in turn


@pytest.mark.slow
def test_a_recorded_run_reads_as_its_pod_logs_in_each_viewer_shape(tmp_path):
    from torch_runs_kit import missed_shapes

    assert missed_shapes(viewer_shapes.shapes, SAMPLE, tmp_path) == {}
