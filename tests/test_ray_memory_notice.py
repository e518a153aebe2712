"""Ray's memory monitor on the worker it killed (parsers/log_ray_workers.py ``RAY_MEMORY_NOTICE``, session 55).

Its notice names the task or actor it killed, ``name=<actor>:<Class>.<method>``; a verl worker group's actor of the first
placement group, ``<prefix>WorkerDict_0:<rank>``, is that rank (as in Ray's ``ActorDiedError``): a SIGKILL for the node's
host memory. Blind batch 322's verl#2950 read as a kill of no rank before. Another name names no rank.
"""

from __future__ import annotations

import pytest

from k10s_forensics.parsers.log_classify import classify

NOTICE = ("Memory on the node (IP: 10.20.49.141, ID: 4748aa6d) where the {what} ({id_kind} ID: 9e43ace6a1234e13, name={name}, "
          "pid=4100606, memory used=56.57GB) was running was 246.41GB / 251.54GB (0.979583), which exceeds the memory usage "
          "threshold of 0.95. Ray killed this worker (ID: c9e16e95) because it was the most recently scheduled task;")


@pytest.mark.parametrize(
    ("what", "id_kind", "name", "rank"),
    [("task", "actor", "8szhVkWorkerDict_0:3:WorkerDict.__init__", 3),
     ("lease", "actor", "gxgUtgWorkerDict_0:6:WorkerDict.actor_rollout_generate_sequences", 6),
     ("task", "actor", "07GxnAWorkerDict_1:2:WorkerDict.__init__", None),  # another placement group: its first rank unknown
     ("task", "task", "main_task", None),  # the driver
     ("lease", "actor", "agent_loop_worker_4_abc:AgentLoopWorker.__init__", None)],
    ids=["worker-rank3", "lease-rank6", "second-group", "driver", "agent-loop"],
)
def test_the_notice_names_the_killed_workers_rank(what, id_kind, name, rank):
    events = [e for e in classify(NOTICE.format(what=what, id_kind=id_kind, name=name)) if e["kind"] == "process_exit"]
    if rank is None:
        assert events == []
    else:
        ((ev),) = events
        assert (ev["subkind"], ev["rank"], ev["exit_code"], ev["pid"]) == ("ray_memory_monitor", rank, -9, 4100606)
        assert "10.20.49.141" in ev["error_message"] and "56.57GB" in ev["error_message"]


@pytest.mark.parametrize("mask", ["xxxxxx", "<PID>", "***", "…"])
def test_a_masked_pid_still_names_the_rank(mask):
    line = NOTICE.format(what="task", id_kind="actor", name="8szhVkWorkerDict_0:3:WorkerDict.__init__").replace("4100606", mask)
    ((ev),) = [e for e in classify(line) if e["kind"] == "process_exit"]
    assert (ev["rank"], ev["pid"]) == (3, None)
