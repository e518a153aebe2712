"""simulate (Flight Recorder / RAS hangs) → real ``k10s serve`` → real capture: the dump reader
and ncclras execs are run, replayed and stored, and the captured bundle names the culprit."""

from __future__ import annotations

import pytest

from k10s_forensics.analyze.runner import prepare
from k10s_forensics.store.bundle import Bundle
from k10s_forensics.simulate import simulate

from capture_helpers import EXEC_KEY, recordings
from test_capture_e2e import _capture


@pytest.mark.parametrize("scenario,seed", [("hang-flight-recorder", 4), ("hang-ras-dead", 5), ("hang-ras-dead", 8)])
def test_capture_reads_dumps_and_ras_and_the_culprit_survives(tmp_path, scenario, seed):
    original = tmp_path / scenario
    truth = simulate(scenario, original, seed=seed, nodes=3, gpus_per_node=2, minutes=4, interval_s=60)
    out = tmp_path / "captured"
    result, log = _capture(original, out, all_namespaces=True)
    assert result.complete
    sources = ("flight-recorder", "ncclras")
    want = {k: v for k, v in recordings(original, "exec", EXEC_KEY + ("source",)).items() if k[-1] in sources}
    got = {k: v for k, v in recordings(out, "exec", EXEC_KEY + ("source",)).items() if k[-1] in sources}
    assert want and set(got) == set(want)
    for key, rows in want.items():
        assert [r["stdout"] for r in got[key]] == [r["stdout"] for r in rows], key
        assert [r["exit_code"] for r in got[key]] == [r["exit_code"] for r in rows], key
    con = prepare(Bundle.open(out))
    try:
        named = con.sql("SELECT evidence, culprit_ranks FROM k10s_hang_evidence_fr UNION ALL "
                        "SELECT evidence, culprit_ranks FROM k10s_hang_evidence_ras").fetchall()
    finally:
        con.close()
    (want_ev,) = truth["hang_evidence"]
    assert [r for r in named if r[1]] == [(want_ev["evidence"], want_ev["culprit_ranks"])]
    runs = {c["name"]: c for c in Bundle.open(out).manifest["collectors"]}
    ras = runs["ncclras"]
    assert ras["status"] == "ok" or any("ncclras not in image" in e for e in ras["errors"]), ras
    assert runs["flight-recorder"]["status"] == ("ok" if scenario == "hang-flight-recorder" else "skipped")
