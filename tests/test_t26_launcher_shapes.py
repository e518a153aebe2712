"""The twenty-sixth launcher set's global-rank prefix (docs/rules.md, "Twenty-sixth launcher set"), in one analysis of
shapes made from its recording.

``TORCHELASTIC_LOG_LINE_PREFIX_TEMPLATE='[${rank}]:'`` (the example torch's docs give) puts the GLOBAL rank in a bare
bracket, ``[3]:``, the shape of torchrun's empty-role ``--tee`` prefix of a LOCAL rank (torchx's). Rank 3 (node 1's local
rank 1) raised ``KeyError``. As recorded (torch's own ``[rank3]:`` tag on its traceback) and with that tag taken off (a
failure before ``init_process_group``, or a torch before 2.3: the agent's failure table then says which process failed),
rank 3 is named; the workers' lines alone (no agent line, no tag) name no innocent rank: the bracket is not read as a
rank of another node (node 1's ``[3]:`` as local rank 3 would be global rank 5 or 7). (They name no one today: a bare
bracket is torchx's local rank as well, and nothing in those lines says which.)
"""

from __future__ import annotations

import re

import pytest

from bundle_batch import analyze_node_sets, assert_names, findings_of
from incident_kit import naming_findings
from torch_runs_kit import CAPTURED, load_runs

RUN = "2.13.0/t26-trun-2x2-rank-prefix-keyerror-rank3"
TAG = re.compile(r"\[rank\d{1,3}\]: ?")
WORKER_LINE = re.compile(r"^\S+ \[\d{1,3}\]:")


def _shapes() -> list[tuple]:
    texts = next(r for r in load_runs() if r.id == RUN).stamped()
    untagged = [TAG.sub("", t) for t in texts]
    workers = ["".join(line + "\n" for line in t.splitlines() if WORKER_LINE.match(line)) for t in untagged]
    #: (name, node logs, the ranks warning/critical findings name, a cause one of them gives; None: no rank but 3)
    return [("as-recorded", texts, [3], "python-exception"), ("untagged", untagged, [3], "python-exception"),
            ("untagged-workers-only", workers, None, None)]


SHAPES = _shapes()


@pytest.fixture(scope="module")
def findings(tmp_path_factory) -> list:
    return analyze_node_sets(SHAPES, tmp_path_factory.mktemp("t26shapes"), CAPTURED)


@pytest.mark.parametrize(("i", "want", "cause"), [(i, w, c) for i, (_, _, w, c) in enumerate(SHAPES)], ids=[s[0] for s in SHAPES])
def test_the_twenty_sixth_set_s_rank_prefix(findings, i, want, cause):
    if want is None:  # no innocent rank: rank 3 alone, or no one
        named = naming_findings(findings_of(findings, i))
        assert {r for f in named for r in f["ranks"]} <= {3}, [(f["rule"], f["ranks"], f.get("cause")) for f in named]
    else:
        assert_names(findings, i, want, cause)


def test_the_shapes_differ_as_described():
    """The untagged shapes hold no torch tag, the workers-only shape no agent line (the test reads what it says)."""
    as_recorded, untagged, workers = (s[1] for s in SHAPES)
    assert any("[rank3]:" in t for t in as_recorded) and not any("[rank3]:" in t for t in untagged)
    assert any("exitcode" in t for t in untagged) and not any("exitcode" in t for t in workers)
    assert any("[3]:KeyError" in t for t in workers)
