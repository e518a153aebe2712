"""Readers of what a node's own files, a collector's console or a log store hand a user (tests/store_shapes.py: kubelet's
rotated pod log folder in a tarball, Fluent Bit's stdout console, Vector, an Elasticsearch ``_search`` of Filebeat's ECS
documents, Splunk's CSV export, ``aws logs tail``, ``gcloud logging read``'s YAML), each on a few lines of its format.
The recordings in each shape run in tests/test_launcher_shapes.py (one run a shape); the whole sweep:
``tests/tools/score_export_shapes.py --family store``."""

from __future__ import annotations

import gzip
import json

import pytest

import store_shapes
from k10s_forensics.errors import InputError
from k10s_forensics.parsers.log_archive import members
from k10s_forensics.parsers.log_export_consoles import aws_tail, fluentbit_stdout
from k10s_forensics.parsers.log_export_records import path_pod
from k10s_forensics.parsers.log_exports import read_export, split_export

T = "2026-11-28T12:05:03.010223000Z"
ID = "a" * 64


def _bodies(sources):
    logs, _, how = split_export(sources, "imported")
    return [body.split("\n") for _, body in logs], how


def test_the_generator_is_deterministic_and_makes_every_shape():
    node = f"{T} [default0]:[rank0]: step 1\n{T} [default0]:[rank0]: KeyError: 'x'\n"
    assert store_shapes.shapes([node, node], 1) == store_shapes.shapes([node, node], 1)
    assert set(store_shapes.shapes([node], 1)) == set(store_shapes.SHAPES)


@pytest.mark.parametrize("path,pod", [
    ("/var/log/pods/team-a_train-worker-1_0d40e910-c015-d976-de01-9249659217d2/pytorch/0.log", ("train-worker-1", "pytorch")),
    ("n0.tar.gz/var/log/pods/team-a_train-master-0_0d40e910-c015/pytorch/0.log.20261128-120431.gz", ("train-master-0", "pytorch")),
    ("/var/log/pods/team-a_train-master-0_0d40e910-c015/pytorch/1.log.20261128-120431", ("train-master-0", "pytorch")),
    (f"/var/log/containers/train-worker-0_team-a_pytorch-{ID}.log", ("train-worker-0", "pytorch")),
    (f"gpu-node-0-application.var.log.containers.train-worker-0_team-a_pytorch-{ID}.log", ("train-worker-0", "pytorch")),
    ("/var/log/pods/team-a_train-master-0_0d40e910-c015/pytorch/notes.txt", (None, None)),
    ("/var/log/syslog", (None, None)),
])
def test_a_log_files_path_names_its_pod(path, pod):
    assert path_pod(path) == pod


def test_a_rotated_pod_folder_is_one_pod_in_time_order():
    """kubelet's ``0.log.<time>.gz`` (gzip, older), ``0.log.<time>`` and ``0.log``: one container's lines, its pod named by the
    folder; the other pod's folder in another node's tarball."""
    folder = "var/log/pods/team-a_{pod}_0d40e910-c015-d976/pytorch"
    n0 = {f"{folder.format(pod='train-master-0')}/0.log.20261128-120401.gz": gzip.compress(b"2026-11-28T12:04:00.1Z stdout F [rank0]: step 1\n"),
          f"{folder.format(pod='train-master-0')}/0.log.20261128-120500": b"2026-11-28T12:05:00.1Z stdout F [rank0]: step 2\n",
          f"{folder.format(pod='train-master-0')}/0.log": b"2026-11-28T12:06:00.1Z stderr P [rank0]: Runtime\n2026-11-28T12:06:00.1Z stderr F Error: x\n"}
    n1 = {f"{folder.format(pod='train-worker-0')}/0.log": b"2026-11-28T12:04:30.1Z stdout F [rank1]: step 1\n"}
    sources = [(f"n{i}.tar.gz/{path}", text) for i, tar in enumerate((n0, n1)) for path, text in members(f"n{i}", store_shapes.tar_gz(list(tar.items())), 1 << 20)]
    assert len(sources) == 4
    bodies, how = _bodies(sources)
    assert [[line.split(" ", 1)[1] for line in body] for body in bodies] == [
        ["[rank0]: step 1", "[rank0]: step 2", "[rank0]: RuntimeError: x"], ["[rank1]: step 1"]]
    assert "2 pods" in how


def test_a_damaged_gzip_member_is_one_line():
    with pytest.raises(InputError, match="0.log.1.gz is not a readable gzip file"):
        members("n.tar.gz", store_shapes.tar_gz([("0.log.1.gz", b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03\xff\xff\xff")]), 1 << 20)


def test_fluent_bit_stdout_console():
    """msgpack format: unescaped strings (a quote or ``=>`` in the line kept), a line the docker parser ended with ``\\n``
    joined back, the tag naming the pod where no kubernetes map does, the collector's own lines not the job's."""
    tag = f"kube.var.log.containers.train-worker-0_team-a_pytorch-{ID}.log"
    k8s = '"kubernetes"=>{"pod_name"=>"train-master-0", "namespace_name"=>"team-a", "container_name"=>"pytorch"}'
    text = "\n".join(["Fluent Bit v3.1.4", "[2026/11/28 12:05:00] [ info] [engine] started (pid=1)",
                      f'[0] {tag}: [[1795867503.010223000, {{}}], {{"time"=>"{T}", "stream"=>"stderr", "_p"=>"F", '
                      f'"log"=>"[rank1]: KeyError: "labels" => x", {k8s}}}]',
                      f'[1] {tag}: [[1795867504.000000000, {{}}], {{"log"=>"[rank3]: boom', '", "stream"=>"stderr"}]',
                      f'[0] {tag}: [1795867502, {{"log"=>"[rank3]: step 9"}}]'])
    recs = fluentbit_stdout(text, [ln for ln in text.split("\n") if ln.strip()])
    assert [(r.pod, r.text, r.ts_ns) for r in recs] == [
        ("train-master-0", '[rank1]: KeyError: "labels" => x', 1795867503010223000),
        ("train-worker-0", "[rank3]: boom", 1795867504000000000), ("train-worker-0", "[rank3]: step 9", 1795867502000000000)]
    assert fluentbit_stdout("[0] step 1\n[1] step 2\n", ["[0] step 1", "[1] step 2"]) is None


def test_aws_logs_tail_detailed_and_short():
    stream = f"ip-10-0-1-2.ec2.internal-application.var.log.containers.train-worker-0_team-a_pytorch-{ID}.log"
    record = json.dumps({"log": "[rank2]: KeyError: 'x'", "stream": "stderr", "kubernetes": {"pod_name": "train-worker-0", "container_name": "pytorch"}})
    detailed = [f"2026-11-28T12:05:03.010223+00:00 {stream} {record}", f"2026-11-28T12:05:04.000000+00:00 {stream} [rank2]: plain text",
                "2026-11-28T12:05:05.000000+00:00 train-2026/algo-2-1764316800 [rank3]: step 1"]
    recs = aws_tail("\n".join(detailed), detailed)
    assert [(r.pod, r.text) for r in recs] == [("train-worker-0", "[rank2]: KeyError: 'x'"), ("train-worker-0", "[rank2]: plain text"),
                                               ("train-2026/algo-2-1764316800", "[rank3]: step 1")]
    short = [f"2026-11-28T12:05:03 {record}"]
    assert [(r.pod, r.ts_ns) for r in aws_tail(short[0], short)] == [("train-worker-0", 1795867503000000000)]
    plain = ["2026-11-28T12:05:03.010223+00:00 INFO step 1", "2026-11-28T12:05:03 worker started"]
    assert aws_tail("\n".join(plain), plain) is None  # a program's own ISO times are no CLI's lines


def test_gcloud_logging_yaml():
    text = ("---\ninsertId: a1\nresource:\n  labels:\n    container_name: pytorch\n    pod_name: train-worker-0\n  type: k8s_container\n"
            "textPayload: '[rank2]: KeyError: ''labels'''\ntimestamp: '2026-11-28T12:05:04.000000000Z'\n"
            "---\ninsertId: a0\nresource:\n  labels:\n    pod_name: train-master-0\ntextPayload: '[rank0]: step 1'\ntimestamp: 2026-11-28T12:05:03Z\n")
    what, recs = read_export(text)
    assert what == "Cloud Logging export (YAML)"
    assert [(r.pod, r.text, r.ts_ns) for r in recs] == [("train-worker-0", "[rank2]: KeyError: 'labels'", 1795867504000000000),
                                                        ("train-master-0", "[rank0]: step 1", 1795867503000000000)]
    assert read_export("---\nname: a\nitems: [1, 2]\n") is None  # a YAML document of its own


def test_splunk_csv_names_the_pod_by_its_source_file():
    src = "/var/log/pods/team-a_{}_0d40e910-c015/pytorch/0.log"
    text = ("_raw,_time,host,index,linecount,source,sourcetype,splunk_server\n"
            f"[rank2]: KeyError: 'x',2026-11-28T12:05:04.000+00:00,gpu-node-1,k8s,1,{src.format('train-worker-0')},kube:container:pytorch,idx-1\n"
            f"[rank0]: step 1,2026-11-28T12:05:03.000+00:00,gpu-node-0,k8s,1,{src.format('train-master-0')},kube:container:pytorch,idx-1\n")
    bodies, how = _bodies([("results.csv", text)])
    assert bodies == [["2026-11-28T12:05:03.000000000Z [rank0]: step 1"], ["2026-11-28T12:05:04.000000000Z [rank2]: KeyError: 'x'"]]
    assert "train-master-0, train-worker-0" in how


def test_an_ecs_document_takes_its_line_from_message_not_the_log_object():
    hit = {"_source": {"@timestamp": "2026-11-28T12:05:03.010Z", "log": {"file": {"path": "/var/log/containers/x.log"}, "offset": 7},
                       "message": "[rank1]: KeyError: 'x'", "kubernetes": {"pod": {"name": "train-worker-0"}, "container": {"name": "pytorch"}}}}
    what, recs = read_export(json.dumps({"hits": {"hits": [hit]}}))
    assert what == "Elasticsearch export (JSON)" and [(r.pod, r.text) for r in recs] == [("train-worker-0", "[rank1]: KeyError: 'x'")]


def test_yaml_aliases_and_depth_stay_cheap():
    """Aliases nested ten deep (a billion-laughs text) are never walked, and a document too deep to build is no export (no
    crash of the C loader: the pure-Python one raises)."""
    laughs = "---\ninsertId: x\ntextPayload: hi\na: &a [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]\n" + "".join(
        f"{c}: &{c} [{', '.join(['*' + p] * 10)}]\n" for p, c in zip("abcdefghi", "bcdefghij"))
    assert [r.text for r in read_export(laughs)[1]] == ["hi"]
    assert read_export("---\ntextPayload: " + "[" * 1000 + "\n") is None
