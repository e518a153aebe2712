"""Ray's words about its worker processes: Ray Train's worker group (each worker's pid and world rank), its
trainer's word that a worker failed, and Ray's report of a worker process that died without raising (split from
``log_owners.py``, which attributes a forwarded worker's lines to its rank with the group read here)."""

from __future__ import annotations

import re
from typing import Any

from k10s_forensics.parsers.log_normalize import MASK

Event = dict[str, Any]

#: Ray Train's worker group as its controller started it: ``- (ip=10.0.0.5, pid=2317) world_rank=1, local_rank=1, node_rank=0``
RAY_WORKER_RANK = re.compile(r"\(ip=[^,()]{1,100}, pid=(\d{1,9})\) world_rank=(\d{1,7}), local_rank=(\d{1,5}), node_rank=(\d{1,5})")
#: Ray's report of a worker process that died without raising (SIGKILL: the OOM killer, a kill from outside):
#: ``The actor is dead because its worker process has died. Worker exit type: SYSTEM_ERROR``, the raylet's
#: ``A worker died or was killed while executing a task by an unexpected system error. … Worker PID: 2317``
RAY_WORKER_DIED = re.compile(r"(?:The actor is dead because its worker process has died|A worker died or was killed while executing a task)"
                             r".{0,2000}?Worker exit type: (SYSTEM_ERROR|NODE_OUT_OF_MEMORY)")
#: Ray Train v2's preemption notice: a worker on its own loss (``Rank 1 received preemption signal
#: (this_worker_preempted=True, preempted_ranks=[1], deadline_ms=…)``: its node is being drained) and the watcher's
#: (``PreemptionWatcher: preemption detected — preempted_node_ids=[…], preempted_ranks=[1], …``); a worker told of
#: another's loss (``this_worker_preempted=False``) is not preempted
RAY_PREEMPTED_SELF = re.compile(r"\bRank (\d{1,7}) received preemption signal \(this_worker_preempted=True\b")
RAY_PREEMPTION_WATCHER = re.compile(r"\bPreemptionWatcher: preemption detected\b.{0,2000}?\bpreempted_ranks=\[(\d{1,7})\]")
RAY_WORKER_PID = re.compile(r"\bWorker PID: (\d{1,9})\b")
#: Ray Train's trainer on a worker of its group that died (its index in the group, the world rank):
#: ``(TorchTrainer pid=89392) Worker 0 has failed.``; how it ended is not said
RAY_TRAIN_WORKER_FAILED = re.compile(r"(?:^|[\s)])Worker (\d{1,7}) has failed\.\s*$")
#: Ray's memory monitor on the worker it killed (the error it raises in the task's caller, ``ray.exceptions.OutOfMemoryError:
#: Task was killed due to the node running low on memory.``, then): ``Memory on the node (IP: 10.20.49.141, ID: …) where the
#: task (actor ID: …, name=8szhVkWorkerDict_0:3:WorkerDict.__init__, pid=4100606, memory used=56.57GB) was running was
#: 246.41GB / 251.54GB (0.979583), which exceeds the memory usage threshold of 0.95. Ray killed this worker …`` (newer Ray:
#: ``where the lease (…)``; a plain task: ``(task ID: …, name=…, …)``): group 1 the node's IP, 2 the actor's or task's
#: name, 3 its pid, 4 its memory
RAY_MEMORY_NOTICE = re.compile(r"\bMemory on the node \(IP: ([^,)\s]{1,64})[^)]{0,300}\) where the (?:task|lease) \((?:actor|task) ID: "
                               r"[0-9a-fA-F]{1,64}, name=([^,\s]{1,300}), pid=(\d{1,10}|" + MASK + r"), memory used=([\d.]{1,12} ?[KMGT]?i?B)\) was running")
#: newer Ray's account of the workers it killed, under the raised error (``Ray killed 1 worker(s) based on the killing policy:
#: [(Task: job ID=…, lease ID=…, task name=…, required resources={…}, pid=478, actual memory used=12.17GB, worker ID=…)]``,
#: or one ``Selected to kill: (Task: …)`` line each): group 1 the task's or actor's name, 2 its pid, 3 its memory (session 66)
RAY_KILL_POLICY = re.compile(r"\((?:Task|Actor): [^()]{0,800}?\b(?:task|actor) name=([^,\s]{1,300}), [^()]{0,400}?\bpid=(\d{1,10}|"
                             + MASK + r"), actual memory used=([\d.]{1,12} ?[KMGT]?i?B)")
#: Ray's task error header naming the worker process that ran the task and its node's IP (Ray < 2's
#: ``ray.exceptions.RayTaskError(RayOutOfMemoryError): ray::RayModel.train() (pid=80, ip=10.244.16.90)``, an actor's ``… raised
#: in its creation task, ray::Objective.__init__ (pid=793394, ip=10.10.1.247)``; newer Ray adds ``, actor_id=…``; a paste's
#: caret-shown colour codes ``^[[36mray::RayModel.train()^[[39m`` may wrap the name): group 1 the pid, 2 the IP; Ray < 2's
#: memory monitor raised ``RayOutOfMemoryError`` in that process (session 67, log_owners.py)
RAY_TASK_HEAD = re.compile(r"ray::[^\s()]{1,300}(?:\(\))?\S{0,12} \(pid=(\d{1,10}), ip=([^,()\s]{1,64})[,)]")
#: a verl worker group's actor in that name: ``<prefix><Class>_<placement group>:<rank in it>``, then the method it ran
RAY_WORKER_ACTOR = re.compile(r"^(\S{0,200}?_(\d{1,4}):(\d{1,7}))(?::[\w.<>]{1,200})?$")


def ray_worker(text: str) -> Event | None:
    """Ray Train's worker group (each worker's pid and world rank), its trainer's word that a worker
    failed (``ray_train_worker_failed``: the rank, no status) and Ray's report of a worker process that
    died without raising (no exit status: ``ray_worker_died``, a kill from outside)."""
    m = RAY_WORKER_RANK.search(text) if "world_rank=" in text else None
    if m:
        return {"kind": "rank_spawn", "subkind": "ray", "pid": int(m.group(1)), "rank": int(m.group(2))}
    m = RAY_TRAIN_WORKER_FAILED.search(text) if " has failed." in text else None
    if m:
        return {"kind": "process_exit", "subkind": "ray_train_worker_failed", "rank": int(m.group(1)),
                "error_message": f"Ray Train reports its worker {m.group(1)} (world rank) failed; how is not said"}
    m = (RAY_PREEMPTED_SELF.search(text) or RAY_PREEMPTION_WATCHER.search(text)) if "preempt" in text else None
    if m:  # the framework's own word that the rank's node is being drained: the rank goes with it (no exit status)
        return {"kind": "process_exit", "subkind": "ray_node_preempted", "rank": int(m.group(1)),
                "error_message": f"Ray Train's preemption notice: rank {m.group(1)}'s node is being drained (preempted)"}
    m = RAY_MEMORY_NOTICE.search(text) if "where the " in text and "Memory on the node" in text else None
    if m:
        return _memory_killed(f"node {m.group(1)}", m.group(2), m.group(3), m.group(4))
    m = RAY_KILL_POLICY.search(text) if "actual memory used=" in text else None
    if m:
        return _memory_killed("its node", m.group(1), m.group(2), m.group(3))
    m = RAY_WORKER_DIED.search(text) if "Worker exit type: " in text else None
    if m:
        pid = RAY_WORKER_PID.search(text)
        return {"kind": "process_exit", "subkind": "ray_worker_died", "pid": int(pid.group(1)) if pid else None,
                "error_message": f"Ray reports the worker process died without raising (exit type {m.group(1)}; no exit status logged)"}
    return None


__all__ = ["RAY_KILL_POLICY", "RAY_TASK_HEAD", "RAY_PREEMPTED_SELF", "RAY_PREEMPTION_WATCHER", "RAY_TRAIN_WORKER_FAILED", "RAY_WORKER_DIED", "RAY_WORKER_PID", "RAY_WORKER_RANK", "ray_worker"]


def _memory_killed(node: str, name: str, pid_text: str, used: str) -> Event | None:
    """The worker Ray's memory monitor killed: a SIGKILL for the node's host memory, of the rank a verl worker of the first
    placement group names (``…WorkerDict_0:3``); Ray Train's worker actor (``RayTrainWorker.__init__``,
    ``RayTrainWorker._RayTrainWorker__execute``) by its pid, the rank Ray Train's worker group gives that pid (queries'
    pid_rank; none where the group is not in the log: session 66); another name (the driver's ``main_task``, an agent
    loop, another group's worker) names no rank here: the raylet's summary and the raised error say the kill (None)."""
    pid = int(pid_text) if pid_text.isdigit() else None  # a paste may mask it
    actor = RAY_WORKER_ACTOR.match(name)
    if (actor is None or actor.group(2) != "0") and name.startswith("RayTrainWorker") and pid is not None:
        return {"kind": "process_exit", "subkind": "ray_memory_monitor", "rank": None, "pid": pid, "exit_code": -9,
                "error_message": f"Ray's memory monitor killed Ray Train's worker (pid {pid}, {used} used) for {node}'s host memory"}
    if actor is None or actor.group(2) != "0":
        return None
    return {"kind": "process_exit", "subkind": "ray_memory_monitor", "rank": int(actor.group(3)), "pid": pid, "exit_code": -9,
            "error_message": f"Ray's memory monitor killed {actor.group(1)} (pid {pid_text}, {used} used) for {node}'s host memory"}
