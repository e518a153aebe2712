"""``k10s serve`` over a bundle written by ``k10s simulate``: what capture's end-to-end tests use."""

from __future__ import annotations

import json
import urllib.request

import pyarrow.parquet as pq
import pytest

from k10s_forensics.serve import start_server

simulate_mod = pytest.importorskip("k10s_forensics.simulate")


@pytest.fixture(scope="module")
def sim(tmp_path_factory):
    out = tmp_path_factory.mktemp("serve-sim") / "bundle"
    simulate_mod.simulate("oom-crashloop", out, seed=2, nodes=2, gpus_per_node=2, minutes=2, interval_s=30)
    srv = start_server(out)
    yield out, srv
    srv.stop()


def get(srv, path: str):
    with urllib.request.urlopen(srv.url + path, timeout=10) as resp:
        body = resp.read().decode()
    return json.loads(body) if body.startswith("{") else body


def exec_ws(srv, ns: str, pod: str, container: str, command: str) -> tuple[str, str, dict]:
    """Run one exec through the websocket protocol with websocket-client (v4.channel.k8s.io)."""
    import websocket
    from urllib.parse import urlencode

    query = urlencode([("command", c) for c in command.split()] + [("container", container), ("stdout", "true"), ("stderr", "true")])
    ws = websocket.create_connection(f"ws://127.0.0.1:{srv.port}/api/v1/namespaces/{ns}/pods/{pod}/exec?{query}",
                                     subprotocols=["v4.channel.k8s.io"], timeout=10)
    out, err, status = [], [], {}
    try:
        while True:
            opcode, data = ws.recv_data(control_frame=False)
            if opcode == websocket.ABNF.OPCODE_CLOSE or not data:
                break
            {1: out, 2: err}.get(data[0], []).append(data[1:].decode())
            if data[0] == 3:
                status = json.loads(data[1:])
    finally:
        ws.close()
    return "".join(out), "".join(err), status


def test_last_listing_is_served(sim):
    bundle, srv = sim
    rows = pq.read_table(bundle / "raw" / "objects.parquet").to_pylist()
    last = max(r["captured_at"] for r in rows if r["kind"] == "Pod")
    expected = sorted((r["namespace"], r["name"]) for r in rows if r["kind"] == "Pod" and r["captured_at"] == last)
    served = sorted((i["metadata"]["namespace"], i["metadata"]["name"]) for i in get(srv, "/api/v1/pods")["items"])
    assert served == expected
    jobs = get(srv, "/apis/kubeflow.org/v1/pytorchjobs")["items"]
    truth = json.loads((bundle.parent / "bundle.truth.json").read_text())
    assert [f"{j['metadata']['namespace']}/{j['metadata']['name']}" for j in jobs] == [truth["job"]]


def test_every_exec_recording_replays_in_order(sim):
    bundle, srv = sim
    srv.reset()
    rows = pq.read_table(bundle / "raw" / "exec.parquet").to_pylist()
    groups: dict[tuple, list[dict]] = {}
    for row in sorted(rows, key=lambda r: r["captured_at"]):
        groups.setdefault((row["namespace"], row["pod"], row["container"], row["command"]), []).append(row)
    checked = 0
    for (ns, pod, container, command), recs in list(groups.items())[:6]:
        for rec in recs + recs[-1:]:  # one call past the end returns the last recording again
            out, err, status = exec_ws(srv, ns, pod, container, command)
            assert out == (rec["stdout"] or "") and err == (rec["stderr"] or "")
            expected = "Success" if rec["exit_code"] == 0 else "Failure"
            assert status["status"] == expected
            checked += 1
    assert checked >= 6


def test_dcgm_scrapes_replay_in_order(sim):
    bundle, srv = sim
    srv.reset()
    rows = pq.read_table(bundle / "raw" / "scrapes.parquet").to_pylist()
    url = next(r["url"] for r in rows if r["source"] == "dcgm-exporter")
    recorded = [r["body"] for r in sorted(rows, key=lambda r: r["captured_at"]) if r["url"] == url]
    assert len(recorded) >= 2
    assert [get(srv, url) for _ in recorded] == recorded
