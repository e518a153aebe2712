"""Log store exports (Loki, Cloud Logging, CloudWatch, Elasticsearch/Kibana, stern) split back
into one log per pod at the node rank the operator's pod name gives, each line at its record's
time (k10s_forensics/parsers/log_exports.py). The fixtures are in the stores' own shapes
(field names: docs/import.md); the lines in them are ours."""

from __future__ import annotations

import csv
import datetime as dt
import io
import json

import pytest
from click.testing import CliRunner

from k10s_forensics.analyze.runner import analyze
from k10s_forensics.cli import cli, main
from k10s_forensics.logimport import LogSource, import_logs
from k10s_forensics.parsers.log_export_records import format_ns, parse_time_ns
from k10s_forensics.parsers.log_exports import read_export, split_export
from export_shapes import otel_flat, otel_otlp
from test_import_pod_prefix import OOM, watchdog_timeout

NOW = dt.datetime(2026, 11, 28, 12, 0, tzinfo=dt.timezone.utc)
T0_NS = parse_time_ns("2026-11-28T11:54:00Z")
PODS = {0: "llama-master-0", 1: "llama-worker-0", 2: "llama-worker-1", 3: "llama-worker-2"}


def _events(culprit: int | None, tagged: bool = False) -> list[tuple[int, str, str]]:
    """(epoch ns, pod, line) in time order: every rank steps; ``culprit`` OOMs at +40 s, the
    others time out at +61 s (None: a control, every rank times out alike)."""
    out = [(T0_NS + rank * 1000, pod, "step 10 loss 2.31") for rank, pod in PODS.items()]
    tag = (lambda r: f"[rank{r}]:") if tagged else (lambda r: "")
    if culprit is not None:
        p = PODS[culprit]
        out += [(T0_NS + 40_000_000_000, p, tag(culprit) + "Traceback (most recent call last):"),
                (T0_NS + 40_000_000_000, p, tag(culprit) + '  File "/workspace/train.py", line 88, in <module>'),
                (T0_NS + 40_000_000_000, p, tag(culprit) + OOM)]
    out += [(T0_NS + 61_000_000_000 + rank, pod, watchdog_timeout(rank)) for rank, pod in PODS.items() if rank != culprit]
    return out


def _iso(ns: int) -> str:
    return format_ns(ns)


def loki_download(events) -> str:
    """Grafana Explore "Download logs" JSON (logRowsToReadableJson), newest first as Explore shows them."""
    rows = [{"line": line, "timestamp": str(ns), "date": _iso(ns)[:23] + "Z",
             "fields": {"container": "pytorch", "namespace": "ml", "pod": pod, "stream": "stderr", "job": "ml/llama"}}
            for ns, pod, line in events]
    return json.dumps(rows[::-1])


def logcli_jsonl(events) -> str:
    """``logcli query --output=jsonl``: times in the local zone (here UTC-5)."""
    def local(ns: int) -> str:
        return (dt.datetime.fromtimestamp(ns / 1e9, dt.timezone(dt.timedelta(hours=-5)))).isoformat()
    return "\n".join(json.dumps({"labels": {"container": "pytorch", "namespace": "ml", "pod": pod}, "line": line, "timestamp": local(ns)})
                     for ns, pod, line in reversed(events)) + "\n"


def logcli_default(events) -> str:
    head = 'Common labels: {container="pytorch", namespace="ml"}\n'
    return head + "\n".join(f'{_iso(ns)} {{pod="{pod}"}} {line}' for ns, pod, line in reversed(events)) + "\n"


def grafana_txt(events) -> str:
    """Explore's text download: meta lines, two blank lines, then ``<ms>\\t<ISO>\\t<line>`` (no per-row labels)."""
    head = 'Common labels: {"container":"pytorch","namespace":"ml"}\nLine limit: "1000 (34 returned)"\n\n\n'
    return head + "".join(f"{ns // 1_000_000}\t{_iso(ns)[:23]}Z\t{line}\n" for ns, _, line in reversed(events))


def gcl_json(events) -> str:
    """``gcloud logging read --format=json`` (newest first) of GKE container logs."""
    return json.dumps([{
        "insertId": f"id{i}", "labels": {"compute.googleapis.com/resource_name": "gke-a3-pool-1", "k8s-pod/training_kubeflow_org/job-name": "llama"},
        "logName": "projects/p/logs/stderr", "receiveTimestamp": _iso(ns + 2_000_000_000),
        "resource": {"type": "k8s_container", "labels": {"cluster_name": "a3", "container_name": "pytorch", "location": "us-central1",
                                                         "namespace_name": "ml", "pod_name": pod, "project_id": "p"}},
        "severity": "ERROR", "textPayload": line + "\n", "timestamp": _iso(ns)} for i, (ns, pod, line) in enumerate(events)][::-1], indent=2)


def _fluent_bit(ns: int, pod: str, line: str) -> str:
    return json.dumps({"log": line + "\n", "stream": "stderr", "time": _iso(ns),
                       "kubernetes": {"pod_name": pod, "namespace_name": "ml", "pod_id": "0d3f", "host": "ip-10-0-1-5.ec2.internal",
                                      "container_name": "pytorch", "docker_id": "ab" * 32, "container_image": "nvcr.io/nvidia/pytorch:24.05-py3"}})


def cloudwatch_json(events) -> str:
    """``aws logs filter-log-events`` of Container Insights' application log group (Fluent Bit)."""
    return json.dumps({"events": [{
        "logStreamName": f"ip-10-0-1-5.ec2.internal-application.var.log.containers.{pod}_ml_pytorch-{'ab' * 32}.log",
        "timestamp": ns // 1_000_000, "message": _fluent_bit(ns, pod, line), "ingestionTime": ns // 1_000_000 + 900,
        "eventId": str(37000000000000 + i)} for i, (ns, pod, line) in enumerate(events)], "searchedLogStreams": []}, indent=4)


def cloudwatch_csv(events, header=("timestamp", "message")) -> str:
    out = io.StringIO()
    w = csv.writer(out)
    w.writerow(header)
    for ns, pod, line in reversed(events):
        w.writerow([_iso(ns)[:23] + "Z", _fluent_bit(ns, pod, line)][:len(header)]
                   + [f"ip-10-0-1-5-application.var.log.containers.{pod}_ml_pytorch-{'ab' * 32}.log"][:len(header) - 2])
    return out.getvalue()


def es_search(events, ecs: bool = True) -> str:
    def source(ns, pod, line):
        if ecs:  # Filebeat / Elastic Agent (ECS)
            return {"@timestamp": _iso(ns)[:23] + "Z", "message": line, "stream": "stderr",
                    "kubernetes": {"namespace": "ml", "pod": {"name": pod, "uid": "0d3f"}, "container": {"name": "pytorch"}}}
        return {"@timestamp": _iso(ns), "log": line + "\n", "stream": "stderr",  # Fluent Bit's es output
                "kubernetes": {"pod_name": pod, "namespace_name": "ml", "container_name": "pytorch"}}
    hits = [{"_index": "logs-2026.11.28", "_id": f"d{i}", "_score": None, "_source": source(*e), "sort": [e[0] // 1_000_000]}
            for i, e in enumerate(events)]
    return json.dumps({"took": 7, "timed_out": False, "_shards": {"total": 1, "successful": 1, "skipped": 0, "failed": 0},
                       "hits": {"total": {"value": len(hits), "relation": "eq"}, "max_score": None, "hits": hits[::-1]}})


def kibana_csv(events) -> str:
    out = io.StringIO()
    w = csv.writer(out, quoting=csv.QUOTE_MINIMAL)
    w.writerow(["@timestamp", "kubernetes.namespace", "kubernetes.pod.name", "kubernetes.container.name", "message"])
    for ns, pod, line in reversed(events):
        when = dt.datetime.fromtimestamp(ns // 1_000_000_000, dt.timezone.utc)
        w.writerow([when.strftime("%b %-d, %Y @ %H:%M:%S.") + f"{ns // 1_000_000 % 1000:03d}", "ml", pod, "pytorch", line])
    return out.getvalue()


def stern_out(events) -> str:
    follow = "".join(f"+ {pod} \u203a pytorch\n" for pod in PODS.values())
    return follow + "".join(f"{pod} pytorch {_iso(ns)} {line}\n" for ns, pod, line in events)


def loki_api(events) -> str:
    """Loki's ``/loki/api/v1/query_range`` response (``curl``): one stream per pod, newest first."""
    streams = [{"stream": {"container": "pytorch", "namespace": "ml", "pod": pod},
                "values": [[str(ns), line] for ns, p, line in reversed(events) if p == pod]} for pod in PODS.values()]
    return json.dumps({"status": "success", "data": {"resultType": "streams", "result": streams, "stats": {}}})


def gcl_csv(events) -> str:
    """Cloud Logging's console CSV download: dotted column names."""
    out = io.StringIO()
    w = csv.writer(out)
    w.writerow(["insertId", "timestamp", "severity", "resource.type", "resource.labels.namespace_name", "resource.labels.pod_name",
                "resource.labels.container_name", "textPayload"])
    for i, (ns, pod, line) in enumerate(reversed(events)):
        w.writerow([f"id{i}", _iso(ns), "ERROR", "k8s_container", "ml", pod, "pytorch", line])
    return out.getvalue()


def stern_all_namespaces(events) -> str:
    """``stern --all-namespaces`` without ``--timestamps``: the namespace first, no time."""
    follow = "".join(f"+ ml {pod} \u203a pytorch\n" for pod in PODS.values())
    return follow + "".join(f"ml {pod} pytorch {line}\n" for ns, pod, line in events)


def stern_json(events) -> str:
    return "".join(json.dumps({"message": f"{_iso(ns)} {line}", "nodeName": "gpu-node-3", "namespace": "ml", "podName": pod,
                               "containerName": "pytorch"}) + "\n" for ns, pod, line in events)


PER_POD = {"otel-otlp": otel_otlp, "otel-flat": otel_flat, "stern-json": stern_json, "loki-api": loki_api, "gcl-csv": gcl_csv, "stern-all-namespaces": stern_all_namespaces, "loki-download": loki_download, "logcli-jsonl": logcli_jsonl, "logcli-default": logcli_default,
           "gcl": gcl_json, "cloudwatch": cloudwatch_json, "cloudwatch-csv": cloudwatch_csv,
           "cloudwatch-insights-csv": lambda e: cloudwatch_csv(e, ("@timestamp", "@message", "@logStream")),
           "es-ecs": es_search, "es-fluent-bit": lambda e: es_search(e, ecs=False), "kibana-csv": kibana_csv, "stern": stern_out}


def _critical(tmp_path, text: str, name: str = "export.json", **kw):
    bundle, layout = import_logs([LogSource(name, text)], tmp_path / "b", now=NOW, **kw)
    findings = analyze(bundle)["findings"]
    return [f for f in findings if f["severity"] == "critical"], layout


@pytest.mark.parametrize("fmt", sorted(PER_POD))
def test_each_export_names_the_culprit_pod_and_rank(tmp_path, fmt):
    found, layout = _critical(tmp_path, PER_POD[fmt](_events(culprit=2)))
    oom = [f for f in found if f["rule"] == "oom-cascade"]
    assert oom and oom[0]["ranks"] == [2] and oom[0]["pods"] == ["imported/llama-worker-1"], found
    if fmt == "stern-all-namespaces":  # stern without --timestamps: no clock is invented
        assert oom[0]["started_at"] is None, oom[0]
    else:  # the record's time is the line's
        assert oom[0]["started_at"].startswith("2026-11-28T11:54:40"), oom[0]
    assert all(f["ranks"] == [2] for f in found), found
    assert layout.job == "llama" and layout.nodes == 4 and "4 pods" in layout.hints["nodes"]


@pytest.mark.parametrize("fmt", ["loki-download", "gcl", "cloudwatch", "es-ecs", "stern"])
def test_a_control_where_every_rank_fails_alike_names_no_culprit(tmp_path, fmt):
    found, _ = _critical(tmp_path, PER_POD[fmt](_events(culprit=None)))
    assert not [f for f in found if len(f["ranks"]) == 1], found


def test_an_export_without_pod_labels_is_one_log_routed_by_rank_tags(tmp_path):
    found, layout = _critical(tmp_path, grafana_txt(_events(culprit=1, tagged=True)), name="Explore-logs.txt")
    assert [f["ranks"] for f in found if f["rule"] == "oom-cascade"] == [[1]], found
    assert "Grafana logs download" in layout.hints["nodes"]


def test_records_are_ordered_by_time_per_pod_and_keep_their_time():
    events = _events(culprit=2)
    logs, job, how = split_export([("gcl.json", gcl_json(events))], "imported")
    assert job == "llama" and how.startswith("Cloud Logging export (JSON)")
    assert [n.split("pod/")[-1] for n, _ in logs] == list(PODS.values())
    lines = logs[2][1].split("\n")
    assert lines[0] == "2026-11-28T11:54:00.000002000Z step 10 loss 2.31"
    assert lines[-1] == "2026-11-28T11:54:40.000000000Z " + OOM
    assert [ln.split(" ", 1)[1] for ln in lines[1:3]] == ["Traceback (most recent call last):", '  File "/workspace/train.py", line 88, in <module>']


def test_ties_keep_the_written_order_in_a_newest_first_export():
    """Three records of one millisecond, newest first as CloudWatch Insights lists them: written order back."""
    rows = [{"line": f"part {i}", "timestamp": str(T0_NS), "fields": {"pod": "a-master-0"}} for i in (3, 2, 1)]
    rows += [{"line": "later", "timestamp": str(T0_NS + 5), "fields": {"pod": "a-worker-0"}}]
    logs, _, _ = split_export([("x.json", json.dumps(rows[::-1][:1] + rows[:3]))], "imported")
    assert [ln.split(" ", 1)[1] for ln in logs[0][1].split("\n")] == ["part 1", "part 2", "part 3"]


def test_a_pod_missing_from_the_export_leaves_its_node_empty(tmp_path):
    events = [e for e in _events(culprit=3) if e[1] != "llama-worker-0"]
    found, layout = _critical(tmp_path, cloudwatch_json(events))
    assert [(f["ranks"], f["pods"]) for f in found if f["rule"] == "oom-cascade"] == [([3], ["imported/llama-worker-2"])]
    assert layout.nodes == 4


def test_odd_records_are_kept_as_text_and_never_crash():
    text = "\n".join([json.dumps({"line": "hello", "timestamp": str(T0_NS), "labels": {"pod": "a-master-0"}}),
                      '{"line": "cut off', json.dumps({"line": "world", "timestamp": str(T0_NS + 1), "labels": {"pod": "a-worker-0"}}),
                      json.dumps({"note": "no line"}), json.dumps({"line": 7, "labels": {"pod": None}})])
    logs, _, _ = split_export([("x.jsonl", text)], "imported")
    assert logs[0][1].split("\n") == ["2026-11-28T11:54:00.000000000Z hello", '{"line": "cut off']  # untimed: no time invented
    assert logs[1][1].split("\n")[0].endswith(" world") and len(logs[1][1].split("\n")) == 3
    assert parse_time_ns("Nov 28, 2026 @ 11:54:00.000") == T0_NS and parse_time_ns("2026-11-28T06:54:00-05:00") == T0_NS
    assert parse_time_ns(T0_NS // 1_000_000) == T0_NS and parse_time_ns("soon") is None and parse_time_ns(True) is None


def test_what_is_no_export_is_left_alone():
    assert read_export("[rank0]: step 1\n[rank1]: step 1\n") is None
    assert read_export('{"level": "info", "msg": "an application\'s own JSON log"}\n' * 3) is None
    assert read_export("{'lr': 0.1}\nstep 1\n") is None
    assert read_export("step 10 loss 2.31\nstep 11 loss 2.30\n") is None
    epochs = "".join(f"epoch-{e} step {i} loss 2.3\n" for e in range(3) for i in range(5))  # no stern: no pods named so
    assert read_export(epochs) is None
    hf = "".join(f"2026-11-28T11:54:0{i}Z {{'loss': 2.3, 'epoch': {i}}}\n" for i in range(5))  # kubectl --timestamps, no logcli
    assert read_export(hf) is None


def test_broken_json_export_is_one_line_error(tmp_path, capsys):
    path = tmp_path / "logs.json"
    path.write_text(gcl_json(_events(culprit=1))[:-200], encoding="utf-8")
    with pytest.raises(SystemExit) as exc:
        main(["import-logs", str(path), "-o", str(tmp_path / "b")])
    err = capsys.readouterr().err
    assert exc.value.code == 2 and err.count("\n") == 1, err
    assert err.startswith("k10s: error: logs.json: not valid JSON, though it reads as a log export: ") and "(line 2" in err


def test_the_command_says_which_export_it_read(tmp_path):
    path = tmp_path / "events.json"
    path.write_text(cloudwatch_json(_events(culprit=1)), encoding="utf-8")
    out = CliRunner().invoke(cli, ["import-logs", str(path), "-o", str(tmp_path / "b")])
    assert out.exit_code == 0, out.output
    assert "CloudWatch Logs export (JSON), 10 records (4 pods: llama-master-0" in out.output


def test_several_export_files_are_read_as_one(tmp_path):
    """One CloudWatch file per log stream, as `aws logs get-log-events` gives them."""
    events = _events(culprit=3)
    by_stream = [cloudwatch_json([e for e in events if e[1] in pods]) for pods in (set(list(PODS.values())[:2]), set(list(PODS.values())[2:]))]
    bundle, layout = import_logs([LogSource("a.json", by_stream[0]), LogSource("b.json", by_stream[1])], tmp_path / "b", now=NOW)
    oom = [f for f in analyze(bundle)["findings"] if f["rule"] == "oom-cascade"]
    assert [(f["ranks"], f["pods"]) for f in oom] == [([3], ["imported/llama-worker-2"])] and layout.nodes == 4
    assert "CloudWatch Logs export (JSON), 10 records (4 pods" in layout.hints["nodes"]


def test_stern_output_of_one_pod_is_read():
    """``stern train-master-0`` (a one-node job): one pod, named as the training operators name theirs, or one
    that stern's ``+ pod › container`` line says it followed, on every line, is stern's output; a plain log whose
    lines start with one other word pair is not."""
    lines = [f"step {i} loss 2.3" for i in range(4)] + ["[rank1]: KeyError: 'labels'"]
    found = read_export("".join(f"train-master-0 pytorch {ln}\n" for ln in lines))
    assert found is not None and found[0] == "stern output"
    assert [(r.pod, r.container, r.text) for r in found[1]][-1] == ("train-master-0", "pytorch", "[rank1]: KeyError: 'labels'")
    followed = read_export("+ trainer-0 \u203a main\n" + "".join(f"trainer-0 main {ln}\n" for ln in lines))
    assert followed is not None and [r.pod for r in followed[1]] == ["trainer-0"] * len(lines)
    assert read_export("".join(f"trainer-0 main {ln}\n" for ln in lines)) is None  # no operator's name, no follow line
    assert read_export("train-master-0 pytorch hi\ntrain-master-0 pytorch ho\n") is None  # too few lines to repeat
