"""Ray Tune's trainable header names the trainable, no worker (session 69; docs/rules.md, "Session 69: Ray's task-error
classes and Tune's trainable header").

A Tune trial runs its trainable as an actor (Ray Train's trainer: ``ray::_Inner.train()``, Ray 2.0-2.1's
``ray::TrainTrainable.train()``; a function trainable: ``ray::ImplicitFunc.train()``); it awaits the Train workers and
re-raises their errors, so the driver prints ``RayTaskError(<Class>): ray::_Inner.train() (pid=N, ip=A, …,
repr=TorchTrainer)``: N and A are the trainable's, no worker's. Its header places nothing (no pid's rank, no IP's pod),
and where a worker's own error was printed above it (a rank's ``[rankN]:`` tag, a relayed worker's ``(RayTrainWorker
pid=…)`` prefix, a worker's header) it is dropped: that error is read, not a second failure in the driver's lines. Its
nested worker header below it is read as before (session 68).

Real lines: the trainable headers of LlamaFactory#7327, discuss.ray.io/t/8598, ray-project/ray#40850 and #31828
(tests/data/real-incidents); ``GROUP``, the worker errors above them (``RuntimeError: boom``) are synthetic.
"""

from __future__ import annotations

import datetime as dt

import pytest

from bundle_batch import assert_one_rank, pasted_findings
from incident_kit import corpus_lines, naming_findings
from k10s_forensics.parsers.log_lines import BodyAssembler
from ray_kit import captured_findings

NOW = dt.datetime(2026, 12, 7, 4, 0, tzinfo=dt.timezone.utc)
#: Ray Train's worker group as its trainer prints it (synthetic): world rank 0 is pid 4241, rank 1 pid 4242
GROUP = [f"(TorchTrainer pid=5000) - (ip=10.99.0.{r + 1}, pid={4241 + r}) world_rank={r}, local_rank=0, node_rank={r}" for r in (0, 1)]


def _trainable(prefix: str) -> str:
    """The corpus case's trainable header (`_Inner.train()` or `TrainTrainable.train()`)."""
    return next(x for x in corpus_lines(prefix) if "RayTaskError(" in x and ".train()" in x)


#: ray-project/ray#40850's trainable header (pid 83344, ip 192.168.0.107) and its nested worker's (pid 83501)
TRAINABLE = _trainable("ray-40850-")
WORKER = next(x for x in corpus_lines("ray-40850-") if "RayTaskError(" in x and "_RayTrainWorker__execute" in x)


def _events(lines: list[str]) -> list[tuple]:
    asm = BodyAssembler(None)
    for i, line in enumerate(lines, 1):
        asm.feed(i, line, None)
    return [(e["kind"], e.get("error_type"), e.get("pid"), e.get("ip")) for e in asm.finish() if e["kind"] != "rank_spawn"]


@pytest.mark.parametrize("prefix", ["LlamaFactory-7327-", "discuss-ray-8598-", "ray-40850-", "ray-31828-"])
def test_a_trainables_header_names_no_process(prefix):
    (kind, error_type, pid, ip), = _events([_trainable(prefix)])
    assert (kind, pid, ip) == ("python_exception", None, None) and error_type in ("RuntimeError", "AssertionError")


def test_a_trainables_header_under_a_workers_error_is_dropped():
    boom = "(RayTrainWorker pid=4242, ip=10.99.0.2) RuntimeError: boom"
    assert _events([boom, TRAINABLE]) == [("python_exception", "RuntimeError", 4242, None)]
    assert _events(["[rank1]: RuntimeError: boom", TRAINABLE]) == [("python_exception", "RuntimeError", None, None)]
    # the trainable's own relayed lines (`(TrainTrainable pid=…)`) are no worker's: its header stays
    own = "(TrainTrainable pid=45854) RuntimeError: boom"
    assert [e[0] for e in _events([own, TRAINABLE])] == ["python_exception", "python_exception"]
    # nested: the worker's header below the trainable's is read (session 68), the trainable's dropped
    assert _events([TRAINABLE, WORKER]) == [("python_exception", "RuntimeError", 83501, "192.168.0.107")]


#: key: (lines, the rank named alone (None: none), the cause)
PASTED = {
    # the worker's error above the trainable's header: the worker's rank (was: no rank, a relayed line beside a failure
    # of the driver's own)
    "relayed-worker-error-above": (GROUP + ["(RayTrainWorker pid=4242, ip=10.99.0.2) RuntimeError: boom", TRAINABLE], 1, "python-exception"),
    "tagged-worker-error-above": (["[rank1]: RuntimeError: boom", TRAINABLE], 1, "python-exception"),
    "nested-worker-header-below": (GROUP[:1] + ["(TorchTrainer pid=5000) - (ip=192.168.0.107, pid=83501) world_rank=1, local_rank=0, node_rank=1",
                                                TRAINABLE, WORKER], 1, "python-exception"),
    # contrasts: the trainable's header alone, or a relayed worker no group names, names no rank
    "trainable-header-alone": ([TRAINABLE], None, "python-exception"),
    "trainable-header-alone-with-group": (GROUP + [TRAINABLE], None, "python-exception"),
    "relayed-worker-error-no-group": (["(RayTrainWorker pid=4242, ip=10.99.0.2) RuntimeError: boom", TRAINABLE], None, "python-exception"),
}


@pytest.mark.parametrize("key", list(PASTED))
def test_the_worker_error_above_a_trainables_header_is_read(key, tmp_path):
    lines, rank, cause = PASTED[key]
    findings = pasted_findings(lines, tmp_path, 1, 2, NOW)
    assert_one_rank(naming_findings(findings), rank, cause)
    assert any(f["rule"] == "rank-failure" and f["cause"] == cause for f in findings), findings


def test_a_trainables_ip_names_no_pod(tmp_path):
    # a captured pod of one rank at the trainable's IP (train-worker-0, 10.1.0.6): the trainable ran there, no worker's
    # error is placed by it (a worker's header of that IP names rank 1: tests/test_ray_task_error_classes.py)
    header = TRAINABLE.replace("ip=192.168.0.107", "ip=10.1.0.6")
    findings = captured_findings(tmp_path, [header], 1, version="t69", name="ray-tune-trainable")
    assert naming_findings(findings) == [], findings
