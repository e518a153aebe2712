"""Property: every real incident (tests/data/real-incidents) whose culprit k10s finds today keeps
its culprit rank and cause — and every control stays without a confident culprit — when its log
is damaged the way pasting damages logs (tests/paste_damage.py), one damage at a time and all
together, then imported with ``k10s import-logs`` and analyzed in-process.

Reuse: when the repaired damaged log is line for line the repaired original (trailing spaces
aside), the bundle and the verdict are the same by construction and nothing is re-run; only the
others are imported and analyzed. The redaction removes information: every log it changes is
analyzed (slow); all damages combined are compared with the redacted log the same way.
"""

from __future__ import annotations

import pytest

from incident_kit import incident_bundle, load_corpus, misses
from k10s_forensics.analyze.runner import analyze
from k10s_forensics.parsers.log_paste import repair_paste
from paste_damage import DAMAGES, combined, redact
from test_real_incidents_corpus import CORPUS, NOT_YET

CASES = [c for c in load_corpus(CORPUS) if c.incident not in NOT_YET]
ALL = dict(DAMAGES, combined=combined)
#: The damage that loses information (every log it changes is analyzed, ~1 s each): slow.
SLOW = ("redact",)


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
        reference = redact(text) if damage == "combined" else text
        if damage != "redact" and _lines(damaged) == _lines(reference):
            continue  # the same lines: the same bundle, the verdict the original's (or the redacted one's)
        if damage == "redact" and damaged == text:
            continue
        analyzed += 1
        findings = analyze(incident_bundle(tmp_path / case.incident, case, damaged))["findings"]
        why = misses(case, findings)
        if why:
            wrong.append(f"{case.incident}: {why}")
    assert not wrong, f"{len(wrong)}/{len(CASES)} changed under {damage} ({analyzed} analyzed):\n" + "\n".join(wrong)
