"""A scheduler's or admission controller's words that a job's pods cannot be placed, pasted beside (or instead of) a log.

A user whose job never started pastes what ``kubectl describe pod`` / ``kubectl get events`` / ``kubectl describe
workload`` showed; the capture reads the same from the API (queries/pending.sql), a paste gives only the words:

* kube-scheduler's ``FailedScheduling`` message, ``0/18 nodes are available: 2 Insufficient nvidia.com/gpu, 16 node(s)
  didn't match Pod's node affinity/selector. preemption: 0/18 nodes are available: …`` (older: ``… had taint {…}, that
  the pod didn't tolerate``; newer: ``… had untolerated taint {…}``), and Volcano's, ``0/4 nodes are unavailable: 4
  Insufficient nvidia.com/gpu.``, the cluster autoscaler's ``pod didn't trigger scale-up: 1 Insufficient
  nvidia.com/gpu, 2 max node group size reached``;
* a gang scheduler's word that the gang cannot be placed whole: Volcano's ``1/2 tasks in gang unschedulable: pod group
  is not ready, 2 Pending, 2 minAvailable; …``, KAI Scheduler's ``Resources were found for 12 pods while 16 are
  required for gang scheduling.`` and its reasons beneath (``- 12 node(s) didn't have enough resources: GPUs``);
* Kueue's refusal to admit the workload: ``couldn't assign flavors to pod set worker: insufficient unused quota for
  nvidia.com/gpu in flavor default-flavor, 8 more needed``.

Each is a ``scheduler_pending`` event, no rank (nothing ran): ``subkind`` the cause as the pending rule names it
(``insufficient-gpu``, ``untolerated-taint``, ``node-selector``, ``quota``, ``unschedulable``), ``error_type`` who said
it, ``error_message`` the words themselves.
"""

from __future__ import annotations

import re
from typing import Any

Event = dict[str, Any]

#: the scheduler's per-node reasons (kube-scheduler: "available", Volcano: "unavailable"): group 1 the word, 2 the reasons
NODES = re.compile(r"\b\d{1,6}/\d{1,6} nodes are (available|unavailable): ([^\n]{1,2000}?)(?:\. preemption: |\.?\s*$|\.\s)")
#: the cluster autoscaler's NotTriggerScaleUp message: group 1 the reasons
SCALE_UP = re.compile(r"\bpod didn't trigger scale-up(?: \(it wouldn't fit if a new node is added\))?: ([^\n]{1,2000}?)\.?\s*$")
#: reasons, most telling first: an accelerator too few (an extended resource, or a GPU-like name), a taint, a selector
REASON_CAUSES = (
    (re.compile(r"\bInsufficient (?:[\w.-]{1,100}/[\w.-]{1,100}|\S{0,40}(?:gpu|GPU)\S{0,40})|\bdidn't have enough resources?: (?:GPU|\S{0,40}gpu)"),
     "insufficient-gpu"),
    (re.compile(r"\bhad (?:untolerated )?taints?\b|\bthat the pod didn't tolerate\b"), "untolerated-taint"),
    (re.compile(r"\bdidn't match (?:Pod's )?node (?:affinity|selector)|\bnode\(s\) didn't match node selector"), "node-selector"),
)
#: gang schedulers' words: (pattern, who)
GANG = (
    (re.compile(r"\b\d{1,6}/\d{1,6} tasks in gang unschedulable: [^\n]{0,300}"), "Volcano"),
    (re.compile(r"\bResources were found for \d{1,6} pods while \d{1,6} are required for gang scheduling\.?"), "KAI Scheduler"),
)
#: KAI Scheduler's reasons under its gang message (``    - 12 node(s) didn't have enough resources: GPUs``)
KAI_REASON = re.compile(r"^\s{0,40}-\s{1,4}\d{1,6} node\(s\) (?:didn't have enough resources?|cannot allocate)[^\n]{1,300}")
#: Kueue's flavor assignment that found no quota
KUEUE = re.compile(r"\bcouldn't assign flavors to pod set [\w.-]{1,100}: insufficient (?:unused )?quota for [^\n]{1,300}")
#: the substrings one of the wordings holds (checked first: a line without any is none of them)
MARKS = ("nodes are ", "scale-up", "tasks in gang", "for gang scheduling", "couldn't assign flavors", " node(s) ")


def _cause(reasons: str) -> str:
    for rx, cause in REASON_CAUSES:
        if rx.search(reasons):
            return cause
    return "unschedulable"


def _event(cause: str, who: str, message: str) -> Event:
    return {"kind": "scheduler_pending", "subkind": cause, "error_type": who, "_no_rank": True, "error_message": message.strip()[:300]}


def scheduler_pending(text: str) -> Event | None:
    """The event of a line holding a scheduler's word that pods cannot be placed (None: not one)."""
    if not any(mark in text for mark in MARKS):
        return None
    m = KUEUE.search(text)
    if m:
        return _event("quota", "Kueue", m.group(0))
    nodes = NODES.search(text)
    for rx, who in GANG:  # a gang's message may carry the nodes' reasons after it ("Origin reason is …")
        g = rx.search(text)
        if g:
            return _event(_cause(nodes.group(2)) if nodes else "unschedulable", who, text[g.start():])
    if nodes:
        who = "kube-scheduler" if nodes.group(1) == "available" else "Volcano"
        return _event(_cause(nodes.group(2)), who, text[nodes.start():])
    m = SCALE_UP.search(text)
    if m:
        return _event(_cause(m.group(1)), "cluster-autoscaler", m.group(0))
    m = KAI_REASON.match(text)
    if m:
        return _event(_cause(m.group(0)), "KAI Scheduler", m.group(0).lstrip(" -"))
    return None


__all__ = ["GANG", "KAI_REASON", "KUEUE", "NODES", "REASON_CAUSES", "SCALE_UP", "scheduler_pending"]
