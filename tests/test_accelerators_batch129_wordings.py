"""Batch 129's shape (tests/data/real-incidents, ``"batch": 129``, family ``non-nvidia-accelerators``), with its
wording variants, as pasted logs through ``k10s import-logs`` (docs/rules.md, "Session 31: batch 129").

Intel Gaudi's bridge refusing the graph the program built (``RuntimeError: Graph compile failed. synStatus=synStatus 26
[Generic failure].``, ``synNodeCreateWithId failed for node: batch_gemm with synStatus 26 [Generic failure]. .``, the
``synStatus 1 [Invalid argument]`` and bare-number forms) is common mode: the host's graph compiler refuses an op, its
dtype or its graph, the same code on the same Synapse build in every process, so the rank whose traceback shows
(optimum-habana-1779's rank 14, behind pdsh's host prefix) names no one. Read so raised as it is, under the bridge's
launch-thread wrapper and under the eager bridge's two wrappers (``Exception in Lowering thread...`` then ``...
HabanaLaunchOpPT Run returned exception....``, the failure alone on the line under them: parsers/log_habana.py). As for
a torch build's refusal, a rank whose peers show they waited on it (gloo's ``Connection closed by peer``) is that rank's
own path; the bridge's device-memory allocation failure and another RuntimeError on one rank alone still name it.

Parser readings are checked on the assembler (no analysis); the pastes go through tests/bundle_batch.py (one analysis).
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import corpus_log, naming_findings
from parser_kit import body_events

NOW = dt.datetime(2026, 12, 1, 19, 0, tzinfo=dt.timezone.utc)
GAUDI = corpus_log("optimum-habana-1779-gaudi-multinode-rank14-graph-compile-deepspeed-env-control")
COMPILE = "Graph compile failed. synStatus=synStatus 26 [Generic failure]."
NODE = "synNodeCreateWithId failed for node: batch_gemm with synStatus 26 [Generic failure]. ."
DEVMEM = "FATAL ERROR :: MODULE:DEVMEM Allocation failed for size::40960000 (39.0625)MB"
CLOSED = ("[rank{r}]: RuntimeError: [/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:553] Connection closed "
          "by peer [127.0.0.1]:24967. This is typically caused by a remote worker crashing.")

#: the launch-thread wrapper with the failure glued to the pointer under it (batch 93's newer bridge)
WRAPPED = ("[rank{r}]: RuntimeError: [Rank:{r}] FATAL ERROR :: MODULE:PT_BRIDGE Exception in Launch thread...\n"
           "[rank{r}]: Check $HABANA_LOGS/ for details{detail}\n"
           "[rank{r}]: [Rank:{r}] Habana exception raised from compile at graph.cpp:599\n")
#: the eager bridge: the lowering-thread wrapper, its inner wrapper, then the failure alone
EAGER = ("[rank{r}]: RuntimeError: [Rank:{r}] FATAL ERROR :: MODULE:PT_BRIDGE Exception in Lowering thread...\n"
         "[rank{r}]: [Rank:{r}] FATAL ERROR :: MODULE:PT_EAGER HabanaLaunchOpPT Run returned exception....\n"
         "[rank{r}]: {detail} \n"
         "[rank{r}]: [Rank:{r}] Habana exception raised from compile at graph.cpp:599\n"
         "[rank{r}]: [Rank:{r}] Habana exception raised from LaunchRecipe at graph_exec.cpp:558\n")


def _renumbered(rank: int, host: bool = True) -> str:
    text = GAUDI.replace("[rank14]:", f"[rank{rank}]:")
    return text if host else text.replace("100.83.191.29: ", "")


def _worded(message: str) -> str:
    return GAUDI.replace(COMPILE, message)


def _peers_closed(rank: int) -> str:
    """``rank`` raises the compile failure; every other rank of the four saw its peer's connection close."""
    return "".join((f"[rank{r}]: RuntimeError: {COMPILE}" if r == rank else CLOSED.format(r=r)) + "\n" for r in range(4))


#: key: (the log, the rank a warning/critical finding must name alone: None for none)
CASES = {
    "gaudi-rank14": (GAUDI, None),
    "gaudi-rank0-no-host": (_renumbered(0, host=False), None),
    "gaudi-rank7": (_renumbered(7), None),
    "node-create-batch-gemm": (_worded(NODE), None),
    "node-create-invalid-argument": (_worded("synNodeCreateWithId failed for node: concat with synStatus 1 [Invalid argument]. ."), None),
    "bare-status-number": (_worded("Graph compile failed. synStatus=26"), None),
    "launch-thread-wrapped": (WRAPPED.format(r=5, detail=COMPILE), None),
    "lowering-thread-eager": (EAGER.format(r=2, detail=COMPILE), None),
    "lowering-thread-node-create": (EAGER.format(r=6, detail=NODE), None),
    # contrasts: peers that waited on the rank; the rank's device memory; another RuntimeError on one rank alone
    "peers-closed-rank1": (_peers_closed(1), 1),
    "eager-devmem-rank3": (EAGER.format(r=3, detail=DEVMEM), 3),
    "other-runtime-error-rank14": (_worded("synapse device acquire failed"), 14),
}
BATCHED = Batched("b129", list(CASES))


def _make(key: str, folder: Path):
    return pasted(CASES[key][0], folder, 8, NOW, world=16)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_the_gaudi_graph_compiler_s_refusal_is_every_rank_s(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][1])


def _raised(text: str) -> list[tuple]:
    events = body_events(text.splitlines(), NOW)
    assert all(set(e) <= {"error_message", "error_type", "kind", "line", "line_no", "pg_rank", "rank", "severity",
                          "subkind", "ts", "op_type", "seq", "library_frame", "error_frame"} or e["kind"] != "python_exception"
               for e in events)
    return [(e.get("rank"), e["error_message"]) for e in events if e["kind"] == "python_exception"]


INNER = "FATAL ERROR :: MODULE:PT_EAGER HabanaLaunchOpPT Run returned exception...."
OUTER = "[Rank:2] FATAL ERROR :: MODULE:PT_BRIDGE Exception in Lowering thread..."


@pytest.mark.parametrize(("text", "want"), [
    (EAGER.format(r=2, detail=COMPILE), [(2, COMPILE)]),  # the failure under the eager bridge's two wrappers
    (EAGER.format(r=2, detail=NODE), [(2, NODE)]),
    (EAGER.format(r=2, detail=DEVMEM), [(2, DEVMEM)]),
    (EAGER.format(r=2, detail=COMPILE).replace("[rank2]: ", ""), [(None, COMPILE)]),  # untagged lines (one process)
    # the inner wrapper with nothing under it: it stays the message (no failure read, no field of its own)
    ("\n".join(EAGER.format(r=2, detail=COMPILE).splitlines()[:2]), [(2, INNER)]),
    # the line under the inner wrapper is another process's: the inner wrapper stays
    (EAGER.format(r=2, detail=COMPILE).replace(f"[rank2]: {COMPILE}", f"[rank1]: {COMPILE}"), [(2, INNER)]),
    # the inner wrapper not right under the outer one: the outer stays
    (EAGER.format(r=2, detail=COMPILE).replace("[rank2]: [Rank:2] FATAL ERROR :: MODULE:PT_EAGER",
                                               "[rank2]: step 3\n[rank2]: [Rank:2] FATAL ERROR :: MODULE:PT_EAGER"), [(2, OUTER)]),
    (GAUDI, [(14, COMPILE)]),  # the real paste: raised as it is
])
def test_the_failure_under_the_eager_bridge_s_wrappers_is_the_exception_s_message(text, want):
    assert _raised(text) == want


def test_the_variants_keep_their_shape():
    """The builders move the ranks and the words, not the paste's shape."""
    assert _renumbered(14) == GAUDI and _worded(COMPILE) == GAUDI
    assert _peers_closed(1).count("Connection closed") == 3
    assert len(EAGER.format(r=2, detail=COMPILE).splitlines()) == 5
