"""Wordings found by real incidents batch 15 (docs/rules.md "Real incidents batch 15"):

Ray's account of a worker's death that names no worker pid (``The actor is dead because its worker process
has died. Worker exit type: SYSTEM_ERROR …``, the last line of the ``ActorDiedError`` message) is printed by
the caller that awaited the actor — the driver, another actor — never by the dead process: the pod it sits
in, even a pod of one rank, does not place it. Only a worker group's pid (the raylet's ``Worker PID: N``) or
the report's own ``name:`` field (verl's ``…WorkerDict_0:<rank>``) names the rank. A user may paste that
explanation above the report (simpleRL-reason-98), where it is not inside the report's ``RAY_GAP`` lines.
"""

from __future__ import annotations

import datetime as dt

from incident_kit import naming_findings
from k10s_forensics.analyze.runner import analyze
from k10s_forensics.logimport import LogSource, import_logs
from k10s_forensics.parsers.log_lines import BodyAssembler

NOW = dt.datetime(2026, 11, 29, 6, 0, tzinfo=dt.timezone.utc)
EXPLAINED = ("The actor is dead because its worker process has died. Worker exit type: SYSTEM_ERROR Worker exit detail: "
             "Worker unexpectedly exits with a connection error code 2. End of file. There are some potential root causes. "
             "(1) The process is killed by SIGKILL by OOM killer due to high memory usage. (2) ray stop --force is called. "
             "(3) The worker is crashed unexpectedly due to SIGSEGV or other unexpected errors.")
JOB_BANNER = ["", "---------------------------------------", "Job 'raysubmit_7wNNGHdVi92R8wt2' failed",
              "---------------------------------------", "",
              "Status message: Job entrypoint command failed with exit code 1, last available logs (truncated to 20,000 chars):",
              '  File "/tmp/ray/session_x/runtime_resources/working_dir_files/_ray_pkg_1/verl/single_controller/ray/base.py", '
              "line 42, in func", "    output = ray.get(output)"]
REPORT = ["ray.exceptions.RayActorError: The actor died unexpectedly before finishing this task.",
          "        class_name: create_colocated_worker_cls.<locals>.WorkerDict",
          "        actor_id: 52a48f500935ea1b027d6e7c02000000",
          "        pid: 71876",
          "        name: ISzCxrWorkerDict_{group}:{rank}",
          "        namespace: 8d979521-e26c-4252-adaf-f108de8340f3"]
RAYLET = ("A worker died or was killed while executing a task by an unexpected system error. Worker IP address: 10.0.0.5 "
          "Worker port: 41883 Worker PID: 2317 Worker exit type: SYSTEM_ERROR Worker exit detail: Worker unexpectedly exits")


def _named(tmp_path, lines: list[str], nproc: int | None = None, world: int | None = None):
    bundle, _ = import_logs([LogSource("log.txt", "\n".join(lines) + "\n")], tmp_path / "b", nproc_per_node=nproc,
                            world_size=world, job="train", namespace="team-a", now=NOW)
    return [(f["rule"], f["severity"], f["cause"], f["ranks"]) for f in naming_findings(analyze(bundle)["findings"])]


def _report(group: int = 0, rank: int = 0) -> list[str]:
    return [line.format(group=group, rank=rank) for line in REPORT]


def test_the_explanation_pasted_above_the_report_names_only_the_report_s_rank(tmp_path):
    """simpleRL-reason-98: the explanation first, the job banner, then the report naming WorkerDict_0:0."""
    assert _named(tmp_path, [EXPLAINED, *JOB_BANNER, *_report()]) == [("rank-failure", "warning", "exit-unknown", [0])]


def test_the_explanation_in_a_pod_of_one_rank_is_not_that_rank_s_death(tmp_path):
    """Alone in the driver's log (a pod of one rank), it names no one: the dead worker is elsewhere."""
    assert _named(tmp_path, [EXPLAINED], nproc=1, world=1) == []
    assert _named(tmp_path / "group1", [EXPLAINED, *JOB_BANNER, *_report(group=1, rank=3)], nproc=1, world=1) == []


def test_the_explanation_is_still_parsed_as_a_worker_death_without_a_pid():
    asm = BodyAssembler(NOW)
    asm.feed(1, EXPLAINED, None)
    (ev,) = asm.finish()
    assert (ev["kind"], ev["subkind"], ev.get("pid"), ev.get("rank")) == ("process_exit", "ray_worker_died", None, None)


def test_the_report_in_its_usual_order_is_unchanged(tmp_path):
    """Ray's own order (report, then the explanation inside it), as verl-4921: the report's rank, exit unknown."""
    assert _named(tmp_path, [*_report(rank=3), EXPLAINED]) == [("rank-failure", "warning", "exit-unknown", [3])]


def test_the_raylet_s_line_with_a_worker_pid_still_takes_the_pod_s_one_rank(tmp_path):
    """The raylet names the worker's pid: in a pod of one rank that rank is still the dead process (unchanged; at warning
    since session 45: the paste holds that rank's line only)."""
    assert _named(tmp_path, [RAYLET], nproc=1, world=1) == [("rank-failure", "warning", "host-oom-kill", [0])]
