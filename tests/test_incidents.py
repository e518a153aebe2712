"""Incidents: the findings of one failure grouped under one root cause, counted once.

Unit cases on hand-made findings (grouping, precedence, cost, order), every sample bundle
against its truth file, the report header and the fleet totals against the incident sum,
and (slow) a simulated sweep where each planted incident must give exactly one incident
with the right root.
"""

from __future__ import annotations

import shutil

import json
import random
from pathlib import Path

import pytest

from k10s_forensics.analyze.incident_text import headline, totals
from k10s_forensics.analyze.incidents import counted, group, incidents_of, is_advice, members
from k10s_forensics.analyze.render import to_json, to_markdown, to_text
from k10s_forensics.analyze.runner import analyze
from k10s_forensics.store.bundle import Bundle

SAMPLES = Path(__file__).resolve().parents[1] / "sample-bundles"
SAMPLE_NAMES = sorted(p.name for p in SAMPLES.iterdir() if p.is_dir())
JOB = "team-a/llama"


def finding(rule, *, job=JOB, ranks=(), pods=(), nodes=(), gpus=(), cause=None, start=None, end=None, hours=None, severity="critical"):
    return {"rule": rule, "severity": severity, "title": f"{rule} {cause}", "summary": "", "job": job, "ranks": list(ranks),
            "pods": list(pods), "nodes": list(nodes), "gpus": list(gpus), "cause": cause, "started_at": start, "ended_at": end,
            "gpu_hours_lost": hours, "evidence": [], "recommendation": ""}


def t(minute: int, second: int = 0) -> str:
    return f"2026-05-26T17:{minute:02d}:{second:02d}Z"


def oom_trio():
    culprit = dict(ranks=[5], pods=["team-a/llama-worker-1"], nodes=["gpu-node-2"], gpus=["GPU-5"])
    return [finding("oom-cascade", cause="cuda-oom", start=t(17, 30), end=t(29, 52), hours=0.539, **culprit),
            finding("nccl-hang", cause="rank-failed", start=t(17, 30), end=t(18, 30), hours=0.135, **culprit),
            finding("crashloop", cause="cuda-oom", start=t(17, 30), end=t(28, 51), hours=0.539, **culprit)]


def test_one_oom_its_hang_and_its_restarts_are_one_incident_costed_once():
    findings = oom_trio()
    (inc,) = group(findings)
    assert inc["root"] == {"finding": 0, "rule": "oom-cascade", "cause": "cuda-oom"}
    assert [s["rule"] for s in inc["symptoms"]] == ["nccl-hang", "crashloop"]
    assert inc["gpu_hours_lost"] == 0.539  # the largest of its findings', not 1.213
    assert inc["ranks"] == [5] and inc["started_at"] == t(17, 30) and inc["ended_at"] == t(29, 52)
    hours, _ = totals(incidents_of({"findings": findings}))
    assert hours == 0.539
    assert headline(findings, [inc])[0].startswith("1 incident: 1 critical, 0 warning, 0 info · 0.54 GPU-hours lost")


def test_precedence_named_failure_beats_hang_and_symptoms_in_any_input_order():
    culprit = dict(ranks=[3], pods=["team-a/llama-worker-0"], gpus=["GPU-3"], nodes=["n1"])
    findings = [finding("crashloop", cause="exit-1", severity="warning", start=t(10), end=t(20), hours=1.0, **culprit),
                finding("nccl-hang", cause="rank-failed", start=t(0), end=t(10), hours=1.0, **culprit),
                finding("rank-failure", cause="segfault", start=t(9), end=t(10), hours=1.0, **culprit),
                finding("gpu-health", cause="xid-13", severity="warning", start=t(9), **culprit)]
    for seed in range(5):  # the partition and the root do not depend on input order
        order = list(range(len(findings)))
        random.Random(seed).shuffle(order)
        shuffled = [findings[i] for i in order]
        (inc,) = group(shuffled)
        assert shuffled[inc["root"]["finding"]]["rule"] == "rank-failure"
    hw = finding("gpu-health", cause="xid-79", start=t(8), **culprit)  # a fatal Xid on the culprit's GPU explains it
    (inc,) = group(findings + [hw])
    assert inc["root"]["rule"] == "gpu-health" and inc["cause"] == "xid-79" and inc["gpu_hours_lost"] == 1.0


def test_findings_that_share_nothing_stay_separate_incidents():
    oom = oom_trio()
    other_job = finding("rank-failure", job="team-b/bert", ranks=[5], pods=["team-b/bert-0"], gpus=["GPU-9"], cause="segfault",
                        start=t(17, 31), end=t(18), hours=0.2)
    straggler = finding("straggler", ranks=[2], pods=["team-a/llama-worker-0"], gpus=["GPU-2"], cause="host-input", severity="warning")
    later = finding("rank-failure", ranks=[7], pods=["team-a/llama-worker-1"], gpus=["GPU-7"], cause="python-exception",
                    start=t(45), end=t(46), hours=0.3)
    idle = finding("idle-gpu", job=None, nodes=["gpu-node-2"], gpus=["GPU-11"], cause="unallocated-idle", severity="info",
                   start=t(15), end=t(30), hours=0.5)
    incs = group(oom + [other_job, straggler, later, idle])
    assert len(incs) == 5
    assert [i["id"] for i in incs] == ["inc-1", "inc-2", "inc-3", "inc-4", "inc-5"]
    assert [i["root"]["rule"] for i in incs] == ["oom-cascade", "rank-failure", "rank-failure", "straggler", "idle-gpu"]
    assert totals(incs)[0] == pytest.approx(0.539 + 0.2 + 0.3 + 0.5)


def test_job_level_and_hardware_findings_join_the_job_incident():
    culprit = dict(ranks=[5], pods=["team-a/llama-worker-1"], nodes=["gpu-node-2"], gpus=["GPU-5"])
    hang = finding("nccl-hang", cause="never-joined", start=t(0), end=t(10), hours=1.3, **culprit)
    together = finding("rank-failure", cause="python-exception", severity="info", start=t(10, 30), end=t(10, 31), hours=0.01)
    unallocatable = finding("gpu-health", job=None, nodes=["gpu-node-2"], cause="gpu-unallocatable", severity="warning", start=t(1), end=t(20))
    xid_elsewhere = finding("gpu-health", job=None, nodes=["gpu-node-9"], gpus=["GPU-99"], cause="xid-48", start=t(5))
    incs = group([hang, together, unallocatable, xid_elsewhere])
    assert [(i["root"]["rule"], [s["rule"] for s in i["symptoms"]]) for i in incs] == [
        ("nccl-hang", ["rank-failure", "gpu-health"]), ("gpu-health", [])]
    pending = finding("pending", cause="fragmentation", pods=["team-a/llama-worker-1"], start=t(0), end=t(30), hours=4.125)
    held = finding("idle-gpu", ranks=[0, 1], pods=["team-a/llama-master-0"], cause="allocated-idle", severity="warning",
                   start=t(0), end=t(29), hours=4.062)
    (inc,) = group([pending, held])  # the gang's held GPUs idle because it cannot schedule: one cost
    assert inc["root"]["rule"] == "pending" and inc["gpu_hours_lost"] == 4.125


def test_saved_analysis_without_incidents_and_hostile_values():
    findings = oom_trio() + [{"rule": "x", "ranks": [{"a": 1}], "started_at": 5, "gpu_hours_lost": "many"}, "not a finding"]
    incs = incidents_of({"findings": findings})
    assert sorted(i for inc in incs for i in members(inc)) == list(range(len(findings)))


class _Analyses(dict):
    """Sample bundle -> its analysis, run on first use (under xdist each worker analyses only
    the bundles its tests need), on a private copy: a stale derived layer (a parser version
    bumped before the samples are rebuilt) is rebuilt there, never in the repository."""

    def __init__(self, root: Path):
        super().__init__()
        self.root = root

    def bundle(self, name: str) -> Bundle:
        if not (self.root / name).is_dir():
            shutil.copytree(SAMPLES / name, self.root / name)
        return Bundle.open(self.root / name)

    def __missing__(self, name: str) -> dict:
        self[name] = analyze(self.bundle(name))
        return self[name]


@pytest.fixture(scope="module")
def samples(tmp_path_factory):
    return _Analyses(tmp_path_factory.mktemp("samples"))


@pytest.mark.parametrize("name", SAMPLE_NAMES)
def test_sample_bundle_incidents_match_the_truth(samples, name):
    result = samples[name]
    truth = json.loads((SAMPLES / f"{name}.truth.json").read_text())
    findings, incidents = result["findings"], result["incidents"]
    assert sorted(i for inc in incidents for i in members(inc)) == list(range(len(findings)))
    check_planted(truth, findings, incidents)
    assert result == json.loads(to_json(result))  # the JSON is what the document says
    text = to_text(result, color=False)
    notes = len(incidents) - len(counted(incidents))
    assert text.count("\nIncident inc-") + text.count("\nPreventive note inc-") == len(incidents)
    assert to_markdown(result).count("## Incident inc-") == len(incidents) - notes


def check_planted(truth, findings, incidents):
    """The planted incident is exactly one incident, rooted at the truth's first expected
    finding, holding every finding of the planted job; a healthy bundle has none."""
    expected = truth["expected"]
    if not expected:
        assert counted(incidents) == []
        return
    mine = [inc for inc in counted(incidents) if inc["job"] == truth["job"]]
    assert len(mine) == 1, [(i["root"], i["symptoms"]) for i in mine]
    root = findings[mine[0]["root"]["finding"]]
    assert (root["rule"], root["cause"]) == (expected[0]["rule"], expected[0]["cause"])
    assert {i for i, f in enumerate(findings) if f["job"] == truth["job"] and not is_advice(f)} <= set(members(mine[0]))
    for exp in expected:
        assert any(findings[i]["rule"] == exp["rule"] and findings[i]["cause"] == exp["cause"] for i in members(mine[0])), exp


def test_oom_crashloop_is_one_incident_and_its_cost(samples):
    result = samples["oom-crashloop"]
    hours = [f["gpu_hours_lost"] for f in result["findings"] if f["gpu_hours_lost"] is not None]
    (inc,) = counted(result["incidents"])
    assert len(hours) == 3 and inc["gpu_hours_lost"] == max(hours) == pytest.approx(0.539) and sum(hours) > 1.2
    assert inc["cost_usd"] == pytest.approx(round(inc["gpu_hours_lost"] * inc["usd_per_gpu_hour"], 2))
    assert "1 incident: 1 critical, 0 warning, 0 info · 0.54 GPU-hours lost ($1.35), each incident counted once" in to_text(result, color=False)


def test_report_header_totals_are_the_incident_sum(samples):
    reports = pytest.importorskip("k10s_forensics.reports")
    for name in ("oom-crashloop", "xid-79"):
        result = samples[name]
        ctx = reports.build_contexts(samples.bundle(name), result)
        hours, usd = totals(result["incidents"])
        assert ctx["findings"].total_gpu_hours == f"{hours:.2f}" and ctx["findings"].total_cost == f"${usd:,.2f}"
        assert sum(ctx["header"].incident_counts.values()) == len(counted(result["incidents"]))
        assert [len(i.findings) for i in ctx["findings"].incidents] == [len(members(i)) for i in result["incidents"]]
    html = reports.render_html(samples.bundle("oom-crashloop"), samples["oom-crashloop"])
    assert "0.54</span> GPU-hours lost ($1.35), each incident counted once" in html


def test_fleet_cost_by_cause_counts_incidents(samples, tmp_path):
    from k10s_forensics.fleet.analysis import analyze_fleet
    from k10s_forensics.fleet.index import index_fleet

    names = ("oom-crashloop", "rank-segfault")
    index_fleet([str(samples.bundle(n).path) for n in names], tmp_path / "fleet", jobs=1)
    result = analyze_fleet(str(tmp_path / "fleet"))
    cost = next(r for r in result["results"] if r["rule"] == "cost-by-cause")["rows"]
    costed = [i for n in names for i in samples[n]["incidents"] if i["gpu_hours_lost"]]
    assert sum(r["incidents"] for r in cost) == len(costed)
    assert sum(r["gpu_hours_lost"] for r in cost) == pytest.approx(sum(i["gpu_hours_lost"] for i in costed), abs=1e-3)
    assert sum(r["cost_usd"] for r in cost) == pytest.approx(sum(i["cost_usd"] for i in costed), abs=0.011)
    oom = next(r for r in cost if r["rule"] == "oom-cascade")
    assert (oom["incidents"], oom["findings"], oom["gpu_hours_lost"]) == (1, 3, pytest.approx(0.539))
    assert result["fleet"]["incidents"] == sum(len(counted(samples[n]["incidents"])) for n in names)


SWEEP = ("oom-crashloop", "xid-79", "rank-segfault", "rank-cuda-error", "pending-capacity", "straggler-compute",
         "collective-mismatch", "nccl-hang")


@pytest.fixture(scope="module")
def sweep(tmp_path_factory):
    from k10s_forensics.simulate import simulate

    root = tmp_path_factory.mktemp("incident-sweep")
    cases = {}
    for scenario in SWEEP:
        for seed in (1, 2):
            out = root / f"{scenario}-{seed}"
            truth = simulate(scenario, out, seed=seed, nodes=2, gpus_per_node=4, minutes=5, interval_s=10)
            cases[(scenario, seed)] = (truth, analyze(Bundle.open(out)))
    return cases


@pytest.mark.slow
@pytest.mark.parametrize("scenario", SWEEP)
def test_simulated_sweep_each_planted_incident_is_one_incident(sweep, scenario):
    for seed in (1, 2):
        truth, result = sweep[(scenario, seed)]
        check_planted(truth, result["findings"], result["incidents"])
        hours, _ = totals(result["incidents"])
        assert hours is None or hours <= sum(f["gpu_hours_lost"] or 0 for f in result["findings"]) + 1e-9


def test_a_preventive_note_alone_is_not_counted_as_an_incident():
    from k10s_forensics.analyze.incident_text import headline
    from k10s_forensics.analyze.incidents import counted, group

    note = {"rule": "gpu-startup", "severity": "info", "cause": "shm-default", "job": "a/j", "title": "shm",
            "ranks": [], "pods": ["a/j-worker-0"], "nodes": [], "gpus": [], "started_at": None, "ended_at": None,
            "gpu_hours_lost": None}
    oom = {"rule": "oom-cascade", "severity": "critical", "cause": "cuda-oom", "job": "a/j", "title": "oom",
           "ranks": [0], "pods": ["a/j-worker-0"], "nodes": ["n"], "gpus": [], "started_at": "2026-01-01T00:00:00Z",
           "ended_at": "2026-01-01T00:05:00Z", "gpu_hours_lost": 0.5}
    alone = group([note])
    assert [i["advice"] for i in alone] == [True] and counted(alone) == []
    assert headline([note], alone)[0] == "0 incidents: 0 critical, 0 warning, 0 info · 1 preventive note"
    apart = group([oom, note])  # the same pod, yet a risk is not part of what happened
    assert [(i["root"]["rule"], i["advice"]) for i in apart] == [("oom-cascade", False), ("gpu-startup", True)]
    assert headline([oom, note], apart)[0].startswith("1 incident: 1 critical, 0 warning, 0 info · 0.50 GPU-hours")
    assert headline([oom, note], apart)[0].endswith("· 1 preventive note")
