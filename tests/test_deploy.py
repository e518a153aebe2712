"""The k10s watch manifests (deploy/watch): rendered by the real ``kubectl kustomize``, every object
validated offline against the Kubernetes schemas (PyPI's kubernetes-validate), and the security
and consistency promises checked on what was rendered: read-only RBAC (exec the one create),
``create events`` only in the events overlay, non-root on a read-only root filesystem, the
ConfigMap's keys, the ports. The image, the watch's flags and the Alertmanager overlay against the
manifests: tests/test_deploy_watch.py."""

from __future__ import annotations


import pytest
import yaml

from deploy_helpers import (DEPLOY, OVERLAYS, WRITE_VERBS, Rbac, container, deployment, one, quantity_bytes,
                            render_overlays, watch_config)
from k10s_forensics.collectors import COLLECTORS

#: The watch command's config keys (the contract docs/watch.md describes).
CONFIG_KEYS = {"namespaces", "selector", "kinds", "out", "listen", "prometheus", "notify_url", "events", "cooldown_s",
               "max_concurrent", "rate_per_job_per_h", "rate_cluster_per_h", "retention", "capture", "log_follow_bytes_per_pod"}
RETENTION_KEYS = {"max_bundles", "max_age_h", "max_bytes"}
CAPTURE_KEYS = {"duration_s", "deadline_s", "second_round_after_s"}
WATCHED_KINDS = {"PyTorchJob", "TrainJob", "JobSet", "MPIJob", "RayJob"}
#: Kubernetes versions the manifests must validate against (oldest kept by kubernetes-validate, and newest).
K8S_VERSIONS = ("1.29", "1.37")
#: Kinds that only a CRD defines (not in the Kubernetes schemas): checked structurally below.
CRD_KINDS = {"AlertmanagerConfig"}
GPU_OPERATOR_NS = "gpu-operator"
#: Access a capture scoped to namespaces (-n, what overlays/namespaced runs) never uses: -A only.
ALL_NAMESPACES_ONLY = {("", "namespaces", "list")}


@pytest.fixture(scope="module")
def rendered() -> dict[str, list[dict]]:
    return render_overlays()


# ---- schemas ---------------------------------------------------------------------------------
@pytest.mark.parametrize("overlay", sorted(OVERLAYS))
def test_every_rendered_object_validates_against_the_kubernetes_schemas(rendered, overlay):
    kv = pytest.importorskip("kubernetes_validate", reason="pip install kubernetes-validate (in the test extras)")
    docs = rendered[overlay]
    assert docs, overlay
    for doc in docs:
        if doc["kind"] in CRD_KINDS:
            continue
        for version in K8S_VERSIONS:
            try:
                kv.validate(doc, version, strict=True)
            except kv.ValidationError as exc:
                pytest.fail(f"{overlay}: {doc['kind']}/{doc['metadata']['name']} invalid for Kubernetes {version}: {exc.message}")


def test_the_validator_catches_a_bad_object():
    kv = pytest.importorskip("kubernetes_validate", reason="pip install kubernetes-validate (in the test extras)")
    bad = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "x"},
           "spec": {"selector": {}, "template": {"spec": {"containers": [{"name": "c", "imagePullPolicy": "IfNotPresent", "portz": []}]}}}}
    with pytest.raises(kv.ValidationError):
        kv.validate(bad, K8S_VERSIONS[-1], strict=True)


def test_every_overlay_renders_the_watcher_and_its_account(rendered):
    for name, docs in rendered.items():
        kinds = {d["kind"] for d in docs}
        assert {"Namespace", "ServiceAccount", "Deployment", "Service", "PersistentVolumeClaim", "NetworkPolicy", "ConfigMap"} <= kinds, name
        for doc in docs:
            assert doc["metadata"]["labels"]["app.kubernetes.io/part-of"] == "k10s-forensics", (name, doc["kind"], doc["metadata"]["name"])


# ---- RBAC --------------------------------------------------------------------------------------
def _used_by_collectors() -> set[tuple[str, str, str]]:
    return {(a.group, a.resource + (f"/{a.subresource}" if a.subresource else ""), a.verb) for c in COLLECTORS for a in c.access}


def _grant_triples(grants) -> set[tuple[str, str, str]]:
    return {(g, r, v) for _ns, g, r, v in grants}


def test_base_grants_the_capture_role_exactly(rendered):
    """The watcher runs the capture engine: the same rules as deploy/rbac.yaml, no more."""
    capture_role = next(d for d in yaml.safe_load_all((DEPLOY / "rbac.yaml").read_text()) if d and d["kind"] == "ClusterRole")
    rbac = Rbac(rendered["base"])
    assert {ns for ns, *_ in rbac.grants()} == {None}
    capture = {(g, r, v) for rule in capture_role["rules"] for g in rule["apiGroups"] for r in rule["resources"] for v in rule["verbs"]}
    assert _grant_triples(rbac.grants()) == capture


def test_base_is_read_only_but_for_pods_exec_create(rendered):
    for _ns, group, res, verb in Rbac(rendered["base"]).grants():
        assert "*" not in (group, res, verb)
        assert res.split("/")[0] not in ("secrets", "configmaps", "serviceaccounts"), res
        if verb in WRITE_VERBS:
            assert (group, res, verb) == ("", "pods/exec", "create"), f"write verb {verb} on {group}/{res}"
        else:
            assert verb in ("get", "list", "watch"), verb


def test_every_collector_access_is_granted_in_every_overlay(rendered):
    """What ``k10s capture --check`` asks, answered by the rendered RBAC: nothing would be skipped."""
    for name, docs in rendered.items():
        rbac = Rbac(docs)
        scope = watch_config(docs)["namespaces"] or ["team-a"]
        for c in COLLECTORS:
            for a in c.access:
                res = a.resource + (f"/{a.subresource}" if a.subresource else "")
                if a.namespaced:
                    where = scope
                elif res in ("pods/proxy", "pods/exec", "pods/log") and name == "namespaced":
                    where = [GPU_OPERATOR_NS]  # the driver, dcgm-exporter and operand (device plugin, toolkit, validator) pods
                else:
                    where = [None]
                if name == "namespaced" and (a.group, res, a.verb) in ALL_NAMESPACES_ONLY:
                    assert not rbac.allowed(a.verb, a.group, res, None)
                    continue
                for ns in where:
                    assert rbac.allowed(a.verb, a.group, res, ns), f"{name}: {c.name} needs {a.describe()} in {ns or 'the cluster'}"


def test_the_watcher_may_watch_what_it_watches(rendered):
    watched = [("", "pods"), ("", "events"), ("batch", "jobs"), ("kubeflow.org", "pytorchjobs"), ("kubeflow.org", "mpijobs"),
               ("trainer.kubeflow.org", "trainjobs"), ("jobset.x-k8s.io", "jobsets"), ("ray.io", "rayjobs"), ("kueue.x-k8s.io", "workloads")]
    for name, docs in rendered.items():
        rbac = Rbac(docs)
        for ns in watch_config(docs)["namespaces"] or ["team-a"]:
            for group, res in watched:
                assert rbac.allowed("watch", group, res, ns) and rbac.allowed("list", group, res, ns), (name, group, res, ns)


def test_nothing_granted_that_neither_capture_nor_watch_uses(rendered):
    used = {(g, r) for g, r, _v in _used_by_collectors()} | {("", "pods/exec")}
    for name, docs in rendered.items():
        for _ns, group, res, verb in Rbac(docs).grants():
            if (group, res, verb) == ("", "events", "create"):
                continue
            assert (group, res) in used, f"{name}: {group}/{res} granted but neither capture nor watch reads it"


def test_events_create_only_in_the_events_overlay(rendered):
    for name, docs in rendered.items():
        rbac = Rbac(docs)
        writes = {(g, r, v) for _ns, g, r, v in rbac.grants() if v in WRITE_VERBS}
        args = container(docs)["args"]
        if name == "events":
            assert writes == {("", "pods/exec", "create"), ("", "events", "create")}
            assert "--events" in args
        else:
            assert writes == {("", "pods/exec", "create")}, name
            assert "--events" not in args and watch_config(docs)["events"] is False
        assert not rbac.allowed("get", "", "secrets", "team-a") and not rbac.allowed("list", "", "secrets", None)
        assert not rbac.allowed("get", "", "configmaps", "k10s")
        assert not rbac.allowed("delete", "", "pods", "team-a") and not rbac.allowed("patch", "batch", "jobs", "team-a")


def test_namespaced_overlay_grants_only_in_its_namespaces(rendered):
    docs = rendered["namespaced"]
    rbac = Rbac(docs)
    scope = watch_config(docs)["namespaces"]
    assert scope == ["team-a", "team-b"]
    bound = {d["metadata"]["namespace"] for d in docs if d["kind"] == "RoleBinding"}
    assert bound == set(scope) | {GPU_OPERATOR_NS}, "one RoleBinding per watched namespace, plus the GPU operator's"
    assert not any(d["kind"] == "ClusterRoleBinding" and d["roleRef"]["name"] == "k10s-watch-namespaced" for d in docs)
    for verb, res in (("get", "pods/log"), ("create", "pods/exec"), ("get", "pods/proxy"), ("watch", "pods"), ("watch", "events")):
        assert rbac.allowed(verb, "", res, "team-a")
        assert not rbac.allowed(verb, "", res, "team-z"), f"{verb} {res} outside the watched namespaces"
    assert not rbac.allowed("list", "kubeflow.org", "pytorchjobs", "team-z")
    # Node events, listed cluster-wide by field selector (collectors/events.py), and the GPU
    # operator's pods, listed cluster-wide by label (collectors/gpu_operator.py).
    assert rbac.allowed("list", "", "events", None) and rbac.allowed("list", "", "pods", None)
    assert not rbac.allowed("watch", "", "events", None) and not rbac.allowed("get", "", "pods/log", "team-z")
    cluster_wide = {(g, r, v) for ns, g, r, v in rbac.grants() if ns is None}
    assert cluster_wide == {("", "nodes", "get"), ("", "nodes", "list"), ("", "nodes", "watch"), ("", "namespaces", "get"),
                            ("", "pods", "list"), ("", "events", "list"), *{("kueue.x-k8s.io", r, v) for r in ("clusterqueues", "resourceflavors") for v in ("get", "list", "watch")},
                            *{("nvidia.com", "clusterpolicies", v) for v in ("get", "list", "watch")},
                            ("node.k8s.io", "runtimeclasses", "get"), ("node.k8s.io", "runtimeclasses", "list")}


# ---- the pod ---------------------------------------------------------------------------------
@pytest.mark.parametrize("overlay", sorted(OVERLAYS))
def test_pod_runs_non_root_on_a_read_only_root_filesystem(rendered, overlay):
    spec = deployment(rendered[overlay])["spec"]["template"]["spec"]
    pod_sc, c = spec["securityContext"], container(rendered[overlay])
    sc = c["securityContext"]
    assert pod_sc["runAsNonRoot"] is True and pod_sc["runAsUser"] == 65532 and pod_sc["seccompProfile"]["type"] == "RuntimeDefault"
    assert sc["readOnlyRootFilesystem"] is True and sc["allowPrivilegeEscalation"] is False and sc["privileged"] is False
    assert sc["capabilities"] == {"drop": ["ALL"]} and sc["runAsNonRoot"] is True
    for host in ("hostNetwork", "hostPID", "hostIPC"):
        assert not spec.get(host)
    volumes = {v["name"]: v for v in spec["volumes"]}
    assert not any("hostPath" in v for v in volumes.values())
    mounts = {m["mountPath"]: volumes[m["name"]] for m in c["volumeMounts"]}
    assert "emptyDir" in mounts["/tmp"] and "persistentVolumeClaim" in mounts["/var/lib/k10s"] and "configMap" in mounts["/etc/k10s"]
    assert next(m for m in c["volumeMounts"] if m["mountPath"] == "/etc/k10s")["readOnly"] is True
    env = {e["name"]: e.get("value") for e in c["env"]}
    assert all(env[k].startswith("/tmp") for k in ("HOME", "XDG_CACHE_HOME", "K10S_CACHE_DIR", "TMPDIR"))
    assert c["resources"]["requests"] and c["resources"]["limits"]["memory"] and c["resources"]["limits"]["cpu"]
    # DuckDB's threads follow the container's CPU limit, not the node's cores (K10S_THREADS)
    threads = next(e for e in c["env"] if e["name"] == "K10S_THREADS")["valueFrom"]["resourceFieldRef"]
    assert threads == {"containerName": c["name"], "resource": "limits.cpu", "divisor": "1"}
    for probe in ("livenessProbe", "readinessProbe"):
        assert c[probe]["httpGet"] == {"path": "/healthz", "port": "http"}
    assert deployment(rendered[overlay])["spec"]["replicas"] == 1


def test_config_keys_match_the_watch_contract(rendered):
    for name, docs in rendered.items():
        cfg = watch_config(docs)
        assert set(cfg) == CONFIG_KEYS, name
        assert set(cfg["retention"]) == RETENTION_KEYS and set(cfg["capture"]) == CAPTURE_KEYS
        assert cfg["out"] == "/var/lib/k10s/bundles" and cfg["listen"] == "0.0.0.0:8080"
        assert set(cfg["kinds"]) <= WATCHED_KINDS
        pvc = one(docs, "PersistentVolumeClaim")
        assert cfg["retention"]["max_bytes"] < quantity_bytes(pvc["spec"]["resources"]["requests"]["storage"]), "retention must fit the volume"
        tmp = next(v for v in deployment(docs)["spec"]["template"]["spec"]["volumes"] if v["name"] == "tmp")
        assert quantity_bytes(tmp["emptyDir"]["sizeLimit"]) >= cfg["log_follow_bytes_per_pod"]


def test_ports_service_and_network_policy_agree(rendered):
    for name, docs in rendered.items():
        c = container(docs)
        port = int(watch_config(docs)["listen"].rsplit(":", 1)[1])
        assert c["ports"] == [{"name": "http", "containerPort": port, "protocol": "TCP"}]
        pod_labels = deployment(docs)["spec"]["template"]["metadata"]["labels"]
        svc = one(docs, "Service")
        assert svc["spec"]["ports"][0]["targetPort"] == "http" and svc["spec"]["ports"][0]["port"] == port
        assert svc["spec"]["selector"].items() <= pod_labels.items()
        np = one(docs, "NetworkPolicy")
        assert np["spec"]["podSelector"]["matchLabels"].items() <= pod_labels.items()
        assert set(np["spec"]["policyTypes"]) == {"Ingress", "Egress"}
        assert [p["port"] for rule in np["spec"]["ingress"] for p in rule["ports"]] == [port]
        egress_ports = {p["port"] for rule in np["spec"]["egress"] for p in rule["ports"]}
        assert {53, 443, 6443, 9090} <= egress_ports, name
