"""Slurm ending a job or its step, read from the job's output (srun's and slurmstepd's own lines).

* srun's SIGTERM to the step's tasks and its wait for them (``srun: launch/slurm: _step_signal: Terminating
  StepId=8867242.2``, older ``srun: Terminating job step 1751099.0``; ``srun: Job step aborted: Waiting up to 32 seconds
  for job step to finish.``) and the step daemon's plain cancellation (``slurmstepd: error: *** STEP 8867242.2 ON gra1177
  CANCELLED AT 2023-07-09T19:18:33 ***``, a ``scancel``): ``step_end``, no rank. A task's exit srun reports after it in
  the same log is the step's teardown, not a failure of that task's own (queries/_failure_line.sql).
* The step daemon's cancellation **with its reason** (``*** JOB 494583 ON node CANCELLED AT 2024-04-20T09:09:37 DUE TO
  TIME LIMIT ***``; ``DUE TO PREEMPTION``, ``DUE TO NODE FAILURE, SEE SLURMCTLD LOG FOR DETAILS``, ``DUE TO JOB
  REQUEUE``; older Slurm without `` ON <node>``, srun's own ``*** STEP 12.0 CANCELLED AT … DUE TO TIME LIMIT ***``) and
  srun's ``srun: error: Node failure on jean-zay-iam37``: ``scheduler_stop`` (subkind ``time-limit``, ``preempted``,
  ``node-failure``, ``requeued``), no rank; the failed node of srun's line in ``peer_ip``. The scheduler stopped the job
  from outside (queries/disruption.sql): every task of it, unless the node that failed held some of them only. It ends
  the step too (queries/_failure_line.sql reads it as a ``step_end``).
* Other schedulers' and platforms' words that they stopped the job (``OTHER_STOPS``: submitit on Slurm's preemption,
  SkyPilot's spot controller, the kubelet's eviction and graceful-shutdown messages pasted from ``kubectl describe``):
  ``scheduler_stop`` too, the one who said it in ``error_type``.
"""

from __future__ import annotations

import re
from typing import Any

Event = dict[str, Any]

#: Slurm ending a job step: srun's SIGTERM to the step's tasks (two wordings), its wait for them, the step daemon's cancellation
SRUN_STEP_END = (
    ("srun", re.compile(r"^[ \t]{0,40}srun: (?:launch/slurm: _step_signal: Terminating StepId=|Terminating job step |Job step aborted: Waiting up to )\d")),
    ("slurmstepd", re.compile(r"\bslurmstepd(?:-[\w.-]{1,100})?: error: \*\*\* STEP \d{1,12}\.\S{1,40} ON \S{1,253} CANCELLED AT ")),
)
#: the step daemon's (or srun's) cancellation with Slurm's reason: group 1 JOB/STEP, 2 its id, 3 the reporting node
#: (absent in older Slurm), 4 the time, 5 the reason
SLURM_CANCELLED = re.compile(r"\*\*\* (JOB|STEP) (\d{1,12}(?:\.[\w+]{1,40})?) (?:ON (\S{1,253}) )?CANCELLED AT (\S{1,40}) "
                             r"DUE TO (TIME LIMIT|PREEMPTION|NODE FAILURE|JOB REQUEUE)\b[^*]{0,80}\*\*\*")
#: srun on a node of the job's allocation that failed (the controller's word): group 1 the node
NODE_FAILURE = re.compile(r"\bsrun: error: Node failure on ([\w.-]{1,253})\s*$")
REASONS = {"TIME LIMIT": "time-limit", "PREEMPTION": "preempted", "NODE FAILURE": "node-failure", "JOB REQUEUE": "requeued"}
#: other schedulers' and platforms' words that they stopped the job, each (pattern, cause, who): submitit's handler on
#: Slurm's preemption signal (``submitit WARNING (…) - Caught signal SIGUSR2 on learnfair0293: this job is preempted.``),
#: SkyPilot's managed-spot controller (``controller.py:100] The cluster is preempted.``), the kubelet's eviction and
#: graceful-shutdown messages in a pasted ``kubectl describe pod`` or its events (``Message: The node was low on resource:
#: memory.``, ``Pod was terminated in response to imminent node shutdown.``)
OTHER_STOPS = (
    (re.compile(r"\bsubmitit WARNING \([^)]{0,80}\) - Caught signal (SIG\w{2,10}) on (\S{1,253}): this job is preempted\."), "preempted", "submitit"),
    (re.compile(r"\bcontroller\.py:\d{1,6}\] The cluster is preempted\."), "spot-reclaimed", "SkyPilot"),
    (re.compile(r"\bThe node was low on resource: ([\w.-]{1,40})\."), "evicted", "Kubernetes"),
    (re.compile(r"\bPod was terminated in response to imminent node shutdown\."), "node-shutdown", "Kubernetes"),
)


def slurm_stop(text: str) -> Event | None:
    """The event of one of Slurm's lines ending a job or step (None: not one)."""
    m = SLURM_CANCELLED.search(text) if "CANCELLED AT " in text else None
    if m:
        where = f" on {m.group(3)}" if m.group(3) else ""
        return {"kind": "scheduler_stop", "subkind": REASONS[m.group(5)], "_no_rank": True,
                "error_message": f"Slurm cancelled {m.group(1).lower()} {m.group(2)}{where} at {m.group(4)} due to {m.group(5).lower()}"}
    m = NODE_FAILURE.search(text) if "Node failure on " in text else None
    if m:
        return {"kind": "scheduler_stop", "subkind": "node-failure", "peer_ip": m.group(1), "_no_rank": True,
                "error_message": f"Slurm declared node {m.group(1)} failed (srun: Node failure)"}
    for rx, cause, who in OTHER_STOPS if ("preempted." in text or "low on resource" in text or "node shutdown" in text) else ():
        m = rx.search(text)
        if m:
            return {"kind": "scheduler_stop", "subkind": cause, "error_type": who, "_no_rank": True, "error_message": (m.group(0) if m.group(0).startswith(who) else f"{who}: {m.group(0)}")[:300]}
    for sub, rx in SRUN_STEP_END if ("srun: " in text or "STEP " in text) else ():
        if rx.search(text):
            return {"kind": "step_end", "subkind": sub, "_no_rank": True}
    return None


__all__ = ["NODE_FAILURE", "OTHER_STOPS", "REASONS", "SLURM_CANCELLED", "SRUN_STEP_END", "slurm_stop"]
