"""Planted canaries never survive redaction: every byte of the redacted bundle is searched.

The canary bundle (tests/canary_kit.py, also used by the other sharing tests) holds real samples and
secrets and identities planted where they hide in real clusters.
"""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from canary_kit import IDENTITIES, NODE_IP_HOST, SECRETS, build_canary_bundle, bundle_texts, find_leaks
from k10s_forensics.sharing.redact import redact
from k10s_forensics.sharing.verify import verify


@pytest.fixture(scope="module")
def canary_bundle(tmp_path_factory) -> Path:
    return build_canary_bundle(tmp_path_factory.mktemp("canary") / "bundle")


def test_canaries_are_planted(canary_bundle: Path) -> None:
    """The search finds every canary in the original (so an empty search below means something)."""
    missing = [name for name, value in {**SECRETS, **IDENTITIES}.items() if not find_leaks(canary_bundle, {name: value})]
    assert missing == []


@pytest.mark.parametrize("level", ["standard", "strict"])
def test_no_secret_survives(canary_bundle: Path, tmp_path: Path, level: str) -> None:
    out = tmp_path / "red"
    result = redact(canary_bundle, out, level=level, key_file=tmp_path / "keys" / "k.key", rebuild_tables=True)
    assert find_leaks(out, SECRETS) == []
    assert result.replaced["secret"] >= len(SECRETS) - 1
    assert verify(out).problems == []
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["redaction"]["level"] == level
    assert (out / "tables").is_dir() and any((out / "tables").iterdir())


def test_strict_removes_identities(canary_bundle: Path, tmp_path: Path) -> None:
    out = tmp_path / "strict"
    result = redact(canary_bundle, out, level="strict", key_file=tmp_path / "k.key", rebuild_tables=True)
    assert find_leaks(out, IDENTITIES) == []
    for kind in ("node", "namespace", "job", "pod", "ip", "registry", "label"):
        assert result.replaced.get(kind, 0) > 0, kind
    block = json.loads((out / "manifest.json").read_text())["redaction"]
    assert block["key_id"] == result.key_id and len(block["key_id"]) == 8
    assert all(isinstance(v, int) for v in block["replaced"].values())


def test_standard_keeps_identities_and_analysis_inputs(canary_bundle: Path, tmp_path: Path) -> None:
    out = tmp_path / "std"
    redact(canary_bundle, out, level="standard")
    texts = "\n".join(bundle_texts(out).values())
    for value in (IDENTITIES["job"], IDENTITIES["node_ip"], NODE_IP_HOST):
        assert value in texts
    for kept in ("GPU-45e15172-50a7-7489-52c1-f796d686a89b", '"RANK","value":"1"', "Watchdog caught collective operation timeout"):
        assert kept in texts


def test_strict_keeps_gpu_ids_ranks_metrics(canary_bundle: Path, tmp_path: Path) -> None:
    out = tmp_path / "strict"
    redact(canary_bundle, out, level="strict", key_file=tmp_path / "k.key")
    body = pq.read_table(out / "raw" / "scrapes.parquet")["body"][0].as_py()
    original = pq.read_table(canary_bundle / "raw" / "scrapes.parquet")["body"][0].as_py()
    metric_values = [line.rsplit(" ", 1)[1] for line in original.splitlines() if line and not line.startswith("#")]
    assert [line.rsplit(" ", 1)[1] for line in body.splitlines() if line and not line.startswith("#")] == metric_values
    assert "GPU-45e15172-50a7-7489-52c1-f796d686a89b" in body and 'modelName="NVIDIA H100 80GB HBM3"' in body
    rows = pq.read_table(out / "raw" / "objects.parquet").to_pylist()
    pods = [json.loads(r["body"]) for r in rows if r["kind"] == "Pod"]
    ranks = sorted(int(p["metadata"]["labels"]["training.kubeflow.org/replica-index"]) for p in pods)
    assert ranks == [0, 1, 10]
    logs = pq.read_table(out / "raw" / "logs.parquet").to_pydict()["body"][0]
    assert logs.startswith("2026-03-01T10:00:00Z ") and "[Rank 5] Watchdog caught collective operation timeout" in logs
