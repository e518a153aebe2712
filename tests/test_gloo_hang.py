"""A rank hung before a gloo collective: its peers' own send/recv timeouts are hang evidence
(queries/_evidence_logs.sql ``k10s_gloo_wait``, nccl-hang), the silent rank is named, and
nothing is named where the evidence does not say so.

The logs are a real torchrun recording (tests/data/torch-runs/2.14.1/torchrun-hang-recv-timeout:
2 nodes x 2 processes, rank 2 hung, SIGTERMed with no line of its own) with gloo's timeout
message replaced by each wording gloo has for a timed-out wait (tcp and uv transports, old and
new source paths), and by the wordings that are NOT a hang (a peer that ended, a store timeout).
"""

from __future__ import annotations

import re

import pytest

from incident_kit import naming_findings
from k10s_forensics.analyze.runner import analyze
from k10s_forensics.logimport import LogSource, import_logs
from torch_runs_kit import CAPTURED, RUNS, plain

RUN = RUNS / "2.14.1" / "torchrun-hang-recv-timeout"
GLOO_TIMEOUT = re.compile(r"\[/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/unbound_buffer\.cc:\d+\] Timed out waiting 6000ms for \w+ operation to complete")

#: gloo's wordings for a send/recv that timed out (the peer never came)
WAITS = [
    "[../third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:81] Timed out waiting 1800000ms for recv operation to complete",
    "[/opt/conda/conda-bld/pytorch_1656352430114/work/third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:136] Timed out waiting 1800000ms for send operation to complete",
    "[gloo/transport/tcp/unbound_buffer.cc:81] Timed out waiting 600000 ms for recv operation to complete",
    "[C:\\actions-runner\\_work\\pytorch\\third_party\\gloo\\gloo\\transport\\uv\\unbound_buffer.cc:67] Timed out waiting 1800000ms for recv operation to complete",
    "[../third_party/gloo/gloo/transport/tcp/pair.cc:598] Read timeout [10.1.0.6]:45321",
    "[../third_party/gloo/gloo/transport/tcp/pair.cc:612] Write timeout [10.1.0.6]:45321",
    "Application timeout caused pair closure",
    # c10d's per-call wait on a collective's work (``dist.all_reduce(t, async_op=True).wait(timeout=…)``, Work::wait;
    # the eleventh set's t11-trun-wait-timeout-lag-rank3, 2.13.0 and 2.14.1)
    "Operation timed out!",
]
#: not a wait: a peer process ended, or the rendezvous store timed out
NOT_WAITS = [
    "[../third_party/gloo/gloo/transport/tcp/pair.cc:534] Connection closed by peer [10.1.0.6]:31662",
    "[../third_party/gloo/gloo/transport/tcp/pair.cc:545] Read error [10.1.0.6]:21724: Connection reset by peer",
    "Timed out after 901 seconds waiting for clients. 2/4 clients joined.",
    "[Errno 60] Operation timed out",  # macOS's ETIMEDOUT (a socket), no collective's wait
]


def _bundle(tmp_path, message: str, node1_dies: bool = False):
    """The recording's node logs with every gloo timeout message replaced by ``message``
    (``node1_dies``: node 1's log ends after its ranks initialised, as when the node is lost)."""
    sources = []
    for i in (0, 1):
        text = GLOO_TIMEOUT.sub(lambda _m: message, plain((RUN / f"node{i}.log").read_text(encoding="utf-8")))
        if node1_dies and i == 1:
            text = "\n".join(text.split("\n")[:2]) + "\n"
        sources.append(LogSource(f"node{i}.log", text))
    bundle, _ = import_logs(sources, tmp_path / "b", job="train", namespace="team-a", now=CAPTURED)
    return analyze(bundle)["findings"]


@pytest.mark.parametrize("message", WAITS, ids=[f"wait-{i}" for i in range(len(WAITS))])
def test_each_gloo_timeout_wording_names_the_silent_rank(tmp_path, message):
    named = naming_findings(_bundle(tmp_path, message))
    assert [(f["rule"], f["cause"], f["ranks"]) for f in named] == [("nccl-hang", "never-joined", [2])], named
    assert "gloo" in named[0]["evidence"][0]["decision_detail"]


@pytest.mark.parametrize("message", NOT_WAITS, ids=["closed", "reset", "store", "errno-etimedout"])
def test_a_closed_connection_or_store_timeout_is_no_hang_evidence(tmp_path, message):
    """A peer that ended leaves the others 'connection closed': that names no silent rank (the
    process that ended is the first-failure evidence's business)."""
    findings = _bundle(tmp_path, message)
    assert not [f for f in findings if f["rule"] == "nccl-hang" and f["ranks"]], findings
    assert not [f for f in naming_findings(findings) if f["ranks"] == [2]], findings


def test_two_silent_ranks_of_four_are_not_charged(tmp_path):
    """Node 1 lost after its ranks started: two ranks timed out, two are silent (the node died, or
    the paste is short): no rank is named."""
    findings = _bundle(tmp_path, WAITS[0], node1_dies=True)
    assert not [f for f in naming_findings(findings) if f["rule"] == "nccl-hang"], findings


EXIT0 = RUNS / "2.14.1" / "torchrun-exit0-early"
CLOSED = re.compile(r"Connection closed by peer")


def _exit0(tmp_path, wording: str, node0_report: bool = True):
    """Rank 1 returned early (exit 0, no line); the others raise that their peer closed the connection."""
    sources = []
    for i in (0, 1):
        text = CLOSED.sub(wording, plain((EXIT0 / f"node{i}.log").read_text(encoding="utf-8")))
        if i == 0 and not node0_report:  # node 0's launcher said nothing (it died with its workers)
            text = "\n".join(line for line in text.split("\n") if line.startswith(("[rank", "rank ", "step ")))
        sources.append(LogSource(f"node{i}.log", text))
    bundle, _ = import_logs(sources, tmp_path / "b", job="train", namespace="team-a", now=CAPTURED)
    return analyze(bundle)["findings"]


@pytest.mark.parametrize("wording", ["Connection closed by peer", "Connection reset by peer"])
def test_the_rank_that_ended_without_a_word_is_named(tmp_path, wording):
    named = naming_findings(_exit0(tmp_path, wording))
    assert [(f["rule"], f["cause"], f["ranks"]) for f in named] == [("nccl-hang", "never-joined", [1])], named


def test_a_silent_rank_whose_launcher_said_nothing_is_not_named(tmp_path):
    """Without its node's launcher report, the silent rank may have died with its node: no one is named."""
    assert not naming_findings(_exit0(tmp_path, "Connection closed by peer", node0_report=False))
