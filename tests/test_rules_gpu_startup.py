"""gpu-startup: simulated sweeps (right pod, node, cause), no finding on healthy or merely
Pending bundles, and every real error text in tests/data/gpu-startup classified."""

from __future__ import annotations

import json
import re
from pathlib import Path

import duckdb
import pytest

from k10s_forensics.analyze import analyze
from k10s_forensics.bundle import Bundle
from k10s_forensics.simulate import simulate

DATA = Path(__file__).parent / "data" / "gpu-startup"
SQL = Path(__file__).parent.parent / "queries" / "gpu_startup.sql"
SCENARIOS = ("startup-toolkit-mismatch", "startup-no-runtime", "startup-cuda-too-old", "startup-device-plugin",
             "startup-mig-mismatch", "startup-image-pull-slow", "startup-image-pull-backoff", "startup-shm")
SHAPES = ((1, 2, 4, None), (13, 3, 4, 1))  # (seed, nodes, gpus per node, ranks per pod): one pod per node / one per GPU


def _findings(path: Path) -> list[dict]:
    return [f for f in analyze(Bundle.open(path))["findings"] if f["rule"] == "gpu-startup"]


@pytest.fixture(scope="session")
def startup_runs(tmp_path_factory):
    root = tmp_path_factory.mktemp("startup")
    out = {}
    for name in SCENARIOS:
        for seed, nodes, gpn, nproc in SHAPES:
            path = root / f"{name}-{seed}"
            truth = simulate(name, str(path), seed=seed, nodes=nodes, gpus_per_node=gpn, minutes=4, interval_s=60, nproc_per_node=nproc)
            out[(name, seed)] = (truth, _findings(path))
    return out


@pytest.mark.slow  # 16 small bundles simulated and analyzed once per session: ~90 s on a loaded 2-core machine
@pytest.mark.parametrize("name", SCENARIOS)
@pytest.mark.parametrize("seed", [s[0] for s in SHAPES])
def test_sweep_names_pod_node_cause(startup_runs, name, seed):
    truth, findings = startup_runs[(name, seed)]
    want = truth["expected"][0]
    hits = [f for f in findings if f["severity"] != "info"]
    assert len(hits) == 1, hits
    f = hits[0]
    assert (f["cause"], f["pods"], f["nodes"]) == (want["cause"], want["pods"], want["nodes"])
    # the rest of the gang runs and holds GPUs: a blocked pod is critical, a slow pull a warning
    assert f["severity"] == ("warning" if want["cause"] == "image-pull-slow" else "critical")
    assert f["evidence"][0]["held_gpus"] > 0 and f["gpu_hours_lost"] > 0
    assert f["recommendation"] and f["summary"] and f["evidence"][0].get("message" if want["cause"] != "image-pull-slow" else "pull_s")


@pytest.mark.parametrize("sample", ["healthy", "pending-taint", "pending-capacity", "pending-quota"])
def test_no_warning_on_healthy_or_merely_pending(tmp_path, sample):
    simulate(sample, str(tmp_path / sample), seed=2, nodes=2, gpus_per_node=4, minutes=4, interval_s=30)
    findings = _findings(tmp_path / sample)
    assert [f for f in findings if f["severity"] != "info"] == []
    assert all(f["cause"] == "shm-default" for f in findings)


def _text_patterns() -> list[tuple[str, str]]:
    """The message patterns of the rule, in its order (read from the SQL itself)."""
    sql = SQL.read_text()
    return re.findall(r"WHEN regexp_matches\(texts, '((?:[^']|'')+)', 'i'\) THEN '([a-z-]+)'", sql)


def classify(text: str) -> str | None:
    con = duckdb.connect()
    for pattern, cause in _text_patterns():
        if con.execute("SELECT regexp_matches(?, ?, 'i')", [text, pattern.replace("''", "'")]).fetchone()[0]:
            return cause
    if re.search(r"bus error|SIGBUS|insufficient shared memory", text, re.I):
        return "shm-too-small"
    if re.search(r"no healthy devices|Allocate failed|device plugin", text, re.I):
        return "device-plugin-unhealthy"
    return None


def test_every_real_error_text_is_classified():
    cases = json.loads((DATA / "real_errors.json").read_text())
    assert len(cases) >= 10 and all(c["url"].startswith("https://github.com/") for c in cases)
    wrong = [(c["url"], c["cause"], classify(c["text"])) for c in cases if classify(c["text"]) != c["cause"]]
    assert wrong == []
