"""Prometheus history: planning, access and attribution units, CLI flags and ``--check``.

The real-server end-to-end tests are in ``test_prometheus_history.py``.
"""

from __future__ import annotations

import base64

import pytest

from k10s_forensics.capture import promplan as plan
from k10s_forensics.capture.promclient import PromAccess
from k10s_forensics.errors import CollectorError
from k10s_forensics.parsers.prom_labels import Attribution
from k10s_forensics.serve import start_server
from k10s_forensics.simulate import simulate

from prom_helpers import add_objects, service


def test_times_and_window():
    now = 1_800_000_000.0
    assert plan.parse_time("-3h", now) == now - 3 * 3600 and plan.parse_time("now-90m", now) == now - 5400
    assert plan.parse_time("2026-05-15T12:00:00Z", now) == plan.parse_time("2026-05-15T14:00:00+02:00", now)
    assert plan.history_window(3600, None, "2026-05-15T12:00:00Z", now)[1] - plan.history_window(3600, None, "2026-05-15T12:00:00Z", now)[0] == 3600
    with pytest.raises(CollectorError):
        plan.parse_time("yesterday", now)
    with pytest.raises(CollectorError):
        plan.history_window(60, "-1h", "-2h", now)


def test_ranges_split_under_the_point_limit():
    for step, span in ((15, 6 * 3600), (1, 3 * 86400), (10, 10_000 * 10), (60, 30)):
        chunks = list(plan.pieces(0.0, float(span), float(step)))
        assert chunks[0][0] == 0 and chunks[-1][1] == span
        assert all(int((b - a) / step) + 1 <= plan.MAX_POINTS for a, b in chunks)
        assert all(n[0] == p[1] for p, n in zip(chunks, chunks[1:]))  # contiguous
    groups = plan.uuid_groups([f"GPU-{i:036d}" for i in range(500)])
    assert len(groups) > 1 and sum(map(len, groups)) == 500
    assert all(len(plan.selector("M", {"UUID": g})) < plan.MAX_SELECTOR_CHARS + 100 for g in groups)
    assert plan.selector("M", {"node": ["a.b"]}) == 'M{node=~"a\\\\.b"}'


def test_access_headers(tmp_path):
    (tmp_path / "tok").write_text("s3cret\n")
    (tmp_path / "pw").write_text("pa55\n")
    assert PromAccess(token_file=str(tmp_path / "tok")).request_headers()["Authorization"] == "Bearer s3cret"
    basic = PromAccess(user="me", password_file=str(tmp_path / "pw")).request_headers()["Authorization"]
    assert base64.b64decode(basic.split()[1]) == b"me:pa55"
    tenant = PromAccess(headers=(PromAccess.parse_header("X-Scope-OrgID: team-a"),)).request_headers()
    assert tenant["X-Scope-OrgID"] == "team-a"
    for bad in ("no-colon", ": v", "A B: v", "X: a\r\nInjected: 1"):
        with pytest.raises(CollectorError):
            PromAccess.parse_header(bad)
    with pytest.raises(CollectorError, match="cannot read"):
        PromAccess(token_file=str(tmp_path / "missing")).request_headers()


def test_attribution_rules():
    att = Attribution.build(
        [{"pod": "nvidia-dcgm-exporter-x7k2p", "node": "n1", "pod_ip": "10.1.0.2", "labels_json": '{"app": "nvidia-dcgm-exporter"}'},
         {"pod": "custom-gpu-metrics-abc", "node": "n2", "pod_ip": "10.2.0.2", "labels_json": '{"app.kubernetes.io/name": "dcgm-exporter"}'},
         {"pod": "train-0", "node": "n1", "pod_ip": "10.1.0.9"}],
        [{"node": "n1", "internal_ip": "192.168.0.1"}, {"node": "n2"}])
    kp = {"UUID": "GPU-1", "pod": "nvidia-dcgm-exporter-x7k2p", "namespace": "gpu-operator", "instance": "10.1.0.2:9400",
          "Hostname": "nvidia-dcgm-exporter-x7k2p", "exported_pod": "train-0", "exported_namespace": "ml"}
    assert att.workload(kp)[:2] == ("ml", "train-0") and att.node(kp) == "n1"
    idle = {k: v for k, v in kp.items() if not k.startswith("exported_")}
    assert att.workload(idle) == (None, None, None) and att.node(idle) == "n1"   # an exporter is never a workload
    custom = {"UUID": "GPU-2", "pod": "custom-gpu-metrics-abc", "instance": "10.2.0.2:9400"}
    assert att.workload(custom) == (None, None, None) and att.node(custom) == "n2"
    assert att.node({"instance": "192.168.0.1:9400"}) == "n1"                    # hostNetwork exporter
    assert att.node({"kubernetes_node": "n2", "instance": "10.1.0.2:9400"}) == "n2"
    assert att.node({"hostname": "n2"}) == "n2" and att.node({"Hostname": "train-0"}) == "n1"
    assert att.workload({"pod_name": "train-0", "pod_namespace": "ml", "container_name": "pytorch"}) == ("ml", "train-0", "pytorch")
    assert att.node({"instance": "10.99.0.1:9400"}) is None


def test_check_names_the_prometheus_proxy_paths(tmp_path):
    from test_capture_check import _k10s

    simulate("healthy", tmp_path / "b", seed=4, nodes=2, gpus_per_node=1, minutes=1, interval_s=30)
    add_objects(tmp_path / "b", [
        service("monitoring", "prometheus-k8s", [{"name": "web", "port": 9090}, {"name": "reloader-web", "port": 8080}]),
        service("monitoring", "prometheus-operator", [{"name": "https", "port": 8443}]),
        service("monitoring", "alertmanager-main", [{"name": "web", "port": 9093}]),
        service("openshift-monitoring", "thanos-querier", [{"name": "web", "port": 9091}]),
        service("team-a", "prometheus-lookalike", [{"name": "web", "port": 9090}])])
    srv = start_server(tmp_path / "b")
    try:
        proc = _k10s("capture", "--kubeconfig", str(srv.write_kubeconfig(tmp_path / "kc")), "-A", "--check")
    finally:
        srv.stop()
    assert proc.returncode == 0, proc.stderr
    found = [line.split("--prometheus ", 1)[1] for line in proc.stdout.splitlines() if "found: --prometheus" in line]
    assert found == ["/api/v1/namespaces/monitoring/services/prometheus-k8s:9090/proxy",
                     "/api/v1/namespaces/openshift-monitoring/services/https:thanos-querier:9091/proxy"]


@pytest.mark.parametrize("args, message", [
    (("--from", "yesterday"), "not a time"),
    (("--from", "-1h", "--to", "-2h"), "--from must be before --to"),
    (("--prometheus-header", "no colon"), "Name: value"),
    (("--prometheus-password-file", "pw"), "needs --prometheus-user"),
])
def test_bad_history_flags_are_one_line_errors(tmp_path, args, message):
    from test_capture_check import _k10s

    proc = _k10s("capture", "--kubeconfig", str(tmp_path / "missing.yaml"), "--prometheus", "http://127.0.0.1:9", *args)
    assert proc.returncode == 2 and message in proc.stderr and "Traceback" not in proc.stderr, proc.stderr


def test_partial_answers_are_kept_and_flagged():
    import json

    from k10s_forensics.parsers.prometheus import parse_prometheus_query

    body = json.dumps({"status": "success", "warnings": ["store 10.0.0.1:10901 unavailable"], "data": {"resultType": "matrix", "result": [
        {"metric": {"__name__": "DCGM_FI_DEV_GPU_UTIL", "UUID": "GPU-1", "exported_pod": "w-0", "exported_namespace": "ml",
                    "pod": "nvidia-dcgm-exporter-abcde", "node": "n1"}, "values": [[1700000000, "97"]]}]}})
    rows, issues = parse_prometheus_query(body)
    assert [(r["pod"], r["namespace"], r["node"], r["util_pct"]) for r in rows] == [("w-0", "ml", "n1", 97.0)]
    assert issues == [("partial answer (server warning)", "store 10.0.0.1:10901 unavailable")]
