"""k10s diff: simulated pairs with one planted change each, noise, secrets, bad input."""

from __future__ import annotations

import json
import subprocess
import sys
from fnmatch import fnmatch

import pytest
from click.testing import CliRunner

from k10s_forensics.store.bundle import Bundle
from k10s_forensics.cli import cli
from k10s_forensics.diff import diff
from k10s_forensics.diff.facets import FACETS, SHARED_SQL
from k10s_forensics.simulate import simulate

#: variant(s) of the baseline, of the bundle, and what the first change must be.
PLANTED = {
    "driver-node": ((), ("driver-node",), ("gpu", "driver")),
    "nccl-env": ((), ("nccl-env",), ("job", "env * NCCL_IB_QPS_PER_CONNECTION")),
    "image-digest": ((), ("image-digest",), ("job", "image digest *")),
    "power-cap": ((), ("power-cap",), ("gpu", "power limit")),
    "rank-moved": (("fabric",), ("fabric", "rank-moved"), ("placement", "node label topology.k10s.io/fabric-block")),
    "kueue-quota": (("kueue",), ("kueue", "kueue-quota"), ("kueue", "quota nvidia.com/gpu in gpu-flavor")),
}
SHAPES = ((7, 2, 4), (11, 3, 2))  # seed, nodes, GPUs per node


@pytest.fixture(scope="module")
def bundles(tmp_path_factory):
    """Built once: per shape, every variant set the planted pairs and the noise pair need."""
    root = tmp_path_factory.mktemp("diff")
    made: dict[tuple, Bundle] = {}

    def get(seed, nodes, gpus, variants):
        key = (seed, nodes, gpus, tuple(variants))
        if key not in made:
            out = root / f"s{seed}-{nodes}x{gpus}-{'-'.join(variants) or 'plain'}"
            simulate("healthy", out, seed=seed, nodes=nodes, gpus_per_node=gpus, minutes=4, interval_s=15,
                     variants=("later",) + tuple(v for v in variants if v != "later") if variants else ())
            made[key] = Bundle.open(out)
        return made[key]
    return get


def _first(result):
    assert result["changes"], "no change found"
    return result["changes"][0]


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: f"seed{s[0]}-{s[1]}x{s[2]}")
@pytest.mark.parametrize("name", sorted(PLANTED))
def test_planted_change_ranks_first(bundles, name, shape):
    base_v, cur_v, (facet, attribute) = PLANTED[name]
    base = bundles(*shape, base_v)
    cur = bundles(*shape, cur_v)
    result = diff([base], cur, baseline_given="b", bundle_given="c", use_findings=False)
    first = _first(result)
    assert first["facet"] == facet and fnmatch(first["attribute"], attribute), [(g["facet"], g["attribute"]) for g in result["changes"][:5]]
    assert all(g["facet"] != "behaviour" for g in result["changes"]), "noise reported as a change"


def test_same_cluster_minutes_apart_is_unchanged(bundles):
    for shape in SHAPES:
        plain = bundles(*shape, ())
        later = bundles(*shape, ("later",))  # 7 minutes later, other sampling noise
        result = diff([plain], later, baseline_given="b", bundle_given="c", use_findings=False)
        assert result["changes"] == [], result["changes"][:3]
        assert result["unchanged"]["behaviour"]["unchanged"] > 0


def test_power_cap_names_the_gpu_and_its_node(bundles):
    shape = SHAPES[0]
    cur = bundles(*shape, ("power-cap",))
    result = diff([bundles(*shape, ())], cur, baseline_given="b", bundle_given="c", use_findings=False)
    first = _first(result)
    assert first["count"] == 1 and first["tier"] == "local"
    assert first["current"].endswith(" W") and first["baseline"] != first["current"]
    assert len(first["nodes"]) == 1 and first["subjects"][0]


def test_output_is_byte_identical_and_counts_unchanged(bundles, tmp_path):
    shape = SHAPES[0]
    base, cur = bundles(*shape, ()), bundles(*shape, ("nccl-env",))
    runs = [CliRunner().invoke(cli, ["diff", str(base.path), str(cur.path), "--format", fmt, "--no-findings"])
            for fmt in ("json", "json", "text", "markdown")]
    assert all(r.exit_code == 0 for r in runs), runs[0].output
    assert runs[0].output == runs[1].output
    data = json.loads(runs[0].output)
    assert data["format"] == "k10s-diff" and data["changes"][0]["attribute"].startswith("env ")
    assert data["unchanged"]["gpu"]["unchanged"] > 0
    assert "NCCL_IB_QPS_PER_CONNECTION" in runs[2].output and "| # |" in runs[3].output


def test_fleet_style_baseline_of_several_runs(bundles):
    shape = SHAPES[0]
    base = [bundles(*shape, ()), bundles(*shape, ("fabric",))]
    result = diff(base, bundles(*shape, ("fabric", "image-digest")), baseline_given="b", bundle_given="c", use_findings=False)
    assert [g["attribute"].split()[:2] for g in result["changes"]] == [["image", "digest"]]
    assert result["baseline"]["runs"] == 2


def test_bad_input_is_one_line_exit_2(tmp_path, bundles):
    good = str(bundles(*SHAPES[0], ()).path)
    (tmp_path / "notabundle").mkdir()
    for args in (["diff", str(tmp_path / "missing"), good], ["diff", good, str(tmp_path / "notabundle")]):
        r = subprocess.run([sys.executable, "-m", "k10s_forensics", *args], capture_output=True, text=True, timeout=120)
        assert r.returncode == 2, r.stderr
        assert len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.stderr and r.stdout == ""


def test_every_sql_file_is_registered():
    from importlib import resources

    files = {p.name for p in resources.files("k10s_forensics.diff").joinpath("sql").iterdir() if p.name.endswith(".sql")}
    assert files == {f + ".sql" for f in FACETS} | set(SHARED_SQL)


def test_view_d_on_a_node_row_shows_its_changes(bundles):
    from tests.view_helpers import run_app

    shape = SHAPES[0]
    base, cur = bundles(*shape, ()), bundles(*shape, ("driver-node",))
    result = diff([base], cur, baseline_given="b", bundle_given="c", use_findings=False)
    node = result["changes"][0]["nodes"][0]

    async def script(app, pilot):
        app.data.baseline_diff = result
        screen = app.screen
        for i, row in enumerate(screen.shown):
            if row.target is not None and row.target.node == node:
                screen.query_one("VirtualTable").move_cursor(row=i)
                break
        await pilot.press("d")
        await pilot.pause()
        text = str(app.screen.query_one("#changes-text").content)
        assert f"node {node}" in text and "driver:" in text
        await pilot.press("escape")

    run_app(str(cur.path), script)


def test_changes_on_the_culprit_rank_first(tmp_path_factory, bundles):
    """A throttled GPU (straggler-compute) in a run whose last node also got another driver:
    changes on the culprit's GPU or node come first; the driver change is on the culprit's
    tier only when the culprit is on that node."""
    seed, nodes, gpus = SHAPES[0]
    out = tmp_path_factory.mktemp("culprit") / "strag"
    truth = simulate("straggler-compute", out, seed=seed, nodes=nodes, gpus_per_node=gpus, minutes=4, interval_s=15,
                     variants=("later", "driver-node"))
    result = diff([bundles(seed, nodes, gpus, ())], Bundle.open(out), baseline_given="b", bundle_given="c")
    culprits = result["culprits"]
    assert truth["expected"][0]["ranks"] == culprits["ranks"]
    first = _first(result)
    assert first["tier"] == "culprit" and (set(first["nodes"]) & set(culprits["nodes"]) or set(first["subjects"]) & set(culprits["gpus"]))
    throttled = [g for g in result["changes"] if g["attribute"] == "SM clock" and g["tier"] == "culprit"]
    assert throttled and throttled[0]["subjects"] == culprits["gpus"]
    tiers = [g["tier"] for g in result["changes"]]
    assert tiers == sorted(tiers, key=("culprit", "local", "everywhere").index)
    driver = next(g for g in result["changes"] if g["attribute"] == "driver")
    assert driver["tier"] == ("culprit" if set(driver["nodes"]) & set(culprits["nodes"]) else "local")


def test_report_with_baseline_has_the_changes_section(bundles, tmp_path):
    shape = SHAPES[0]
    base, cur = bundles(*shape, ()), bundles(*shape, ("image-digest",))
    out = tmp_path / "r.html"
    r = CliRunner().invoke(cli, ["report", str(cur.path), "--baseline", str(base.path), "-o", str(out)])
    assert r.exit_code == 0, r.output
    html = out.read_text()
    section = html[html.index('<section id="changes"'):]
    section = section[: section.index("</section>")]
    assert "What changed since the baseline" in section and "image digest" in section and "sha256:" in section


def test_unknown_or_incomplete_variants_are_refused(tmp_path):
    from k10s_forensics.errors import SimulationError

    for variants, words in ((("nope",), "unknown variant"), (("rank-moved",), "needs variant fabric"),
                            (("kueue-quota",), "needs variant kueue")):
        with pytest.raises(SimulationError, match=words):
            simulate("healthy", tmp_path / "x", seed=1, nodes=1, gpus_per_node=1, minutes=1, variants=variants)


@pytest.mark.slow  # indexing runs each bundle's analysis: ~30 s on a loaded 2-core machine
def test_fleet_index_as_the_baseline(bundles, tmp_path):
    """The job's last healthy runs in a fleet index: the bundle itself and unhealthy runs left out."""
    from k10s_forensics.diff import open_baseline
    from k10s_forensics.fleet.index import index_fleet

    shape = SHAPES[0]
    runs = [bundles(*shape, ()), bundles(*shape, ("later",))]
    cur = bundles(*shape, ("nccl-env",))
    index_fleet([str(b.path) for b in runs + [cur]], tmp_path / "fleet", jobs=1)
    baseline = open_baseline(str(tmp_path / "fleet"), cur, last=5)
    assert sorted(str(b.path) for b in baseline) == sorted(str(b.path) for b in runs)
    result = diff(baseline, cur, baseline_given="fleet", bundle_given="c", use_findings=False)
    assert result["baseline"]["runs"] == 2
    assert [g["attribute"].split()[-1] for g in result["changes"]] == ["NCCL_IB_QPS_PER_CONNECTION"]
    r = subprocess.run([sys.executable, "-m", "k10s_forensics", "diff", str(tmp_path / "fleet"), str(cur.path), "--job", "nobody/none"],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and "no healthy run of job nobody/none" in r.stderr
