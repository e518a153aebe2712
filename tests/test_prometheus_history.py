"""Prometheus history against a real Prometheus: every label convention, pods gone, planning units.

simulate -> OpenMetrics history (``simulate.prom_history``) -> promtool backfill -> real
``prometheus`` -> ``k10s serve`` of the bundle WITHOUT live DCGM scrapes or nvidia-smi (and in
one case without the job's pods, logs and execs) -> ``capture --prometheus --from --to`` ->
``analyze``: the same culprit rank, pod, node, GPU and cause as the truth.
"""

from __future__ import annotations

import base64
import json
from urllib.parse import urlencode

import pytest

from k10s_forensics.analyze.runner import analyze
from k10s_forensics.store.bundle import Bundle
from k10s_forensics.capture import CaptureOptions, capture
from k10s_forensics.capture import promplan as plan
from k10s_forensics.capture.promclient import PromAccess
from k10s_forensics.parsers.prometheus import parse_prometheus_query
from k10s_forensics.serve import start_server
from k10s_forensics.simulate import simulate
from k10s_forensics.simulate.prom_history import CONVENTIONS, series_line, write_history

from prom_helpers import PROXY, bundle_rows, capture_from_prometheus, need_prometheus, prometheus_with, query, strip_bundle
from test_rules_scenarios import compare


@pytest.fixture(scope="module")
def straggler(tmp_path_factory):
    need_prometheus()
    root = tmp_path_factory.mktemp("prom-straggler")
    truth = simulate("straggler-compute", root / "orig", seed=2, nodes=3, gpus_per_node=2, minutes=8, interval_s=10)
    return root, truth


@pytest.mark.parametrize("convention", CONVENTIONS)
def test_every_convention_names_the_same_culprit(straggler, convention):
    root, truth = straggler
    out = capture_from_prometheus(root / convention, root / "orig", truth, convention)
    manifest = Bundle.open(out).manifest
    history = manifest["history"]
    assert history["start"] == truth["window"]["start"] and history["not_fetched"] == [] and history["interval_s"] == 10
    misses, alarms = compare(truth, analyze(Bundle.open(out)))
    assert not misses and not alarms, (misses, alarms)
    # attribution: every sample on the node and pod the live scrape named, never an exporter pod
    live = {(r["gpu_uuid"], r["node"], r["pod"]) for r in bundle_rows(root / "orig", "SELECT DISTINCT gpu_uuid, node, pod FROM gpu_samples WHERE source = 'dcgm-exporter'")}
    got = {(r["gpu_uuid"], r["node"], r["pod"]) for r in bundle_rows(out, "SELECT DISTINCT gpu_uuid, node, pod FROM gpu_samples WHERE source = 'prometheus-query'")}
    assert got and got <= live, sorted(got - live)[:3]
    # every live sample once: raw samples at their own times, nothing repeated or made up
    count = "SELECT count(*) AS n, count(DISTINCT (gpu_uuid, ts)) AS d FROM gpu_samples WHERE source = '%s'"
    fetched, scraped = bundle_rows(out, count % "prometheus-query")[0], bundle_rows(root / "orig", count % "dcgm-exporter")[0]
    assert fetched["n"] == fetched["d"] == scraped["d"]


def test_pods_gone_history_alone_names_the_culprit(tmp_path):
    need_prometheus()
    truth = simulate("straggler-compute", tmp_path / "orig", seed=2, nodes=3, gpus_per_node=2, minutes=8, interval_s=10, nproc_per_node=1)
    out = capture_from_prometheus(tmp_path, tmp_path / "orig", truth, "kube-prometheus", drop_pods=True, via_proxy=True)
    assert Bundle.open(out).manifest["history"]["url"] == PROXY
    pods = bundle_rows(out, "SELECT pod, node, evidence FROM pods WHERE namespace = '%s'" % truth["job"].split("/")[0])
    assert pods and all(p["evidence"] == "prometheus" and p["node"] for p in pods)
    result = analyze(Bundle.open(out))
    misses, alarms = compare(truth, result)
    assert not misses and not alarms, (misses, alarms)
    straggler_finding = next(f for f in result["findings"] if f["rule"] == "straggler")
    assert "deleted before capture" in straggler_finding["historical"] and "Historical evidence" in straggler_finding["summary"]
    # the rules ran over the history window (it starts long before this capture did), the report says so
    assert result["bundle"]["window"]["start"] == truth["window"]["start"]
    assert result["bundle"]["history"]["end"] == truth["window"]["end"]
    from k10s_forensics.reports import render_report

    html = render_report(Bundle.open(out), result, tmp_path / "report.html").read_text(encoding="utf-8")
    assert "Prometheus history" in html and "Historical evidence" in html


@pytest.mark.parametrize("drop_pods", [False, True], ids=["pods-listed", "pods-gone"])
def test_oom_cascade_from_history(tmp_path, drop_pods):
    """Pods gone: no logs either; the CUDA OOM shows as a framebuffer at its limit before the
    container's last termination (kube-state-metrics), the cascade as the others' terminations."""
    need_prometheus()
    seed, nproc = (1, 1) if drop_pods else (3, None)
    truth = simulate("oom-crashloop", tmp_path / "orig", seed=seed, nodes=3, gpus_per_node=2, minutes=8, interval_s=10, nproc_per_node=nproc)
    out = capture_from_prometheus(tmp_path, tmp_path / "orig", truth, "kube-prometheus", drop_pods=drop_pods)
    result = analyze(Bundle.open(out))
    misses, alarms = compare(truth, result)
    assert not misses and not alarms, (misses, alarms)
    if drop_pods:
        assert not bundle_rows(out, "SELECT * FROM log_events LIMIT 1")


def test_xid79_from_history_with_pods_gone(tmp_path):
    """No dmesg (no driver pod on a scope node), no pods: DCGM_FI_DEV_XID_ERRORS history, the GPU's
    samples stopping and kube-state-metrics' allocatable name the GPU that fell off the bus."""
    need_prometheus()
    truth = simulate("xid-79", tmp_path / "orig", seed=2, nodes=3, gpus_per_node=2, minutes=8, interval_s=10, nproc_per_node=1)
    out = capture_from_prometheus(tmp_path, tmp_path / "orig", truth, "kube-prometheus", drop_pods=True)
    entries = {c["name"]: c["status"] for c in Bundle.open(out).manifest["collectors"]}
    assert entries["dmesg"] == "skipped" and entries["dcgm"] == "skipped"
    # rank-failure reads the rank's own CUDA-error log line: with the pods gone there are no logs
    assert {e["rule"] for e in truth["expected"]} == {"gpu-health", "rank-failure"}
    truth = {**truth, "expected": [e for e in truth["expected"] if e["rule"] != "rank-failure"]}
    misses, alarms = compare(truth, analyze(Bundle.open(out)))
    assert not misses and not alarms, (misses, alarms)


def test_mig_series_through_the_real_server(tmp_path):
    import datetime as dt

    t0 = dt.datetime(2026, 3, 1, 12, 0, tzinfo=dt.timezone.utc)
    lines = ["# TYPE DCGM_FI_DEV_GPU_UTIL gauge"]
    for k in range(4):
        for gi, pod in ((1, "a-0"), (2, "b-0")):
            labels = {"UUID": "GPU-m1", "GPU_I_ID": str(gi), "GPU_I_PROFILE": "3g.40gb", "exported_pod": pod,
                      "exported_namespace": "ml", "pod": "nvidia-dcgm-exporter-q1", "instance": "10.9.0.2:9400", "node": "n1"}
            lines.append(series_line("DCGM_FI_DEV_GPU_UTIL", labels, 40 + gi, t0 + dt.timedelta(seconds=15 * k)))
    (tmp_path / "mig.om").write_text("\n".join(lines) + "\n# EOF\n")
    with prometheus_with(tmp_path / "mig.om", tmp_path / "prom") as url:
        q = plan.raw_query("DCGM_FI_DEV_GPU_UTIL", None, t0.timestamp(), t0.timestamp() + 600)
        path = "/api/v1/query?" + urlencode(plan.instant_params(q, t0.timestamp() + 600, 10))
        body = json.dumps(query(url, path))
    rows, issues = parse_prometheus_query(body, url + path)
    assert not issues
    assert {(r["gpu_uuid"], r["mig_profile"], r["pod"], r["node"]) for r in rows} == {
        ("MIG-GPU-m1/1", "3g.40gb", "a-0", "n1"), ("MIG-GPU-m1/2", "3g.40gb", "b-0", "n1")}
    assert len(rows) == 8  # 4 samples per device at their own times, none repeated after the series ends
    assert sorted({r["ts"] for r in rows}) == [t0 + dt.timedelta(seconds=15 * k) for k in range(4)]


def test_unreachable_prometheus_costs_only_the_history(tmp_path):
    truth = simulate("healthy", tmp_path / "orig", seed=1, nodes=2, gpus_per_node=1, minutes=2, interval_s=30)
    srv = start_server(tmp_path / "orig")
    try:
        kc = srv.write_kubeconfig(tmp_path / "kc")
        result = capture(tmp_path / "cap", kubeconfig=str(kc), jobs=(truth["job"],),
                         options=CaptureOptions(timeout_s=2, prometheus="http://127.0.0.1:9", since_s=600))
    finally:
        srv.stop()
    manifest = result.bundle.manifest
    entry = next(c for c in manifest["collectors"] if c["name"] == "prometheus")
    assert entry["status"] == "failed" and "cannot reach" in entry["errors"][0]
    assert manifest["history"]["not_fetched"][0].startswith("series discovery: cannot reach")
    assert next(c for c in manifest["collectors"] if c["name"] == "pods")["status"] == "ok"


def test_a_refused_request_costs_only_its_piece(straggler):
    """A Prometheus that refuses big queries (--query.max-samples): the small ones still come
    back, each refused piece is named in the manifest with the server's reason."""
    root, truth = straggler
    work = root / "refusing"
    work.mkdir()
    write_history(root / "orig", work / "history.om", "kube-prometheus")
    served = strip_bundle(root / "orig", work / "served")
    with prometheus_with(work / "history.om", work / "prom", ("--query.max-samples=100",)) as url:
        srv = start_server(served)
        try:
            kc = srv.write_kubeconfig(work / "kc")
            window = truth["window"]
            result = capture(work / "cap", kubeconfig=str(kc), jobs=(truth["job"],),
                             options=CaptureOptions(timeout_s=10, prometheus=url, history_from=window["start"], history_to=window["end"]))
        finally:
            srv.stop()
    manifest = result.bundle.manifest
    entry = next(c for c in manifest["collectors"] if c["name"] == "prometheus")
    assert entry["status"] == "partial"
    refused = manifest["history"]["not_fetched"]
    assert refused and all("HTTP 422" in r and "too many samples" in r for r in refused)
    assert any(r.startswith("DCGM_FI_DEV_GPU_UTIL ") for r in refused)
    pods = bundle_rows(work / "cap", "SELECT count(*) AS n FROM pods WHERE evidence IS NULL")
    assert pods[0]["n"] > 0  # what the cluster listed is all there
    assert manifest["history"]["interval_s"] == 10  # one series' count_over_time is small enough


PASSWORD = "k10s-test-password"
PASSWORD_BCRYPT = "$2b$04$rDo6gRNIeO3nw6awIPUWZesnZZKgG8CxiE9t7LbVAIFs00LniqxF2"  # bcrypt of PASSWORD (4 rounds)


def test_tls_and_basic_auth_against_the_real_server(straggler):
    """Prometheus behind TLS (self-signed) and basic auth: the CA file and the password file
    get the history; without the CA the request fails once with the reason; a wrong password is a 401."""
    from prom_helpers import self_signed

    root, truth = straggler
    work = root / "tls"
    work.mkdir()
    cert, key = self_signed(work)
    write_history(root / "orig", work / "history.om", "kube-prometheus")
    served = strip_bundle(root / "orig", work / "served")
    (work / "pw").write_text(PASSWORD + "\n")
    (work / "bad").write_text("nope\n")
    web = f"tls_server_config:\n  cert_file: {cert}\n  key_file: {key}\nbasic_auth_users:\n  k10s: {PASSWORD_BCRYPT}\n"
    auth = {"Authorization": "Basic " + base64.b64encode(f"k10s:{PASSWORD}".encode()).decode()}
    window = truth["window"]
    cases = {"ca": PromAccess(user="k10s", password_file=str(work / "pw"), ca_file=str(cert)),
             "no-ca": PromAccess(user="k10s", password_file=str(work / "pw")),
             "wrong-password": PromAccess(user="k10s", password_file=str(work / "bad"), insecure=True)}
    manifests = {}
    with prometheus_with(work / "history.om", work / "prom", web_config=web, probe_headers=auth) as url:
        assert url.startswith("https://")
        srv = start_server(served)
        try:
            kc = srv.write_kubeconfig(work / "kc")
            for name, access in cases.items():
                options = CaptureOptions(timeout_s=10, prometheus=url, history_from=window["start"], history_to=window["end"],
                                         prometheus_access=access)
                manifests[name] = capture(work / name, kubeconfig=str(kc), jobs=(truth["job"],), options=options).bundle.manifest
        finally:
            srv.stop()
    assert manifests["ca"]["history"]["not_fetched"] == []
    assert bundle_rows(work / "ca", "SELECT count(*) AS n FROM gpu_samples")[0]["n"] > 0
    assert "TLS verification" in manifests["no-ca"]["history"]["not_fetched"][0]
    assert "HTTP 401" in manifests["wrong-password"]["history"]["not_fetched"][0]


def test_scrape_interval_read_from_the_server(tmp_path):
    import datetime as dt

    t0 = dt.datetime(2026, 2, 1, tzinfo=dt.timezone.utc)
    lines = ["# TYPE DCGM_FI_DEV_GPU_UTIL gauge"]
    lines += [series_line("DCGM_FI_DEV_GPU_UTIL", {"UUID": "GPU-a", "node": "n"}, 50, t0 + dt.timedelta(seconds=30 * k + (k % 3) * 0.4))
              for k in range(240)]
    (tmp_path / "h.om").write_text("\n".join(lines) + "\n# EOF\n")
    start, end = t0.timestamp() - 3600, t0.timestamp() + 4 * 3600  # the series spans only part of the window
    sel = 'DCGM_FI_DEV_GPU_UTIL{UUID="GPU-a"}'
    with prometheus_with(tmp_path / "h.om", tmp_path / "prom") as url:
        path = "/api/v1/query_range?" + urlencode(plan.range_params(f"count_over_time({sel}[600s])", start, end, 600, 10))
        at = plan.busiest_time(json.dumps(query(url, path)))
        assert t0.timestamp() <= at <= t0.timestamp() + 2 * 3600 + 600
        body = json.dumps(query(url, "/api/v1/query?" + urlencode(plan.instant_params(f"{sel}[600s]", at, 10))))
    assert plan.interval_from_samples(body) == 30


@pytest.mark.slow
@pytest.mark.parametrize("scenario, seed, convention, drop_pods", [
    ("healthy", 7, "kube-prometheus", True), ("straggler-input", 6, "honor-labels", True),
    ("straggler-compute", 3, "kube-prometheus", False), ("straggler-compute", 4, "legacy", False),
    ("straggler-input", 5, "kube-prometheus", False), ("nccl-hang", 8, "kube-prometheus", False),
])
def test_more_incidents_from_history(tmp_path, scenario, seed, convention, drop_pods):
    """Other seeds, scenarios and conventions: the truth's culprit, and no false alarm on a healthy job."""
    need_prometheus()
    truth = simulate(scenario, tmp_path / "orig", seed=seed, nodes=3, gpus_per_node=2, minutes=8, interval_s=10,
                     nproc_per_node=1 if drop_pods else None)
    out = capture_from_prometheus(tmp_path, tmp_path / "orig", truth, convention, drop_pods=drop_pods)
    misses, alarms = compare(truth, analyze(Bundle.open(out)))
    assert not misses and not alarms, (misses, alarms)


def test_history_without_gpu_util_is_found_by_another_metric(tmp_path):
    """An exporter configured without DCGM_FI_DEV_GPU_UTIL: discovery falls back to the framebuffer series."""
    import datetime as dt

    need_prometheus()
    simulate("healthy", tmp_path / "cluster", seed=1, nodes=2, gpus_per_node=1, minutes=2, interval_s=30)
    t0 = dt.datetime(2026, 4, 1, 8, 0, tzinfo=dt.timezone.utc)
    lines = ["# TYPE DCGM_FI_DEV_FB_USED gauge"]
    lines += [series_line("DCGM_FI_DEV_FB_USED", {"UUID": f"GPU-{g}", "node": f"n{g}", "pod": f"w-{g}", "namespace": "ml"},
                          1000 + k, t0 + dt.timedelta(seconds=20 * k)) for g in range(2) for k in range(30)]
    (tmp_path / "h.om").write_text("\n".join(lines) + "\n# EOF\n")
    with prometheus_with(tmp_path / "h.om", tmp_path / "prom") as url:
        srv = start_server(tmp_path / "cluster")
        try:
            kc = srv.write_kubeconfig(tmp_path / "kc")
            options = CaptureOptions(timeout_s=10, prometheus=url, history_from="2026-04-01T07:50:00Z", history_to="2026-04-01T08:20:00Z")
            result = capture(tmp_path / "cap", kubeconfig=str(kc), all_namespaces=True, options=options)
        finally:
            srv.stop()
    history = result.bundle.manifest["history"]
    assert history["series_seen"] == 2 and history["interval_s"] == 20 and history["not_fetched"] == []
    rows = bundle_rows(tmp_path / "cap", "SELECT node, pod, count(*) AS n, max(fb_used_mib) AS top FROM gpu_samples WHERE source = 'prometheus-query' GROUP BY ALL ORDER BY node")
    assert rows == [{"node": "n0", "pod": "w-0", "n": 30, "top": 1029.0}, {"node": "n1", "pod": "w-1", "n": 30, "top": 1029.0}]
