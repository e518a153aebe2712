"""Worker processes a serving engine's log relays by pid: how many processes its node ran, at least.

vLLM's multiprocessing executor (V0) runs the driver worker, tensor-parallel rank 0, in the engine's own process and
every other worker in a process of its own, whose lines it relays behind ``(VllmWorkerProcess pid=N)``. A log that
relays two workers' lines ran at least three processes on that node (the two and the driver), whatever rank any of
its lines names (``log_layout.infer_layout``: the processes a node ran when nothing stated them).
"""

from __future__ import annotations

import re

#: vLLM's relay prefix of a worker process's line (``(VllmWorkerProcess pid=195295) ERROR 03-02 …``), at a line's start
#: or behind the API's timestamp
VLLM_WORKER_RELAY = re.compile(r"(?:^|[0-9]Z )\(VllmWorkerProcess pid=(\d{1,9})\) ", re.MULTILINE)


def relayed_workers(texts: list[str]) -> int | None:
    """The most processes one log shows its vLLM engine running (distinct relayed worker pids + the driver's), or None."""
    best = max((len({m.group(1) for m in VLLM_WORKER_RELAY.finditer(t)}) for t in texts if "(VllmWorkerProcess pid=" in t), default=0)
    return best + 1 if best else None


__all__ = ["VLLM_WORKER_RELAY", "relayed_workers"]
