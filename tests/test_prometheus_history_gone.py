"""Prometheus history of what Kubernetes removed before capture, against a real Prometheus: a node that died whole
(its pods deleted, its Node object too) and a pod the kubelet evicted (its pods and events deleted).

simulate -> OpenMetrics history (``simulate.prom_history``) -> promtool backfill -> real ``prometheus`` -> ``k10s
serve`` of the bundle without live DCGM scrapes, nvidia-smi, the job's pods, logs, execs and events -> ``capture
--prometheus --from --to`` -> ``analyze``: the same culprit as the truth (tests/test_prometheus_history.py holds the
label conventions and planning units).
"""

from __future__ import annotations

import pytest

from k10s_forensics.analyze.runner import analyze
from k10s_forensics.simulate import simulate
from k10s_forensics.store.bundle import Bundle

from prom_helpers import bundle_rows, capture_from_prometheus, need_prometheus
from test_rules_scenarios import compare


@pytest.mark.parametrize("node_gone", [False, True], ids=["node-listed", "node-deleted"])
def test_node_lost_from_history_with_pods_gone(tmp_path, node_gone):
    """A node that died whole, its pods deleted since and (a spot VM the cloud reclaimed) its Node object too: the
    listing's NotReady, or kube-state-metrics' Ready condition history (unknown from then on), and the pods' history on
    it name its ranks (gpu-health node-not-ready), with no log of theirs to say otherwise."""
    need_prometheus()
    truth = simulate("node-lost", tmp_path / "orig", seed=4, nodes=3, gpus_per_node=2, minutes=8, interval_s=10, nproc_per_node=1)
    (want,) = truth["expected"]
    out = capture_from_prometheus(tmp_path, tmp_path / "orig", truth, "kube-prometheus", drop_pods=True,
                                  drop_nodes=tuple(want["nodes"]) if node_gone else ())
    node = bundle_rows(out, "SELECT ready, ready_reason, evidence FROM nodes WHERE node = '%s'" % want["nodes"][0])
    assert node == [{"ready": None, "ready_reason": "NodeStatusUnknown", "evidence": "prometheus" if node_gone else None}]
    misses, alarms = compare(truth, analyze(Bundle.open(out)))
    assert not misses and not alarms, (misses, alarms)


def test_evicted_pod_from_history_with_pods_and_events_gone(tmp_path):
    """A pod the kubelet evicted, the job's pods and events deleted since: kube-state-metrics'
    ``kube_pod_status_reason{reason="Evicted"}`` (1 from the eviction on) gives the rebuilt pod its status reason and
    its end, and disruption names its rank from the pods' history alone."""
    need_prometheus()
    truth = simulate("pod-disrupted", tmp_path / "orig", seed=2, nodes=3, gpus_per_node=2, minutes=8, interval_s=10, nproc_per_node=1)
    (want,) = truth["expected"]
    assert want["cause"] == "evicted"
    out = capture_from_prometheus(tmp_path, tmp_path / "orig", truth, "kube-prometheus", drop_pods=True)
    pod = want["pods"][0].split("/")[1]
    rows = bundle_rows(out, "SELECT reason, evidence FROM pods WHERE pod = '%s'" % pod)
    assert rows == [{"reason": "Evicted", "evidence": "prometheus"}]
    assert bundle_rows(out, "SELECT count(*) AS n FROM events WHERE reason = 'Evicted'") == [{"n": 0}]
    misses, alarms = compare(truth, analyze(Bundle.open(out)))
    assert not misses and not alarms, (misses, alarms)
