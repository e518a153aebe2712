"""Ray < 2's memory monitor and Ray's IPs to pods (session 67; docs/rules.md, "Session 67: Ray < 2's memory monitor").

Ray 1.x checked its node's memory before a task ran and raised ``ray.memory_monitor.RayOutOfMemoryError: More than 95% of
the memory on node <host> is used (X / Y GB). The top 10 memory consumers are:`` in that task (``ray._private.`` from 1.5),
which its caller re-raised under ``ray.exceptions.RayTaskError(RayOutOfMemoryError): ray::f() (pid=N, ip=…)``: the node's
host memory (host-oom, raised, not a kill), no rank's unless a line ties it to one (a ``[rankN]:`` tag, the header's
pid in Ray Train's worker group, the header's IP a captured pod of one rank). A Ray notice's or a relayed worker's IP
(``Memory on the node (IP: …)``, ``(RayTrainWorker pid=N, ip=…)``) names the captured pod of that IP, its node and, when
it holds one rank, that rank; a paste's IPs name no pod (import-logs makes its pods' addresses up).

Real pastes quoted (log lines only): ray-project/ray#3323 (https://github.com/ray-project/ray/pull/3323, the wrapped
error), ray-project/ray#7317 (https://github.com/ray-project/ray/issues/7317, relayed under ``(pid=N)``),
arcelien/pba#36 (https://github.com/arcelien/pba/issues/36, the task header, its colour codes shown as carets),
ray-project/ray#20690 (https://github.com/ray-project/ray/issues/20690, the driver's LOW MEMORY notice).
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import assert_one_rank, pasted_findings
from incident_kit import naming_findings
from k10s_forensics.parsers.log_cut_wordings import rejoin_cut_wordings
from ray_kit import captured_findings

NOW = dt.datetime(2026, 12, 7, 4, 0, tzinfo=dt.timezone.utc)
#: ray-project/ray#3323: the error wrapped after ``node``
WRAPPED_3323 = ["ray.memory_monitor.RayOutOfMemoryError: More than 95% of the memory on node",
                "eric-ThinkPad is used (11.8 / 12.3 GB). The top 5 memory consumers are:", "", "PID\tMEM\tCOMMAND",
                "28442\t5.0GB\tray_X:alloc()"]
#: ray-project/ray#7317: an actor's creation task, relayed under its pid
RELAYED_7317 = [
    "(pid=793394) 2021-08-08 01:14:32,395\tERROR worker.py:421 -- Exception raised in creation task: The actor died because "
    "of an error raised in its creation task, ray::4/10 trial 30 for study 63_fish_value:Objective.__init__ (pid=793394, ip=10.10.1.247)",
    '(pid=793394)   File "/usr/local/lib/python3.9/site-packages/ray/_private/memory_monitor.py", line 150, in raise_if_low_memory',
    "(pid=793394)     raise RayOutOfMemoryError(",
    "(pid=793394) ray._private.memory_monitor.RayOutOfMemoryError: More than 95% of the memory on node ml-node is used "
    "(14.97 / 15.55 GB). The top 10 memory consumers are:"]


def _task(head_error: str = "RayOutOfMemoryError", pid: int = 80, ip: str = "10.244.16.90", node: str = "ml-node") -> list[str]:
    """arcelien/pba#36's driver traceback: Ray Tune's ``ray.get`` re-raising the task's error under its header."""
    inner = (f"ray.memory_monitor.RayOutOfMemoryError: More than 95% of the memory on node {node} is used (60.1 / 62.8 GB). "
             "The top 10 memory consumers are:" if head_error == "RayOutOfMemoryError" else "ValueError: bad batch")
    return ["Traceback (most recent call last):",
            '  File "/usr/local/lib/python3.6/site-packages/ray/worker.py", line 1513, in get',
            "    raise value.as_instanceof_cause()",
            f"ray.exceptions.RayTaskError({head_error}): ^[[36mray::RayModel.train()^[[39m (pid={pid}, ip={ip})",
            '  File "python/ray/_raylet.pyx", line 452, in ray._raylet.execute_task', inner]


#: Ray Train's worker group as its trainer prints it: world rank 0 is pid 4241, rank 1 pid 4242
GROUP = [f"(TorchTrainer pid=5000) - (ip=10.99.0.{r + 1}, pid={4241 + r}) world_rank={r}, local_rank=0, node_rank={r}" for r in (0, 1)]
#: ray-project/ray#20690: the driver's LOW MEMORY notice of a run that went on
LOW_MEMORY = ("Memory usage on this node: 29.6/30.9 GiB: ***LOW MEMORY*** less than 10% of the memory on this node is available "
              "for use. This can cause unexpected crashes.")
NEWER_NOTICE = ("ray.exceptions.OutOfMemoryError: Task was killed due to the node running low on memory. Memory on the node "
                "(IP: {ip}, ID: d47bda43) was 113.76GB / 119.70GB (0.950345), which exceeds the memory usage threshold of 0.95.")

#: key: (lines, processes per node, world, the rank named alone (None: none), its cause, the node the summary names)
PASTED = {
    "wrapped-3323": (WRAPPED_3323, None, None, None, "host-oom", "node eric-ThinkPad"),
    "wrapped-3323-two-nodes": (WRAPPED_3323, 1, 2, None, "host-oom", "node eric-ThinkPad"),
    "relayed-7317-two-nodes": (RELAYED_7317, 1, 2, None, "host-oom", "node ml-node"),
    "task-header-pba36-two-nodes": (_task(), 1, 2, None, "host-oom", "node ml-node"),
    # a line tying it to a worker: the header's pid in Ray Train's group, a rank tag
    "task-header-pid-in-group": (GROUP + _task(pid=4242, ip="10.99.0.2"), 1, 2, 1, "host-oom", None),
    "rank1-tagged": (["[rank1]: " + line for line in _task()[-1:]], 1, 2, 1, "host-oom", None),
    # an import's pods' IPs are made up (node 1's is 10.200.0.3): a paste's IP names no pod
    "paste-ip-of-an-imported-pod": ([NEWER_NOTICE.format(ip="10.200.0.3")], 1, 2, None, "host-oom-kill", "node 10.200.0.3"),
}


@pytest.mark.parametrize("key", list(PASTED))
def test_ray_before_2_memory_monitor_is_the_nodes_host_memory(key, tmp_path):
    lines, nproc, world, rank, cause, node = PASTED[key]
    findings = pasted_findings(lines, tmp_path, nproc, world, NOW)
    assert_one_rank(naming_findings(findings), rank, cause)
    assert [f["cause"] for f in findings] == [cause], findings
    if rank is None:
        (finding,) = findings
        assert finding["ranks"] == [] and f"memory monitor{' (Ray < 2) stopped a task' if cause == 'host-oom' else ' killed a worker'} on {node}" in finding["summary"]
        assert "(pod " not in finding["summary"]


@pytest.mark.parametrize(("lines", "rank"), [(GROUP + _task("ValueError", pid=4242, ip="10.99.0.2"), 1), (_task("ValueError"), None)],
                         ids=["in-group", "no-group"])
def test_a_ray_tasks_ordinary_exception_stays_a_python_exception(lines, rank, tmp_path):
    findings = pasted_findings(lines, tmp_path, 1, 2, NOW)
    assert {f["cause"] for f in findings} == {"python-exception"}, findings
    if rank is not None:
        assert_one_rank(naming_findings(findings), rank, "python-exception")


def test_the_wrapped_error_is_joined():
    assert rejoin_cut_wordings(WRAPPED_3323[:2])[0] == [" ".join(WRAPPED_3323[:2])]


def _captured(tmp: Path, driver: list[str], nproc: int = 1) -> list[dict]:
    return captured_findings(tmp, driver, nproc, version="t67", name="ray-ip")


#: key: (the driver's lines, processes per pod, the rank named alone, its cause)
CAPTURED = {
    "notice-ip-of-the-worker-pod": ([NEWER_NOTICE.format(ip="10.1.0.6")], 1, 1, "host-oom-kill"),
    "relayed-worker-prefix-ip": (["(RayTrainWorker pid=123, ip=10.1.0.6) RuntimeError: boom"], 1, 1, "python-exception"),
    "ray-before-2-task-header-ip": (_task(ip="10.1.0.6", node="train-worker-0"), 1, 1, "host-oom"),
}


@pytest.mark.parametrize("key", list(CAPTURED))
def test_an_ip_of_a_captured_pod_of_one_rank_names_that_rank_and_its_node(key, tmp_path):
    driver, nproc, rank, cause = CAPTURED[key]
    findings = _captured(tmp_path, driver, nproc)
    assert_one_rank(naming_findings(findings), rank, cause)
    (finding,) = findings
    assert (finding["pods"], finding["nodes"]) == (["team-a/train-worker-0"], ["gpu-node-1"]), finding
    assert f"Rank {rank} on gpu-node-1" in finding["summary"]


def test_an_ip_of_a_pod_of_several_ranks_names_the_pod_not_a_rank(tmp_path):
    (finding,) = _captured(tmp_path, [NEWER_NOTICE.format(ip="10.1.0.6")], nproc=2)
    assert (finding["cause"], finding["ranks"]) == ("host-oom-kill", [])
    assert "killed a worker on node 10.1.0.6 (pod team-a/train-worker-0 on gpu-node-1)" in finding["summary"]


def test_an_ip_no_pod_holds_stays_an_ip(tmp_path):
    (finding,) = _captured(tmp_path, [NEWER_NOTICE.format(ip="10.1.0.9")])
    assert (finding["cause"], finding["ranks"]) == ("host-oom-kill", [])
    assert "killed a worker on node 10.1.0.9 for" in finding["summary"] and "(pod " not in finding["summary"]


@pytest.mark.parametrize("captured", [True, False], ids=["captured", "pasted"])
def test_the_drivers_low_memory_notice_of_a_healthy_run_names_no_one(captured, tmp_path):
    driver = [LOW_MEMORY, "(RayTrainWorker pid=123, ip=10.1.0.6) step 2 loss 0.41", "Training finished"]
    findings = _captured(tmp_path, driver) if captured else pasted_findings(driver, tmp_path, 1, 2, NOW)
    assert findings == []
