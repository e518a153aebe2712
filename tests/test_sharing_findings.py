"""The analysis still works on a strict-redacted bundle: same findings, names mapped.

Simulated incidents are analysed before and after strict redaction; the findings must have
the same rules, severities, causes, ranks and GPUs, and their pods, nodes and jobs must be
the original ones once the owner reveals the tokens with the key.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

simulate_mod = pytest.importorskip("k10s_forensics.simulate", reason="the simulator (k10s_forensics.simulate) is not built yet")
runner = pytest.importorskip("k10s_forensics.analyze.runner", reason="k10s analyze (k10s_forensics.analyze) is not built yet")

from k10s_forensics.store.bundle import Bundle  # noqa: E402
from k10s_forensics.sharing.redact import redact, reveal  # noqa: E402
from k10s_forensics.sharing.verify import verify  # noqa: E402

COMPARED = ("rule", "severity", "cause", "ranks", "gpus", "pods", "nodes", "job", "started_at", "ended_at")


def _findings(path: Path) -> list[dict]:
    result = runner.analyze(Bundle.open(path))
    return sorted(({k: f.get(k) for k in COMPARED} for f in result["findings"]), key=lambda f: (f["rule"], json.dumps(f, sort_keys=True)))


@pytest.mark.parametrize("scenario, seed", [("oom-crashloop", 3), ("straggler-compute", 5)])
def test_strict_redaction_keeps_the_findings(tmp_path: Path, scenario: str, seed: int) -> None:
    original = tmp_path / "orig"
    simulate_mod.simulate(scenario, original, seed=seed, nodes=2, gpus_per_node=4, minutes=5)
    before = _findings(original)
    assert before, f"{scenario}: the analysis found nothing on the original bundle"
    key = tmp_path / "k.key"
    redact(original, tmp_path / "red", level="strict", key_file=key, rebuild_tables=True)
    assert verify(tmp_path / "red").problems == []
    after = _findings(tmp_path / "red")
    names_before = {n for f in before for n in f["pods"] + f["nodes"] + ([f["job"]] if f["job"] else [])}
    names_after = {n for f in after for n in f["pods"] + f["nodes"] + ([f["job"]] if f["job"] else [])}
    assert names_before and names_before.isdisjoint(names_after), "names were not pseudonymised"
    revealed, _count = reveal(json.dumps(after), key)
    # lists are sorted by name, and a pseudonym sorts elsewhere than the name it stands for
    assert _unordered(json.loads(revealed)) == _unordered(before)


def _unordered(findings: list[dict]) -> list[dict]:
    return sorted(({k: sorted(v, key=str) if isinstance(v, list) else v for k, v in f.items()} for f in findings),
                  key=lambda f: (f["rule"], json.dumps(f, sort_keys=True)))
