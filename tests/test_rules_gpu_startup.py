"""gpu-startup: simulated sweeps (right pod, node, cause), no finding on healthy or merely
Pending bundles, and every real error text in tests/data/gpu-startup classified."""

from __future__ import annotations

import json
import re
from pathlib import Path

import duckdb
import pytest

from k10s_forensics.analyze import analyze
from k10s_forensics.store.bundle import Bundle
from k10s_forensics.simulate import simulate

DATA = Path(__file__).parent / "data" / "gpu-startup"
SQL = Path(__file__).parent.parent / "queries" / "gpu_startup.sql"
SCENARIOS = ("startup-toolkit-mismatch", "startup-no-runtime", "startup-cuda-too-old", "startup-device-plugin",
             "startup-mig-mismatch", "startup-time-slicing", "startup-image-pull-slow", "startup-image-pull-backoff", "startup-shm")
SHAPES = ((1, 2, 4, None), (13, 3, 4, 1))  # (seed, nodes, gpus per node, ranks per pod): one pod per node / one per GPU


def _findings(path: Path) -> list[dict]:
    return [f for f in analyze(Bundle.open(path))["findings"] if f["rule"] == "gpu-startup"]


@pytest.fixture(scope="module")
def startup_runs(tmp_path_factory):
    root = tmp_path_factory.mktemp("startup")
    out = {}
    for name in SCENARIOS:
        for seed, nodes, gpn, nproc in SHAPES:
            path = root / f"{name}-{seed}"
            truth = simulate(name, str(path), seed=seed, nodes=nodes, gpus_per_node=gpn, minutes=4, interval_s=60, nproc_per_node=nproc)
            out[(name, seed)] = (truth, _findings(path))
    return out


@pytest.mark.slow  # 16 small bundles simulated and analyzed once (module fixture: one worker): ~90 s on a loaded 2-core machine
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
    return re.findall(r"regexp_matches\(texts, '((?:[^']|'')+)', 'i'\)(?:(?!THEN ').)*THEN '([a-z-]+)'", sql, re.S)


def classify(text: str) -> str | None:
    con = duckdb.connect()
    for pattern, cause in _text_patterns():
        if con.execute("SELECT regexp_matches(?, ?, 'i')", [text, pattern.replace("''", "'")]).fetchone()[0]:
            return cause
    return None


def test_every_real_error_text_is_classified():
    cases = json.loads((DATA / "real_errors.json").read_text())
    assert len(cases) >= 10 and all(c["url"].startswith("https://github.com/") for c in cases)
    wrong = [(c["url"], c["cause"], classify(c["text"])) for c in cases if classify(c["text"]) != c["cause"]]
    assert wrong == []


def _pod(spec: dict):
    from k10s_forensics.parsers.k8s_common import Obj

    return Obj({"metadata": {"name": "p", "namespace": "ns", "uid": "u1"}, "spec": spec}, None, "v1", "Pod", "ns", "p", "u1", 0)


def test_pod_runtime_reads_shm_volume_runtime_class_and_gpu_resources():
    from k10s_forensics.parsers.k8s_runtime import pod_runtime_row

    spec = {"runtimeClassName": "nvidia",
            "containers": [{"name": "t", "image": "img:1", "volumeMounts": [{"name": "dshm", "mountPath": "/dev/shm/"}],
                            "resources": {"limits": {"nvidia.com/mig-1g.10gb": "1", "memory": "1Gi"}}}],
            "volumes": [{"name": "dshm", "emptyDir": {"medium": "Memory", "sizeLimit": "16Gi"}}]}
    row = pod_runtime_row(_pod(spec))
    assert (row["runtime_class"], row["shm_volume"], row["shm_volume_kind"], row["shm_medium"]) == ("nvidia", "dshm", "emptyDir", "Memory")
    assert row["shm_size_limit_bytes"] == 16 * 1024**3 and row["gpu_resources"] == ["nvidia.com/mig-1g.10gb"] and row["images"] == ["img:1"]
    bare = pod_runtime_row(_pod({"containers": [{"name": "t", "resources": {"limits": {"nvidia.com/gpu": 8}}}]}))
    assert bare["shm_volume"] is None and bare["runtime_class"] is None and bare["gpu_resources"] == ["nvidia.com/gpu"]
    disk = pod_runtime_row(_pod({"containers": [{"name": "t", "volumeMounts": [{"name": "s", "mountPath": "/dev/shm"}]}],
                                 "volumes": [{"name": "s", "emptyDir": {}}, 7, None]}))
    assert (disk["shm_volume_kind"], disk["shm_medium"], disk["shm_size_limit_bytes"]) == ("emptyDir", "", None)


@pytest.mark.parametrize("duration, seconds", [("5m3.2s", 303.2), ("850ms", 0.85), ("37.123456789s", 37.123456789), ("1h2m3s", 3723.0)])
def test_pull_durations_in_the_kubelet_wording(duration, seconds):
    sql = SQL.read_text()
    expr = re.search(r"CASE WHEN regexp_matches\(d, '\^\[0-9\.\]\+ms\$'\).*?END AS d_s", sql, re.S).group(0)[:-len(" AS d_s")]
    message = f'Successfully pulled image "nvcr.io/nvidia/pytorch:24.08-py3" in {duration} ({duration} including waiting). Image size: 21474836480 bytes.'
    got = duckdb.execute(f"SELECT {expr} FROM (SELECT regexp_extract($1, 'pulled image \"[^\"]+\" in ([0-9hmsµu.]+)', 1) AS d)",
                         [message]).fetchone()[0]
    assert got == pytest.approx(seconds)


def test_no_shm_note_for_pods_made_up_from_logs(tmp_path):
    """`k10s import-logs` makes pods up from logs (annotation k10s.io/imported): their spec is
    not the real pod's, so nothing is said of their /dev/shm."""
    from k10s_forensics.logimport import LogSource, import_logs

    out = tmp_path / "b"
    bundle, _ = import_logs([LogSource("train.log", "[rank0]: step 1 loss 2.0\n[rank1]: step 1 loss 2.1\n")], out)
    assert [f for f in analyze(bundle)["findings"] if f["rule"] == "gpu-startup"] == []
    con = duckdb.connect()
    rows = con.execute(f"SELECT spec_known FROM '{out}/tables/pod_runtime.parquet'").fetchall()
    assert rows and all(r == (False,) for r in rows)
