"""k10s diff on hand-built and real inputs: secrets, real nvidia-smi XML, redacted bundles, ranking."""

from __future__ import annotations

import pytest

from k10s_forensics.store.bundle import Bundle
from k10s_forensics.diff import diff
from k10s_forensics.diff.rank import rank_changes
from tests.k8s_builders import T0, container, make_bundle, obj_row, pod, pytorch_labels, pytorchjob

SECRET = "hunter2-very-secret-value"


def _pod_bundle(path, secret: str, qps: str):
    env = {"NCCL_IB_QPS_PER_CONNECTION": qps, "NCCL_SECRET_TOKEN": secret, "HF_TOKEN": secret, "OTHER": "x"}
    c = container(gpus=8, env=env, args=["train.py", f"--api-key={secret}", "--hf-token", secret, "--lr", qps])
    objects = [obj_row(pytorchjob("llama", 1, 8, master=False)),
               obj_row(pod("llama-worker-0", labels=pytorch_labels("llama", "worker", 0), containers=[c], owner=("PyTorchJob", "llama")))]
    return make_bundle(path, objects)


def test_secrets_are_hashed_never_shown(tmp_path):
    base = _pod_bundle(tmp_path / "a", SECRET, "2")
    cur = _pod_bundle(tmp_path / "b", SECRET + "-rotated", "4")
    result = diff([base], cur, baseline_given="a", bundle_given="b", use_findings=False)
    from k10s_forensics.diff.render import to_json, to_markdown, to_text

    outputs = [to_json(result), to_text(result), to_markdown(result)]
    assert all(SECRET not in out for out in outputs)
    attrs = {g["attribute"]: g for g in result["changes"]}
    assert attrs["env pytorch NCCL_IB_QPS_PER_CONNECTION"]["current"] == "4"
    token = attrs["env pytorch NCCL_SECRET_TOKEN"]
    assert token["baseline"].startswith("sha256:") and token["baseline"] != token["current"]
    assert "env pytorch HF_TOKEN" not in attrs and "env pytorch OTHER" not in attrs  # not a training-env prefix
    assert attrs.get("args pytorch") is None or "<hidden>" in attrs["args pytorch"]["current"]


def _exec(node: str, xml: str) -> dict:
    return {"captured_at": T0, "duration_ms": 120, "source": "nvidia-smi-xml", "node": node, "namespace": "gpu-operator",
            "pod": f"driver-{node}", "container": "nvidia-driver-ctr", "command": "nvidia-smi -q -x", "exit_code": 0,
            "stdout": xml, "stderr": "", "error": None}


def test_real_nvidia_smi_outputs_as_nodes(tmp_path, real_samples):
    files = sorted((real_samples / "nvidia-smi-xml").glob("*.xml"))
    a100, t4, p100 = (next(f for f in files if f.name.startswith(p)) for p in ("a100-sxm4-80gb", "tesla-t4", "tesla-p100"))
    base = make_bundle(tmp_path / "a", [], [_exec("node-1", a100.read_text()), _exec("node-2", t4.read_text())])
    cur = make_bundle(tmp_path / "b", [], [_exec("node-1", a100.read_text()), _exec("node-2", p100.read_text())])
    result = diff([base], cur, baseline_given="a", bundle_given="b", use_findings=False)
    node2 = {g["attribute"]: g for g in result["changes"] if g["facet"] == "node"}
    assert node2["GPU drivers"]["baseline"] == "515.105.01" and node2["GPU drivers"]["current"] == "510.47.03"
    assert node2["GPU products"]["baseline"] == "Tesla T4" and node2["GPU products"]["current"] == "Tesla P100-PCIE-16GB"
    gone = [g for g in result["changes"] if g["facet"] == "gpu" and g["attribute"] == "present"]
    assert {g["current"] for g in gone} == {"present", "absent"}  # one board left node-2, another came
    assert all(g["nodes"] == ["node-2"] for g in result["changes"] if g["nodes"])  # node-1 is the same A100
    assert result["unchanged"]["gpu"]["unchanged"] >= 15  # VBIOS, InfoROM, ECC, PCIe, ... of the A100 read and equal


def test_redacted_bundles_diff_by_their_pseudonyms(tmp_path):
    from k10s_forensics.sharing.redact import redact
    from k10s_forensics.simulate import simulate

    key = tmp_path / "k.key"
    key.write_bytes(b"0" * 32)
    for name, variants in (("a", ()), ("b", ("later", "driver-node"))):
        simulate("healthy", tmp_path / name, seed=4, nodes=2, gpus_per_node=2, minutes=3, interval_s=20, variants=variants)
        redact(tmp_path / name, tmp_path / f"{name}-r", level="strict", key_file=key)
    result = diff([Bundle.open(tmp_path / "a-r")], Bundle.open(tmp_path / "b-r"), baseline_given="a", bundle_given="b",
                  use_findings=False)
    first = result["changes"][0]
    assert (first["facet"], first["attribute"], first["count"]) == ("gpu", "driver", 2)
    assert not any(g["attribute"] == "present" for g in result["changes"])  # same pseudonyms: nothing appeared


def _row(facet, subject, attribute, node=None, gpu=None, rank=None, scope="gpu"):
    return {"facet": facet, "scope": scope, "subject": subject, "node": node, "gpu": gpu, "rank": rank, "attribute": attribute,
            "baseline": "a", "current": "b", "changed": True, "comparable": True, "size": None, "spread_x": None}


def test_culprit_changes_rank_before_local_before_everywhere():
    rows = [_row("job", "ns/job", "env pytorch NCCL_ALGO", scope="job"),
            _row("gpu", "S1", "power limit", node="n1", gpu="S1"),
            _row("node", "n2", "kernel", node="n2", scope="node"),
            _row("gpu", "S3", "VBIOS", node="n3", gpu="S3")]
    rows += [dict(_row("gpu", s, "VBIOS", node=n, gpu=s), changed=False) for s, n in (("S1", "n1"), ("S2", "n2"))]
    ranked = rank_changes(rows, {"nodes": {"n2"}, "gpus": set(), "ranks": set()})
    assert [(g["tier"], g["attribute"]) for g in ranked] == [
        ("culprit", "kernel"), ("local", "power limit"), ("local", "VBIOS"), ("everywhere", "env pytorch NCCL_ALGO")]
    assert [g["rank"] for g in ranked] == [1, 2, 3, 4]


@pytest.mark.parametrize("missing", ["baseline", "bundle"])
def test_library_refuses_a_missing_bundle(tmp_path, missing):
    from k10s_forensics.errors import BundleError

    with pytest.raises(BundleError):
        Bundle.open(tmp_path / missing)



def test_view_d_pane_filters_to_the_node_or_job():
    from k10s_forensics.view.diffpane import diff_lines

    g = {"rank": 1, "tier": "local", "facet": "gpu", "scope": "gpu", "attribute": "driver", "baseline": "550", "current": "570",
         "count": 4, "of": 8, "subjects": ["S1", "S2", "S3", "S4"], "nodes": ["n2"], "size": None}
    j = {"rank": 2, "tier": "everywhere", "facet": "job", "scope": "job", "attribute": "env pytorch NCCL_ALGO", "baseline": "Ring",
         "current": "Tree", "count": 1, "of": 1, "subjects": ["ns/job"], "nodes": [], "size": None}
    result = {"baseline": {"given": "b", "runs": 1}, "changes": [g, j],
              "unchanged": {"gpu": {"compared": 10, "unchanged": 6, "changed": 4, "not_comparable": 0}}}
    _, node2 = diff_lines(result, "node", "n2")
    _, node1 = diff_lines(result, "node", "n1")
    _, job = diff_lines(result, "job", "ns/job")
    assert any("driver: 550 -> 570" in line for line in node2) and not any("NCCL_ALGO" in line for line in node2)
    assert any("nothing changed on this node" in line for line in node1)
    assert any("NCCL_ALGO" in line for line in job) and not any("driver" in line for line in job)
    assert "no baseline given" in diff_lines(None, "node", "n1")[1][0]
