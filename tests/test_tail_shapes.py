"""Readers of what ``stern``'s JSON outputs, Rancher's pod log download and srun's per-node files hand over
(tests/tail_shapes.py: ``stern --output json``, ``--output ppextjson``, Rancher's ``<pod>_<container>.log`` per pod,
``srun --output=%N-%t.out``): the formats on a few lines; a
sample of recorded runs read in one analysis. The whole sweep: ``tests/tools/score_export_shapes.py --family tail``."""

from __future__ import annotations

import pytest

import tail_shapes
from k10s_forensics.parsers.log_export_records import Record
from k10s_forensics.parsers.log_exports import read_export
from k10s_forensics.parsers.log_layout import LogSource
from k10s_forensics.parsers.log_rank_order import rank_order

T = "2026-11-28T12:05:03.010223000Z"


def test_the_generator_is_deterministic_and_makes_every_shape():
    node = f"{T} [default0]:[rank0]: step <1> & 2\n{T} 12\n"
    made = tail_shapes.shapes([node, node], 1)
    assert made == tail_shapes.shapes([node, node], 1) and set(made) == set(tail_shapes.SHAPES)
    assert made["stern-json"][0][1].startswith('{"message":"[default0]:[rank0]: step \\u003c1\\u003e \\u0026 2","nodeName":"gpu-node-0",'
                                                '"namespace":"team-a","podName":"train-master-0","containerName":"pytorch"}\n')
    pp = made["stern-ppextjson"][0][1]
    assert pp.startswith('{\n  "pod": "train-master-0",\n  "container": "pytorch",\n  "message": "[default0]')
    assert '"pod": "train-worker-0",\n  "container": "pytorch",\n  "message": 12\n}\n' in pp  # a line valid as JSON: as it is
    assert [name for name, _ in made["rancher-log-download"]] == ["train-master-0_pytorch.log", "train-worker-0_pytorch.log"]
    # srun's task ids in host order, the node ranks in rendezvous order (here the reverse): task 0 holds the last node
    assert made["srun-output-host-task"] == [("nid001200-0.out", made["rancher-log-download"][1][1]),
                                             ("nid001208-1.out", made["rancher-log-download"][0][1])]


def _read(text: str):
    found = read_export(text, "stern.json")
    return found and (found[0], [(r.pod, r.text) if isinstance(r, Record) else r for r in found[1]])


_PP = '{\n  "pod": "train-worker-0",\n  "container": "pytorch",\n  "message": "[rank3]: KeyError: \\u0027x\\u0027"\n}\n'


@pytest.mark.parametrize("text,want", [
    # ppextjson: pretty-printed objects one after another, not an array
    (_PP + '{\n  "pod": "train-master-0",\n  "container": "pytorch",\n  "message": "step 4"\n}\n',
     ("log store export (JSON objects)", [("train-worker-0", "[rank3]: KeyError: 'x'"), ("train-master-0", "step 4")])),
    # extjson (one object a line, --all-namespaces: the namespace first); a line that was valid JSON is a JSON value
    ('{"namespace": "team-a", "pod": "train-master-0", "container": "pytorch", "message": 12}\n'
     '{"namespace": "team-a", "pod": "train-master-0", "container": "pytorch", "message": {"level": "info", "msg": "step 4"}}\n',
     ("log store export (JSON lines)", [("train-master-0", "12"), ("train-master-0", '{"level": "info", "msg": "step 4"}')])),
    # --output json: one object a line, the pod in podName
    ('{"message":"step 4","nodeName":"gpu-node-0","namespace":"team-a","podName":"train-master-0","containerName":"pytorch"}\n' * 2,
     ("log store export (JSON lines)", [("train-master-0", "step 4")] * 2)),
])
def test_sterns_json_outputs_name_each_lines_pod(text, want):
    assert _read(text) == want


@pytest.mark.parametrize("text", [
    '{\n  "level": "info",\n  "msg": "step 4"\n}\n{\n  "level": "info",\n  "msg": "step 5"\n}\n',  # an application's own JSON, pretty
    '{\n  "pod": "train-master-0",\n  "message": "step 4"\n}\n{\n  "pod": "x",\n  "message": "y"\n}\n',  # no container: not stern's
    '{\n  "pod": "train-master-0",\n  "container": "pytorch",\n  "message": "step 4"\n}\n{ cut',  # a cut paste: not whole values
])
def test_json_values_that_are_no_sterns_records_are_no_export(text):
    found = read_export(text, "app.json")
    assert found is None or not any(isinstance(r, Record) and r.pod for r in found[1])


_TABLE = "  rank      : {} (local_rank: {})\n  exitcode  : -9 (pid: 25318)\n"


def _logs(*texts: str) -> list[LogSource]:
    return [LogSource(f"nid{1200 + 8 * i:06d}-{i}.out", t) for i, t in enumerate(texts)]


@pytest.mark.parametrize("texts,want", [
    # srun's task 0 ran node 1 (ranks 2, 3): each file at the node its tagged lines name
    (("[rank2]: x\n[rank3]: y\n", "[rank0]: x\n[rank1]: y\n"), [1, 0]),
    # a node that left names no rank of its own: the node left over
    (("rank 5/6 initialised\n", "[rank2]: x\n", "[rank0]: x\n[rank1]: y\n"), [2, 1, 0]),
    # no tagged line, but the failure table's global rank (rank 1 of 2 per node: node 0)
    (("step 4\n", "step 4\n" + _TABLE.format(1, 1)), [1, 0]),
    # already in node order: the order given stands
    (("[rank0]: x\n", "[rank2]: x\n"), None),
    # a file whose ranks span two nodes (a later round reassigned them): the order given stands
    (("[rank2]: x\n[rank0]: y\n", "[rank1]: x\n"), None),
    # two files claiming one node, or a node past the files given: the order given stands
    (("[rank1]: x\n", "[rank0]: x\n"), None),
    (("[rank4]: x\n", "[rank0]: x\n"), None),
    # no file names a rank
    (("step 4\n", "step 5\n"), None),
])
def test_files_a_tool_numbered_are_placed_by_their_lines_ranks(texts, want):
    assert rank_order(_logs(*texts), 2) == want


#: recorded runs read in one analysis (tests/bundle_batch.py): the culprit on a worker node in ppextjson (as generated it
#: named a wrong rank: no line had its pod) and in srun's ``%N-%t`` files whose name order is not the ranks' (a restart;
#: the lines' own ranks place the nodes, where it named rank 2 crash-looping beside rank 3 as generated), a common-mode
#: control in stern's JSON lines. Rancher's per-pod files read as the
#: Dashboard's download (tests/test_pane_shapes.py), so no run of theirs is added here (the suite's time)
SAMPLE = {"srun-output-host-task": "2.13.0/t10-trun-restart-exit0-then-keyerror-rank3",
          "stern-ppextjson": "2.14.1/t10-trun-weights-only-rank3",
          "stern-json": "2.13.0/t10-trun-common-mode-eval-subprocess"}


@pytest.mark.slow
def test_a_recorded_run_reads_as_its_pod_logs_in_each_tail_shape(tmp_path):
    from torch_runs_kit import missed_shapes

    assert missed_shapes(tail_shapes.shapes, SAMPLE, tmp_path) == {}
