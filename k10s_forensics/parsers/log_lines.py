"""Per-log-body assembly of candidate lines: timestamps and multi-line constructs.

The SQL pass (logs.py) hands the candidate lines of one log body, in line order, to a ``BodyAssembler``. Most
candidates are complete events on their own (``classify``); a few constructs span lines and are assembled here:

* torchrun ``ChildFailedError`` table (``log_failure_table.py``): ``[N]:`` header, then ``time``/``rank``/``exitcode``/
  ``traceback`` field lines, grouped per entry; one ``torchrun_failure`` event per entry (subkind ``failures``/
  ``root_cause``/``table``). A line's own clock, where the API gave none, is ``log_time.fallback_ts``.
* ``Last error:`` payloads: an error that names no peer (``ncclRemoteError``, ``ncclInternalError``,
  ``ncclUnhandledCudaError``, ...) absorbs a peer line (``Call to recv from ip<port>``, ``Connection closed by remote
  peer ...``) or a NCCL ``Cuda failure 'out of memory'`` that follows within ``MERGE_GAP`` lines: the peer fills
  ``peer_ip``/``peer_port`` (an internal error with a remote peer becomes ``nccl_remote_error``), a CUDA OOM payload makes
  the event ``cuda_oom``. Flight recorder analyzer output: ``Not all ranks joining collective`` / ``group info:`` /
  ``collective:`` lines give seq_num / pg / op_type to the ``missing ranks:`` line.
* A header, then one row per missing rank (``log_stall_rows.py``): Horovod >= 0.21's stall warning
  (``Missing ranks:``, ``1: [allreduce.x, ...]``: ``horovod_missing``), JAX's/TensorFlow's coordination
  service on a barrier that timed out (``Timed out task names:``, ``/job:jax_worker/replica:0/task:3``:
  ``barrier_missing``): one ``nccl_desync`` event per row.
* Ray's dead-actor report (``ActorDiedError: The actor died ...``): its ``name:`` field names a verl worker's rank
  (``log_ray_actor.py``).
* A launcher's own exception: a traceback frame in the launcher's code (``deepspeed/launcher/``,
  ``torch/distributed/run.py``, ``launch.py``, ``accelerate/commands/``, PySpark's TorchDistributor ``pyspark/ml/torch/``) right before the
  exception line (within ``log_owners.FRAME_GAP`` lines: the innermost frame) makes it the launcher's, no rank's event.
* PyTorch desync report: the indented ``[7] finished collective #182, but didn't join`` line gets ``reporter_rank``
  from the nearest ``[rankN]:`` candidate above it; gloo's pair wait timing out right under a monitored barrier's
  report (its ``Original exception:``) gives the report its ``timeout_ms`` (``log_reports``); webdataset's sample
  metadata wrapped under an unranked exception (``'__rank__': '(18, 32)'``) gives it its rank (``log_rank_mentions``).
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from k10s_forensics.parsers import log_patterns as P
from k10s_forensics.parsers.log_habana import launch_thread_detail
from k10s_forensics.parsers.log_exception_tail import under_exception
from k10s_forensics.parsers.log_reports import barrier_wait
from k10s_forensics.parsers.log_classify import Event, classify, with_context
from k10s_forensics.parsers.log_normalize import Normalized, normalize, ray_repeated, strip_ansi, unglue
from k10s_forensics.parsers.log_describe import DescribeBlocks
from k10s_forensics.parsers.log_launchers import FIRST_PROCESS_EXIT
from k10s_forensics.parsers.log_owners import Owners
from k10s_forensics.parsers.log_failure_table import LINE_CHARS, TABLE_GAP, TRACEBACK_GAP, FailureTable
from k10s_forensics.parsers.log_pods import resolve_ranks
from k10s_forensics.parsers.log_rank_mentions import sample_rank
from k10s_forensics.parsers.log_ray_actor import RayActorReports
from k10s_forensics.parsers.log_ray_task_error import RayTaskHeaders, kept
from k10s_forensics.parsers.log_stall_rows import StallRows
from k10s_forensics.parsers.log_ompi_errors import OmpiErrors
from k10s_forensics.parsers.log_ompi import abort_status, orderly_aborts_dropped
from k10s_forensics.parsers.log_time import fallback_ts
from k10s_forensics.parsers.log_py_exceptions import worker_reports_dropped
from k10s_forensics.parsers.log_spawn_node import SpawnNode

MERGE_GAP = 3
FR_GAP = 15
DESYNC_GAP = 40
SPAWN_GAP = 400  # mp.spawn's "-- Process N terminated with the following error:" then that process's traceback
WRAP_MIN = 60  # a line shorter than this was not wrapped by a terminal


def _known(ev: Event) -> int:
    """How many fields of an event are filled."""
    return sum(1 for k, v in ev.items() if v is not None and not k.startswith("_") and k not in ("line", "line_no", "ts"))


class BodyAssembler(FailureTable):
    """Turns the candidate lines of one log body into events (see the module doc)."""

    def __init__(self, captured_at: dt.datetime | None):
        self.captured_at = captured_at
        self.events: list[Event] = []
        self.truncated_entries = 0
        self._section: str | None = None
        self._entry: dict[str, Any] | None = None
        self._pending: Event | None = None
        self._fr: dict[str, Any] | None = None
        self._stall = StallRows()  # Horovod's "Missing ranks:", a barrier's "Timed out task names:" (log_stall_rows.py)
        self._ompi = OmpiErrors()  # Open MPI's error handler report, one field a line (log_ompi_errors.py)
        self._ray = RayActorReports()  # Ray's dead-actor reports (log_ray_actor.py)
        self._prefix_rank: tuple[int, int, dt.datetime | None] | None = None  # (line_no, rank, ts)
        self._mpi: Event | None = None  # a pending mpirun "Process name" report
        self._spawn: tuple[int, int] | None = None  # (line_no, local rank) of mp.spawn's "-- Process N terminated with"
        self._spawn_node = SpawnNode()  # the node rank and process count the body states (log_spawn_node.py)
        self._last: tuple[int, str, dt.datetime | None, int] | None = None  # last classified line, its first event
        self._describe = DescribeBlocks()  # kubectl describe pod pasted beside the log
        self._owners = Owners()  # whose failure a line reports (Ray workers, traceback headers, DCP)
        self._ray_headers = RayTaskHeaders()  # Ray's task error header read alone (log_ray_task_error.py)
        self._oom_all = False  # fairseq's `OOM in all workers, skipping update`: every worker ran out alike

    # ---- public ----------------------------------------------------------------------
    def feed(self, line_no: int, text: str, api_ts: dt.datetime | None, follow: bool = False) -> None:
        """One candidate line; ``follow``: not a candidate itself, the line after one (maybe its wrapped tail)."""
        text, repeated = ray_repeated(strip_ansi(text.rstrip("\r")))  # Ray's dedup note: the line of N more processes
        self._spawn_node.feed(text)
        if follow:  # Open MPI's errorcode wrapped under its abort line, or a line a terminal wrapped
            return None if abort_status(self.events, line_no, text) else self._glue(line_no, text, api_ts)
        if self._entry is not None and line_no - self._entry["last"] > (TRACEBACK_GAP if self._entry.get("traceback_open") else TABLE_GAP):
            self._close_entry()
        if "%|" in text and "\r" not in text:
            text = unglue(text)  # a progress bar is no part of the line printed after it
        if "OOM in all workers" in text:  # fairseq's master: every worker ran out alike, so an OOM's device names no culprit
            self._oom_all = True
            return None
        described = self._describe.feed(text)
        norm = Normalized(text) if " NCCL INFO " in text else normalize(text)  # NCCL's own prefix: nothing to strip
        under_exception(self.events, line_no, norm)  # HCCL's peer wait, DDP's reducer rank under an exception (log_exception_tail.py)
        barrier_wait(self.events, line_no, norm)  # gloo's pair wait under a monitored barrier's report (log_reports.py)
        if launch_thread_detail(self.events, line_no, norm) or sample_rank(self.events, line_no, norm.text):
            return  # what failed, under Gaudi's bridge's wrapper (log_habana.py); an exception's sample rank (webdataset)
        if described is None and (self._table_line(line_no, norm.text, api_ts) or self._fr_context(line_no, norm.text)):
            return
        if described is None and (self._owners.launcher_frame(line_no, norm, text, api_ts) or self._owners.header(line_no, norm, api_ts)):
            return
        events = [described] if described is not None else (self._stall.row(line_no, text, norm) or self._ray.row(line_no, text)
                                                                    or self._ompi.row(line_no, text, norm) or classify(text, norm))
        if not events or self._owners.launchers_own(line_no, norm, events[0]) or self._owners.ignored(line_no, norm, events[0]):
            self._owners.no_event(norm)
            return
        if self._owners.record_start(line_no, norm, events[0]):
            return
        self._owners.attribute(line_no, norm, events)
        self._ray_headers.mark(line_no, events, norm.text, text)  # a Ray task error's header: placed; dropped under its task's own line
        if self._ray.inside(line_no):
            # a worker death inside a dead-actor report whose pid no worker group named: the report's own
            # ``name:`` field names the rank, when it can (log_ray_actor); the death alone names none
            events = [e for e in events if not (e.get("subkind") == "ray_worker_died" and e.get("rank") is None)]
            if not events:
                return
        ts = api_ts or fallback_ts(text, self.captured_at)
        for ev in events:
            ev["line_no"] = line_no
            ev["ts"] = ts
            ev["line"] = (text if repeated is None else f"{text} [repeated {repeated}x across cluster]")[:LINE_CHARS]
            if repeated is not None:
                ev["repeated"] = repeated
        head = events[0]
        if head["kind"] == "nccl_return":  # NCCL's error return: a line of its own, never part of another's report
            return self.events.extend(events)
        if self._exit_code_of_report(line_no, head):
            return
        if head.get("_prefix_rank") is not None:
            self._prefix_rank = (line_no, head["_prefix_rank"], head["ts"])
        if self._absorb(line_no, head) or head.get("_payload"):
            return  # a payload no error above it takes (a "Last error:" line of its own) says nothing alone
        self._annotate_reports(line_no, events)
        self._spawn_traceback(line_no, head)
        self._report_after_exit_code(line_no, head)
        self._last = (line_no, text, api_ts, len(self.events))
        self.events.extend(events)
        self._pending = head if self._is_merge_target(head) else None
        self._mpi = head if head.get("subkind") == "mpirun_first" and head.get("exit_code") is None else None

    def finish(self) -> list[Event]:
        self._close_entry()
        for cut in self._owners.cut_frames():  # a traceback cut before its exception: its innermost frame (log_library_frame.py)
            ev = with_context(cut.text, [{"kind": "python_traceback", "subkind": "cut_frame", "error_frame": cut.frame}], cut.norm)[0]
            ev.update(line_no=cut.line_no, ts=cut.api_ts or fallback_ts(cut.text, self.captured_at), line=cut.text[:LINE_CHARS])
            at = next((i for i, e in enumerate(self.events) if e.get("line_no", -1) > cut.line_no), len(self.events))
            self.events.insert(at, ev)  # in its line's place
        self.events = self._spawn_node.place(resolve_ranks(worker_reports_dropped(orderly_aborts_dropped(kept(self.events)))))  # pasted pod rows: ranks from the layout the body shows
        for ev in self.events if self._oom_all else []:  # fairseq said every worker ran out: no local rank by device
            ev["local_rank"] = None if ev.get("_by_device") else ev.get("local_rank")
        self.events = [{k: v for k, v in ev.items() if not k.startswith("_")} for ev in self.events]  # the parser's own keys off
        return self.events

    # ---- flight recorder context / desync reporter ----------------------------------
    def _fr_context(self, line_no: int, text: str) -> bool:
        m = P.FR_HEADER.search(text)
        if m:
            self._fr = {"line_no": line_no, "seq_num": int(m.group(1) or m.group(2))}
            return True
        fresh = self._fr is not None and line_no - self._fr["line_no"] <= FR_GAP
        m = P.FR_GROUP.match(text)
        if m:
            if fresh:
                self._fr["pg"] = m.group(1)
            return True
        m = P.FR_COLLECTIVE.match(text)
        if m:
            if fresh:
                self._fr["op_type"] = m.group(1)
            return True
        return False

    def _annotate_reports(self, line_no: int, events: list[Event]) -> None:
        kind = events[0]["kind"]
        if kind == "flight_recorder_missing_ranks" and self._fr and line_no - self._fr["line_no"] <= FR_GAP:
            for ev in events:
                ev["seq_num"] = self._fr.get("seq_num")
                ev["op_type"] = self._fr.get("op_type")
                ev["pg"] = self._fr.get("pg")
        if kind == "nccl_desync" and events[0].get("reporter_rank") is None and self._prefix_rank and line_no - self._prefix_rank[0] <= DESYNC_GAP:
            for ev in events:
                ev["reporter_rank"] = self._prefix_rank[1]
                ev["ts"] = ev["ts"] or self._prefix_rank[2]

    def _spawn_traceback(self, line_no: int, head: Event) -> None:
        """mp.spawn's ``-- Process N terminated with the following error:``: the exception under it is N's (local rank), an OOM's too."""
        if head.get("kind") == "process_exit" and head.get("subkind") == "spawn":
            head["_spawn_local"] = True  # its index a local one (log_spawn_node.py)
        if head.get("_raised_by") is not None:
            self._spawn = (line_no, head["_raised_by"])
            return
        if head["kind"] in ("python_exception", "cuda_oom", "cuda_error") and self._spawn and line_no - self._spawn[0] <= SPAWN_GAP:
            if head.get("rank") is None and head.get("local_rank") is None:
                head["local_rank"], head["_spawn_local"] = self._spawn[1], True
            self._spawn = None

    # ---- lines a terminal wrapped (pasted logs only) ---------------------------------
    def _glue(self, line_no: int, text: str, api_ts: dt.datetime | None) -> None:
        """Join ``text`` to the line before when that line was cut mid-token and the join gives its event more fields
        (``NumelIn=112, Numel`` + ``Out=112, Timeout(ms)=…) ran for …``); never a line opening with its own glog/c10 clock."""
        last = self._last
        if last is None or last[0] != line_no - 1 or api_ts is not None or last[2] is not None:
            return  # container logs are never wrapped: only a paste without API timestamps is
        prev = last[1]
        if len(prev) < WRAP_MIN or prev[-1].isspace() or not text or text[0].isspace() or normalize(text).stripped or P.GLOG_TS.match(text):
            return
        glued = classify(prev + text)
        if not glued or last[3] >= len(self.events) or _known(glued[0]) <= _known(self.events[last[3]]):
            return
        del self.events[last[3]:]
        self._last = self._pending = self._mpi = None
        self.feed(last[0], prev + text, None)

    # ---- mpirun's "Process name: [[job,1],rank]" then "Exit code: N" ------------------
    def _exit_code_of_report(self, line_no: int, ev: Event) -> bool:
        report = self._mpi
        if report is None or ev.get("subkind") != "exit_code" or line_no - report["line_no"] > MERGE_GAP:
            return False
        report["exit_code"] = ev.get("exit_code")
        report["line"] = (report["line"] + "\n" + ev["line"])[:LINE_CHARS]
        self._mpi = None
        return True

    def _report_after_exit_code(self, line_no: int, ev: Event) -> None:
        """The same report printed out of order (a log collector that sorts lines of one second, Determined's):
        ``Exit code: N`` just before ``Process name: …``: the exit code is the report's, not a line of its own."""
        prev = self.events[-1] if self.events and ev.get("subkind") == "mpirun_first" else None
        if (prev is None or prev.get("subkind") != "exit_code" or prev.get("rank") is not None
                or line_no - prev["line_no"] > MERGE_GAP or not FIRST_PROCESS_EXIT.search(prev["line"])):
            return
        ev["exit_code"] = prev.get("exit_code")
        ev["line"] = (prev["line"] + "\n" + ev["line"])[:LINE_CHARS]
        self.events.pop()

    # ---- "Last error:" payloads -----------------------------------------------------
    @staticmethod
    def _is_merge_target(ev: Event) -> bool:
        kind, sub = ev["kind"], ev.get("subkind")
        if kind == "nccl_remote_error":
            return ev.get("peer_ip") is None
        if kind == "nccl_error_other":
            return sub not in ("nccl_warn", "async_error_teardown", "ib_qp_setup")  # a WARN line of its own, as before (session 63)
        return kind == "cuda_oom" and sub == "nccl" and ev.get("oom_requested_mib") is None

    def _absorb(self, line_no: int, ev: Event) -> bool:
        target = self._pending
        if target is None or line_no - target["line_no"] > MERGE_GAP:
            return False
        if ev.get("_prefix_rank") is not None and target.get("_prefix_rank") not in (None, ev["_prefix_rank"]):
            return False
        kind, sub = ev["kind"], ev.get("subkind")
        if self._is_merge_target(ev) and kind in ("nccl_remote_error", "nccl_error_other") and target["kind"] in ("nccl_remote_error", "nccl_error_other"):
            # one exception printed over several lines (DistBackendError + ncclXxxError + ...)
            if kind == "nccl_remote_error":
                target["kind"] = "nccl_remote_error"
            if target.get("subkind") in ("nccl_error", "remote_error") and sub not in ("nccl_error", None):
                target["subkind"] = sub
        elif kind == "nccl_remote_error" and ev.get("peer_ip") and target["kind"] in ("nccl_remote_error", "nccl_error_other"):
            target["kind"] = "nccl_remote_error"
            target["peer_ip"], target["peer_port"] = ev["peer_ip"], ev.get("peer_port")
        elif kind == "cuda_oom" and sub == "nccl" and target["kind"] == "nccl_error_other":
            target.update(kind="cuda_oom", oom_requested_mib=ev.get("oom_requested_mib"))
            target.setdefault("cuda_dev", ev.get("cuda_dev"))
        elif kind == "cuda_oom" and target["kind"] == "cuda_oom" and ev.get("oom_requested_mib") is not None:
            if (ev.get("nccl_host"), ev.get("pid")) != (target.get("nccl_host"), target.get("pid")):
                return False
            target["oom_requested_mib"] = ev["oom_requested_mib"]
        else:
            return False
        target["line"] = (target["line"] + "\n" + ev["line"])[:LINE_CHARS]
        self._pending = target if self._is_merge_target(target) else None
        return True


__all__ = ["BodyAssembler", "fallback_ts", "LINE_CHARS"]
