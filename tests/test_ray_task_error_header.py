"""Ray's task error header read alone, and the node of a rank Ray's driver names (session 68; docs/rules.md, "Session 68:
Ray's task error header, and the node of the rank Ray's pid names").

A caller that awaited a Ray task re-raises its exception as ``ray.exceptions.RayTaskError(<class>): ray::f() (pid=N,
ip=A)``, the task's traceback and exception line under it. A header left alone (a paste cut after it, nested headers
cut before the innermost one's exception) is read as its inner class's exception (``RayOutOfMemoryError``: host-oom; any
other class: that class's exception), raised in the process it names: a rank only where Ray Train's worker group gives
that pid one (or the IP a captured pod of one rank), never the printer's. With its exception line below it, the header
is dropped: the full form reads as before.

A Ray line the driver prints of a rank its own pod holds not (Ray Train's group maps the line's pid to that rank) names
the captured pod holding the rank, its node and GPU, not the printer's; where no captured pod holds it (a paste laid out
in one pod), its node is unknown (``node_unknown``), not the printer's.

Real lines are from the corpus (tests/data/real-incidents: ray-project/ray#26490, discuss.ray.io/t/8598 and the others
named below); the lines built here (``_task``, ``GROUP``, the relayed ``RuntimeError: boom``) are synthetic.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import assert_one_rank, pasted_findings
from incident_kit import REAL_INCIDENTS_DIR, analyze_incident, corpus_lines, load_corpus, misses, naming_findings
from k10s_forensics.analyze.runner import analyze
from k10s_forensics.logimport import LogSource, import_logs
from k10s_forensics.parsers.log_lines import BodyAssembler
from ray_kit import captured_findings

NOW = dt.datetime(2026, 12, 7, 4, 0, tzinfo=dt.timezone.utc)
#: Ray Train's worker group as its trainer prints it (synthetic): world rank 0 is pid 4241, rank 1 pid 4242
GROUP = [f"(TorchTrainer pid=5000) - (ip=10.99.0.{r + 1}, pid={4241 + r}) world_rank={r}, local_rank=0, node_rank={r}" for r in (0, 1)]
INNER = {"RayOutOfMemoryError": "ray.memory_monitor.RayOutOfMemoryError: More than 95% of the memory on node ml-node is used "
                                "(60.1 / 62.8 GB). The top 10 memory consumers are:",
         "RuntimeError": "RuntimeError: boom"}


def _task(inner: str, pid: int = 80, ip: str = "10.244.16.90", whole: bool = False) -> list[str]:
    """A driver's traceback re-raising a task's error under Ray's header (synthetic, the shape of arcelien/pba#36's);
    ``whole``: with the task's frame and exception line under the header, else cut after the header."""
    head = ["Traceback (most recent call last):", '  File "/usr/local/lib/python3.8/site-packages/ray/worker.py", line 1513, in get',
            "    raise value.as_instanceof_cause()", f"ray.exceptions.RayTaskError({inner}): ray::RayModel.train() (pid={pid}, ip={ip})"]
    return head + (['  File "python/ray/_raylet.pyx", line 452, in ray._raylet.execute_task', INNER[inner]] if whole else [])


#: key: (lines, the rank named alone (None: none), the cause, the error type, the summary's words where no rank)
PASTED = {
    # the header alone: its inner class's exception, in the process it names
    "legacy-oom-header-alone": (_task("RayOutOfMemoryError"), None, "host-oom", "RayOutOfMemoryError",
                                "memory monitor (Ray < 2) stopped a task on node 10.244.16.90"),
    "legacy-oom-header-pid-in-group": (GROUP + _task("RayOutOfMemoryError", pid=4242), 1, "host-oom", "RayOutOfMemoryError", None),
    "runtime-error-header-pid-in-group": (GROUP + _task("RuntimeError", pid=4242), 1, "python-exception", "RuntimeError", None),
    # Ray's or torch's OutOfMemoryError: the header gives the class's name only, so no more than an exception of it
    "out-of-memory-error-header-pid-in-group": (GROUP + _task("OutOfMemoryError", pid=4242), 1, "python-exception", "OutOfMemoryError", None),
    # contrasts: no tie to a worker names no rank (not the driver's pod's); the header of an ordinary exception stays one
    "runtime-error-header-alone": (_task("RuntimeError"), None, "python-exception", "RuntimeError", "names no rank"),
    "runtime-error-header-pid-not-in-group": (GROUP + _task("RuntimeError", pid=4300), None, "python-exception", "RuntimeError", "names no rank"),
    "whole-form-reads-its-exception-line": (GROUP + _task("RuntimeError", pid=4242, whole=True), 1, "python-exception", "RuntimeError", None),
}


@pytest.mark.parametrize("key", list(PASTED))
def test_a_header_alone_is_its_inner_classs_exception_in_the_process_it_names(key, tmp_path):
    lines, rank, cause, error_type, words = PASTED[key]
    findings = pasted_findings(lines, tmp_path, 1, 2, NOW)
    assert_one_rank(naming_findings(findings), rank, cause)
    (finding,) = [f for f in findings if f["rule"] == "rank-failure"]
    assert (finding["cause"], finding["ranks"]) == (cause, [] if rank is None else [rank]), finding
    assert rank is None or error_type in finding["summary"], finding["summary"]
    assert words is None or words in finding["summary"], finding["summary"]
    if key.startswith("whole-form"):  # the task's own line is the event: its message, not the header's
        assert "boom" in finding["summary"] and "ray::" not in finding["summary"], finding["summary"]


def _events(lines: list[str]) -> list[tuple]:
    asm = BodyAssembler(None)
    for i, line in enumerate(lines, 1):
        asm.feed(i, line, None)
    return [(e["kind"], e.get("error_type"), e.get("pid"), e.get("ip")) for e in asm.finish() if e["kind"] == "python_exception"]


def test_the_header_is_dropped_under_its_tasks_own_exception_line():
    assert _events(_task("RuntimeError")) == [("python_exception", "RuntimeError", 80, "10.244.16.90")]
    assert _events(_task("RuntimeError", whole=True)) == [("python_exception", "RuntimeError", None, None)]
    # Ray Tune's nested headers (the trainable's, then its worker's), the innermost's exception line below: that line only
    nested = _task("RuntimeError", pid=1)[:-1] + [_task("RuntimeError", pid=2)[-1]] + _task("RuntimeError", pid=3, whole=True)[-3:]
    assert _events(nested) == [("python_exception", "RuntimeError", None, None)]
    # cut before it: the innermost header alone (the worker's)
    assert _events(nested[:-2]) == [("python_exception", "RuntimeError", 3, "10.244.16.90")]
    # Ray < 2's full form keeps the header's pid and IP on its exception line (session 67)
    assert _events(_task("RayOutOfMemoryError", whole=True)) == [("python_exception", "ray.memory_monitor.RayOutOfMemoryError", 80, "10.244.16.90")]


def test_a_real_relayed_header_names_its_workers_pid():
    # ray-project/ray#26490: the trainable relays its worker's error, the header's pid the worker's (46213), not its own
    (line,) = [x for x in corpus_lines("ray-26490-") if "RayTaskError(" in x]
    assert _events([line]) == [("python_exception", "RuntimeError", 46213, "172.31.50.232")]


#: the corpus's controls whose paste holds a header alone (its exception line cut away): still no rank, both ways
HEADER_ALONE_CONTROLS = ["discuss-ray-8598-", "LlamaFactory-7327-", "NeMo-RL-3793-", "slime-1767-", "ray-40850-", "ray-26490-"]


@pytest.mark.parametrize("prefix", HEADER_ALONE_CONTROLS)
@pytest.mark.parametrize("how", [{}, {"api_timestamps": True, "one_log": True}], ids=["routed", "one-pod"])
def test_the_corpus_controls_of_a_header_alone_name_no_rank(prefix, how, tmp_path):
    (case,) = [c for c in load_corpus(REAL_INCIDENTS_DIR) if c.incident.startswith(prefix)]
    findings = analyze_incident(tmp_path, case, **how)
    assert misses(case, findings) is None, misses(case, findings)
    assert [f["ranks"] for f in findings if f["rule"] == "rank-failure"] == [[]], findings


# ---- the node of the rank Ray's pid names ----------------------------------------------------------------------------

def _captured(tmp: Path, driver: list[str], nproc: int = 1) -> list[dict]:
    return captured_findings(tmp, driver, nproc, version="t68", name="ray-rank-pod")


NOTICE = ("ray.exceptions.OutOfMemoryError: Task was killed due to the node running low on memory.",
          "Memory on the node (IP: 10.99.0.{ip}, ID: 7e2c1f) where the task (actor ID: 0123abcd, name=RayTrainWorker.__init__, "
          "pid={pid}, memory used=90.12GB) was running was 113.76GB / 119.70GB (0.950345), which exceeds the memory usage "
          "threshold of 0.95. Ray killed this worker (ID: 9f1e) because it was the most recently scheduled task.")


def _notice(pid: int) -> list[str]:
    """Ray >= 2.2's memory monitor on the Ray Train worker of that pid (synthetic, session 66's shape)."""
    return [NOTICE[0], NOTICE[1].format(ip=pid - 4240, pid=pid)]


#: key: (the driver's lines, the rank named, its cause): the rank's pid in the group, its line in the driver's log
ELSEWHERE = {
    "memory-monitor-notice": (GROUP + _notice(4242), 1, "host-oom-kill"),
    "relayed-worker-line": (GROUP + ["(RayTrainWorker pid=4242) RuntimeError: boom"], 1, "python-exception"),
    "task-error-header-alone": (GROUP + _task("RuntimeError", pid=4242), 1, "python-exception"),
}


@pytest.mark.parametrize("key", list(ELSEWHERE))
def test_a_rank_the_drivers_line_names_is_placed_in_the_captured_pod_holding_it(key, tmp_path):
    driver, rank, cause = ELSEWHERE[key]
    findings = _captured(tmp_path, driver)
    assert_one_rank(naming_findings(findings), rank, cause)
    (finding,) = findings
    assert (finding["pods"], finding["nodes"]) == (["team-a/train-worker-0"], ["gpu-node-1"]), finding
    assert f"Rank {rank} on gpu-node-1" in finding["summary"] and not finding.get("node_unknown")


@pytest.mark.parametrize(("driver", "nproc", "rank"), [
    (GROUP + ["(RayTrainWorker pid=4241) RuntimeError: boom"], 1, 0),  # the driver's own pod's rank: its own node
    (GROUP + _notice(4242), 2, 1),  # pods of two ranks: the driver's pod holds rank 1 too
], ids=["printers-own-rank", "printers-pod-holds-it"])
def test_a_rank_the_printers_pod_holds_keeps_the_printers_node(driver, nproc, rank, tmp_path):
    (finding,) = _captured(tmp_path, driver, nproc)
    assert finding["ranks"] == [rank] and (finding["pods"], finding["nodes"]) == (["team-a/train-master-0"], ["gpu-node-0"]), finding


def _one_log(lines: list[str], tmp: Path) -> list[dict]:
    bundle, _ = import_logs([LogSource("log.txt", "\n".join(lines) + "\n")], tmp / "b", nproc_per_node=1, world_size=2, nodes=2,
                            job="train", namespace="team-a", split=False, now=NOW)
    return analyze(bundle)["findings"]


@pytest.mark.parametrize("key", list(ELSEWHERE))
def test_a_rank_no_captured_pod_holds_has_no_node_not_the_printers(key, tmp_path):
    driver, rank, cause = ELSEWHERE[key]
    (finding,) = _one_log(driver, tmp_path)  # a paste in one pod (the first, rank 0's): nothing captured holds rank 1
    assert (finding["cause"], finding["ranks"], finding["nodes"]) == (cause, [rank], []), finding
    assert "another pod's log names the rank" in finding["node_unknown"] and " on node-" not in finding["summary"]


def test_a_routed_paste_keeps_the_importers_pod_of_that_rank(tmp_path):
    (finding,) = pasted_findings(GROUP + _notice(4242), tmp_path, 1, 2, NOW)  # import-logs routed the line to rank 1's pod
    assert (finding["ranks"], finding["pods"], finding["nodes"]) == ([1], ["team-a/train-worker-0"], ["node-1"]), finding
