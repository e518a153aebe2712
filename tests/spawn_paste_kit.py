"""SYNTHETIC lines of an mp.spawn job's console, in the recorded runs' shapes (written for the tests, not from a real
log): a worker's gloo wait or peer loss, its own error, its ``print_exc`` traceback and spawn.py's join raising
``ProcessExitedException`` (torch 2.13's shape). Shared by tests/test_spawn_exit_code_victim.py,
tests/test_spawn_silent_process.py and tests/test_victims_only_failure.py."""

from __future__ import annotations

import datetime as dt

NOW = dt.datetime(2026, 12, 7, 6, 0, tzinfo=dt.timezone.utc)
GLOO = ("RuntimeError: [/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:553] Connection closed by peer "
        "[127.0.0.1]:22168. This is typically caused by a remote worker crashing. Check the logs of the remote worker "
        "before reporting an error. GLHF!")
TIMEOUT = ("RuntimeError: [/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:129] Timed out "
           "waiting 3000ms for send operation to complete")
OWN = "RuntimeError: bad batch at step 1: sample 17 has no tokens"


def traceback(last: str, frame: str = "    dist.all_gather(out, x)", where: str = "line 86, in _validate") -> list[str]:
    """A worker's ``print_exc``: one frame of the training script, then ``last``."""
    return ["Traceback (most recent call last):", f'  File "/opt/train.py", {where}', frame, last]


def exited(n: int, code: int = 1) -> list[str]:
    """spawn.py's join raising for process ``n``'s exit status ``code``."""
    return ["Traceback (most recent call last):", '  File "/opt/train.py", line 40, in main',
            "    mp.spawn(_spawned, args=(cfg,), nprocs=2, join=True)",
            '  File "/opt/venv/lib/python3.11/site-packages/torch/multiprocessing/spawn.py", line 200, in join',
            "    raise ProcessExitedException(",
            f"torch.multiprocessing.spawn.ProcessExitedException: process {n} terminated with exit code {code}"]
