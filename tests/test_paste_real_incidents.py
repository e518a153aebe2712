"""Property: every real incident (tests/data/real-incidents) whose culprit k10s finds today keeps
its culprit rank and cause — and every control stays without a confident culprit — when its log
is damaged the way pasting damages logs (tests/paste_damage.py), one damage at a time and all
together, then imported with ``k10s import-logs`` and analyzed in-process.

Reuse: when the repaired damaged log is line for line the repaired original (trailing spaces
aside), the bundle and the verdict are the same by construction and nothing is re-run; only the
others are imported and analyzed (the redaction always is: it removes information).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from incident_kit import incident_bundle, load_corpus, misses
from k10s_forensics.analyze.runner import analyze
from k10s_forensics.parsers.log_paste import repair_paste
from paste_damage import DAMAGES, combined
from test_real_incidents_corpus import CORPUS, NOT_YET

CASES = [c for c in load_corpus(CORPUS) if c.incident not in NOT_YET]
ALL = dict(DAMAGES, combined=combined)
#: Damages that lose information (every case is analyzed): slow, so marked.
SLOW = ("redact", "combined")


def _lines(text: str) -> list[str]:
    return [ln.rstrip() for ln in repair_paste(text).text.split("\n")]


def _params():
    for name in ALL:
        marks = [pytest.mark.slow] if name in SLOW else []
        yield pytest.param(name, id=name, marks=marks)


@pytest.mark.parametrize("damage", _params())
def test_pasted_incidents_keep_their_verdict(tmp_path, damage):
    fn, wrong, analyzed = ALL[damage], [], 0
    for case in CASES:
        text = (case.folder / case.incident / "log.txt").read_text(encoding="utf-8")
        damaged = fn(text)
        if damage not in SLOW and _lines(damaged) == _lines(text):
            continue
        analyzed += 1
        findings = analyze(incident_bundle(tmp_path / case.incident, case, damaged))["findings"]
        why = misses(case, findings)
        if why:
            wrong.append(f"{case.incident}: {why}")
    assert not wrong, f"{len(wrong)}/{len(CASES)} changed under {damage} ({analyzed} analyzed):\n" + "\n".join(wrong)
