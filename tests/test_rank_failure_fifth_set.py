"""Wordings the fifth set of real recordings showed (tests/data/torch-runs, ``t5-*``: Ray Train,
torch.distributed.checkpoint, HF Trainer under torchrun; docs/rules.md "rank-failure, fifth set"):
one small log per wording, imported as ``k10s import-logs`` would and analyzed."""

from __future__ import annotations

import datetime as dt

from k10s_forensics.analyze.runner import analyze
from k10s_forensics.logimport import import_logs, read_source
from k10s_forensics.parsers.log_normalize import normalize
from k10s_forensics.parsers.log_ray_workers import ray_worker

NOW = dt.datetime(2026, 11, 28, 12, 0, tzinfo=dt.timezone.utc)
CTRL = "\x1b[36m(TrainController pid=26024)\x1b[0m "
GLOO = ("RuntimeError: [/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:553] Connection closed by peer "
        "[127.0.0.1]:18818. This is typically caused by a remote worker crashing.")
PIDS = {0: 26567, 1: 26590, 2: 26762}


def worker(rank: int, text: str) -> str:
    return f"\x1b[36m(RayTrainWorker pid={PIDS[rank]})\x1b[0m {text}"


def findings(tmp_path, lines: list[str]) -> list[tuple]:
    path = tmp_path / "driver.log"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    bundle, _ = import_logs([read_source(str(path))], tmp_path / "b", job="train", namespace="team-a", now=NOW)
    return [(f["rule"], f["ranks"], f["cause"]) for f in analyze(bundle)["findings"]
            if f["severity"] in ("critical", "warning") and f["ranks"]]


def _ray_group() -> list[str]:
    return [CTRL + "Started training worker group of size 3: ",
            *(CTRL + f"- (ip=10.0.0.5, pid={PIDS[r]}) world_rank={r}, local_rank={r}, node_rank=0" for r in range(3)),
            worker(0, "Setting up process group for: env:// [rank=0, world_size=3]")]


def test_ray_prefixes_keep_the_worker_pid_and_drop_the_dedup_note():
    norm = normalize(worker(1, "KeyError: 'labels'\x1b[32m [repeated 2x across cluster]\x1b[0m"))
    assert (norm.text, norm.pid) == ("KeyError: 'labels'", 26590)
    assert normalize(CTRL + "[Rank 1 Error Snippet]:").text == "[Rank 1 Error Snippet]:"
    assert normalize("\x1b[33m(raylet)\x1b[0m A worker died").text == "A worker died"


def test_ray_worker_group_line_and_worker_death():
    assert ray_worker("- (ip=10.0.0.5, pid=2317) world_rank=1, local_rank=1, node_rank=0")["rank"] == 1
    died = ray_worker("A worker died or was killed while executing a task by an unexpected system error. Worker IP address: "
                      "10.0.0.5 Worker port: 41883 Worker PID: 2317 Worker exit type: SYSTEM_ERROR Worker exit detail: …")
    assert (died["subkind"], died["pid"]) == ("ray_worker_died", 2317)
    assert ray_worker("Worker exit type: INTENDED_USER_EXIT") is None


def test_ray_worker_exception_is_its_ranks(tmp_path):
    """A worker's forwarded traceback carries only its pid; the worker group's table makes it rank 1,
    its peers' gloo errors are the teardown, the driver's WorkerGroupError the report."""
    lines = [*_ray_group(), worker(1, "Error in training function:"), worker(1, "Traceback (most recent call last):"),
             worker(1, "KeyError: 'labels'"), worker(0, GLOO), CTRL + "[Rank 1 Error Snippet]:",
             "ray.train.WorkerGroupError: Training failed due to worker errors:", "[Rank 1 Error Snippet]:",
             "Traceback (most recent call last):", "KeyError: 'labels'"]
    assert findings(tmp_path, lines) == [("rank-failure", [1], "python-exception")]


def test_ray_snippet_header_names_the_rank_of_the_traceback_under_it(tmp_path):
    """The driver's own output (no worker prefix): ``[Rank N Error Snippet]:`` says whose it is."""
    lines = [worker(0, "Setting up process group for: env:// [rank=0, world_size=2]"),
             "ray.train.WorkerGroupError: Training failed due to worker errors:",
             "[Rank 0 Error Snippet]:", "Traceback (most recent call last):", GLOO, "",
             "[Rank 1 Error Snippet]:", "Traceback (most recent call last):", '  File "/app/train.py", line 9, in loop',
             "ValueError: bad batch"]
    assert findings(tmp_path, lines) == [("rank-failure", [1], "python-exception")]


def test_ray_worker_that_died_without_raising(tmp_path):
    lines = [*_ray_group(), worker(0, GLOO),
             "\x1b[33m(raylet)\x1b[0m A worker died or was killed while executing a task by an unexpected system error. "
             "Worker PID: 26590 Worker exit type: SYSTEM_ERROR Worker exit detail: Worker unexpectedly exits",
             CTRL + "[Rank 1 Error Snippet]:", CTRL + "A worker health check failed.",
             CTRL + "The actor is dead because its worker process has died. Worker exit type: SYSTEM_ERROR Worker exit detail: …",
             CTRL + "[Rank 2 Error Snippet]:", CTRL + "ray.exceptions.ActorDiedError: The actor died unexpectedly",
             CTRL + "The actor is dead because its worker process has died. Worker exit type: SYSTEM_ERROR Worker exit detail: …"]
    assert findings(tmp_path, lines) == [("rank-failure", [1], "host-oom-kill")]


def _dcp(rank: int) -> list[str]:
    return [f"[rank{rank}]: Traceback (most recent call last):",
            f"[rank{rank}]: torch.distributed.checkpoint.api.CheckpointException: CheckpointException ranks:dict_keys([3])",
            f"[rank{rank}]: Traceback (most recent call last): (RANK 3)",
            f'[rank{rank}]:   File "/opt/venv/lib/python3.11/site-packages/torch/distributed/checkpoint/filesystem.py", line 520',
            f"[rank{rank}]: PermissionError: [Errno 1] Operation not permitted: '/ckpt/__3_0.distcp'"]


def test_dcp_checkpoint_exception_names_the_failing_rank(tmp_path):
    """Every rank raises the same CheckpointException with rank 3's PermissionError under
    ``(RANK 3)``: rank 3 failed, the others only report it (before: failed together, no rank)."""
    lines = ["rank 0/4: FSDP2 model sharded over 4 ranks", *(line for r in range(4) for line in _dcp(r))]
    assert findings(tmp_path, lines) == [("rank-failure", [3], "python-exception")]


def test_sigabrt_after_the_ranks_own_exception_is_not_an_abort(tmp_path):
    """HF Trainer under torchrun: the rank raised, then its C++ runtime ended it with SIGABRT
    (``terminate called without an active exception``): the exception is the cause."""
    lines = ["[rank1]: Traceback (most recent call last):", "[rank1]: KeyError: 'labels'", f"[rank0]: {GLOO}",
             "terminate called without an active exception",
             "W1128 21:25:44.998000 31972 torch/distributed/elastic/multiprocessing/api.py:1028] Sending process 32083 closing signal SIGTERM",
             "E1128 21:25:45.065000 31972 torch/distributed/elastic/multiprocessing/api.py:1002] failed (exitcode: -6) local_rank: 1 "
             "(pid: 32093) of binary: /usr/bin/python3"]
    assert findings(tmp_path, lines) == [("rank-failure", [1], "python-exception")]


AGENT = "E1128 21:34:{s}.779000 25843 torch/distributed/elastic/multiprocessing/api.py:1002] "


def _attempt(rank: int, s: int, own: str) -> list[str]:
    return [f"[default{r}]:rank {r}/4 (local {r}) initialised" for r in range(4)] + [
        f"[default{rank}]:[rank{rank}]: Traceback (most recent call last):", f"[default{rank}]:[rank{rank}]: {own}",
        f"[default{(rank + 1) % 4}]:[rank{(rank + 1) % 4}]: {GLOO}",
        AGENT.format(s=s) + f"failed (exitcode: 1) local_rank: {rank} (pid: {25900 + s}) of binary: /usr/bin/python3"]


def test_restarts_the_last_attempts_failure_ended_the_job(tmp_path):
    """--max-restarts: rank 1 raised, torchrun restarted the workers, then rank 2 raised: the job
    ended with rank 2's failure (the first attempt's is superseded)."""
    lines = _attempt(1, 46, "KeyError: 'labels'") + _attempt(2, 51, "ValueError: bad shard")
    assert findings(tmp_path, lines) == [("rank-failure", [2], "python-exception")]


def test_restarts_whose_later_attempt_only_tore_down_keep_the_first_failure(tmp_path):
    later = [f"[default{r}]:RuntimeError: Gloo connectFullMesh failed with [pair.cc:152] timed out connecting" for r in range(2)]
    lines = _attempt(1, 46, "KeyError: 'labels'") + later + [
        AGENT.format(s=51) + "failed (exitcode: 1) local_rank: 0 (pid: 25999) of binary: /usr/bin/python3"]
    assert findings(tmp_path, lines) == [("rank-failure", [1], "python-exception")]
