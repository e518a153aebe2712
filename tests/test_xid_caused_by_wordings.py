"""Session 29 (issue 18): an Xid naming the one that caused it. The driver prints a consequence with its cause: ``NVRM: Xid
(PCI:0000:dc:00): 45, pid=…, name=python3, Ch 00000001 caused by previous Xid 149`` (the channels torn down after an NVLink
error, open-gpu-kernel-modules-1150); the root Xid's own line may be missing from the log or long before it. The log and
dmesg parsers now add the root Xid as an ``xid`` event of its own on the same GPU (subkind ``caused_later_xid``, no pid), so
gpu-health reports the NVLink error, not only the cleanup (parsers/log_classify.py, parsers/dmesg.py, docs/parsers-logs.md
"Session 29: the Xid a later Xid names as its cause"). Parser-level cases only (the corpus case is analysed by
tests/test_real_incidents_corpus.py: a control, it names no rank).
"""

from __future__ import annotations

import pytest

from k10s_forensics.parsers.dmesg import parse_dmesg
from k10s_forensics.parsers.log_classify import classify


def _xids(events: list[dict]) -> list[tuple]:
    return [(e["xid"], e["bus_id"], e.get("pid"), e.get("subkind")) for e in events if e["kind"] == "xid"]


@pytest.mark.parametrize(("line", "want"), [
    ("kernel: NVRM: Xid (PCI:0000:dc:00): 45, pid=1818990, name=python3, Ch 00000001 caused by previous Xid 149",
     [(45, "0000:dc:00.0", 1818990, None), (149, "0000:dc:00.0", None, "caused_later_xid")]),
    ("[Mon Dec  1 10:00:00 2026] NVRM: Xid (PCI:0000:ed:00): 45, pid=1818992, name=python3, Ch 0000000c caused by previous "
     "Xid 145", [(45, "0000:ed:00.0", 1818992, None), (145, "0000:ed:00.0", None, "caused_later_xid")]),
    # no cause named: one event, as before
    ("NVRM: Xid (PCI:0000:3b:00): 79, pid=1, name=python, GPU has fallen off the bus.", [(79, "0000:3b:00.0", 1, None)]),
    # a line naming itself as its cause adds nothing
    ("NVRM: Xid (PCI:0000:3b:00): 45, pid=7, name=python, Ch 00000002 caused by previous Xid 45", [(45, "0000:3b:00.0", 7, None)]),
], ids=["journal-149", "dmesg-T-145", "no-cause", "self"])
def test_a_log_line_s_causing_xid_is_an_event_of_its_own(line, want):
    assert _xids(classify(line)) == want


def test_dmesg_reads_the_causing_xid_too():
    text = ("2026-12-01T10:00:00,123456+00:00 NVRM: Xid (PCI:0000:dc:00): 45, pid=1818990, name=python3, Ch 00000001 caused by "
            "previous Xid 149\n2026-12-01T10:00:01,000000+00:00 NVRM: Xid (PCI:0000:97:00): 45, pid=1818987, name=python3, "
            "Ch 00000003\n")
    rows, untimed = parse_dmesg(text)
    assert untimed == 0
    assert [(r["xid"], r["bus_id"], r["pid"], r.get("subkind"), r["line_no"]) for r in rows] == [
        (45, "0000:dc:00.0", 1818990, None, 1), (149, "0000:dc:00.0", None, "caused_later_xid", 1),
        (45, "0000:97:00.0", 1818987, None, 2)]
    assert rows[0]["ts"] == rows[1]["ts"]
