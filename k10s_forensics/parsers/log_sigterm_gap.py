"""The worker the torch elastic agent did not SIGTERM: the one pid missing from its teardown list.

When a worker fails, torch's elastic agent (torchrun, ``accelerate launch``, ``deepspeed`` on torchrun) sends
every worker still alive ``Sending process <pid> closing signal SIGTERM`` and then reports the failed one,
``failed (exitcode: N) local_rank: L (pid: P)``. A paste cut between the two keeps the teardown list and loses
the report (xKV-9, Video-o3-1). The agent starts its workers one after the other in local-rank order, so their
pids are consecutive; the failed worker is the one pid missing from the list.

``sigterm_gap_failures(events)`` adds, to one log body's events, a ``torchrun_failure`` event of subkind
``sigterm_gap`` (exit status unknown: the cut report held it) naming that worker's local rank (its pid's offset
from the run's lowest pid) and pid, only where the shape leaves no other reading:

* no agent report or failure table in the body (``torchrun_failure`` of any subkind): the report says it better;
* one agent's teardown (the lines' glog pid, where printed, is one), every line ``SIGTERM``, within
  ``BURST_LINES`` lines per pid of each other;
* at least ``MIN_SIGTERMED`` distinct pids (the corpus, where the agent's failed line survives: 9 of 10 runs of
  five or more with one pid missing left out the reported worker at its spawn-order local rank, the tenth a
  control every rank failed in; in shorter runs, 21 of 24, the lowest pid was not always local rank 0 or the pid
  left out was a worker that had ended earlier: transformers-28119, ChatGLM-Efficient-Tuning-275,
  llama-cookbook-182; axolotl-2743 is such a control), consecutive but for exactly one pid inside the run (a hole
  at either end, or two holes, says nothing of which worker failed: open-sora-plan-512).
"""

from __future__ import annotations

from typing import Any

from k10s_forensics.parsers.log_agents import agent_of

Event = dict[str, Any]

MIN_SIGTERMED = 5
BURST_LINES = 4


def _teardown(events: list[Event]) -> list[Event] | None:
    """The SIGTERM events of the body's one agent teardown (None: none, or not one teardown)."""
    sigterms = [ev for ev in events if ev.get("kind") == "torchrun_sigterm"]
    if not sigterms or any(ev.get("subkind") != "SIGTERM" or ev.get("pid") is None for ev in sigterms):
        return None
    if len({agent_of(ev.get("line") or "") for ev in sigterms} - {None}) > 1:
        return None
    lines = [ev["line_no"] for ev in sigterms]
    if max(lines) - min(lines) > BURST_LINES * len(sigterms):
        return None
    return sigterms


def sigterm_gap_failures(events: list[Event]) -> list[Event]:
    """``events`` plus the ``sigterm_gap`` failure its agent teardown leaves out (the module doc), if any."""
    if any(ev.get("kind") == "torchrun_failure" for ev in events):
        return events
    sigterms = _teardown(events)
    if sigterms is None:
        return events
    pids = sorted({ev["pid"] for ev in sigterms})
    if len(pids) < MIN_SIGTERMED or pids[-1] - pids[0] != len(pids):
        return events
    missing = next(p + 1 for p, q in zip(pids, pids[1:]) if q - p == 2)
    last = max(sigterms, key=lambda ev: ev["line_no"])
    gap = {k: v for k, v in last.items() if k in ("line_no", "ts", "line", "severity")}
    gap.update(kind="torchrun_failure", subkind="sigterm_gap", exit_code=None, local_rank=missing - pids[0], pid=missing)
    return [*events, gap]


__all__ = ["sigterm_gap_failures", "MIN_SIGTERMED"]
