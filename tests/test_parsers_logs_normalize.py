"""Line normalisation: every prefix wording met in real logs (log_normalize) and the events it unlocks."""

from __future__ import annotations

import pytest

from k10s_forensics.parsers.log_classify import classify
from k10s_forensics.parsers.log_normalize import normalize

MSG = "ValueError: shapes (3,4) and (5,) not aligned"


@pytest.mark.parametrize(("line", "rank", "local"), [
    (MSG, None, None),
    ("2026-09-18 19:29:24 " + MSG, None, None),
    ("2026-09-18 19:29:24,123 - " + MSG, None, None),
    ("18:11:06.680 " + MSG, None, None),
    ("[2024-03-20 20:31:29,210] " + MSG, None, None),
    ("【2024-03-20 20:31:29】" + MSG, None, None),
    ("22-09-01 02:31:11.512 : " + MSG, None, None),
    ("03/17/23 20:03:12 " + MSG, None, None),
    ("[80746] " + MSG, None, None),
    ("[job-master-0] " + MSG, None, None),
    ("[gpt2-ddp-workers-0-4-d4zzz] " + MSG, None, None),
    ("[2024-03-20 20:31:29,269] [ERROR] " + MSG, None, None),
    ("worker-0 >> " + MSG, None, None),
    ("192.168.1.51: " + MSG, None, None),
    ("[rank3]: " + MSG, 3, None),
    ("[rank3]:" + MSG, 3, None),
    ("[default2]:[rank10]: " + MSG, 10, 2),
    ("[default5]:" + MSG, None, 5),
    ("[2024-02-27T21:35:28.419846Z] fa88a9df [rank=5] || " + MSG, 5, None),
    ("[1,6]<stderr>:" + MSG, 6, None),
    ("[1,6]<stdout>: " + MSG, 6, None),
    ("11: " + MSG, 11, None),
    ("(RayTrainWorker pid=8123, ip=10.0.3.7) [rank38]: " + MSG, 38, None),
    # Ray Train's trainer actor, the worker group's driver (its own lines: no rank)
    ("(TorchTrainer pid=3900, ip=10.0.0.2) " + MSG, None, None),
    ("(TorchTrainer pid=3900) " + MSG, None, None),
    ("(LightningTrainer pid=3900, ip=10.0.0.2) " + MSG, None, None),
    # vLLM's front end and engine core (no rank; its logger's level, clock and source location after them)
    ("(APIServer pid=1) ERROR 09-05 01:24:34 [serving.py:908] " + MSG, None, None),
    ("(EngineCore_0 pid=271) ERROR 08-25 12:24:19 [core.py:700] " + MSG, None, None),
    ("(EngineCore_DP0 pid=271) " + MSG, None, None),
    ("(EngineCore pid=xxxx) " + MSG, None, None),
    ("(VllmWorker rank=2 pid=4664) ERROR 08-05 14:13:44 [multiproc_executor.py:487] " + MSG, 2, None),
    ("2024-05-01 10:00:00.123 | ERROR    | train:main:42 - " + MSG, None, None),
    ("[11/02/24 10:00:01] ERROR    " + MSG + "                    accelerate_train.py:88", None, None),
    ("Train:  12%|██▍       | 12/100 [00:10<01:20, 1.1it/s]\r" + MSG, None, None),
    (MSG + "                      api.py:699", None, None),
])
def test_prefixes_are_stripped_with_the_identity_they_carry(line, rank, local):
    norm = normalize(line)
    assert norm.text == MSG and norm.rank == rank and norm.local_rank == local


def test_progress_bar_glued_in_front_of_a_log_line():
    line = "Map:  96%|█████████▋| 48000/50000 [00:31<00:01, 1500.00 examples/s]WARNING:torch.distributed.elastic.multiprocessing.api:Sending process 5620 closing signal SIGTERM"
    assert normalize(line).text.startswith("WARNING:torch.distributed.elastic")


def test_table_header_and_fields_are_not_prefixes():
    assert normalize("[1]:").text == "[1]:"
    assert normalize("  time      : 2024-03-27_14:52:55").text == "  time      : 2024-03-27_14:52:55"


@pytest.mark.parametrize(("line", "kind", "fields"), [
    ("[rank1]: RuntimeError: CUDA error: an illegal memory access was encountered", "cuda_error", dict(rank=1, subkind="illegal-address")),
    ("RuntimeError: CUDA error: device-side assert triggered", "cuda_error", dict(subkind="device-assert")),
    ("torch.AcceleratorError: CUDA error: unspecified launch failure", "cuda_error", dict(subkind="launch-failure")),
    ("[rank12]:[E817 17:40:34.227531918 ProcessGroupNCCL.cpp:1515] [PG 0 (default_pg) Rank 12] Process group watchdog thread terminated with exception: CUDA error: uncorrectable ECC error encountered",
     "cuda_error", dict(rank=12, subkind="ecc")),
    ("node1:4021:4100 [3] enqueue.cc:1556 NCCL WARN Cuda failure 700 'an illegal memory access was encountered'", "cuda_error", dict(cuda_dev=3, pid=4021)),
    ("RuntimeError: CUDA error: out of memory", "cuda_oom", dict(subkind="cuda_error")),
    ("[rank3]: KeyError: 'input_ids'", "python_exception", dict(rank=3, subkind="raised", error_type="KeyError", error_message="'input_ids'")),
    ("[1,1]<stderr>:RuntimeError: Horovod has been shut down. This was caused by an exception on one of the ranks",
     "python_exception", dict(rank=1, subkind="teardown")),
    ("torch.distributed.DistBackendError: [3] is setting up NCCL communicator and retrieving ncclUniqueId from [0] via c10d key-value store",
     "nccl_error_other", dict()),
    ("  Process name: [[50371,1],0]", "process_exit", dict(rank=0, subkind="mpirun_first")),
    ("mpirun noticed that process rank 6 with PID 4242 on node gpu-07 exited on signal 9 (Killed).", "process_exit",
     dict(rank=6, pid=4242, exit_code=-9, subkind="mpirun_noticed")),
    ("subprocess.CalledProcessError: Command '['python', '-u', 'train.py', '--local_rank=7']' died with <Signals.SIGSEGV: 11>.",
     "process_exit", dict(rank=None, local_rank=None, exit_code=-11, subkind="launcher_last_cmd")),
    ("subprocess.CalledProcessError: Command '['python', 'train.py', '--local_rank=3']' returned non-zero exit status 1.",
     "process_exit", dict(rank=None, local_rank=None, exit_code=1, subkind="launcher_last_cmd")),
    ("[2024-03-20 20:31:29,269] [ERROR] [launch.py:321:sigkill_handler] ['python', '-u', 'train.py', '--local_rank=4'] exits with return code = 1",
     "process_exit", dict(rank=None, local_rank=None, exit_code=1, subkind="launcher_last_cmd")),
    # the last spawned command was local rank 0: the launcher spawned one process, which failed
    ("subprocess.CalledProcessError: Command '['/usr/bin/python', '-u', 'train.py', '--local_rank=0', '--lr', '3e-4']' died with <Signals.SIGKILL: 9>.",
     "process_exit", dict(rank=None, local_rank=0, exit_code=-9, subkind="launcher_last_cmd")),
    ("[2023-04-14 13:11:27,885] [ERROR] [launch.py:434:sigkill_handler] ['/usr/bin/python3', '-u', 'main.py', '--local-rank=0', '--zero_stage', '2'] exits with return code = -9",
     "process_exit", dict(rank=None, local_rank=0, exit_code=-9, subkind="launcher_last_cmd")),
    ("[2023-07-20 15:45:13,982] [ERROR] [launch.py:321:sigkill_handler] ['/usr/bin/python3', '-u', 'main.py', '--local_rank=10'] exits with return code = -7",
     "process_exit", dict(rank=None, local_rank=None, exit_code=-7, subkind="launcher_last_cmd")),
    # the command redacted or without the flag (--use_env, --no_local_rank): no process named
    ("subprocess.CalledProcessError: Command XXXXX (my script params) died with <Signals.SIGSEGV: 11>.",
     "process_exit", dict(rank=None, local_rank=None, exit_code=-11, subkind="launcher_last_cmd")),
    ("[rank0]: subprocess.CalledProcessError: Command '['python', '-u', 'train.py', '--epochs', '3']' returned non-zero exit status 1.",
     "process_exit", dict(rank=None, local_rank=None, exit_code=1, subkind="launcher_last_cmd")),
    ("W0526 03:34:04.100000 115160 torch/distributed/elastic/multiprocessing/api.py:916] Unable to shutdown process 115227 via Signals.SIGTERM, forcefully exiting via Signals.SIGKILL",
     "torchrun_sigterm", dict(pid=115227, subkind="escalated_SIGKILL")),
    ("[2024-03-20 20:30:00,000] [INFO] [launch.py:163:main] process 3353707 spawned with command: ['python', '-u', 'train.py', '--local_rank=2']",
     "rank_spawn", dict(pid=3353707, local_rank=2)),
])
def test_failure_wordings(line, kind, fields):
    events = classify(line)
    assert events and events[0]["kind"] == kind, events
    for key, want in fields.items():
        assert events[0].get(key) == want, (key, events[0])


@pytest.mark.parametrize("line", [
    "Error:",
    "Exception raised from c10_cuda_check_implementation at ../c10/cuda/CUDAException.cpp:43 (most recent call first):",
    "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ",
    "  File \"/x/train.py\", line 3, in <module>",
    "INFO: no Error: here in the middle of a sentence",
    # the elastic agent's own rendezvous errors: the launcher's, never a rank's failure
    "torch.distributed.elastic.rendezvous.api.RendezvousClosedError",
    "torch.distributed.elastic.rendezvous.api.RendezvousTimeoutError: The node 'gpu-3_2211_0' has failed to join the rendezvous 'job-17'.",
    "[2025-04-09 07:28:49,531] torch.distributed.elastic.rendezvous.api.RendezvousConnectionError: The connection to the C10d store has failed.",
    "RendezvousStateError: The rendezvous state has been corrupted.",
])
def test_not_a_failure(line):
    assert [e["kind"] for e in classify(line) if e["kind"] in ("python_exception", "cuda_error")] == []


def test_vllm_front_end_failure_reads_as_an_exception_of_no_process():
    """The API server's ``EngineDeadError`` behind its ``(APIServer pid=1)`` prefix is a Python exception line
    naming no rank and no process of its own; another name in that place (``(APIServerX pid=1)``) is a process Ray's
    log monitor relays, its pid kept."""
    line = ("(APIServer pid=1) ERROR 09-05 01:24:34 [serving.py:908] vllm.v1.engine.exceptions.EngineDeadError: "
            "EngineCore encountered an issue. See stack trace (above) for the root cause.")
    norm = normalize(line)
    assert norm.text.startswith("vllm.v1.engine.exceptions.EngineDeadError: EngineCore")
    assert (norm.rank, norm.pid, norm.relayed) == (None, None, False)
    other = normalize(line.replace("(APIServer pid=1)", "(APIServerX pid=1)"))
    assert (other.text, other.pid, other.relayed) == (norm.text, 1, True)
