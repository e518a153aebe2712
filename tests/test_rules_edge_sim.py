"""Edge cases on simulated bundles: TrainJob, DCGM absent, GPU telemetry absent, logs absent, a skewed node clock.

Each case simulates a scenario, derives a new raw bundle from it (rows dropped or
re-timed, see ``_edge_kit``), rebuilds it with the real parsers, analyzes it and compares
with the simulator's truth. Degraded evidence must degrade the analysis visibly: the rule
still names the culprit from what is left, or it is listed in ``skipped`` with the reason
-- never a crash, never a silent pass.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

simulate_mod = pytest.importorskip("k10s_forensics.simulate")

from _edge_kit import derive, skew_edits  # noqa: E402
from test_rules_scenarios import compare  # noqa: E402
from k10s_forensics.analyze.runner import analyze, prepare  # noqa: E402
from k10s_forensics.store.bundle import Bundle  # noqa: E402

NO_DCGM = {"scrapes": lambda r: False}
NO_GPU_TELEMETRY = {"scrapes": lambda r: False, "exec": lambda r: not r["source"].startswith("nvidia-smi")}
NO_LOGS = {"logs": lambda r: False}
DCGM_DOWN = {"dcgm": ("failed", "no dcgm-exporter pods found")}
LOGS_DOWN = {"logs": ("failed", "pods/log is forbidden")}


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    return tmp_path_factory.mktemp("edge-sim")


_BASES: dict[tuple, tuple[Path, dict]] = {}


def base(root: Path, scenario: str, seed: int, nodes: int = 3, gpus: int = 2, kind: str | None = None) -> tuple[Path, dict]:
    """A simulated bundle and its truth; with ``kind``, the first seed from ``seed`` whose job is of that kind."""
    key = (scenario, seed, nodes, gpus, kind)
    if key not in _BASES:
        for s in range(seed, seed + 40):
            out = root / f"{scenario}-{s}-{nodes}x{gpus}"
            if not out.exists():
                truth = simulate_mod.simulate(scenario, out, seed=s, nodes=nodes, gpus_per_node=gpus, minutes=6)
            else:
                truth = json.loads((root / f"{out.name}.truth.json").read_text())
            if kind is None or truth["job_kind"] == kind:
                break
            shutil.rmtree(out)
        assert kind is None or truth["job_kind"] == kind, f"no {kind} job in 40 seeds"
        _BASES[key] = (out, truth)
    return _BASES[key]


def variant(root: Path, src: Path, name: str, **kw) -> dict:
    return analyze(derive(src, root / f"{src.name}-{name}", **kw))


def culprit_finding(result: dict, exp: dict) -> dict:
    found = [f for f in result["findings"] if f["rule"] == exp["rule"] and f["cause"] == exp["cause"]
             and all(sorted(f[k]) == sorted(exp[k]) for k in ("ranks", "pods", "nodes", "gpus"))]
    assert found, (exp, [(f["rule"], f["cause"], f["ranks"], f["nodes"]) for f in result["findings"]])
    return found[0]


def skipped(result: dict) -> dict[str, str]:
    return {s["rule"]: s["reason"] for s in result["skipped"]}


def test_trainjob_oom_crashloop_counts_every_oom(root):
    src, truth = base(root, "oom-crashloop", 6, kind="TrainJob")
    result = analyze(Bundle.open(src))
    misses, alarms = compare(truth, result)
    assert not misses and not alarms, (misses, alarms)
    oom = culprit_finding(result, truth["expected"][0])
    loop = culprit_finding(result, truth["expected"][1])
    in_logs = truth["expected"][0]["ooms_in_logs"]
    assert in_logs <= oom["evidence"][0]["incidents"] <= truth["expected"][0]["ooms"]
    if in_logs >= 2:
        assert loop["severity"] == "critical" and loop["evidence"][0]["loops"] >= in_logs


@pytest.mark.parametrize(("scenario", "seed", "nodes", "gpus"), [("straggler-compute", 1, 3, 2), ("healthy", 0, 3, 2)])
def test_dcgm_absent_nvidia_smi_only(root, scenario, seed, nodes, gpus):
    src, truth = base(root, scenario, seed, nodes, gpus)
    bundle = derive(src, root / f"{src.name}-nodcgm", keep=NO_DCGM, collectors=DCGM_DOWN)
    result = analyze(bundle)
    con = prepare(bundle)
    sources = {r[0] for r in con.sql("SELECT DISTINCT source FROM gpu_samples").fetchall()}
    con.close()
    assert sources == {"nvidia-smi-xml"}, sources
    misses, alarms = compare(truth, result)
    assert not misses and not alarms, (misses, alarms)
    assert not {"straggler", "idle-gpu"} & set(skipped(result))


def test_gpu_telemetry_absent_xid79(root):
    """No DCGM and no nvidia-smi: GPU rules skipped with the reason; the Xid still names node and (via NCCL) rank."""
    src, truth = base(root, "xid-79", 4)
    result = variant(root, src, "nogpu", keep=NO_GPU_TELEMETRY, collectors=DCGM_DOWN)
    reasons = skipped(result)
    for rule in ("straggler", "idle-gpu"):
        assert "DCGM and nvidia-smi absent" in reasons[rule] and "collector dcgm failed: no dcgm-exporter pods found" in reasons[rule]
    exp = truth["expected"][0]
    xid = [f for f in result["findings"] if f["rule"] == "gpu-health" and f["cause"] == "xid-79"]
    # without a GPU inventory the PCI bus id of the dmesg line names no GPU: node only (documented blind spot)
    assert [(f["severity"], f["nodes"], f["gpus"], f["ranks"]) for f in xid] == [("critical", exp["nodes"], [], [])]
    hang = [f for f in result["findings"] if f["rule"] == "nccl-hang"]
    assert [(f["ranks"], f["gpus"], f["cause"]) for f in hang] == [(exp["ranks"], exp["gpus"], "rank-failed")]


@pytest.mark.parametrize(("scenario", "seed"), [("oom-crashloop", 6), ("nccl-hang", 3), ("xid-79", 4)])
def test_logs_absent(root, scenario, seed):
    src, truth = base(root, scenario, seed)
    result = variant(root, src, "nologs", keep=NO_LOGS, collectors=LOGS_DOWN)
    reason = skipped(result)["nccl-hang"]
    assert "container logs absent" in reason and "collector logs failed: pods/log is forbidden" in reason
    misses, alarms = compare(truth, result)
    assert not alarms, alarms
    if scenario == "nccl-hang":  # only the logs show a hang: the rule says it could not look
        assert len(misses) == 1 and misses[0].startswith("nccl-hang/")
    elif scenario == "xid-79":  # dmesg still names the GPU; which process failed on it only the logs say
        assert [m.split("/")[0] for m in misses] == ["rank-failure"], misses
        assert "container logs absent" in skipped(result)["rank-failure"]
    else:  # the framebuffer before the container died (OOM) still names the culprit
        assert not misses, misses
    if scenario == "oom-crashloop":
        assert all(culprit_finding(result, e)["cause"] == "cuda-oom" for e in truth["expected"])
        # a captured job whose logs are absent is no paste: its framebuffer-inferred OOM is critical, not a lone
        # paste's warning (k10s_paste_job needs a line; before session 46 a job with no line passed for one)
        oom = [culprit_finding(result, e) for e in truth["expected"] if e["rule"] == "oom-cascade"]
        assert oom and [(f["severity"], f["evidence"][0].get("medium_why")) for f in oom] == [("critical", None)] * len(oom)


def _offsets(bundle: Bundle) -> dict[str, float]:
    con = prepare(bundle)
    try:
        return dict(con.sql("SELECT node, offset_s FROM k10s_node_clock").fetchall())
    finally:
        con.close()


@pytest.mark.parametrize(("scenario", "seed", "who", "shift_s"), [("oom-crashloop", 6, "culprit", 420), ("xid-79", 4, "culprit", 420), ("nccl-hang", 3, "other", -420)])
def test_skewed_node_clock(root, scenario, seed, who, shift_s):
    """One node's clock off by 7 minutes (its logs, dmesg and container times; not captured_at)."""
    src, truth = base(root, scenario, seed)
    exp = truth["expected"][0]
    node = exp["nodes"][0]
    if who == "other":
        con = prepare(Bundle.open(src))
        node = con.sql("SELECT min(node) FROM k10s_rank WHERE node <> ?", params=[node]).fetchall()[0][0]
        con.close()
    bundle = derive(src, root / f"{src.name}-skew{shift_s}", edit=skew_edits(node, shift_s))
    result = analyze(bundle)
    misses, alarms = compare(truth, result)
    assert not misses and not alarms, (misses, alarms)
    offsets = _offsets(bundle)
    assert offsets[node] == pytest.approx(shift_s, abs=1.0)
    assert all(v == 0 for n, v in offsets.items() if n != node), offsets
    for f in result["findings"]:
        if f["rule"] in ("nccl-hang", "crashloop", "oom-cascade") and f["severity"] != "info":
            assert f["ranks"] == exp["ranks"], f
    if scenario == "xid-79":  # the Xid on the skewed node still comes before the peers' timeouts
        assert all(f["cause"] == "rank-failed" for f in result["findings"] if f["rule"] == "nccl-hang")
