"""simulate → real ``k10s serve`` → capture → compare the captured bundle with the original."""

from __future__ import annotations

import io
import os
import shutil
import subprocess
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

from k10s_forensics.store.bundle import Bundle
from k10s_forensics.capture import CaptureOptions, capture
from k10s_forensics.capture.source import ALLOWED_COMMANDS
from k10s_forensics.serve import Faults, start_server
from k10s_forensics.simulate import simulate

from capture_helpers import (EXEC_KEY, captured_objects, last_listing, make_pod_lack_ss, recordings,
                             requests_from_log, rows)

INTERVAL = 0.15


@pytest.fixture(scope="module")
def healthy(tmp_path_factory):
    root = tmp_path_factory.mktemp("sim")
    truth = simulate("healthy", root / "healthy", seed=5, nodes=3, gpus_per_node=2, minutes=2, interval_s=30)
    return root / "healthy", truth


def _rounds_needed(bundle: Path) -> int:
    recs = list(recordings(bundle, "exec", EXEC_KEY).values()) + list(recordings(bundle, "scrapes", ("url",)).values())
    return max(len(r) for r in recs)


def _capture(bundle: Path, out: Path, faults: Faults | None = None, rounds: int = 1, **kwargs):
    log = io.StringIO()
    srv = start_server(bundle, faults=faults or Faults(), access_log=log)
    try:
        kubeconfig = srv.write_kubeconfig(out.parent / f"{out.name}.kubeconfig")
        options = CaptureOptions(duration_s=(rounds - 1) * INTERVAL, interval_s=INTERVAL, timeout_s=10)
        result = capture(out, kubeconfig=str(kubeconfig), options=options, **kwargs)
    finally:
        srv.stop()
    return result, log


@pytest.fixture(scope="module")
def clean_capture(healthy, tmp_path_factory):
    bundle, _truth = healthy
    out = tmp_path_factory.mktemp("cap") / "clean"
    result, log = _capture(bundle, out, rounds=_rounds_needed(bundle), all_namespaces=True)
    return bundle, out, result, log


def test_objects_are_all_there_and_equal(clean_capture):
    original, out, result, _ = clean_capture
    assert result.complete and Bundle.open(out).manifest["complete"] is True
    served = last_listing(original)
    got = captured_objects(out)
    missing = set(served) - set(got)
    assert not missing, f"objects lost: {sorted(missing)[:5]}"
    for key, body in served.items():
        assert got[key] == body, f"{key} differs"
    kinds = {k[1] for k in served}
    assert {"Pod", "Node", "Namespace"} <= kinds


def test_exec_scrapes_and_logs_replayed_in_order(clean_capture):
    original, out, result, _ = clean_capture
    assert result.rounds == _rounds_needed(original)
    for name, key in (("exec", EXEC_KEY), ("scrapes", ("url",))):
        want = recordings(original, name, key)
        got = recordings(out, name, key)
        assert set(want) == set(got), f"{name}: keys differ: {set(want) ^ set(got)}"
        for k, recs in want.items():
            if name == "exec" and recs[0]["source"] in ("visible-devices", "dmesg"):
                assert len(got[k]) == 1, k  # once per capture, not per round
            for i, row in enumerate(got[k]):
                expected = recs[min(i, len(recs) - 1)]
                assert row["stdout" if name == "exec" else "body"] == expected["stdout" if name == "exec" else "body"], (k, i)
                if name == "exec":
                    assert row["source"] == expected["source"] and row["node"] == expected["node"]
                    if expected["error"]:
                        assert row["exit_code"] is None and expected["error"] in row["error"]
                    else:
                        assert row["exit_code"] == expected["exit_code"]
                else:
                    assert row["source"] == "dcgm-exporter" and row["node"] == expected["node"] and row["status"] == 200
    want_logs = {(r["namespace"], r["pod"], r["container"], r["previous"]): r for r in rows(original, "logs")}
    got_logs = {(r["namespace"], r["pod"], r["container"], r["previous"]): r for r in rows(out, "logs")}
    assert set(want_logs) <= set(got_logs)
    for k, r in want_logs.items():
        assert got_logs[k]["body"] == r["body"] and got_logs[k]["pod_uid"] == r["pod_uid"], k
        assert got_logs[k]["error"] is None


def test_capture_sent_only_reads(clean_capture):
    _, _, _, log = clean_capture
    reqs = requests_from_log(log)
    assert len(reqs) > 30
    execs = 0
    for method, path, code in reqs:
        assert method == "GET", f"capture sent {method} {path}"
        url = urlsplit(path)
        if url.path.endswith("/exec"):
            execs += 1
            command = tuple(parse_qs(url.query)["command"])
            assert command in ALLOWED_COMMANDS, command
            assert code == 101
        else:
            assert "/exec" not in url.path and "/attach" not in url.path and "/portforward" not in url.path
    assert execs > 5


def test_manifest_statuses_of_a_clean_capture(clean_capture):
    _, out, _, _ = clean_capture
    entries = {c["name"]: c for c in Bundle.open(out).manifest["collectors"]}
    for name in ("nodes", "pods", "namespaces", "dcgm", "nvidia-smi", "visible-devices", "dmesg", "logs", "training-jobs"):
        assert entries[name]["status"] == "ok", entries[name]
    assert entries["prometheus"]["status"] == "skipped"
    assert entries["kueue"]["status"] == "skipped" and entries["kueue"]["errors"] == ["kueue.x-k8s.io not served by this cluster"]
    assert any(s.endswith(" not served by this cluster") for s in entries["training-jobs"]["skipped"])
    assert all(e["rows"] >= 0 and e["started_at"] for e in entries.values() if e["status"] != "skipped" or e["name"] != "prometheus")


def test_job_scope_pulls_pods_nodes_and_only_their_gpu_state(healthy, tmp_path):
    bundle, truth = healthy
    ns, name = truth["job"].split("/")
    result, _ = _capture(bundle, tmp_path / "job", jobs=(f"{truth['job_kind']}/{ns}/{name}",))
    got = captured_objects(tmp_path / "job")
    served = last_listing(bundle)
    job_pods = {k for k, body in served.items() if k[1] == "Pod" and k[2] == ns}
    assert job_pods and job_pods <= set(got)
    assert {k for k in got if k[1] == "Pod" and k[2] == ns} == job_pods
    assert {k for k in served if k[1] == "Node"} <= set(got), "all nodes are listed"
    assert (truth["job_kind"], name) in {(k[1], k[3]) for k in got}
    job_nodes = {got[k]["spec"]["nodeName"] for k in job_pods if got[k]["spec"].get("nodeName")}
    smi_nodes = {r["node"] for r in rows(tmp_path / "job", "exec") if r["source"] == "nvidia-smi-xml"}
    assert smi_nodes == job_nodes
    assert Bundle.open(tmp_path / "job").manifest["scope"]["jobs"] == [f"{ns}/{name}"]


def test_injected_faults_show_in_manifest_and_nothing_else_is_lost(healthy, tmp_path):
    original = tmp_path / "faulty-src"
    shutil.copytree(healthy[0], original)
    training = sorted({r["pod"] for r in rows(original, "exec") if r["source"] == "ss"})
    no_ss_pod = make_pod_lack_ss(original, training[0])
    faults = Faults(forbid=("events",), fail_exec=0.2, error_rate_429=0.1, seed=7)
    out = tmp_path / "faulty"
    result, log = _capture(original, out, faults=faults, rounds=2, all_namespaces=True)
    manifest = Bundle.open(out).manifest
    entries = {c["name"]: c for c in manifest["collectors"]}
    # 403 on events: that collector skipped, saying forbidden.
    assert entries["events"]["status"] == "skipped" and entries["events"]["errors"][0].startswith("list Event")
    assert "forbidden" in entries["events"]["errors"][0]
    # ss missing from one image: partial with the exact reason.
    ns = next(r["namespace"] for r in rows(original, "exec") if r["pod"] == no_ss_pod)
    assert entries["ss"]["status"] == "partial"
    assert any(e.startswith("ss not in image ") and e.endswith(f"(pod {ns}/{no_ss_pod})") for e in entries["ss"]["errors"])
    # 429s were retried (Retry-After honoured), so objects are complete and equal.
    assert manifest["capture"]["retries"] > 0
    served = {k: v for k, v in last_listing(original).items() if k[1] != "Event"}
    got = captured_objects(out)
    assert all(got.get(k) == v for k, v in served.items()), "an object was lost or changed"
    # Every failed exec is named in its collector's errors; every other exec output is a recording.
    want = recordings(original, "exec", EXEC_KEY)
    failed = 0
    collector_of = {"nvidia-smi-xml": "nvidia-smi", "ss": "ss", "visible-devices": "visible-devices", "dmesg": "dmesg",
                    "ncclras": "ncclras", "flight-recorder": "flight-recorder"}
    for r in rows(out, "exec"):
        errors = " ".join(entries[collector_of[r["source"]]]["errors"])
        if r["error"] is not None or r["exit_code"] in (126, 127):
            failed += 1
            assert (r["pod"] or r["node"]) in errors, (r["pod"], r["node"], errors[:300])
        else:
            key = tuple(r[c] for c in EXEC_KEY)
            assert r["stdout"] in {x["stdout"] for x in want[key]}, key
    assert failed > 0
    assert result.complete


def test_kubectl_plugin_help_via_path(tmp_path):
    kubectl = shutil.which("kubectl")
    plugin = shutil.which("kubectl-k10s")
    if kubectl is None or plugin is None:
        pytest.skip("kubectl or the kubectl-k10s console script is not on PATH")
    env = dict(os.environ, PATH=f"{Path(plugin).parent}{os.pathsep}{os.environ.get('PATH', '')}", KUBECONFIG=str(tmp_path / "none"))
    proc = subprocess.run([kubectl, "k10s", "capture", "--help"], capture_output=True, text=True, env=env, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert "--job [KIND/]NS/NAME" in proc.stdout and "--duration" in proc.stdout and "--check" in proc.stdout


def test_job_scope_pulls_its_kueue_workload_and_queues(tmp_path):
    truth = simulate("pending-quota", tmp_path / "pq", seed=2, nodes=2, gpus_per_node=2, minutes=1, interval_s=30)
    ns, name = truth["job"].split("/")
    _capture(tmp_path / "pq", tmp_path / "cap", jobs=(truth["job"],))
    served = last_listing(tmp_path / "pq")
    got = captured_objects(tmp_path / "cap")
    kueue = {k: v for k, v in served.items() if k[0].startswith("kueue.x-k8s.io/")}
    workloads = [k for k in kueue if k[1] == "Workload"]
    assert workloads and any(o["name"] == name for k in workloads for o in served[k]["metadata"].get("ownerReferences", []))
    for key, body in kueue.items():
        assert got.get(key) == body, key
    entries = {c["name"]: c for c in Bundle.open(tmp_path / "cap").manifest["collectors"]}
    assert entries["kueue"]["status"] == "ok"
    assert entries["pods"]["status"] == "ok" and entries["pods"]["skipped"] == [f"no pods found for {ns}/{name}"]


def test_exec_forbidden_everywhere_skips_exec_collectors_and_keeps_the_rest(healthy, tmp_path):
    result, _ = _capture(healthy[0], tmp_path / "noexec", faults=Faults(forbid=("pods/exec",)), all_namespaces=True)
    entries = {c["name"]: c for c in result.bundle.manifest["collectors"]}
    for name in ("nvidia-smi", "ss", "visible-devices", "dmesg"):
        assert entries[name]["status"] == "skipped", entries[name]
        assert entries[name]["errors"] and all("forbidden" in e for e in entries[name]["errors"])
    for name in ("pods", "nodes", "dcgm", "logs"):
        assert entries[name]["status"] == "ok", entries[name]
    failed_rows = [r for r in rows(tmp_path / "noexec", "exec")]
    assert failed_rows and all(r["exit_code"] is None and "forbidden" in r["error"] for r in failed_rows)
