"""``k10s serve`` over HTTP with Python clients: API shapes, replay cursors, ``--at``, faults, CLI."""

from __future__ import annotations

import concurrent.futures as cf
import datetime as dt
import http.client
import json
import subprocess
import sys
import time
import urllib.error
import urllib.request

import pytest

from k10s_forensics.serve import Faults, start_server
from serve_helpers import DCGM_PATH, END, ROUND_1, build_bundle, nvidia_xml

TABLE_ACCEPT = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json"


@pytest.fixture(scope="module")
def bundle(tmp_path_factory):
    return build_bundle(tmp_path_factory.mktemp("serve-api") / "bundle")


@pytest.fixture(scope="module")
def server(bundle):
    srv = start_server(bundle)
    yield srv
    srv.stop()


def call(srv, path: str, method: str = "GET", accept: str = "application/json", timeout: float = 10):
    """(status, headers, parsed JSON or text) without raising on HTTP errors."""
    req = urllib.request.Request(srv.url + path, method=method, headers={"Accept": accept})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            status, headers, body = resp.status, dict(resp.headers), resp.read().decode()
    except urllib.error.HTTPError as err:
        status, headers, body = err.code, dict(err.headers), err.read().decode()
    try:
        return status, headers, json.loads(body)
    except json.JSONDecodeError:
        return status, headers, body


def names(doc) -> list[str]:
    return [i["metadata"]["name"] for i in doc["items"]]


# ---- API shapes -----------------------------------------------------------------------------
def test_discovery_lists_captured_kinds(server):
    _, _, groups = call(server, "/apis")
    by_name = {g["name"]: g for g in groups["groups"]}
    assert set(by_name) == {"batch", "kubeflow.org"}
    assert by_name["kubeflow.org"]["preferredVersion"]["groupVersion"] == "kubeflow.org/v1"
    _, _, core = call(server, "/api/v1")
    pods = next(r for r in core["resources"] if r["name"] == "pods")
    assert pods["namespaced"] and "po" in pods["shortNames"] and set(pods["verbs"]) >= {"get", "list"}
    assert any(r["name"] == "pods/exec" for r in core["resources"])
    _, _, kf = call(server, "/apis/kubeflow.org/v1")
    assert [(r["name"], r["kind"], r["namespaced"]) for r in kf["resources"]] == [("pytorchjobs", "PyTorchJob", True)]
    status, _, version = call(server, "/version")
    assert status == 200 and version["gitVersion"] == "v1.31.2" and version["minor"] == "31"


def test_list_is_a_real_kubernetes_list(server):
    status, _, doc = call(server, "/api/v1/namespaces/team-a/pods")
    assert status == 200 and doc["kind"] == "PodList" and doc["apiVersion"] == "v1"
    assert doc["metadata"]["resourceVersion"]
    assert names(doc) == ["llama-ft-launcher", "llama-ft-worker-0", "llama-ft-worker-1"]
    assert all(i["kind"] == "Pod" for i in doc["items"])
    _, _, job = call(server, "/apis/kubeflow.org/v1/namespaces/team-a/pytorchjobs/llama-ft")
    assert job["kind"] == "PyTorchJob" and job["metadata"]["uid"] == "uid-llama-ft"
    status, _, missing = call(server, "/api/v1/namespaces/team-a/pods/nope")
    assert status == 404 and missing["kind"] == "Status" and missing["reason"] == "NotFound"
    assert missing["message"] == 'pods "nope" not found'


def test_pagination_with_continue_tokens(server):
    seen, token, pages = [], "", 0
    while True:
        path = "/api/v1/pods?limit=2" + (f"&continue={token}" if token else "")
        _, _, doc = call(server, path)
        seen += [(i["metadata"]["namespace"], i["metadata"]["name"]) for i in doc["items"]]
        pages += 1
        token = doc["metadata"].get("continue")
        if not token:
            break
        assert doc["metadata"]["remainingItemCount"] == 5 - len(seen)
    assert pages == 3 and len(seen) == 5 and seen == sorted(seen)
    status, _, doc = call(server, "/api/v1/pods?limit=2&continue=garbage!")
    assert status == 400 and doc["reason"] == "BadRequest"


def test_selectors(server):
    def pods(query: str) -> list[str]:
        status, _, doc = call(server, "/api/v1/pods?" + query)
        assert status == 200, doc
        return sorted(names(doc))

    assert pods("labelSelector=app%3Dllama%2Crole%21%3Dlauncher") == ["llama-ft-worker-0", "llama-ft-worker-1"]
    assert pods("labelSelector=rank") == ["llama-ft-worker-0", "llama-ft-worker-1"]
    assert pods("labelSelector=%21rank%2Capp+notin+%28bert%29") == ["llama-ft-launcher", "nvidia-dcgm-exporter-x7k2p"]
    assert pods("fieldSelector=metadata.name%3Dbert-pretrain-0") == ["bert-pretrain-0"]
    assert pods("fieldSelector=spec.nodeName%3D") == ["bert-pretrain-0"]  # unscheduled: empty nodeName
    assert pods("fieldSelector=status.phase%3DRunning%2Cspec.nodeName%3Dgpu-node-2") == ["llama-ft-worker-1"]
    status, _, doc = call(server, "/api/v1/pods?labelSelector=a+in+%28b")
    assert status == 400


def test_table_response(server):
    _, _, doc = call(server, "/api/v1/namespaces/team-a/pods", accept=TABLE_ACCEPT)
    assert doc["kind"] == "Table" and doc["apiVersion"] == "meta.k8s.io/v1"
    cols = [(c["name"], c["priority"]) for c in doc["columnDefinitions"]]
    assert cols[:6] == [("Name", 0), ("Ready", 0), ("Status", 0), ("Restarts", 0), ("Age", 0), ("IP", 1)]
    row = next(r for r in doc["rows"] if r["cells"][0] == "llama-ft-worker-1")
    assert row["object"]["kind"] == "PartialObjectMetadata" and row["object"]["metadata"]["namespace"] == "team-a"
    _, _, doc = call(server, "/apis/kubeflow.org/v1/namespaces/team-a/pytorchjobs/llama-ft", accept=TABLE_ACCEPT)
    assert [c["name"] for c in doc["columnDefinitions"]] == ["Name", "State", "Age"] and len(doc["rows"]) == 1


@pytest.mark.parametrize("method", ["POST", "PUT", "PATCH", "DELETE"])
def test_every_write_verb_is_405(server, method):
    status, _, doc = call(server, "/api/v1/namespaces/team-a/pods/llama-ft-worker-0", method=method)
    assert status == 405 and doc["kind"] == "Status" and doc["reason"] == "MethodNotAllowed"
    _, _, after = call(server, "/api/v1/namespaces/team-a/pods/llama-ft-worker-0")
    assert after["metadata"]["name"] == "llama-ft-worker-0"


def test_log_parameters(server):
    base = "/api/v1/namespaces/team-a/pods/llama-ft-worker-1/log?container=pytorch"
    _, _, text = call(server, base + "&tailLines=1")
    assert text == "[rank1]: step 247\n"
    _, _, text = call(server, base + "&timestamps=true&sinceSeconds=75")  # window end 10:10; lines at 9:00, 9:30
    assert text.splitlines() == ["2026-01-10T10:09:00.123456789Z [rank1]: loading checkpoint shard 3/8",
                                 "2026-01-10T10:09:30.123456789Z [rank1]: step 247"]
    _, _, text = call(server, base + "&limitBytes=8")
    assert text == "[rank1]:"
    status, _, doc = call(server, "/api/v1/namespaces/team-a/pods/llama-ft-worker-0/log")
    assert status == 404 and "not captured" in doc["message"]  # default container pytorch, no log rows


def test_proxy_cursor_and_unknown_path(server):
    server.reset()
    values = [call(server, DCGM_PATH)[2].rstrip().rsplit(" ", 1)[1] for _ in range(3)]
    assert values == ["97", "12", "12"]  # successive recordings, then the last again
    status, _, doc = call(server, DCGM_PATH.replace("/metrics", "/other"))
    assert status == 404


def test_exec_with_kubernetes_python_client(server, tmp_path):
    from kubernetes import client, config
    from kubernetes.stream import stream

    server.reset()
    api = client.CoreV1Api(config.new_client_from_config(str(server.write_kubeconfig(tmp_path / "kc"))))

    def run(command: list[str]):
        resp = stream(api.connect_get_namespaced_pod_exec, "llama-ft-worker-0", "team-a", command=command,
                      container="pytorch", stdout=True, stderr=True, stdin=False, tty=False, _preload_content=False)
        resp.run_forever(timeout=10)
        return resp.read_stdout(), resp.read_stderr(), resp.returncode

    out1, _, code1 = run(["nvidia-smi", "-q", "-x"])
    out2, _, code2 = run(["nvidia-smi", "-q", "-x"])
    assert (out1, code1) == (nvidia_xml(), 0)
    assert "<!-- round 2 -->" in out2 and code2 == 0
    assert run(["printenv", "NVIDIA_VISIBLE_DEVICES"])[2] == 1
    _, err, code = run(["cat", "/etc/hostname"])
    assert code == 126 and "command not captured in this bundle" in err


# ---- --at -----------------------------------------------------------------------------------
def test_at_selects_an_earlier_listing(bundle):
    with start_server(bundle, at=ROUND_1 + dt.timedelta(seconds=30)) as early:
        _, _, doc = call(early, "/api/v1/namespaces/team-a/pods")
        assert "warmup-0" in names(doc)
        _, _, pod = call(early, "/api/v1/namespaces/team-a/pods/llama-ft-worker-1")
        assert pod["status"]["phase"] == "Running" and "waiting" not in pod["status"]["containerStatuses"][0]["state"]
        _, _, events = call(early, "/api/v1/events")
        assert events["items"] == []  # no events listed by then
    with start_server(bundle, at=END) as late:
        _, _, doc = call(late, "/api/v1/namespaces/team-a/pods")
        assert "warmup-0" not in names(doc)


# ---- faults ---------------------------------------------------------------------------------
def test_fault_429_and_500(bundle):
    with start_server(bundle, faults=Faults(error_rate_429=0.5, error_rate_500=0.25, seed=7)) as srv:
        statuses = []
        for _ in range(80):
            status, headers, doc = call(srv, "/api/v1/nodes")
            statuses.append(status)
            if status == 429:
                assert headers.get("Retry-After") == "1" and doc["reason"] == "TooManyRequests"
            if status == 500:
                assert doc["reason"] == "InternalError"
        assert 20 <= statuses.count(429) <= 60 and 5 <= statuses.count(500) <= 35 and statuses.count(200) >= 5
        assert call(srv, "/api/v1")[0] == 200  # discovery is exempt
        injected = srv.stats()["faults"]["injected"]
        assert injected["429"] == statuses.count(429) and injected["500"] == statuses.count(500)


def test_fault_forbid(bundle):
    with start_server(bundle, faults=Faults(forbid=("nodes", "pods/exec", "pytorchjobs.kubeflow.org"))) as srv:
        status, _, doc = call(srv, "/api/v1/nodes")
        assert status == 403 and doc["reason"] == "Forbidden"
        assert doc["message"].startswith('nodes is forbidden: User "') and 'cannot list resource "nodes"' in doc["message"]
        status, _, doc = call(srv, "/apis/kubeflow.org/v1/namespaces/team-a/pytorchjobs")
        assert status == 403 and 'in the namespace "team-a"' in doc["message"]
        assert call(srv, "/api/v1/pods")[0] == 200  # pods/exec forbids only the subresource
        status, _, doc = call(srv, "/api/v1/namespaces/team-a/pods/llama-ft-worker-0/exec?command=ls", method="POST")
        assert status == 403 and 'cannot create resource "pods/exec"' in doc["message"]


def test_fault_timeout_drops_the_connection(bundle):
    with start_server(bundle, faults=Faults(timeout_rate=1.0, timeout_hang_s=0.3)) as srv:
        conn = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=5)
        started = time.monotonic()
        conn.request("GET", "/api/v1/nodes")
        with pytest.raises((http.client.RemoteDisconnected, ConnectionError)):
            conn.getresponse()
        assert time.monotonic() - started >= 0.3


def test_fault_vanishing_pods(bundle):
    with start_server(bundle, faults=Faults(vanish_pods=0.4, vanish_after=3, seed=1)) as srv:
        gone = srv.stats()["faults"]["vanishing_pods"]
        assert len(gone) == 2  # 40% of 5 pods
        ns, name = gone[0].split("/")
        assert call(srv, f"/api/v1/namespaces/{ns}/pods/{name}")[0] == 200  # request 1
        call(srv, "/api/v1/nodes")  # request 2
        status, _, doc = call(srv, f"/api/v1/namespaces/{ns}/pods/{name}")  # request 3: gone now
        assert status == 404 and doc["reason"] == "NotFound"
        _, _, listed = call(srv, "/api/v1/pods")
        assert len(listed["items"]) == 3 and name not in names(listed)
        assert call(srv, f"/api/v1/namespaces/{ns}/pods/{name}/log")[0] == 404


def test_fault_failing_exec(bundle, tmp_path):
    from kubernetes import client, config
    from kubernetes.stream import stream

    with start_server(bundle, faults=Faults(fail_exec=1.0)) as srv:
        api = client.CoreV1Api(config.new_client_from_config(str(srv.write_kubeconfig(tmp_path / "kc"))))
        resp = stream(api.connect_get_namespaced_pod_exec, "llama-ft-worker-0", "team-a", command=["nvidia-smi", "-q", "-x"],
                      container="pytorch", stdout=True, stderr=True, stdin=False, tty=False, _preload_content=False)
        resp.run_forever(timeout=10)
        assert resp.read_stdout() == ""
        error = json.loads(resp.read_channel(3))
        assert error["status"] == "Failure" and error["reason"] == "InternalError" and "injected" in error["message"]


def test_latency_overlaps_across_concurrent_requests(bundle):
    with start_server(bundle, faults=Faults(latency_ms=200)) as srv:
        started = time.monotonic()
        with cf.ThreadPoolExecutor(64) as pool:
            statuses = list(pool.map(lambda _: call(srv, "/api/v1/pods")[0], range(128)))
        elapsed = time.monotonic() - started
    assert statuses == [200] * 128
    assert elapsed < 3.0, f"128 requests at 200 ms with 64 clients took {elapsed:.1f}s (latency must not serialise)"


# ---- CLI ------------------------------------------------------------------------------------
def test_cli_rejects_a_path_that_is_not_a_bundle(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "k10s_forensics", "serve", str(tmp_path)], capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 2
    assert proc.stderr.strip().count("\n") == 0 and "not a k10s bundle" in proc.stderr


def test_cli_serves_and_writes_a_kubeconfig(bundle, tmp_path):
    kubeconfig = tmp_path / "kc"
    proc = subprocess.Popen([sys.executable, "-m", "k10s_forensics", "serve", str(bundle), "--kubeconfig", str(kubeconfig)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        first = proc.stdout.readline()
        assert first.startswith(f"serving {bundle} on http://127.0.0.1:")
        url = first.split(" on ", 1)[1].split(" ", 1)[0]
        assert f"server: \"{url}\"" in kubeconfig.read_text()
        with urllib.request.urlopen(url + "/api/v1/nodes", timeout=10) as resp:
            assert [i["metadata"]["name"] for i in json.load(resp)["items"]] == ["gpu-node-1", "gpu-node-2"]
    finally:
        proc.terminate()
        assert proc.wait(timeout=10) == 0
