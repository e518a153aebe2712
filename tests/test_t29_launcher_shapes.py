"""The twenty-ninth launcher set's shapes, in one analysis of node-log sets cut from its recordings (each truth written
before the set was analysed).

* The ``${hostname}:${rank}: `` prefix template (2.14.1's ``--log-line-prefix-template``; 2.13.0's environment variable,
  whose ``${hostname}`` stays as typed) with torch's ``[rankN]:`` tags taken off (rank 2's ``KeyError``: rank 2), and
  also cut before each agent's report (the workers' prefixed lines alone).
* ``--event-log-handler console``: the agents' torchelastic event records alone (``worker.status.FAILED`` with
  ``global_rank``, ``raw_error`` and ``exit_code``): rank 3's segfault (``exit_code: [-11]``, ``raw_error`` ``<NONE>``),
  its peers' gloo errors in their ``raw_error``.
* ``--monitor-interval 12`` cut before each agent's report: ranks 0, 2, 3 report the connection closed or reset, rank 1
  (SIGKILLed) says nothing: the rank that vanished, ``never-joined``.
* Node 0's log alone: the ``monitored_barrier(wait_all_ranks=True)`` report of ranks 1 and 3 (both named); DCP's
  ``CheckpointException ranks:dict_keys([3])`` with rank 3's ``IsADirectoryError`` (rank 3, on the node not shown);
  ``--numa-binding node`` refused by the agent (a control).
* The ``@record`` ``ExceptionGroup`` of rank 1 with the ``[rankN]:`` tags taken off (rank 1 by node 0's table).
"""

from __future__ import annotations

import re

import pytest

from bundle_batch import analyze_node_sets, assert_names, findings_of
from incident_kit import naming_findings
from torch_runs_kit import AGENT_FIRST, CAPTURED, load_runs, until

RANK_TAG = re.compile(r"\[rank\d+\]: ?")


def _events(text: str) -> str:
    return "".join(line + "\n" for line in text.splitlines() if '{"name": "torchelastic.' in line)


def _shapes() -> list[tuple]:
    runs = {r.id: r.stamped() for r in load_runs() if "/t29-" in r.id}
    shapes = []
    for v in ("2.13.0", "2.14.1"):
        def run(name: str) -> list[str]:
            return runs[f"{v}/t29-trun-2x2-{name}"]

        prefix = [RANK_TAG.sub("", t) for t in run("prefix-hostname-keyerror-rank2")]
        late = run("monitor12-sigkill-rank1")
        #: (name, node logs, the ranks warning/critical findings name ([]: none), a cause)
        shapes += [
            (f"{v}-prefix-hostname-tagless", prefix, [2], "python-exception"),
            (f"{v}-prefix-hostname-workers-only", [until(t, AGENT_FIRST) for t in prefix], [2], "python-exception"),
            (f"{v}-events-only", [_events(t) for t in run("event-console-segfault-rank3")], [3], "segfault"),
            (f"{v}-monitor12-workers-only", [until(t, AGENT_FIRST) for t in late], [1], "never-joined"),
            (f"{v}-barrier-node0-only", run("monitored-barrier-all-ranks13")[:1], [1, 3], "never-joined"),
            (f"{v}-async-save-node0-only", run("async-save-isdir-rank3")[:1], [3], "python-exception"),
            (f"{v}-numa-node0-only", run("common-mode-numa-binding")[:1], [], None),
            (f"{v}-exceptiongroup-tagless", [RANK_TAG.sub("", t) for t in run("record-exceptiongroup-rank1")], [1],
             "python-exception"),
        ]
    return shapes


SHAPES = _shapes()


@pytest.fixture(scope="module")
def findings(tmp_path_factory) -> list:
    return analyze_node_sets(SHAPES, tmp_path_factory.mktemp("t29shapes"), CAPTURED)


@pytest.mark.parametrize(("i", "want", "cause"), [
    pytest.param(i, w, c, id=name) for i, (name, _, w, c) in enumerate(SHAPES)])
def test_the_twenty_ninth_set_s_shapes(findings, i, want, cause):
    if want:
        assert_names(findings, i, want, cause)
    else:
        named = naming_findings(findings_of(findings, i))
        assert not named, [(f["rule"], f["ranks"], f.get("cause")) for f in named]


def test_the_shapes_hold_what_they_say():
    """No rank tag left where taken off; the cut shapes keep no agent report; the events carry the dead rank's exit."""
    by = {s[0]: s[1] for s in SHAPES}
    for v in ("2.13.0", "2.14.1"):
        host = "vm" if v == "2.14.1" else "${hostname}"
        assert f"{host}:2: KeyError: 'labels'" in "".join(by[f"{v}-prefix-hostname-tagless"])
        workers = "".join(by[f"{v}-prefix-hostname-workers-only"])
        assert "[rank" not in workers and "Root Cause" not in workers and f"{host}:2: KeyError" in workers
        events = "".join(by[f"{v}-events-only"])
        assert '"global_rank": 3' in events and '\\"exit_code\\": [-11]' in events and "Root Cause" not in events
        late = "".join(by[f"{v}-monitor12-workers-only"])
        assert "[rank1]" not in late and "exitcode" not in late and "[rank0]" in late
        assert "Ranks 1, 3 failed to pass monitoredBarrier" in by[f"{v}-barrier-node0-only"][0]
        assert "CheckpointException ranks:dict_keys([3])" in by[f"{v}-async-save-node0-only"][0]
        assert "[rank" not in "".join(by[f"{v}-exceptiongroup-tagless"])
