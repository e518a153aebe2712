"""Ray's relayed prefixes (docs/rules.md, "Session 20: controls"; docs/parsers-logs.md): Ray's log monitor forwards
what another process prints to the driver behind that process's prefix. The prefix is peeled, the line marked relayed,
and a failure on it keeps the relaying process's pid (the driver's own lines have none); vLLM's own worker prefixes
(they write to the same terminal) are not Ray's. The paste cases are in tests/test_control_pastes.py."""

from __future__ import annotations

import pytest

from k10s_forensics.parsers.log_lines import BodyAssembler
from k10s_forensics.parsers.log_normalize import normalize

ABORT = "Fatal Python error: Aborted"


@pytest.mark.parametrize(("prefix", "pid", "relayed"), [
    ("(RayWorkerVllm pid=7046) ", 7046, True),  # an actor of vLLM's Ray executor
    ("(RayWorkerWrapper pid=20430, ip=29.45.33.204) ", 20430, True),
    ("(Actor pid=55) ", 55, True),
    ("(WorkerDict pid=1316) ", 1316, True),  # verl's worker actor
    ("(TaskRunner pid=6) ", 6, True),
    ("(ActorModelRayActorBOX pid=3, ip=10.0.0.9) ", 3, True),
    ("(train_func pid=12) ", 12, True),  # a task
    ("(pid=123) ", 123, True),  # a nameless one
    ("(pid=123, ip=10.1.2.3) ", 123, True),
    ("(RayTrainWorker pid=4797, ip=10.0.6.130) ", 4797, True),
    ("\x1b[2m\x1b[36m(RayWorkerWrapper pid=8)\x1b[0m ", 8, True),  # Ray's colours
    ("(RayWorkerVllm pid=xxxxxx) ", None, True),  # a masked pid: relayed, no pid
    ("(pid=<PID>, ip=xxx.xxx.xxx.xxx) ", None, True),
    # Ray's own processes: relayed, their pid not a worker's
    ("(raylet) ", None, True),
    ("(raylet, ip=10.0.0.4) ", None, True),
    ("(TorchTrainer pid=89392) ", None, True),
    ("(TrainController pid=23317) ", None, True),
    # vLLM's own worker processes write to the driver's terminal: not relayed
    ("(VllmWorkerProcess pid=5) ", None, False),
    ("(VllmWorker rank=2 pid=4664) ", None, False),
    # the driver's own lines
    ("", None, False),
    ("[12345] ", 12345, False),  # logging's %(process)d
])
def test_rays_prefix_is_peeled_with_its_pid(prefix, pid, relayed):
    norm = normalize(prefix + ABORT)
    assert (norm.text, norm.pid, norm.relayed) == (ABORT, pid, relayed)


@pytest.mark.parametrize("line", ["(APIServer pid=4) " + ABORT, "(EngineCore_0 pid=3) " + ABORT, "(pid=) " + ABORT])
def test_other_parentheses_are_no_rays_prefix(line):
    assert not normalize(line).relayed


def _events(*lines: str) -> list[dict]:
    body = BodyAssembler(None)
    for i, line in enumerate(lines, 1):
        body.feed(i, line, None)
    return body.finish()


@pytest.mark.parametrize(("line", "kind", "pid"), [
    ("(RayWorkerVllm pid=7046) " + ABORT, "process_exit", 7046),
    ("(pid=88, ip=10.0.0.3) RuntimeError: CUDA error: an illegal memory access was encountered", "cuda_error", 88),
    ("(WorkerDict pid=1316) torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.", "cuda_oom", 1316),
    ("(RayWorkerVllm pid=xxxxxx) " + ABORT, "process_exit", None),
    ("(VllmWorkerProcess pid=5) " + ABORT, "process_exit", None),  # vLLM's own: no process named
    (ABORT, "process_exit", None),  # the driver's own line
])
def test_a_relayed_failure_keeps_its_process(line, kind, pid):
    assert [(e["kind"], e.get("pid")) for e in _events(line)] == [(kind, pid)]


def test_a_reports_own_pid_is_kept():
    """The raylet's report names the dead worker's pid itself: that pid, not a prefix's."""
    line = ("(raylet) A worker died or was killed while executing a task by an unexpected system error. Worker PID: 89513 "
            "Worker exit type: SYSTEM_ERROR")
    assert [(e["subkind"], e.get("pid")) for e in _events(line)] == [("ray_worker_died", 89513)]
