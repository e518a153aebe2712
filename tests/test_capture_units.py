"""Small pure parts of capture: parsing flags, scope, pod summaries, log truncation, exec status, --check."""

from __future__ import annotations

import pytest

from k10s_forensics.capture import parse_duration, parse_size, default_output_dir
from k10s_forensics.capture.check import predict
from k10s_forensics.capture.commands import binary_missing
from k10s_forensics.capture.execws import _exit_status
from k10s_forensics.capture.inventory import Inventory, NodeInfo, PodInfo
from k10s_forensics.capture.scope import JobRef, Scope
from k10s_forensics.capture.source import ExecResult, object_json
from k10s_forensics.collectors import COLLECTORS, BY_NAME
from k10s_forensics.collectors.logs import head_and_tail
from k10s_forensics.errors import CollectorError


@pytest.mark.parametrize("text,seconds", [("90", 90), ("90s", 90), ("2m", 120), ("1h30m", 5400), ("500ms", 0.5), ("0s", 0)])
def test_parse_duration(text, seconds):
    assert parse_duration(text) == pytest.approx(seconds)


@pytest.mark.parametrize("text", ["", "2x", "m", "-1s", "1.2.3s"])
def test_parse_duration_rejects(text):
    with pytest.raises(CollectorError):
        parse_duration(text)


def test_parse_size():
    assert parse_size("5Mi") == 5 << 20 and parse_size("512k") == 512 << 10 and parse_size("100") == 100
    with pytest.raises(CollectorError):
        parse_size("lots")


def test_default_output_dir_is_safe_for_arn_contexts():
    name = default_output_dir("arn:aws:eks:us-east-1:123:cluster/prod east").name
    assert name.startswith("k10s-arn-aws-eks-us-east-1-123-cluster-prod-east-") and name.endswith("Z")
    assert "/" not in name and ":" not in name


def test_jobref_forms():
    assert JobRef.parse("team-a/llama-ft") == JobRef("team-a", "llama-ft")
    ref = JobRef.parse("PyTorchJob/team-a/llama-ft")
    assert ref.kind == "PyTorchJob" and ref.kind_matches("PyTorchJob", "pytorchjobs", "kubeflow.org")
    assert JobRef.parse("pytorchjobs.kubeflow.org/a/b").kind_matches("PyTorchJob", "pytorchjobs", "kubeflow.org")
    assert not ref.kind_matches("TrainJob", "trainjobs", "trainer.kubeflow.org")
    for bad in ("llama", "a/b/c/d", "/x", "a//b"):
        with pytest.raises(CollectorError):
            JobRef.parse(bad)


def test_scope_build():
    assert Scope.build(default_namespace="ml").namespaces == ("ml",)
    s = Scope.build(namespaces=("x",), jobs=("team-a/j",))
    assert s.namespaces == ("x", "team-a") and s.job_scoped
    assert Scope.build(all_namespaces=True).ns_paths("/api/v1", "pods") == ["/api/v1/pods"]
    assert s.ns_paths("/api/v1", "pods") == ["/api/v1/namespaces/x/pods", "/api/v1/namespaces/team-a/pods"]


def _pod(name, labels, node="n1", gpus=8, containers=("pytorch",), owners=()):
    return {"metadata": {"namespace": "team-a", "name": name, "uid": "u-" + name, "labels": labels,
                         "ownerReferences": [{"uid": o} for o in owners]},
            "spec": {"nodeName": node, "containers": [{"name": c, "image": "img", "resources": {"limits": {"nvidia.com/gpu": str(gpus)}} if i == 0 else {}}
                                                      for i, c in enumerate(containers)]},
            "status": {"phase": "Running", "containerStatuses": [{"name": containers[0], "restartCount": 2, "state": {"running": {}},
                                                                  "lastState": {"terminated": {"exitCode": 1}}}]}}


def test_job_scope_matches_labels_and_owners():
    inv = Inventory(Scope.build(jobs=("team-a/llama-ft",)))
    inv.job_uids = {"js-uid"}
    assert inv.pod_in_scope(_pod("llama-ft-worker-0", {"training.kubeflow.org/job-name": "llama-ft"}))
    assert inv.pod_in_scope(_pod("x-node-0-0", {"jobset.sigs.k8s.io/jobset-name": "llama-ft"}))
    assert inv.pod_in_scope(_pod("anything", {}, owners=("js-uid",)))
    assert not inv.pod_in_scope(_pod("other-worker-0", {"training.kubeflow.org/job-name": "other"}))
    other_ns = _pod("llama-ft-worker-0", {"training.kubeflow.org/job-name": "llama-ft"})
    other_ns["metadata"]["namespace"] = "team-b"
    assert not inv.pod_in_scope(other_ns)


def test_pod_summary_and_gpu_nodes():
    p = PodInfo.from_object(_pod("w0", {}, containers=("sidecar", "pytorch")))
    assert p.gpus == 8 and p.training_container().name == "pytorch"
    assert p.containers[0].has_previous and p.containers[0].ever_started and not p.containers[1].ever_started
    inv = Inventory(Scope.build(namespaces=("team-a",)))
    inv.pods = {p.key: p}
    inv.nodes = {"n1": NodeInfo("n1", 8, {}), "n2": NodeInfo("n2", 8, {}), "cpu": NodeInfo("cpu", 0, {})}
    assert inv.gpu_nodes() == ["n1"], "namespace scope samples only the nodes its pods run on"
    inv_all = Inventory(Scope.build(all_namespaces=True))
    inv_all.nodes = inv.nodes
    assert inv_all.gpu_nodes() == ["n1", "n2"]


def test_head_and_tail_keeps_whole_timestamped_lines_within_cap():
    lines = [f"2026-11-21T10:00:{i % 60:02d}.000000000Z line {i}\n" for i in range(1000)]
    text = "".join(lines)
    out = head_and_tail(text[:4000], "".join(lines[-200:]), 4000)
    assert len(out.encode()) <= 4000
    assert out.startswith(lines[0]) and out.endswith(lines[-1])
    assert all(line.startswith("2026-11-21T") for line in out.splitlines())


def test_exec_status_and_missing_binary():
    assert _exit_status({"status": "Success"}) == (0, None)
    doc = {"status": "Failure", "reason": "NonZeroExitCode", "details": {"causes": [{"reason": "ExitCode", "message": "3"}]}}
    assert _exit_status(doc) == (3, None)
    code, err = _exit_status({"status": "Failure", "reason": "InternalError",
                              "message": 'exec: "ss": executable file not found in $PATH: unknown'})
    assert code is None and "executable file not found" in err
    assert _exit_status(None)[0] is None
    assert binary_missing(ExecResult(None, "", "", 'exec: "ss": executable file not found in $PATH', 3))
    assert binary_missing(ExecResult(127, "", "sh: ss: not found", None, 3))
    assert not binary_missing(ExecResult(1, "", "", None, 3))
    assert not binary_missing(ExecResult(None, "", "", "forbidden: pods exec", 3))


def test_object_json_adds_kind_like_kubectl():
    assert object_json({"metadata": {"name": "a"}}, "v1", "Pod").startswith('{"apiVersion":"v1","kind":"Pod"')
    assert object_json({"apiVersion": "x/v1", "kind": "K", "metadata": {}}, "v1", "Pod").startswith('{"apiVersion":"x/v1"')


def test_check_predicts_skipped_and_partial():
    scope = Scope.build(namespaces=("team-a", "team-b"))

    def decide(access, ns):
        if access.subresource == "exec":
            return False, "no RBAC rule"
        if access.resource == "pods" and ns == "team-b":
            return False, ""
        return True, ""

    verdicts = {v.collector: v for v in predict(COLLECTORS, scope, decide)}
    assert verdicts["ss"].outcome == "skipped" and "create pods/exec in team-a: no RBAC rule" in verdicts["ss"].denied
    assert verdicts["pods"].outcome == "partial" and verdicts["pods"].denied == ["list pods in team-b"]
    assert verdicts["nodes"].outcome == "ok"
    assert BY_NAME["nodes"].access[0].namespaced is False


def test_rich_progress_renders_collectors_and_counters():
    import io
    from types import SimpleNamespace

    from rich.console import Console

    from k10s_forensics.capture.context import CollectorRun
    from k10s_forensics.capture.progress import RichProgress
    from k10s_forensics.capture.source import CallStats

    buf = io.StringIO()
    progress = RichProgress(Console(file=buf, force_terminal=False, width=160))
    ok, bad = CollectorRun("nodes", rows=5, items_ok=1), CollectorRun("ss", rows=1, items_ok=1)
    bad.add_error("ss not in image img:1 (pod a/b)")
    ok.status = bad.status = "done"
    engine = SimpleNamespace(source=SimpleNamespace(stats=CallStats(calls=42, retries=3)), runs={"nodes": ok, "ss": bad})
    progress.add_node_tasks(10)
    progress.node_done()
    progress.start(engine)
    progress.set_phase("round 2")
    progress.stop()
    text = buf.getvalue()
    assert "round 2" in text and "calls 42" in text and "retries 3" in text and "nodes/pods done 1/10" in text
    assert "ss not in image img:1 (pod a/b)" in text and "partial" in text


def test_promql_limits_series_to_scope_gpus_by_uuid():
    from k10s_forensics.capture.promplan import raw_query, selector

    assert selector("DCGM_FI_DEV_GPU_UTIL", None) == "DCGM_FI_DEV_GPU_UTIL"
    q = raw_query("DCGM_FI_DEV_GPU_UTIL", {"UUID": ["GPU-1", "ip-10-0-3-17.ec2.internal"]}, 100.0, 160.0)
    assert q == r'DCGM_FI_DEV_GPU_UTIL{UUID=~"GPU-1|ip-10-0-3-17\\.ec2\\.internal"}[60001ms]'
