"""Every real incident (tests/data/real-samples/incidents) as a bundle, analyzed as a new user would.

One case per entry of incidents/expected.json plus tests/data/incident_expectations.json
(our own reading of the folders expected.json does not list). ``tests/incident_kit.py``
builds the bundle: one pod per node, the pasted lines as container logs, a PyTorchJob with
the world size and nproc per node, no GPU metrics.

* A culprit case: some critical or warning finding names exactly the culprit ranks with the
  expected cause, and no critical/warning finding names ranks that are all outside them.
* A control case (no culprit): no critical or warning finding names a culprit rank (a
  finding may say there is no single culprit, with no ranks).

The as-pasted bundle is analysed through ``twins`` (conftest.py): the determinism check of
tests/test_determinism.py for these incidents (seed 1 / 1 thread against seed 2 / 4 threads, the
outputs byte-identical; a difference raises DeterminismError, which an xfail here does not cover).
"""

from __future__ import annotations

import pytest

from incident_kit import REAL_SAMPLES_DIR, analyze_incident, load_cases, misses, naming_findings

#: Cases not handled yet, per way of bringing the log (strict: an XPASS fails, so a fixed case must leave).
NOT_YET: dict[str, set[str]] = {
}

#: Victims expected.json lists although no line of theirs is in the paste (SOURCE.md: "not visible in the excerpt").
VICTIMS_NOT_IN_PASTE = {"kohya-1434-2gpu-ecc-rank1"}

#: Incident folders whose expectation is still to be written in tests/data/incident_expectations.json
#: (hang evidence: t9-hang; Flight Recorder / RAS: t9-frras). Strict: a folder that gets one must leave.
AWAITING_EXPECTATIONS: set[str] = set()

CASES = load_cases(REAL_SAMPLES_DIR) if REAL_SAMPLES_DIR.is_dir() else []


def _params(variant: str):
    for case in CASES:
        todo = variant in NOT_YET.get(case.incident, set())
        marks = [pytest.mark.xfail(strict=True, raises=AssertionError, reason="not handled yet")] if todo else []
        yield pytest.param(case, id=case.incident, marks=marks)


def test_every_incident_folder_has_an_expectation(real_samples):
    folders = sorted(p.name for p in (real_samples / "incidents").iterdir() if p.is_dir())
    covered = {c.incident for c in CASES}
    assert len(covered) == len(CASES), "an incident has two expectations"
    assert covered <= set(folders), "an expectation names no incident folder"
    assert set(folders) - covered == AWAITING_EXPECTATIONS
    assert set(NOT_YET) <= {c.incident for c in CASES}


@pytest.mark.parametrize("case", list(_params("as-pasted")))
def test_real_incident(tmp_path, real_samples, twins, case):
    from incident_kit import incident_bundle

    text = (case.folder / case.incident / "log.txt").read_text(encoding="utf-8")
    bundle = incident_bundle(tmp_path / case.incident, case, text)
    findings = twins.findings(f"shared-{case.incident}", bundle.path, tmp_path / "runs")["findings"]
    assert misses(case, findings) is None, misses(case, findings)
    hits = [f for f in naming_findings(findings) if f["ranks"] == sorted(case.culprit_ranks) and f["cause"] == case.cause]
    for f in hits:
        if f["rule"] == "rank-failure" and case.incident not in VICTIMS_NOT_IN_PASTE:
            # victims the paste shows: SIGTERMed pids (no rank printed), teardown errors, watchdog timeouts
            assert f["evidence"][0]["victims"] == len(case.victim_ranks), f["evidence"][0]


@pytest.mark.parametrize("case", list(_params("api-timestamps")))
def test_real_incident_with_api_timestamps(tmp_path, real_samples, case):
    """The same verdict when every line carries the API's timestamps=true prefix (as k10s captures)."""
    findings = analyze_incident(tmp_path, case, api_timestamps=True)
    assert misses(case, findings) is None, misses(case, findings)


def _funasr():
    return next(c for c in CASES if c.incident == "funasr-2006-multinode-allreduce-timeout")


def test_one_incident_one_cost(tmp_path, real_samples):
    """funasr-2006 (no clock in the paste): the incident costs the job's 16 GPUs x the watchdog's
    600098 ms wait, in every finding that describes it, with the 3 watchdog victims (5, 7, 14)."""
    findings = analyze_incident(tmp_path, _funasr())
    oom = next(f for f in findings if f["rule"] == "oom-cascade")
    assert oom["gpu_hours_lost"] == pytest.approx(16 * 600.098 / 3600, abs=0.001)
    assert oom["evidence"][0]["watchdog_ranks"] == 3
    for f in findings:
        if f["rule"] in ("nccl-hang", "rank-failure", "crashloop"):
            assert f["gpu_hours_lost"] == oom["gpu_hours_lost"], f["rule"]
        if f["rule"] == "nccl-hang":
            assert f["evidence"][0]["victims"] == 3


def test_timeline_lane_of_a_rank_outside_its_pod(tmp_path, real_samples):
    """A line naming a rank its pod does not run still lands in a lane of the pod's job (never "None rank 11")."""
    from k10s_forensics.analyze.runner import prepare
    from reports.common import query
    from incident_kit import incident_bundle

    case = next(c for c in CASES if c.incident == "ms-swift-6301-4node-zero3-timeout")  # [rank14] lines, 4 ranks per pod
    text = (real_samples / "incidents" / case.incident / "log.txt").read_text(encoding="utf-8")
    bundle = incident_bundle(tmp_path / "b", case, text, api_timestamps=True, one_log=True)
    con = prepare(bundle)
    try:
        events = query(con, "timeline_events")
    finally:
        con.close()
    lanes = {(e["lane_kind"], e["job_key"], e["rank"]) for e in events}
    assert {("rank", "team-a/incident", 5), ("rank", "team-a/incident", 11)} <= lanes  # ranks 4-15 run in other pods
    assert not any(kind == "rank" and job is None for kind, job, _ in lanes), lanes
