"""Single-line classification of a rank's own failure: CUDA errors, Python exceptions, launchers.

Called by ``log_classify.classify`` (same event dict shape). The launchers' exit reports
that name the last spawned command instead of the failed process (legacy
``torch.distributed.launch``'s ``CalledProcessError``, DeepSpeed's ``exits with return code``)
carry ``_no_rank`` so the line's ``--local_rank=N`` is never read as the culprit.
"""

from __future__ import annotations

from typing import Any

from k10s_forensics.parsers import log_patterns as P

Event = dict[str, Any]


def _int(value: str | None) -> int | None:
    try:
        return int(value) if value not in (None, "") else None
    except ValueError:
        return None


def _cuda_kind(message: str) -> str:
    for name, rx in P.CUDA_KINDS:
        if rx.search(message):
            return name
    return "other"


def cuda_error(text: str) -> Event | None:
    """``CUDA error: <message>`` (Python, c10 or the watchdog) and NCCL's ``Cuda failure N 'message'``."""
    m = P.CUDA_ERROR.search(text) if "CUDA error: " in text else None
    message = m.group(1) if m else None
    if message is None:
        n = P.NCCL_CUDA_FAILURE.search(text) if "Cuda failure" in text else None
        if n is None:
            return None
        message = n.group(2)
    if "out of memory" in message:
        return None
    return {"kind": "cuda_error", "subkind": _cuda_kind(message), "error_type": "CUDA error", "error_message": message[:300]}


def launcher_exit(text: str) -> Event | None:
    """Launchers' own exit reports (mpirun, legacy torch.distributed.launch, DeepSpeed)."""
    m = P.MPI_FIRST.search(text)
    if m:
        return {"kind": "process_exit", "subkind": "mpirun_first", "rank": _int(m.group(3))}
    m = P.MPI_NOTICED.search(text)
    if m:
        return {"kind": "process_exit", "subkind": "mpirun_noticed", "rank": _int(m.group(1)), "pid": _int(m.group(2)),
                "exit_code": -int(m.group(4))}
    # these two name the LAST spawned command (a launcher bug), never the failed process: no rank
    m = P.LEGACY_LAUNCH_EXIT.search(text) if "CalledProcessError" in text else None
    if m:
        code = -int(m.group(1)) if m.group(1) else _int(m.group(2))
        return {"kind": "process_exit", "subkind": "launcher_last_cmd", "exit_code": code, "_no_rank": True}
    m = P.DEEPSPEED_EXIT.search(text)
    if m:
        return {"kind": "process_exit", "subkind": "launcher_last_cmd", "exit_code": _int(m.group(1)), "_no_rank": True}
    m = P.SPAWNED.search(text)
    if m:
        return {"kind": "rank_spawn", "subkind": "deepspeed", "pid": _int(m.group(1)), "local_rank": _int(m.group(2))}
    return None


def py_exception(message: str) -> Event | None:
    """The last line of a Python traceback (on the normalised message)."""
    m = P.PY_EXCEPTION.match(message)
    if not m:
        return None
    name, text = m.group(1), (m.group(2) or "").strip()
    if name.endswith(P.LAUNCHER_EXCEPTIONS):
        return None  # the launcher's own exception (its failure table / exit report is the event)
    sub = "teardown" if P.PY_TEARDOWN.search(name + ": " + text) else "raised"
    return {"kind": "python_exception", "subkind": sub, "error_type": name[:200], "error_message": text[:300] or None}


__all__ = ["cuda_error", "launcher_exit", "py_exception"]
