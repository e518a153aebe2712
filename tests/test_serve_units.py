"""Pieces of ``k10s serve`` without a server: selectors, durations, listing rounds, logs, discovery."""

from __future__ import annotations

import datetime as dt
import json
import urllib.request

import pytest

from k10s_forensics.serve import Faults, start_server
from k10s_forensics.serve.api import decode_continue, parse_route
from k10s_forensics.serve.app import version_doc
from k10s_forensics.serve.discovery import plural_of, version_priority
from k10s_forensics.serve.logs import select_lines
from k10s_forensics.serve.selectors import SelectorError, field_predicate, label_predicate
from k10s_forensics.serve.store import loose_proxy_path, url_keys
from k10s_forensics.serve.store_index import _rounds, _select_round
from k10s_forensics.serve.tables import human_duration, wants_table

T = dt.datetime(2026, 1, 1, tzinfo=dt.timezone.utc)


@pytest.mark.parametrize(
    ("selector", "labels", "expected"),
    [
        ("app=a", {"app": "a"}, True),
        ("app==a", {"app": "b"}, False),
        ("app!=a", {}, True),  # != matches a missing key, as Kubernetes does
        ("app in (a, b),tier", {"app": "b", "tier": "x"}, True),
        ("app notin (a,b)", {"app": "c"}, True),
        ("app notin (a,b)", {"app": "a"}, False),
        ("!gpu", {"gpu": "1"}, False),
        ("gpu", {}, False),
        ("app.kubernetes.io/name=dcgm-exporter", {"app.kubernetes.io/name": "dcgm-exporter"}, True),
        ("", {"anything": "1"}, True),
    ],
)
def test_label_selectors(selector, labels, expected):
    assert label_predicate(selector)({"metadata": {"labels": labels}}) is expected


@pytest.mark.parametrize("bad", ["app in (a", "=a", "app in a)"])
def test_bad_label_selector(bad):
    with pytest.raises(SelectorError):
        label_predicate(bad)


def test_field_selectors():
    pod = {"metadata": {"name": "a,b"}, "spec": {"nodeName": "n1", "hostNetwork": True}, "status": {"phase": "Running"}}
    assert field_predicate("spec.nodeName=n1,status.phase!=Pending")(pod)
    assert not field_predicate("spec.nodeName==n2")(pod)
    assert field_predicate(r"metadata.name=a\,b")(pod)  # escaped comma
    assert field_predicate("spec.hostNetwork=true")(pod)
    assert field_predicate("spec.schedulerName=")(pod)  # absent field is ""


@pytest.mark.parametrize(
    ("seconds", "text"),
    [(-5, "<invalid>"), (59, "59s"), (119, "119s"), (150, "2m30s"), (600, "10m"), (7500, "125m"), (4 * 3600 + 60, "4h1m"),
     (30 * 3600, "30h"), (3 * 86400 + 7200, "3d2h"), (40 * 86400, "40d"), (3 * 365 * 86400, "3y")],
)
def test_human_duration_matches_kubernetes(seconds, text):
    assert human_duration(seconds) == text


def test_listing_rounds_chain_small_gaps():
    times = [T, T + dt.timedelta(seconds=1), T + dt.timedelta(seconds=4), T + dt.timedelta(minutes=5)]
    assert _rounds(times, 5.0) == [(T, T + dt.timedelta(seconds=4)), (T + dt.timedelta(minutes=5),) * 2]
    rows = [
        {"captured_at": T, "namespace": "a", "name": "gone"},
        {"captured_at": T + dt.timedelta(minutes=5), "namespace": "a", "name": "p"},
        {"captured_at": T + dt.timedelta(minutes=5, seconds=2), "namespace": "a", "name": "p", "v": 2},
    ]
    assert _select_round(rows, None, 5.0) == [rows[2]]  # last round, latest row of an object
    assert _select_round(rows, T + dt.timedelta(minutes=1), 5.0) == [rows[0]]
    assert _select_round(rows, T - dt.timedelta(seconds=1), 5.0) == []


def test_log_selection():
    body = "".join(f"2026-01-01T00:0{i}:00.5Z line {i}\n" for i in range(5))
    now = T + dt.timedelta(minutes=5)
    assert select_lines(body, {}, now) == "".join(f"line {i}\n" for i in range(5))
    assert select_lines(body, {"tailLines": "2", "timestamps": "true"}, now).splitlines()[0].startswith("2026-01-01T00:03")
    assert select_lines(body, {"sinceSeconds": "150"}, now) == "line 3\nline 4\n"
    assert select_lines(body, {"sinceTime": "2026-01-01T00:04:00Z"}, now) == "line 4\n"
    assert select_lines(body, {"tailLines": "0"}, now) == ""
    with pytest.raises(ValueError):
        select_lines(body, {"tailLines": "x"}, now)


def test_routes():
    r = parse_route("/api/v1/namespaces/team-a/pods/p/log")
    assert (r.group, r.version, r.plural, r.namespace, r.name, r.subresource) == ("", "v1", "pods", "team-a", "p", "log")
    r = parse_route("/api/v1/namespaces/team-a")
    assert (r.plural, r.name, r.namespace) == ("namespaces", "team-a", None)
    r = parse_route("/apis/kubeflow.org/v1/namespaces/x/pytorchjobs")
    assert (r.group, r.plural, r.namespace, r.name) == ("kubeflow.org", "pytorchjobs", "x", None)
    r = parse_route("/api/v1/namespaces/gpu-operator/services/prometheus:9090/proxy/api/v1/query_range")
    assert (r.plural, r.name, r.subresource, r.rest) == ("services", "prometheus:9090", "proxy", "api/v1/query_range")
    assert parse_route("/metrics") is None


def test_proxy_keys_and_tokens():
    assert loose_proxy_path("/api/v1/namespaces/m/pods/http:dcgm-1:9400/proxy/metrics") == "/api/v1/namespaces/m/pods/dcgm-1/proxy/metrics"
    assert url_keys("https://host/api/v1/namespaces/m/services/p:9090/proxy/api/v1/query?q=up") == [
        "/api/v1/namespaces/m/services/p:9090/proxy/api/v1/query?q=up",
        "/api/v1/namespaces/m/services/p:9090/proxy/api/v1/query",
        "/api/v1/namespaces/m/services/p/proxy/api/v1/query",
    ]
    with pytest.raises(ValueError):
        decode_continue("not-a-token")


def test_discovery_helpers():
    assert [plural_of(k) for k in ("Pod", "Policy", "ClusterPolicy", "Gateway", "Mesh", "RayCluster")] == [
        "pods", "policies", "clusterpolicies", "gateways", "meshes", "rayclusters"]
    assert sorted(["v1alpha1", "v1beta2", "v1", "v2", "v1beta1"], key=version_priority) == ["v2", "v1", "v1beta2", "v1beta1", "v1alpha1"]
    assert wants_table("application/json;as=Table;v=v1;g=meta.k8s.io,application/json") == "meta.k8s.io/v1"
    assert wants_table("application/json") is None
    assert version_doc("v1.29.4-gke.1043002")["minor"] == "29"


def test_self_subject_access_review(tmp_path):
    from serve_helpers import build_bundle

    bundle = build_bundle(tmp_path / "b")
    with start_server(bundle, faults=Faults(forbid=("pods/log",))) as srv:
        def review(**attrs) -> dict:
            body = json.dumps({"apiVersion": "authorization.k8s.io/v1", "kind": "SelfSubjectAccessReview",
                               "spec": {"resourceAttributes": attrs}}).encode()
            req = urllib.request.Request(srv.url + "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", data=body,
                                         method="POST", headers={"Content-Type": "application/json"})
            with urllib.request.urlopen(req, timeout=10) as resp:
                assert resp.status == 201
                return json.load(resp)["status"]

        assert review(verb="list", resource="pods", group="")["allowed"] is True
        assert review(verb="create", resource="pods", subresource="exec", group="", namespace="team-a")["allowed"] is True
        denied = review(verb="get", resource="pods", subresource="log", group="")
        assert denied["allowed"] is False and "--forbid" in denied["reason"]
        assert review(verb="delete", resource="pods", group="")["allowed"] is False
