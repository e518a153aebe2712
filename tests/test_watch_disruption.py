"""``k10s watch`` against a played eviction on ``k10s serve``: the kubelet evicts one pod of a running PyTorchJob
(``k10s simulate pod-disrupted``, a seed that draws the memory-pressure eviction); the watcher sees its DisruptionTarget
turn True and its container end, captures during the others' hang, and the bundle's analysis names the evicted pod's
ranks with the cause (disruption, the incident's root) — read-only throughout."""

from __future__ import annotations

import json

import pytest

from k10s_forensics.analyze.runner import analyze
from k10s_forensics.serve.play import PlayTimes
from k10s_forensics.simulate import simulate
from k10s_forensics.store.bundle import Bundle

from watch_helpers import incident_dirs, non_get_requests, serve, wait_for, watcher

SEED = 5  # pod-disrupted at 2 nodes x 4 GPUs, 5 minutes at 10 s: the kubelet evicts ranks 4-7's pod, the others time out


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    root = tmp_path_factory.mktemp("watch-evicted")
    truth = simulate("pod-disrupted", root / "played", seed=SEED, nodes=2, gpus_per_node=4, minutes=5, interval_s=10,
                     truth_path=root / "truth.json")
    assert truth["expected"][0]["cause"] == "evicted"
    srv, play, log = serve(root / "played", PlayTimes(fail_s=1.0, hang_s=2.0, restart_s=60), clock=False)
    w = watcher(srv, root)
    play.start()
    try:
        out = root / "out"
        wait_for(lambda: [d for d in incident_dirs(out) if (d / "incident.json").is_file()
                          and json.loads((d / "incident.json").read_text()).get("state") == "captured"], timeout_s=90)
        yield {"out": out, "truth": truth, "log": log}
    finally:
        w.stop(5)
        srv.stop()


def test_the_eviction_triggers_one_capture(played):
    (incident,) = incident_dirs(played["out"])
    doc = json.loads((incident / "incident.json").read_text())
    assert doc["job"] == played["truth"]["job"]
    reasons = {t["reason"] for t in doc["triggers"]}
    assert "pod-disrupted" in reasons, sorted(reasons)


def test_the_captured_bundle_names_the_evicted_ranks_with_the_cause(played):
    (incident,) = incident_dirs(played["out"])
    result = analyze(Bundle.open(incident / "bundle"))
    expected = played["truth"]["expected"][0]
    root = result["findings"][result["incidents"][0]["root"]["finding"]]
    assert (root["rule"], root["cause"], root["ranks"], root["pods"], root["confidence"]) == (
        "disruption", "evicted", expected["ranks"], expected["pods"], "high")


def test_read_only_no_write_verb_reached_the_api_server(played):
    assert non_get_requests(played["log"]) == []
