"""Wordings found by batch 11 of the real incidents: the container runtime's log-file lines
(``<time> stdout F <line>``, what users paste from /var/log/pods), SGLang's process prefix
(``[2025-07-25 07:53:08 TP2]``), a launcher's own exception (its innermost traceback frame in
the launcher's code: DeepSpeed's runner failing in its Ctrl-C handler), JAX's coordination
service naming a task it lost, and a line naming no process in a pasted log whose launcher
reports several ranks ending with the same status. Parser level first, then through
``import-logs`` and ``analyze`` as a user would.
"""

from __future__ import annotations

import datetime as dt

import pytest

from incident_kit import naming_findings
from parser_kit import body_events
from k10s_forensics.analyze.runner import analyze
from k10s_forensics.logimport import LogSource, import_logs
from k10s_forensics.parsers.log_classify import classify
from k10s_forensics.parsers.log_normalize import normalize
from paste_damage import crlf, double_space, fences_quotes

NOW = dt.datetime(2026, 11, 28, 12, 0, tzinfo=dt.timezone.utc)


def _events(text: str) -> list[tuple]:
    return [(e["kind"], e.get("subkind"), e.get("rank"), e.get("error_type")) for e in body_events(text.split("\n"), NOW, prefiltered=False)]


def _findings(tmp_path, text: str, **layout) -> list[dict]:
    bundle, _ = import_logs([LogSource("paste.txt", text)], tmp_path / "b", job="train", namespace="team-a", now=NOW, **layout)
    return analyze(bundle)["findings"]


def _named(tmp_path, text: str, **layout) -> list[tuple]:
    return [(f["rule"], f["cause"], f["ranks"]) for f in naming_findings(_findings(tmp_path, text, **layout))]


# ---- the container runtime's log file and SGLang's prefix ----------------------------------------
@pytest.mark.parametrize(("line", "text", "rank"), [
    ("2025-07-25T07:53:08.21748708+08:00 stdout F [2025-07-25 07:53:08 TP2] Scheduler hit an exception: Traceback (most recent call last):",
     "Scheduler hit an exception: Traceback (most recent call last):", 2),
    ("2024-03-01T10:00:00.123456789Z stderr F [rank3]:[E301 10:00:00.1 ProcessGroupNCCL.cpp:616] x", "[E301 10:00:00.1 ProcessGroupNCCL.cpp:616] x", 3),
    ("2024-03-01T10:00:00.123456789Z stdout P partial line", "partial line", None),
    ("[2025-06-18 13:28:31 DP2 TP2] TpModelWorkerClient hit an exception: Traceback (most recent call last):",
     "TpModelWorkerClient hit an exception: Traceback (most recent call last):", 2),
    ("[2025-12-24 21:34:08 TP1 EP1] Scheduler hit an exception: Traceback (most recent call last):",
     "Scheduler hit an exception: Traceback (most recent call last):", 1),
    ("[2026-07-05 19:49:44.257 DP1 TP1 EP1] Scheduler hit an exception: Traceback (most recent call last):",
     "Scheduler hit an exception: Traceback (most recent call last):", 1),
    # a data-parallel replica of its own (DP1 TP0) or a later pipeline stage: the TP rank is not the job's rank
    ("[2025-06-10 03:42:50 DP1 TP0] Decode batch. #running-req: 3", "Decode batch. #running-req: 3", None),
    ("[2025-04-17 11:44:15 PP1 TP3] Prefill batch.", "Prefill batch.", None),
    ("[2025-04-17 11:44:15 PP0 TP3] Prefill batch.", "Prefill batch.", 3),
])
def test_cri_stream_tag_and_sglang_prefix(line, text, rank):
    norm = normalize(line)
    assert (norm.text, norm.rank) == (text, rank)


SGLANG = """2025-07-25T07:53:08.21748708+08:00 stdout F [2025-07-25 07:53:08 TP2] Scheduler hit an exception: Traceback (most recent call last):
2025-07-25T07:53:08.217488644+08:00 stdout F   File "/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py", line 2769, in run_scheduler_process
2025-07-25T07:53:08.217491295+08:00 stdout F     scheduler.event_loop_normal()
2025-07-25T07:53:08.217501559+08:00 stdout F   File "/sgl-workspace/sglang/python/sglang/srt/speculative/eagle_worker.py", line 325, in forward_batch_speculative_generation
2025-07-25T07:53:08.217502420+08:00 stdout F     self.verify(batch, spec_info)
2025-07-25T07:53:08.217503612+08:00 stdout F RuntimeError: CUDA error: an illegal memory access was encountered
"""


def test_sglang_scheduler_traceback_is_its_tp_rank_s():
    assert [e[:3] for e in _events(SGLANG)] == [("cuda_error", "illegal-address", 2)]
    # cut before its exception: the record's start alone is no event (it could be a teardown's)
    assert _events("\n".join(SGLANG.split("\n")[:3])) == []
    # another untagged traceback in between: its exception is not the tagged record's
    other = SGLANG.replace("stdout F     self.verify(batch, spec_info)", "stdout F Traceback (most recent call last):")
    assert [e[:3] for e in _events(other)] == [("cuda_error", "illegal-address", None)]


def test_sglang_pod_log_names_the_tp_rank(tmp_path):
    assert _named(tmp_path, SGLANG, world_size=8, nproc_per_node=8) == [("rank-failure", "cuda-error", [2])]


# ---- a launcher's own exception ---------------------------------------------------------------------
DEEPSPEED_CTRL_C = """[2023-05-30 20:29:14,854] [INFO] [launch.py:428:sigkill_handler] Killing subprocess 19380
    main()
  File "/opt/conda/lib/python3.8/site-packages/deepspeed/launcher/runner.py", line 556, in main
    result.wait()
  File "/opt/conda/lib/python3.8/subprocess.py", line 1083, in wait
    return self._wait(timeout=timeout)
  File "/opt/conda/lib/python3.8/site-packages/deepspeed/launcher/runner.py", line 548, in sigkill_handler
    result_kill = subprocess.Popen(kill_cmd, env=env)
NameError: free variable 'kill_cmd' referenced before assignment in enclosing scope
"""
TORCHRUN_OWN = """Traceback (most recent call last):
  File "/usr/local/bin/torchrun", line 8, in <module>
    sys.exit(main())
  File "/usr/local/lib/python3.12/dist-packages/torch/distributed/run.py", line 918, in main
    run(args)
               ^^^^^^^^^
ValueError: Unsupported nproc_per_node value: gpux
"""
#: ``torchfrtrace`` (PyTorch's flight-recorder analyzer) failing on gloo dumps (torch 2.13/2.14, the thirty-second
#: launcher set's fr_trace.txt): the tool's exception, pasted beside the node logs, is no rank's
FR_TRACE_KEYERROR = """$ torchfrtrace ./fr-dumps
tabulate is not installed. Proceeding without it.
Traceback (most recent call last):
  File "/opt/venv/bin/torchfrtrace", line 8, in <module>
    sys.exit(main())
             ^^^^^^
  File "/opt/venv/lib/python3.11/site-packages/torch/distributed/flight_recorder/fr_trace.py", line 60, in main
    db = build_db(details, args, version)
         ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/opt/venv/lib/python3.11/site-packages/torch/distributed/flight_recorder/components/builder.py", line 212, in build_collectives
    pg_name = _pg_guids[(original_pg_name, first_rank)]
              ~~~~~~~~~^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
KeyError: ('0', 0)
"""
FR_TRACE_MISSING = """Traceback (most recent call last):
  File "/opt/venv/bin/torchfrtrace", line 8, in <module>
    sys.exit(main())
  File "/opt/venv/lib/python3.11/site-packages/torch/distributed/flight_recorder/components/utils.py", line 706, in check_no_missing_dump_files
    raise AssertionError(f"Missing dump files from ranks {missing}")
AssertionError: Missing dump files from ranks {2}
"""
RANK_OWN = """[rank1]: Traceback (most recent call last):
[rank1]:   File "/usr/local/lib/python3.12/dist-packages/accelerate/commands/launch.py", line 1168, in launch_command
[rank1]:     simple_launcher(args)
[rank1]:   File "/workspace/train.py", line 40, in main
[rank1]:     batch = next(it)
[rank1]:   File "/workspace/data.py", line 12, in __next__
[rank1]:     raise KeyError(key)
[rank1]: KeyError: 'labels'
"""


@pytest.mark.parametrize("text", [DEEPSPEED_CTRL_C, TORCHRUN_OWN, FR_TRACE_KEYERROR, FR_TRACE_MISSING],
                         ids=["deepspeed-runner", "torchrun-run-py", "torchfrtrace-keyerror", "torchfrtrace-missing-dumps"])
def test_an_exception_raised_in_the_launcher_s_code_is_no_event(text):
    assert [e for e in _events(text) if e[0] == "python_exception"] == []


def test_a_rank_s_exception_below_a_launcher_frame_is_still_its_own():
    assert [e for e in _events(RANK_OWN) if e[0] == "python_exception"] == [("python_exception", "raised", 1, "KeyError")]


@pytest.mark.parametrize("damage", [lambda t: t, double_space, crlf, fences_quotes], ids=["as-is", "double-space", "crlf", "fences-quotes"])
def test_deepspeed_stopped_by_ctrl_c_names_no_rank(tmp_path, damage):
    assert _named(tmp_path, damage(DEEPSPEED_CTRL_C)) == []


# ---- JAX's coordination service ---------------------------------------------------------------------
JAX = ("2022-11-15 16:03:15.140058: E external/org_tensorflow/tensorflow/core/distributed_runtime/coordination/coordination_service.cc:954] "
       "/job:jax_worker/replica:0/task:37 has been set to ERROR in coordination service: UNAVAILABLE: Task /job:jax_worker/replica:0/task:37 "
       "heartbeat timeout. This indicates that the remote task has failed, got preempted, or crashed unexpectedly. "
       "[type.googleapis.com/tensorflow.CoordinationServiceError='']")


@pytest.mark.parametrize(("line", "want"), [
    (JAX, [("process_exit", "jax_task_error", 37)]),
    ("2024-10-09 15:47:38.568412: E external/xla/xla/tsl/distributed_runtime/coordination/coordination_service.cc:1170] "
     "/job:jax_worker/replica:0/task:3 has been set to ERROR in coordination service: INTERNAL: task crashed", [("process_exit", "jax_task_error", 3)]),
    ("E0601 10:00:00.000000 1234 coordination_service.cc:1170] UNAVAILABLE: Task /job:jax_worker/replica:0/task:5 heartbeat timeout.",
     [("process_exit", "jax_task_error", 5)]),
    # TensorFlow's own job names: a task index there is no JAX process
    ("/job:worker/replica:0/task:1 has been set to ERROR in coordination service: UNAVAILABLE: heartbeat timeout", []),
])
def test_jax_coordination_service_names_the_lost_task(line, want):
    assert [(e["kind"], e.get("subkind"), e.get("rank")) for e in classify(line)] == want


def test_a_lost_jax_task_is_the_culprit(tmp_path):
    steps = "\n".join(f"I1115 16:00:39.45124{i} 14064171856281{i} trainer.py:501] Training: step 198" for i in range(4))
    assert _named(tmp_path, steps + "\n" + JAX + "\n") == [("rank-failure", "exit-unknown", [37])]


# ---- a line naming no process vs the launcher's identical exits --------------------------------------
SRUN_BOTH = """  File "/usr/local/lib/python3.6/dist-packages/tensorflow/python/eager/execute.py", line 60, in quick_execute
    inputs, attrs, num_outputs)
tensorflow.python.framework.errors_impl.UnknownError:  ncclCommInitRank failed: unhandled system error
srun: error: jwc09n018: task 1: Exited with exit code 1
srun: error: jwc09n012: task 0: Exited with exit code 1
"""


def test_an_unplaced_exception_does_not_pick_among_identical_srun_exits(tmp_path):
    findings = _findings(tmp_path, SRUN_BOTH, world_size=2, nproc_per_node=1)
    assert [(f["rule"], f["ranks"]) for f in findings if f["severity"] in ("critical", "warning")] == [("rank-failure", [])]


@pytest.mark.parametrize(("tail", "want"), [
    # srun's teardown kill of the other task: the exit of task 0 is the only own failure
    ("srun: error: jwc09n012: task 0: Exited with exit code 1\nsrun: error: jwc09n018: task 1: Killed\n", [("rank-failure", "nccl-error", [0])]),
    # the exception carries its rank: it says which task failed, whatever the exits
    (None, [("rank-failure", "nccl-error", [1])]),  # NCCL's own words name the cause (batch 24)
])
def test_a_placed_or_lone_exception_still_names_its_rank(tmp_path, tail, want):
    if tail is None:
        text = "\n".join("1: " + line for line in SRUN_BOTH.split("\n")[:3]) + "\n" + "\n".join(SRUN_BOTH.split("\n")[3:])
    else:
        text = "\n".join(SRUN_BOTH.split("\n")[:3]) + "\n" + tail
    assert _named(tmp_path, text, world_size=2, nproc_per_node=1) == want


# ---- a user's masked peer ------------------------------------------------------------------------------
@pytest.mark.parametrize("line", [
    "socketProgressOpt: Call to recv from 172....<33759> failed : Connection reset by peer",
    "socketProgressOpt: Call to recv from xx.xx.xx.xx<33759> failed : Connection reset by peer",
])
def test_the_port_of_a_masked_peer_is_no_value(line):
    assert [(e["kind"], e["peer_ip"], e["peer_port"]) for e in classify(line)] == [("nccl_remote_error", None, None)]
