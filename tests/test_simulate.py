"""k10s simulate: contract, determinism, every scenario at several sizes, truth consistency."""

from __future__ import annotations

import json

import pyarrow.parquet as pq
import pytest

from k10s_forensics.store.bundle import RAW_SCHEMAS, Bundle
from k10s_forensics.errors import SimulationError
from k10s_forensics.queries import RULES
from k10s_forensics.simulate import simulate
from k10s_forensics.simulate.constants import SCENARIOS
from k10s_forensics.simulate.scenarios import SCENARIOS as REGISTRY

SIZES = [  # (nodes, gpus per node, ranks per pod, seed)
    (1, 1, None, 11),
    (2, 8, 8, 12),
    (3, 4, 1, 13),
]


def test_registry_matches_constants():
    assert tuple(REGISTRY) == SCENARIOS


@pytest.fixture(scope="module")
def bundles(tmp_path_factory):
    root = tmp_path_factory.mktemp("sim")
    out = {}
    for scenario in SCENARIOS:
        for nodes, gpn, nproc, seed in SIZES:
            path = root / f"{scenario}-{nodes}x{gpn}"
            truth = simulate(scenario, path, seed=seed, nodes=nodes, gpus_per_node=gpn, minutes=4, interval_s=60, nproc_per_node=nproc)
            out[(scenario, nodes, gpn)] = (path, truth)
    return out


def _rows(path, name):
    p = path / "raw" / f"{name}.parquet"
    return pq.read_table(p) if p.is_file() else RAW_SCHEMAS[name].empty_table()


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_every_scenario_writes_a_valid_bundle(bundles, scenario):
    for nodes, gpn, _, seed in SIZES:
        path, truth = bundles[(scenario, nodes, gpn)]
        bundle = Bundle.open(path)
        assert bundle.manifest["complete"] is True
        assert bundle.manifest["cluster"]["context"] == f"sim-{scenario}"
        assert not (path / "tables").exists()
        for name, schema in RAW_SCHEMAS.items():
            table = _rows(path, name)
            assert table.schema.equals(schema), name
        statuses = {c["name"]: c["status"] for c in bundle.manifest["collectors"]}
        assert set(statuses.values()) <= {"ok", "partial", "failed", "skipped"}
        assert set(bundle.manifest["files"]) >= {f"raw/{n}.parquet" for n in ("objects", "scrapes", "exec")}
        # truth is a sibling file, never inside the bundle
        tfile = path.parent / f"{path.name}.truth.json"
        assert json.loads(tfile.read_text()) == truth
        assert not any(p.name.endswith(".truth.json") for p in path.rglob("*"))
        assert truth["scenario"] == scenario and truth["seed"] == seed
        assert set(truth["forbidden_rules"]).isdisjoint({e["rule"] for e in truth["expected"]})


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_truth_culprits_exist_in_the_objects(bundles, scenario):
    for nodes, gpn, _, _ in SIZES:
        path, truth = bundles[(scenario, nodes, gpn)]
        objects = _rows(path, "objects").to_pylist()
        pods = {f"{o['namespace']}/{o['name']}" for o in objects if o["kind"] == "Pod"}
        node_names = {o["name"] for o in objects if o["kind"] == "Node"}
        scrapes = _rows(path, "scrapes").column("body").to_pylist()
        for e in truth["expected"]:
            assert set(e["pods"]) <= pods, (e["pods"], scenario)
            assert set(e["nodes"]) <= node_names
            for uuid in e["gpus"]:
                assert any(uuid in b for b in scrapes if b), uuid
            assert all(0 <= r < truth["world_size"] for r in e["ranks"])
        if truth.get("job"):
            ns, name = truth["job"].split("/")
            assert any(o["namespace"] == ns and o["name"] == name and o["kind"] == truth["job_kind"] for o in objects)


def test_fault_scenarios_name_a_culprit(bundles):
    for scenario in ("straggler-compute", "straggler-input", "oom-crashloop", "nccl-hang", "xid-79", "idle-gpus"):
        for nodes, gpn, _, _ in SIZES:
            truth = bundles[(scenario, nodes, gpn)][1]
            assert truth["expected"] and truth["expected"][0]["ranks"], scenario
    assert bundles[("healthy", 2, 8)][1]["expected"] == []
    assert set(bundles[("healthy", 2, 8)][1]["forbidden_rules"]) == set(RULES), "healthy forbids every rule"


def test_same_arguments_give_identical_raw_rows(tmp_path):
    a = simulate("oom-crashloop", tmp_path / "a", seed=5, nodes=2, gpus_per_node=4, minutes=6, interval_s=20)
    b = simulate("oom-crashloop", tmp_path / "b", seed=5, nodes=2, gpus_per_node=4, minutes=6, interval_s=20)
    assert a == b
    for name in RAW_SCHEMAS:
        assert _rows(tmp_path / "a", name).equals(_rows(tmp_path / "b", name)), name
    c = simulate("oom-crashloop", tmp_path / "c", seed=6, nodes=2, gpus_per_node=4, minutes=6, interval_s=20)
    assert not _rows(tmp_path / "a", "scrapes").equals(_rows(tmp_path / "c", "scrapes"))
    assert c["seed"] == 6


def test_seeds_vary_what_real_clusters_vary(tmp_path):
    seen = {"naming": set(), "product": set(), "kind": set(), "hostname_label": set(), "sm_active": set()}
    for seed in range(12):
        truth = simulate("healthy", tmp_path / f"s{seed}", seed=seed, nodes=2, gpus_per_node=2, minutes=1, interval_s=30)
        seen["naming"].add(truth["cluster"]["naming"])
        seen["product"].add(truth["cluster"]["gpu_product"])
        seen["kind"].add(truth["job_kind"])
        body = _rows(tmp_path / f"s{seed}", "scrapes").column("body")[0].as_py()
        seen["hostname_label"].add("hostname=" in body and "Hostname=" not in body)
        seen["sm_active"].add("DCGM_FI_PROF_SM_ACTIVE" in body)
    assert len(seen["naming"]) >= 3 and len(seen["product"]) >= 3 and len(seen["kind"]) >= 2
    assert seen["hostname_label"] == {True, False} and seen["sm_active"] == {True, False}


def test_bad_arguments_raise_clear_errors(tmp_path):
    with pytest.raises(SimulationError, match="unknown scenario"):
        simulate("nope", tmp_path / "x")
    with pytest.raises(SimulationError, match="outside the bundle"):
        simulate("healthy", tmp_path / "y", truth_path=tmp_path / "y" / "t.json", minutes=1, interval_s=30)
    with pytest.raises(SimulationError, match="nproc-per-node"):
        simulate("healthy", tmp_path / "z", gpus_per_node=6, nproc_per_node=4)
    simulate("healthy", tmp_path / "w", nodes=1, gpus_per_node=1, minutes=1, interval_s=30)
    with pytest.raises(SimulationError, match="already exists"):
        simulate("healthy", tmp_path / "w", nodes=1, gpus_per_node=1, minutes=1, interval_s=30)


def test_cli_writes_bundle_and_truth(tmp_path):
    from click.testing import CliRunner

    from k10s_forensics.cli import cli

    res = CliRunner().invoke(cli, ["simulate", "xid-79", "-o", str(tmp_path / "b"), "--nodes", "2", "--gpus-per-node", "2",
                                   "--minutes", "4", "--interval", "30", "--seed", "4"])
    assert res.exit_code == 0, res.output
    assert "truth" in res.output and (tmp_path / "b.truth.json").is_file()
    Bundle.open(tmp_path / "b")
    res = CliRunner().invoke(cli, ["simulate", "xid-79", "-o", str(tmp_path / "c"), "--gpus-per-node", "0"])
    assert res.exit_code == 2
