"""A torchrun failure table's time stands for its whole second (docs/rules.md, "Session 64: a failure table's time stands
for its second").

The table writes its entry's time to the second (``time : 2026-12-06_20:27:58``, truncated), while the agent's own
line of another node's failure carries microseconds (``E1206 20:27:59.994000``). Compared as points, 58 and 59.994 are
1.994 s apart, past the one second within which ranks fail together: the fifty-eighth launcher set's 2.14.1
``--redirects`` recording of a late monitored_barrier (consoles holding only the agents' tables) named node 1's root
cause, rank 3, a victim, because its table came 0.9 s before node 0's. A time to the second may be anywhere in that
second: the two failures may be 0.994 s apart, so they fail together (no single culprit, as the 2.13.0 recording reads
it). Contrasts: the other node's failure 1.5 s past the table's second still leaves the first named; two tables' times
(both to the second) compare as before; a whole second of another kind (a log line's own) is a point as before.
"""

from __future__ import annotations

import datetime as dt
import re

import pytest

from bundle_batch import analyze_node_sets, assert_names
from torch_runs_kit import CAPTURED, RUNS, plain

RUN = RUNS / "2.14.1" / "t58-trun-2x2-monitored-barrier-rank1-step1-lightning-redirects"
_API = re.compile(r"2026-12-06T(\d\d):(\d\d):(\d\d)\.(\d{9})Z")
_GLOG = re.compile(r"([EWIF]1206) (\d\d):(\d\d):(\d\d)\.(\d{6})")
_TABLE = re.compile(r"2026-12-06_(\d\d):(\d\d):(\d\d)")


def _shift(text: str, by_s: float) -> str:
    """``text`` with every clock in it (API stamps, glog stamps, the table's times) ``by_s`` seconds later."""
    day = dt.datetime(2026, 12, 6)

    def at(h, m, s, frac=0.0):
        return day + dt.timedelta(hours=int(h), minutes=int(m), seconds=int(s) + frac + by_s)

    text = _API.sub(lambda x: at(*x.groups()[:3], int(x.group(4)) / 1e9).strftime("2026-12-06T%H:%M:%S.%f000Z"), text)
    text = _GLOG.sub(lambda x: x.group(1) + at(*x.groups()[1:4], int(x.group(5)) / 1e6).strftime(" %H:%M:%S.%f"), text)
    return _TABLE.sub(lambda x: at(*x.groups()).strftime("2026-12-06_%H:%M:%S"), text)


def _nodes(node0_later_s: float = 0.0, stamped: bool = False) -> list[str]:
    texts = [(RUN / n).read_text(encoding="utf-8") for n in ("node0.log", "node1.log")]
    texts[0] = _shift(texts[0], node0_later_s)
    return texts if stamped else [plain(t) for t in texts]


SETS = [
    # node 1's table says rank 3 failed in 20:27:58; node 0's agent saw rank 0 fail at 20:27:59.994: together
    ("as-recorded-plain", _nodes(), [], None),
    ("as-recorded-api-stamps", _nodes(stamped=True), [], None),
    # contrast: node 0's failure 1.5 s past the table's second: rank 3 first, named as before
    ("node0-1.5s-later", _nodes(1.5), [3], "python-exception"),
    # contrast: node 0's failure in the table's own second or before it: together as before
    ("node0-0.9s-earlier", _nodes(-0.9), [], None),
]


@pytest.fixture(scope="module")
def findings(tmp_path_factory):
    return analyze_node_sets(SETS, tmp_path_factory.mktemp("table-time"), CAPTURED, nproc=lambda name: 2)


@pytest.mark.parametrize(("i", "want", "cause"), [(i, s[2], s[3]) for i, s in enumerate(SETS)], ids=[s[0] for s in SETS])
def test_a_table_time_stands_for_its_second(findings, i, want, cause):
    assert_names(findings, i, want, cause)


def test_the_shift_moves_every_clock():
    text = "2026-12-06T20:27:59.879843000Z W1206 20:27:59.878000 31723 x\n  time      : 2026-12-06_20:27:59\n"
    assert _shift(text, 1.5) == ("2026-12-06T20:28:01.379843000Z W1206 20:28:01.378000 31723 x\n"
                                 "  time      : 2026-12-06_20:28:00\n")
