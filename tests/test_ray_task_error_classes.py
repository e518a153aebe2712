"""Ray's task error header whose class another reader claims, and its OutOfMemoryError told by its text (session 69;
docs/rules.md, "Session 69: Ray's task-error classes and Tune's trainable header").

``ray.exceptions.RayTaskError(<Class>): ray::<task>() (pid=N, ip=A)`` names the process that raised the task's error.
Session 68 placed it there only where the exception reader read it; a header whose class or line another reader claims
first (``RayTaskError(DistBackendError)``: an NCCL error; a header whose line carries torch's ``CUDA out of memory``: a
CUDA OOM) was placed in the printer's pod (the driver's). Now every reading of a header line is placed by the header's
pid (Ray Train's worker group) or IP (a captured pod of one rank), never by the printer's pod. A
``RayTaskError(OutOfMemoryError)`` is told by the text its line carries: torch's CUDA OOM (cuda-oom), Ray's memory
monitor's ``Task was killed due to the node running low on memory`` (host-oom-kill); with neither, the class's name
alone says no more than an exception of it (python-exception).

Real lines: ray-project/ray#40758's headers, NVIDIA-NeMo/RL#3793's and THUDM/slime#1767's (tests/data/real-incidents);
``GROUP`` and the headers ``_header`` builds, with the texts after them, are synthetic (Ray's shape, torch's and Ray's
own wordings of the two OOMs).
"""

from __future__ import annotations

import datetime as dt

import pytest

from bundle_batch import assert_one_rank, pasted_findings
from incident_kit import REAL_INCIDENTS_DIR, analyze_incident, corpus_lines, load_corpus, misses, naming_findings
from k10s_forensics.parsers.log_lines import BodyAssembler
from ray_kit import captured_findings

NOW = dt.datetime(2026, 12, 7, 4, 0, tzinfo=dt.timezone.utc)
#: Ray Train's worker group as its trainer prints it (synthetic): world rank 0 is pid 4241, rank 1 pid 4242
GROUP = [f"(TorchTrainer pid=5000) - (ip=10.99.0.{r + 1}, pid={4241 + r}) world_rank={r}, local_rank=0, node_rank={r}" for r in (0, 1)]
#: the frames of the driver's ``ray.get`` above the header (synthetic, the shape of ray-project/ray#40758's)
TB = ["Traceback (most recent call last):", '  File "/home/ray/anaconda3/lib/python3.9/site-packages/ray/_private/worker.py", line 2547, in get',
      "    raise value.as_instanceof_cause()"]
#: what a header's line may carry after its ``(pid=…)`` (synthetic: torch's and Ray's own wordings)
NCCL = " torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1275, internal error, NCCL version 2.14.3"
CUDA_OOM = " torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.10 GiB of which 1.06 GiB is free."
RAY_KILL = " ray.exceptions.OutOfMemoryError: Task was killed due to the node running low on memory."


def _header(cls: str, pid: int, rest: str = "", ip: str = "10.99.0.2") -> str:
    return (f"ray.exceptions.RayTaskError({cls}): ray::_RayTrainWorker__execute.get_next() (pid={pid}, ip={ip}, "
            f"actor_id=a3e4eb7bfa5c10d44e303ba301000000, repr=<ray.train._internal.worker_group.RayTrainWorker object at 0x7fbfd5e7a100>){rest}")


def _events(lines: list[str]) -> list[tuple]:
    asm = BodyAssembler(None)
    for i, line in enumerate(lines, 1):
        asm.feed(i, line, None)
    return [(e["kind"], e.get("pid"), e.get("ip")) for e in asm.finish() if e["kind"] != "rank_spawn"]


def test_a_header_another_reader_claims_keeps_the_pid_and_ip_it_names():
    # ray-project/ray#40758: the worker's `RayTaskError(DistBackendError)`, read as an NCCL error (it had no pid)
    worker = [x for x in corpus_lines("ray-40758-") if "RayTaskError(" in x][-1]
    assert _events(TB + [worker]) == [("nccl_error_other", 192, "10.0.0.19")]
    assert _events(TB + [_header("OutOfMemoryError", 4242, CUDA_OOM)]) == [("cuda_oom", 4242, "10.99.0.2")]
    # the header read by the exception reader: as before (session 68)
    assert _events(TB + [_header("RuntimeError", 4242)]) == [("python_exception", 4242, "10.99.0.2")]
    # a line that only mentions the class (no header's shape) is no header: nothing placed
    assert _events(["ERROR: actor failed with RayTaskError(DistBackendError) " + NCCL.strip()]) == [("nccl_error_other", None, None)]


#: key: (lines, the rank named alone (None: none), the cause)
PASTED = {
    # an NCCL error's header: its pid's rank in the group (was: the NCCL error of the printer's pod, or none)
    "nccl-header-pid-in-group": (GROUP + TB + [_header("DistBackendError", 4242, NCCL)], 1, "nccl-error"),
    # torch's CUDA OOM on the header's line: cuda-oom of the pid's rank
    "cuda-oom-header-pid-in-group": (GROUP + TB + [_header("OutOfMemoryError", 4242, CUDA_OOM)], 1, "cuda-oom"),
    # Ray's memory monitor's kill on the header's line: host-oom-kill of the pid's rank (session 66's reading)
    "ray-kill-header-pid-in-group": (GROUP + TB + [_header("OutOfMemoryError", 4242, RAY_KILL)], 1, "host-oom-kill"),
    # the class alone tells neither: an exception of that name (session 68's reading)
    "oom-class-alone-pid-in-group": (GROUP + TB + [_header("OutOfMemoryError", 4242)], 1, "python-exception"),
    # contrasts: no group, or a pid not in it, names no rank (the CUDA OOM named rank 0, the printer's pod's, before)
    "nccl-header-no-group": (TB + [_header("DistBackendError", 4242, NCCL)], None, "nccl-error"),
    "cuda-oom-header-no-group": (TB + [_header("OutOfMemoryError", 4242, CUDA_OOM)], None, "cuda-oom"),
    "cuda-oom-header-pid-not-in-group": (GROUP + TB + [_header("OutOfMemoryError", 4300, CUDA_OOM)], None, "cuda-oom"),
    "ray-kill-header-no-group": (TB + [_header("OutOfMemoryError", 4242, RAY_KILL)], None, "host-oom-kill"),
    "nccl-class-alone-pid-in-group": (GROUP + TB + [_header("DistBackendError", 4242)], None, None),
}


@pytest.mark.parametrize("key", list(PASTED))
def test_a_header_is_placed_by_its_pid_whatever_reads_its_class(key, tmp_path):
    lines, rank, cause = PASTED[key]
    findings = pasted_findings(lines, tmp_path, 1, 2, NOW)
    assert_one_rank(naming_findings(findings), rank, cause)
    causes = {f["cause"] for f in findings if f["severity"] in ("critical", "warning")}
    assert cause is None and not naming_findings(findings) or cause in causes, findings


#: key: (the driver's lines, the rank named (None: none), its pods and nodes)
CAPTURED = {
    # the header's IP is the captured pod of one rank (10.1.0.6: train-worker-0, rank 1): that rank, its pod and node
    "nccl-header-ip-of-a-pod": ([_header("DistBackendError", 192, NCCL, ip="10.1.0.6")], 1, ["team-a/train-worker-0"], ["gpu-node-1"]),
    "cuda-oom-header-ip-of-a-pod": ([_header("OutOfMemoryError", 192, CUDA_OOM, ip="10.1.0.6")], 1, ["team-a/train-worker-0"], ["gpu-node-1"]),
    # contrast: an IP of no pod names no rank
    "cuda-oom-header-ip-of-no-pod": ([_header("OutOfMemoryError", 192, CUDA_OOM, ip="10.9.9.9")], None, None, None),
}


@pytest.mark.parametrize("key", list(CAPTURED))
def test_a_header_is_placed_in_the_captured_pod_its_ip_names(key, tmp_path):
    driver, rank, pods, nodes = CAPTURED[key]
    findings = captured_findings(tmp_path, driver, 1, version="t69", name="ray-task-error-classes")
    assert_one_rank(naming_findings(findings), rank)
    if rank is not None:
        (finding,) = naming_findings(findings)
        assert (finding["pods"], finding["nodes"]) == (pods, nodes), finding


#: the corpus's controls of such a header (an NCCL error's, an OutOfMemoryError's alone): still no rank, both ways
CONTROLS = ["ray-40758-", "NeMo-RL-3793-", "slime-1767-"]


@pytest.mark.parametrize("prefix", CONTROLS)
@pytest.mark.parametrize("how", [{}, {"api_timestamps": True, "one_log": True}], ids=["routed", "one-pod"])
def test_the_corpus_controls_of_such_headers_name_no_rank(prefix, how, tmp_path):
    (case,) = [c for c in load_corpus(REAL_INCIDENTS_DIR) if c.incident.startswith(prefix)]
    findings = analyze_incident(tmp_path, case, **how)
    assert misses(case, findings) is None, misses(case, findings)
    assert naming_findings(findings) == [], findings
