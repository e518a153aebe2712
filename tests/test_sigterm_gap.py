"""The worker the torch elastic agent's SIGTERM list leaves out, its failed line cut (session 64,
parsers/log_sigterm_gap.py).

The agent SIGTERMs every worker still alive, then reports the one that failed (``failed (exitcode: N)
local_rank: L (pid: P)``). A paste cut between the two keeps a run of consecutive pids with one pid missing:
that worker, at its spawn-order local rank, is named (rank-failure, warning, exit-unknown: the cut report
held the status). Positives: abdelfattah-lab/xKV#9 (pids 3282850-3282857 but 3282852: local rank 2),
MCG-NJU/Video-o3#1 (327472-327477 but 327473: local rank 1).

Contrasts that stay unnamed: a run with no pid missing inside it (the failed worker at either end: which end
is not said), two pids missing (open-sora-plan-512, a run interleaved with other processes), a run shorter
than five (axolotl-2743, a control: the corpus's short runs did not always start at local rank 0 or left out a
worker that had ended earlier: transformers-28119, llama-cookbook-182), two agents' teardowns, a SIGKILL
escalation in the teardown. Where the agent's failed line is in the paste it names the worker, not the gap.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 6, 10, 0, tzinfo=dt.timezone.utc)
AGENT = "torch/distributed/elastic/multiprocessing/api.py"

XKV = corpus_lines("xKV-9-")
VIDEO = corpus_lines("Video-o3-1-")
OFFLOAD_PIN = corpus_lines("axolotl-2743-")
OPEN_SORA = corpus_lines("open-sora-plan-512-")


def teardown(pids: list[int], agent: int = 4711) -> list[str]:
    """One agent's glog SIGTERM lines for ``pids``, in order."""
    return [f"W0620 12:45:45.{840000 + i:06d} {agent} {AGENT}:858] Sending process {pid} closing signal SIGTERM"
            for i, pid in enumerate(pids)]


def failed(local_rank: int, pid: int, code: int = 1) -> str:
    return f"E0620 12:45:47.480000 4711 {AGENT}:833] failed (exitcode: {code}) local_rank: {local_rank} (pid: {pid}) of binary: /usr/bin/python"


RUN = [9000, 9001, 9002, 9004, 9005, 9006, 9007]  # 9003 (local rank 3) left out
ESCALATED = f"W0620 12:46:15.000000 4711 {AGENT}:876] Unable to shutdown process 9004 via Signals.SIGTERM, forcefully exiting via Signals.SIGKILL"

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # positives: the corpus' two pastes, as pasted and laid out one node of eight
    "xkv-gap-local-rank2-as-pasted": (XKV, None, None, 2, "exit-unknown"),
    "xkv-gap-local-rank2-layout-8": (XKV, 8, 8, 2, "exit-unknown"),
    "video-gap-local-rank1-as-pasted": (VIDEO, None, None, 1, "exit-unknown"),
    "video-gap-local-rank1-layout-8": (VIDEO, 8, 8, 1, "exit-unknown"),
    "synthetic-gap-local-rank3": (teardown(RUN), None, None, 3, "exit-unknown"),
    # the agent's failed line in the paste says which worker and how: it is read, not the gap
    "gap-then-failed-line-same-worker": (teardown(RUN) + [failed(3, 9003, -9)], 8, 8, 3, "host-oom-kill"),
    "gap-then-failed-line-other-worker": (teardown(RUN) + [failed(0, 8999)], 8, 8, 0, "python-exception"),
    # contrasts: no pid missing inside the run, two missing, too short a run
    "run-without-inner-gap": (teardown([9001, 9002, 9003, 9004, 9005, 9006, 9007]), None, None, None, None),
    "run-two-gaps": (teardown([9000, 9001, 9003, 9004, 9006, 9007]), None, None, None, None),
    "run-of-four-with-gap": (teardown([9000, 9002, 9003, 9004]), None, None, None, None),
    "axolotl-2743-four-sigterms-control": (OFFLOAD_PIN, None, None, None, None),
    "axolotl-2743-four-sigterms-layout-6": (OFFLOAD_PIN, 6, 6, None, None),
    "open-sora-plan-512-two-gaps": (OPEN_SORA, None, None, None, None),
    # two agents' teardowns in one paste, a SIGKILL escalation: not one clean teardown
    "two-agents-teardowns": (teardown(RUN[:4], agent=4711) + teardown(RUN[4:], agent=4712), None, None, None, None),
    "teardown-escalated-sigkill": (teardown(RUN) + [ESCALATED], None, None, None, None),
    # near-miss wording: DataLoader's own `Terminating process` lines are no agent teardown
    "not-the-agent-wording": ([f"Terminating process {p}" for p in RUN], None, None, None, None),
}
BATCHED = Batched("s64gap", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_sigterm_gap(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])
