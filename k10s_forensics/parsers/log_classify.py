"""Single-line classification of candidate log lines (the per-kind regexes).

``classify(text)`` takes one log line (API timestamp already stripped) and returns the
events it holds: usually zero or one, several for report lines that name many ranks
(flight recorder ``missing ranks``, collective fingerprints, NET/Socket interfaces).
Each event is a dict of ``log_events`` columns plus ``kind``; the caller adds the row's
identity (namespace, pod, ...), the timestamp and the multi-line merges (logs.py).
"""

from __future__ import annotations

import re
from typing import Any

from k10s_forensics.parsers import log_patterns as P
from k10s_forensics.parsers.common import normalize_pci_bus_id, size_to_mib
from k10s_forensics.parsers.log_failures import cuda_error as _cuda_error
from k10s_forensics.parsers.log_cuda_calls import gpu_init_failed as _gpu_init
from k10s_forensics.parsers.log_failures import fatal_signal as _fatal_signal
from k10s_forensics.parsers.log_failures import launcher_exit as _launcher
from k10s_forensics.parsers.log_failures import logged_uncaught as _logged_uncaught
from k10s_forensics.parsers.log_failures import py_exception as _py_exception
from k10s_forensics.parsers.log_failures import srun_tasks as _srun_tasks
from k10s_forensics.parsers.log_failures import store_timeout as _store_timeout
from k10s_forensics.parsers.log_group_waits import group_wait as _group_wait
from k10s_forensics.parsers.log_comm_lines import identity as _identity
from k10s_forensics.parsers.log_exception_tail import own_reducer_rank
from k10s_forensics.parsers.log_comm_lines import nccl_other as _nccl_other
from k10s_forensics.parsers.log_comm_lines import nccl_return as _nccl_return
from k10s_forensics.parsers.log_comm_lines import process_group as _pg
from k10s_forensics.parsers.log_comm_lines import remote_error as _remote
from k10s_forensics.parsers.log_comm_lines import to_int as _int
from k10s_forensics.parsers.log_comm_lines import watchdog as _watchdog
from k10s_forensics.parsers.log_mpich import mpich_fatal as _mpich_fatal
from k10s_forensics.parsers.log_nccl2 import RANK as nccl2_rank
from k10s_forensics.parsers.log_normalize import Normalized, agent_tag, is_masked, normalize, ray_repeated
from k10s_forensics.parsers.log_pods import pod_status as _pod_status
from k10s_forensics.parsers.log_launchers import cant_open as _cant_open, paddle_aborted as _paddle_aborted
from k10s_forensics.parsers.log_reports import reports as _reports
from k10s_forensics.parsers.log_patterns_cuda import XID_CAUSE
from k10s_forensics.parsers.log_rank_mentions import wds_rank

Event = dict[str, Any]
#: Identity fields a user may have masked (``<hostname>``, ``xxx.xxx.xxx.xxx``): kept as null
_MASKABLE = ("nccl_host", "peer_ip", "ip")


def line_context(text: str, norm: Normalized | None = None) -> Event:
    """Fields every event of the line shares: rank, pg rank, severity, NCCL prefix, launcher tags."""
    ctx: Event = {}
    m = P.RANK_PREFIX.search(text)
    if m and agent_tag(text) is not None:
        m = None  # the elastic agent's own record: its tag is the agent's rank, no worker's (log_normalize.AGENT_TAGGED)
    prefix_rank = _int(m.group(1)) if m else None
    if prefix_rank is None and norm is not None:
        prefix_rank = norm.rank
    if norm is not None and norm.local_rank is not None:
        ctx["local_rank"] = norm.local_rank
    if norm is not None:  # whose line it is, by its tags (log_exception_tail.retried_after)
        ctx["_printer"] = (norm.rank, norm.local_rank)
    m = P.MESSAGE_RANK.search(text) or (nccl2_rank.search(text) if "[TC][rank=" in text else None)
    message_rank = _int(m.group(1)) if m else None
    ctx["rank"] = prefix_rank if prefix_rank is not None else message_rank
    ctx["pg_rank"] = message_rank
    if ctx["rank"] is None:  # webdataset's sample metadata (log_rank_mentions)
        ctx["rank"] = wds_rank(text)
    ctx["_prefix_rank"] = prefix_rank
    ctx["severity"] = _severity(text)
    prefix = P.nccl_prefix(text) if "NCCL " in text else None  # NCCL_LEVEL needs "NCCL "
    if prefix and P.NCCL_LEVEL.search(text, prefix[4]):
        ctx["nccl_host"] = prefix[0]
        ctx["pid"] = _int(prefix[1])
        ctx["cuda_dev"] = _int(prefix[3])
    return ctx


def _severity(text: str) -> str | None:
    m = P.GLOG_TS.search(text)
    if m:
        return m.group(1)
    m = P.GLOG_OLD.search(text)
    if m:
        return m.group(1)
    m = P.NCCL_LEVEL.search(text) if "NCCL " in text else None
    if m:
        return {"INFO": "I", "WARN": "W", "ERROR": "E", "TRACE": "I"}[m.group(1)]
    m = P.PY_LEVEL.search(text) if any(word in text for word in P.PY_LEVEL_WORDS) else None
    if m:
        return {"ERROR": "E", "WARNING": "W", "CRITICAL": "F", "FATAL": "F"}[m.group(1)]
    return None


def _oom(text: str) -> Event | None:
    if P.OOM_PYTORCH.search(text):
        ev: Event = {"kind": "cuda_oom", "subkind": "pytorch"}
        m = P.OOM_REQUESTED.search(text)
        ev["oom_requested_mib"] = size_to_mib(m.group(1)) if m else None
        m = P.OOM_NEW.search(text)
        legacy = P.OOM_LEGACY.search(text)
        if m:
            ev["cuda_dev"] = _int(m.group(1))
            ev["oom_total_mib"] = size_to_mib(m.group(2))
            ev["oom_free_mib"] = size_to_mib(m.group(3))
        elif legacy:
            ev["subkind"] = "pytorch_legacy"
            ev["cuda_dev"] = _int(legacy.group(1))
            ev["oom_total_mib"] = size_to_mib(legacy.group(2))
            ev["oom_free_mib"] = size_to_mib(legacy.group(4))
            ev["oom_in_use_mib"] = size_to_mib(legacy.group(5)) if legacy.group(5) else None
        if ev.get("cuda_dev") is not None and P.OOM_FAIRSEQ.search(text):  # fairseq's own report: its device is its local
            ev["_device_local_rank"] = ev["cuda_dev"]  # rank (``_finish``: where no tag of the line names its process)
        this = P.OOM_THIS_PROCESS.search(text)
        if this:
            ev["oom_in_use_mib"] = size_to_mib(this.group(1))
        elif m:
            others = P.OOM_ANY_PROCESS.findall(text)
            if len(others) == 1:  # in a container NVML shows our own process under its host PID
                ev["oom_in_use_mib"] = size_to_mib(others[0])
        return ev
    if P.OOM_CUDA_ERROR.search(text):
        return {"kind": "cuda_oom", "subkind": "cuda_error"}
    if "cudaErrorMemoryAllocation" in text and P.OOM_CUDA_RUNTIME.search(text):
        return {"kind": "cuda_oom", "subkind": "cuda_runtime"}
    if ("what():" in text or "out_of_memory" in text) and P.OOM_ALLOCATOR.search(text):
        return {"kind": "cuda_oom", "subkind": "allocator"}
    if ("OOM when" in text or "Out of memory while" in text) and P.OOM_FRAMEWORK.search(text):
        return {"kind": "cuda_oom", "subkind": "framework"}
    if P.OOM_NCCL.search(text):
        m = P.CALLOC_BYTES.search(text)
        return {"kind": "cuda_oom", "subkind": "nccl", "oom_requested_mib": size_to_mib(f"{m.group(1)} bytes") if m else None}
    return None


#: torchelastic's timer watchdog: a worker's ``expires(after=…)`` scope ran out (it hung there) and the timer server kills
#: it. The agent's file-based one (``TORCHELASTIC_ENABLE_FILE_TIMER=1``): ``Reaping worker_pid=[1234]. Expired timers:
#: ['train_step']`` (then the agent SIGKILLs itself: no failure report follows); ``LocalTimerServer``: ``worker_id=[1234]``
_TIMER_REAPED = re.compile(r"Reaping worker_(?:pid|id)=\[(\d{1,10})\]\. Expired timers: ")


def _torchrun(text: str) -> Event | None:
    m = P.AGENT_FAILED.search(text)
    if m:
        return {"kind": "torchrun_failure", "subkind": "agent", "exit_code": _int(m.group(1)), "local_rank": _int(m.group(2)), "pid": _int(m.group(3))}
    m = P.FORCE_KILL.search(text)
    if m:
        return {"kind": "torchrun_sigterm", "subkind": "escalated_" + m.group(3), "pid": _int(m.group(1))}
    m = P.CLOSING_SIGNAL.search(text)
    if m:
        return {"kind": "torchrun_sigterm", "subkind": m.group(2), "pid": _int(m.group(1))}
    m = _TIMER_REAPED.search(text)
    if m:
        return {"kind": "timer_reaped", "subkind": "file_timer", "pid": _int(m.group(1))}
    m = P.WORKER_GROUP.search(text)
    if m:
        return {"kind": "worker_group_restart", "attempts_left": _int(m.group(1)), "attempts_max": _int(m.group(2))}
    m = P.SIGNAL_RECEIVED.search(text)
    if m:
        return {"kind": "process_exit", "subkind": m.group(2), "exit_code": -int(m.group(1)), "pid": _int(m.group(3))}
    m = P.EXIT_CODE.search(text)
    if m:
        return {"kind": "process_exit", "subkind": "exit_code", "exit_code": _int(m.group(1))}
    return None


def _xid(text: str) -> Event | None:
    m = P.XID.search(text)
    if not m:
        return None
    pid = P.XID_PID.search(m.group(3))
    return {"kind": "xid", "xid": _int(m.group(2)), "bus_id": normalize_pci_bus_id(m.group(1)), "pid": _int(pid.group(1)) if pid else None}


def _xid_cause(ev: Event, text: str) -> list[Event]:
    """The Xid a consequence's line names as its cause (``… 45, … caused by previous Xid 149``): an ``xid`` event of the
    same GPU, subkind ``caused_later_xid`` (its own line may be missing from the log, or long before), so the root Xid
    (an NVLink error) is reported beside the consequence; [] when the line names none or names itself."""
    m = XID_CAUSE.search(text)
    if not m or _int(m.group(1)) in (None, 0, ev["xid"]):
        return []
    return [{"kind": "xid", "subkind": "caused_later_xid", "xid": _int(m.group(1)), "bus_id": ev["bus_id"], "pid": None}]


def classify(text: str, norm: Normalized | None = None) -> list[Event]:
    """Events held by one candidate line, highest-priority kind first; [] when none.

    ``norm`` is the line's normalisation (``log_normalize.normalize``), computed when absent. Ray's dedup note at the
    end (`` [repeated 7x across cluster]``) is read apart: the line's events as without it, each with ``repeated`` = N.
    """
    bare, repeated = ray_repeated(text)
    if repeated is None:
        return _classify(text, norm)
    return [{**ev, "repeated": repeated} for ev in _classify(bare, norm)]


def _classify(text: str, norm: Normalized | None = None) -> list[Event]:
    events: list[Event] = []
    if " NCCL INFO " in text and "out of memory" not in text:  # fast path: identity lines
        events = _identity(text)
        if not events:
            ev = _remote(text) or _nccl_return(text)
            events = [ev] if ev else []
        return _finish(text, events, norm)
    for single in (_xid, _gpu_init, _watchdog, _oom, _cuda_error, _remote, _pod_status, _launcher, _fatal_signal, _store_timeout):
        ev = single(text)
        if ev:
            events = [ev] + (_xid_cause(ev, text) if single is _xid else [])
            break
    if not events:
        events = _srun_tasks(text) or _paddle_aborted(text) or _reports(text)
        if events and events[0]["kind"] == "nccl_desync" and "Error" in text:  # a sub-group barrier's report the reporter
            norm = norm if norm is not None else normalize(text)  # raised: its own exception (it waited), read as one
            if P.PY_EXCEPTION.match(norm.text) and _sub_group(line_context(text, norm), events[0]):
                ev = _py_exception(norm.text, norm.rank is not None or norm.local_rank is not None)
                events = [{**ev, "_sub_group": True}] if ev else []  # its call ran on the sub-group: no op compared
    if not events:
        ev = _torchrun(text)
        if ev and ev.get("local_rank") is not None and (agent_tag(text) or 0) > 1:  # an agent past the first of its group:
            ev["local_rank"] = None  # a node that is not the first, so its local rank is no global rank the line can name
        events = [ev] if ev else _identity(text)
    if not events:
        norm = norm if norm is not None else normalize(text)
        ev = (_nccl_other(text) or _mpich_fatal(text) or _py_exception(norm.text, norm.rank is not None or norm.local_rank is not None)
              or _cant_open(norm.text)
              or _logged_uncaught(norm.text) or _tagged_frame(text, norm) or _group_wait(text, norm))
        events = [ev] if ev else []
    return _finish(text, events, norm)


#: a frame of torch's ``[rankN]:``-tagged traceback (``[rank28]:   File "…/schedules.py", line 471, in backward_step``)
_TAGGED_FRAME = re.compile(r"\[rank\d{1,6}\]:\s{1,8}File \"[^\"]{1,400}\", line \d{1,7}, in ")


def _tagged_frame(text: str, norm: Normalized) -> Event | None:
    """A rank-tagged traceback frame: the rank is printing a traceback. Only the first of a traceback whose header was
    cut off is kept (log_owners.Owners.ignored): it starts the rank's traceback as the header would have."""
    if norm.rank is None or "File" not in text or not _TAGGED_FRAME.search(text):
        return None
    return {"kind": "python_traceback", "subkind": "started", "_frame": True}


def _finish(text: str, events: list[Event], norm: Normalized | None = None) -> list[Event]:
    """Add the line's shared context (rank, severity, NCCL prefix, pg) to its events."""
    if not events:
        return []
    if norm is None and " NCCL INFO " not in text:
        norm = normalize(text)
    ctx = line_context(text, norm)
    out = []
    for ev in events:
        merged = dict(ctx)
        if ev["kind"] in ("nccl_comm_init", "nccl_comm_abort", "collective_mismatch", "nccl_desync", "flight_recorder_missing_ranks"):
            merged["reporter_rank"] = ctx["_prefix_rank"] if ctx["_prefix_rank"] is not None else ctx["rank"]
            merged["rank"] = None
            merged["pg_rank"] = None
        if ev["kind"] in ("nccl_watchdog_timeout", "watchdog_exception_summary", "nccl_error_other"):
            merged["pg"] = _pg(text)
        merged.update({k: v for k, v in ev.items() if k != "_no_rank"})
        for key in _MASKABLE:
            if isinstance(merged.get(key), str) and is_masked(merged[key]):
                merged[key] = None
                if key == "peer_ip":  # the port of a masked host (`172....<33759>`) identifies nothing either
                    merged["peer_port"] = None
        if ev["kind"] == "nccl_bootstrap" and merged.get("ip") is None:
            continue  # an interface whose address was masked places nothing
        if merged.pop("_device_local_rank", None) is not None and merged.get("rank") is None and merged.get("local_rank") is None:
            merged["local_rank"], merged["_by_device"] = ev["_device_local_rank"], True  # fairseq's OOM on its own device
        if ev.get("_no_rank"):  # the line names a rank that is known to be wrong (the event's own local_rank is exact)
            merged.update(rank=None, local_rank=ev.get("local_rank"), pg_rank=None, _prefix_rank=None)
        if ev.get("_reporter") is not None:  # a fingerprint report names its reporter first
            merged["reporter_rank"] = ev["_reporter"]
        if ev["kind"] == "collective_mismatch" and ev.get("rank") is None:
            merged["rank"] = merged.get("reporter_rank")
        if ev["kind"] == "python_exception" and "receive grad for rank" in text:  # DDP's reducer naming its rank in the
            merged.update(own_reducer_rank(merged, text))  # exception's own line (a terminal's wrap joined) (log_exception_tail.py)
        if ev["kind"] == "nccl_desync" and _sub_group(ctx, ev):  # a sub-group's monitored barrier: its numbers are group ranks
            merged.update(rank=None, subkind=f"{ev['subkind']}_group", reporter_rank=ctx["_prefix_rank"])
        out.append(merged)
    return out


def _sub_group(ctx: Event, ev: Event) -> bool:
    """A monitored barrier's report whose reporter, in its own words (gloo's ``[Rank 0]: Rank 1 failed to pass
    monitoredBarrier``, ``Rank 1 successfully reached monitoredBarrier``), is not the printing process's global rank
    (torch's ``[rank2]:`` tag): the barrier ran on a sub-group (``monitored_barrier(group=...)``, DETAIL's per-group
    check) and every number in it is a group rank, no global one."""
    own = ctx["pg_rank"] if ev.get("subkind") == "barrier" else ev.get("_reporter") if ev.get("subkind") == "barrier_peer" else None
    return own is not None and ctx["_prefix_rank"] is not None and own != ctx["_prefix_rank"]


def with_context(text: str, events: list[Event], norm: Normalized | None = None) -> list[Event]:
    """Events a multi-line construct built (log_lines.py), given the line's shared context as ``classify`` gives it."""
    return _finish(text, events, norm)


__all__ = ["classify", "line_context", "with_context"]
