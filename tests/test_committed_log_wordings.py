"""Batch 59's committed-log shapes (tests/data/real-incidents, ``"batch": 59``: training logs people committed to
their repositories), each with its wording variants, as one pasted log through ``k10s import-logs``:

* DeepSpeed's launcher reporting a rank's CUDA OOM (an exit code, 1) with the command it spawned last
  (``['…', '--local_rank=1', …] exits with return code = 1``): the rank that ran out of memory is named, never the
  silent rank the launcher only killed after it;
* three or more workers printing the same uncaught exception in lines that name no rank (a paste's unprefixed
  tracebacks) before torchrun's failure table: no single culprit, the table's rank is only the first it reaped; an
  outer launcher's exception printed below that table (AReaL's ``JobException``) is no restarted attempt's failure;
* torch's re-raise of a DataLoader worker's or a DataParallel replica's exception (``Caught ValueError in DataLoader
  worker process 0.``) above its ``Original Traceback``: one failure of one process, the rank torchrun reports.

The as-collected misses are in docs/rules.md, "Session 22: batch 59"; these tests keep the shapes met.
"""

from __future__ import annotations

import datetime as dt

import pytest

from incident_kit import named_in_paste

NOW = dt.datetime(2026, 11, 30, 17, 0, tzinfo=dt.timezone.utc)
DS = "[2025-12-23 12:{m:02d}:{s:02d},{ms:03d}] [{lvl}] [launch.py:{n}:{fn}] "


def _deepspeed_oom(r: int, n: int, plain_copy: bool) -> str:
    """Rank ``r`` of ``n`` local processes runs out of GPU memory; the launcher kills all and quotes its last command.
    The OOM lines carry no clock: they borrow the spawn lines', two minutes before the launcher's report (training ran
    in between), so the report is an incident of its own, as in the committed log."""
    lines = [DS.format(m=36, s=34, ms=i, lvl="INFO", n=256, fn="main") + f"process {1632263 + i} spawned with command: "
             f"['/usr/bin/python3', '-u', 'train.py', '--local_rank={i}']" for i in range(n)]
    oom = (f"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 12.00 MiB. GPU {r} has a total capacity of "
           f"44.40 GiB of which 12.88 MiB is free. Process 1605762 has 19.88 GiB memory in use. Including non-PyTorch "
           f"memory, this process has 16.23 GiB memory in use.")
    if plain_copy:
        lines += ["Traceback (most recent call last):", '  File "/x/train.py", line 545, in main', oom]
    lines += [f"[rank{r}]: Traceback (most recent call last):", f'[rank{r}]:   File "/x/train.py", line 545, in main',
              f"[rank{r}]: {oom}"]
    lines += [DS.format(m=38, s=58, ms=629, lvl="INFO", n=319, fn="sigkill_handler") + f"Killing subprocess {1632263 + i}"
              for i in range(n)]
    lines.append(DS.format(m=38, s=58, ms=947, lvl="ERROR", n=325, fn="sigkill_handler")
                 + f"['/usr/bin/python3', '-u', 'train.py', '--local_rank={n - 1}'] exits with return code = 1")
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("plain_copy", [True, False])
@pytest.mark.parametrize("r,n", [(0, 2), (0, 4), (2, 4), (1, 8)])
def test_deepspeed_reporting_a_rank_oom_with_its_last_command_names_the_oom_rank(tmp_path, r, n, plain_copy):
    got = named_in_paste(tmp_path, _deepspeed_oom(r, n, plain_copy), n, n, NOW)
    assert got and all(ranks == [r] for _, _, ranks in got), got
    assert ("oom-cascade", "cuda-oom", [r]) in got


AGENT = "{lvl}0813 22:08:39.{us:06d} 2585 torch/distributed/elastic/multiprocessing/api.py:{n}] "


def _torchrun_tail(first: int, workers: int) -> list[str]:
    lines = [AGENT.format(lvl="W", us=776000 + i, n=898) + f"Sending process {2711 + i} closing signal SIGTERM"
             for i in range(workers) if i != first]
    lines += [AGENT.format(lvl="E", us=893000, n=870) + f"failed (exitcode: 1) local_rank: {first} (pid: {2711 + first}) "
              "of binary: /usr/bin/python",
              "Traceback (most recent call last):", '  File "/usr/local/bin/torchrun", line 33, in <module>',
              "torch.distributed.elastic.multiprocessing.errors.ChildFailedError:",
              "============================================================", "train.py FAILED",
              "------------------------------------------------------------", "Failures:", "  <NO_OTHER_FAILURES>",
              "------------------------------------------------------------", "Root Cause (first observed failure):", "[0]:",
              "  time      : 2025-08-13_22:08:39", "  host      : ubuntu22.04", f"  rank      : {first} (local_rank: {first})",
              f"  exitcode  : 1 (pid: {2711 + first})", "  error_file: <N/A>",
              "  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html",
              "============================================================"]
    return lines


def _unprefixed(error: str) -> list[str]:
    return ["Traceback (most recent call last):", '  File "/w/examples/lite/gsm8k_grpo.py", line 81, in main',
            "    rollout.initialize(None, ft_spec)", error]


ERRORS = ["RuntimeError: server launch failed",
          "FileNotFoundError: [Errno 2] No such file or directory: '/work/config/your_config.yaml'"]


@pytest.mark.parametrize("error", ERRORS)
@pytest.mark.parametrize("raised,workers,first", [(3, 3, 0), (4, 4, 1), (8, 8, 5)])
@pytest.mark.parametrize("outer", [False, True])
def test_workers_raising_alike_in_unprefixed_lines_name_no_one(tmp_path, error, raised, workers, first, outer):
    lines = [line for _ in range(raised) for line in _unprefixed(error)] + _torchrun_tail(first, workers)
    if outer:  # an outer launcher's own exception once its trainer ended (AReaL's local launcher)
        lines += ["20250813-22:08:42.218 Local Scheduler INFO: Stopping local process with signal SIGTERM, pid: [2515]",
                  "Traceback (most recent call last):", '  File "/w/areal/launcher/local.py", line 214, in wait',
                  "realhf.scheduler.client.JobException: Job gsm8k-grpo_trial0:trainer JobState.COMPLETED at node local"]
    assert named_in_paste(tmp_path, "\n".join(lines) + "\n", workers, workers, NOW) == []


@pytest.mark.parametrize("workers,first", [(2, 1), (4, 3)])
def test_one_unprefixed_traceback_before_the_failure_table_names_the_reported_rank(tmp_path, workers, first):
    lines = _unprefixed(ERRORS[0]) + _torchrun_tail(first, workers)
    got = named_in_paste(tmp_path, "\n".join(lines) + "\n", workers, workers, NOW)
    assert [(cause, ranks) for _, cause, ranks in got] == [("python-exception", [first])]


WRAPPED = [("ValueError", "Caught ValueError in DataLoader worker process 0.",
            "ValueError: Tools should either be a JSON schema, or a callable function with type hints."),
           ("KeyError", "Caught KeyError in DataLoader worker process 3.", "KeyError: 'input_ids'"),
           ("RuntimeError", "Caught RuntimeError in replica 1 on device 1.",
            "RuntimeError: Expected all tensors to be on the same device")]


@pytest.mark.parametrize("etype,wrapper,original", WRAPPED)
@pytest.mark.parametrize("workers,first", [(2, 1), (4, 2)])
def test_a_reraised_worker_exception_is_one_failure_of_the_reported_rank(tmp_path, etype, wrapper, original, workers, first):
    lines = ["Traceback (most recent call last):", '  File "/w/verl/trainer/fsdp_sft_trainer.py", line 721, in fit',
             '  File "/usr/lib/python3.10/site-packages/torch/_utils.py", line 733, in reraise', "    raise exception",
             f"{etype}: {wrapper}", "Original Traceback (most recent call last):",
             '  File "/w/verl/utils/dataset/multiturn_sft_dataset.py", line 234, in __getitem__', original, "",
             f"[rank{first}]:[W731 11:08:39.927063060 ProcessGroupNCCL.cpp:1496] Warning: WARNING: destroy_process_group() "
             "was not called before program exit, which can leak resources."]
    got = named_in_paste(tmp_path, "\n".join(lines + _torchrun_tail(first, workers)) + "\n", workers, workers, NOW)
    assert [(cause, ranks) for _, cause, ranks in got] == [("python-exception", [first])]
