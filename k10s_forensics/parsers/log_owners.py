"""Whose failure a log line reports, when the line names another process than the one printing it.

Called by ``log_lines.BodyAssembler`` for each candidate line:

* Ray Train's controller prints its worker group once (``- (ip=…, pid=2317) world_rank=1, …``):
  a worker's forwarded line (``(RayTrainWorker pid=2317) KeyError: 'x'``) is that rank's;
* a header names the rank whose traceback follows, whoever prints it: Ray Train's failure report
  (``[Rank 1 Error Snippet]:``, in the controller's and the driver's output; Ray Train V2's first ``[Rank 0]:`` and
  ``[Rank 0]`` under ``Training failed due to worker errors:``) and
  torch.distributed.checkpoint's gathered error (``Traceback (most recent call last): (RANK 3)``,
  printed by every rank); the exception that ends it is that rank's (a launcher's own exception,
  e.g. Ray's ``WorkerGroupError``, ends it without an owner);
* one log record holding a whole traceback behind a single rank tag (SGLang's ``[… TP2] Scheduler hit an
  exception: Traceback (most recent call last):``, then untagged frame lines): the exception (or CUDA
  error) that ends it is that rank's (the start alone is no event); another untagged ``Traceback`` start ends
  the claim;
* a traceback whose innermost frame (``FRAME_GAP`` lines above its exception) is in a launcher's own
  code (``log_patterns.LAUNCHER_FRAME``: DeepSpeed's runner, torchrun's ``run.py``) ends in the
  launcher's exception, no rank's;
* DCP's ``CheckpointException ranks:dict_keys([3])`` names the ranks whose part failed: on any
  other rank it is a report of their failure (a teardown), not a failure of its own;
* Python's report of an exception it ignored (``Exception ignored in: <function X.__del__ …>``,
  ``Exception ignored in atexit callback: …``, 3.13's ``Exception ignored while …``): the traceback
  under it is no failure (the process went on, or ended with its own status): neither its start nor its
  exception is an event;
* a ``FileExistsError`` (or pathlib's ``FileNotFoundError`` from a parent's ``mkdir``) raised through a frame whose
  source line creates a directory with ``exist_ok=True`` (``os.makedirs(d, exist_ok=True)``, ``p.mkdir(parents=True,
  exist_ok=True)``), ``MKDIR_GAP`` lines above it at most: the call cannot fail on a directory that exists, so another
  process created the same path at that moment on shared storage (NFS, Lustre, virtiofs; every rank creates it): the
  message is marked so (``RACED_MKDIR``) and queries/_incident.sql reads it as a race whichever rank lost it;
* a logged exception the program says it will retry (a record saying ``will retry``, ``will be retried`` or
  ``retrying`` right above the traceback it logs, ``HANDLED_GAP`` lines at most, within a second where both carry
  the log's clock: ``logger.exception`` writes the record and its traceback at once): handled, as an ignored one
  is; a retry announced seconds before a traceback (the retries ran out) is no such record;
* a line Ray's log monitor relays from another process (``(RayWorkerVllm pid=7046) Fatal Python error: Aborted``):
  its failure event keeps that pid (the driver's own lines have none), whose rank the worker group gives where it is printed;
* an exception raised under pipelining's shape-inference frame: the receiving stage ran its module on the shape the
  previous stage sent, its message marked (``log_shape_inference.py``);
* a rank timing out on rank 0's NCCL id under a ``main_process_first`` frame of its traceback: rank 0, working alone
  first, never joined in time (``log_main_first.py``);
* a ``logging`` record at ERROR/CRITICAL with its process id and no rank (``%(asctime)s [%(process)d]
  ERROR …``, as ``logger.exception`` writes it): the exception ending the traceback under it is that
  process's (its pid; the launcher's lines that name pid and rank give the rank, queries/_incident.sql).
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

from k10s_forensics.parsers import log_patterns as P
from k10s_forensics.parsers.log_main_first import MAIN_FIRST_FRAME, main_first_wait
from k10s_forensics.parsers.log_normalize import Normalized
from k10s_forensics.parsers.log_ray_workers import RAY_TASK_HEAD
from k10s_forensics.parsers.log_library_frame import LibraryFrames
from k10s_forensics.parsers.log_shape_inference import ShapeInference
from k10s_forensics.parsers.log_shared_inputs import SharedInputs

Event = dict[str, Any]
OWNER_GAP = 200  # the header, then (within this many lines) the exception that ends its traceback
FRAME_GAP = 3  # a traceback's innermost frame, its source line (and 3.11's ^^^ line), then the exception
HANDLED_GAP = 2  # a retrying record, then (the next line, or the one after another process's) its traceback

#: The rank whose exception the next traceback is, named in a header above it: Ray Train's failure
#: report (``[Rank 1 Error Snippet]:``; Ray Train V2's first ``[Rank 0]:`` / ``[Rank 0]``, of one rank: ``[Rank 0, 3]:``,
#: workers failing alike, names none), torch.distributed.checkpoint's gathered one
#: (``Traceback (most recent call last): (RANK 3)``), printed by whichever process reports it.
OWNER_HEADER = re.compile(r"^(?:\[Rank (\d{1,7})(?: Error Snippet\]:|\]:?)|Traceback \(most recent call last\):? \(RANK (\d{1,7})\))\s*$")
#: torch.distributed.checkpoint's error naming the ranks whose part failed: ``CheckpointException ranks:dict_keys([3])``
CHECKPOINT_RANKS = re.compile(r"CheckpointException ranks: ?(?:dict_keys\()?\[?\{?([\d, ]{1,2000})")
#: Python's unraisable-exception report (``sys.unraisablehook``) and its atexit callback's: the traceback under it was ignored
IGNORED_HEADER = re.compile(r"^Exception ignored (?:in\b|while\b|on\b)")
#: a log record announcing that what failed will be tried again (``… failed (attempt 1/3), will retry``,
#: ``… will be retried``, tenacity's ``Retrying f in 2.0 seconds as it raised …``)
HANDLED_RECORD = re.compile(r"\b(?:[Ww]ill (?:be )?retr(?:y|ied)|[Rr]etrying)\b")
#: a traceback frame in torch.distributed's own API (``File ".../torch/distributed/distributed_c10d.py", line 3252, in
#: all_reduce``): the first such frame of a traceback names the call the program made (``all_reduce``, ``barrier``,
#: ``new_group``); older releases' decorator (``wrapper``) names none
C10D_FRAME = re.compile(r"^\s*File \"[^\"]{0,400}torch/distributed/distributed_c10d\.py\", line \d{1,7}, in (\w{1,60})\s*$")
C10D_GAP = 12  # a traceback's c10d frames, the frames and source lines under them, then its exception
#: autograd's entry frame (``File ".../torch/autograd/__init__.py", line 395, in backward``) with no c10d frame above the
#: exception: DDP's gradient all-reduce runs in its reducer's hooks under ``loss.backward()``, so a collective's error
#: there is the training step's gradient reduction (``op_type`` ``backward``: the call the rank was in, as a c10d frame's)
BACKWARD_FRAME = re.compile(r"^\s*File \"[^\"]{0,400}torch/autograd/__init__\.py\", line \d{1,7}, in backward\s*$")
#: a frame of the DataLoader fetching a batch from its workers' queue (``File ".../torch/utils/data/dataloader.py",
#: line 1293, in _try_get_data``): a connection error under it is the rank's own worker gone mid-handover
LOADER_FRAME = re.compile(r"^\s*File \"[^\"]{0,400}torch/utils/data/dataloader\.py\", line \d{1,7}, in (?:_try_get_data|_get_data|_next_data)\s*$")
LOADER_GAP = 60  # the queue's frames (multiprocessing's connection, resource_sharer) under it, then the exception
#: a traceback's source line creating a directory that may exist (``os.makedirs(directory, exist_ok=True)``,
#: ``root.mkdir(parents=True, exist_ok=True)``): a ``FileExistsError`` under it is a race with another process
MKDIR_EXIST_OK = re.compile(r"\b(?:makedirs|mkdir)\([^)\n]{0,300}\bexist_ok\s*=\s*True\b")
MKDIR_GAP = 8  # that source line, the stdlib's frames under it (``<frozen os>``, pathlib's), then the exception
#: the mark such an exception's message gets (queries/_incident_common_mode.sql, staging_race)
RACED_MKDIR = "directory another process created at once (exist_ok=True): "
#: what the rank reads when a worker dies while it receives a batch (the worker's end of the pipe closed)
LOADER_LOST = ("ConnectionResetError", "ConnectionRefusedError", "ConnectionAbortedError", "BrokenPipeError", "EOFError")
#: failures a line Ray relays from another process reports as that process's: its pid kept (queries/_incident.sql, relayed_apart)
RELAYED_KINDS = ("process_exit", "python_exception", "python_traceback", "cuda_error", "cuda_oom", "nccl_error_other")
#: the message of such an exception, read as the worker's loss (queries/_incident.sql names its cause)
LOADER_LOST_MESSAGE = "DataLoader worker lost while handing a batch over: "


class Owners:
    """Per log body: Ray worker pids and pending traceback headers."""

    def __init__(self) -> None:
        self._owner: dict[int | None, tuple[int, int]] = {}  # per printing rank: (line_no, rank whose traceback follows)
        self._worker_rank: dict[int, int] = {}  # Ray Train worker pid -> world rank
        self._records: set[int | None] = set()  # printers whose pending owner is a one-record traceback's (not a header's)
        self._launcher_frame: tuple[int, int | None] | None = None  # (line_no, prefix rank) of a launcher's own frame
        self._pid_record: tuple[int, int] | None = None  # (line_no, pid) of the last rankless ERROR record with a pid
        self._ray_task: tuple[int, int, str] | None = None  # (line_no, pid, ip) of Ray's last task error header (``ray::f() (pid=N, ip=…)``)
        self._ignored: dict[int | None, int] = {}  # per printing rank: line of Python's last "Exception ignored in …"
        self._retrying: dict[int | None, tuple[int, dt.datetime | None]] = {}  # per printing rank: a retrying record's line, clock
        self._c10d: dict[int | None, tuple[int, str]] = {}  # per printing rank: (line of its last c10d frame, the first one's call)
        self._loader: dict[int | None, int] = {}  # per printing rank: line of its last DataLoader queue frame
        self._mkdir: dict[int | None, int] = {}  # per printing rank: line of its last exist_ok=True mkdir source line
        self._in_traceback: set[int | None] = set()  # printing ranks inside a traceback (its start seen, no exception yet)
        self._main_first: dict[int | None, int] = {}  # per printing rank: line of its last main_process_first frame
        self._shared = SharedInputs()  # source lines reading what every process shares (log_shared_inputs.py)
        self._shape = ShapeInference()  # pipelining's shape-inference frames (log_shape_inference.py)
        self._library = LibraryFrames()  # the innermost frame's file when a library's install (log_library_frame.py)

    def header(self, line_no: int, norm: Normalized, api_ts: dt.datetime | None = None) -> bool:
        """A header naming whose traceback follows (the line itself is no event)."""
        if self._handled(line_no, norm, api_ts):
            return True
        if norm.pid is not None and norm.rank is None and norm.text.startswith(("ERROR", "CRITICAL")):
            self._pid_record = (line_no, norm.pid)
        task = RAY_TASK_HEAD.search(norm.text) if "ray::" in norm.text else None
        self._ray_task = (line_no, int(task.group(1)), task.group(2)) if task else self._ray_task
        if norm.text.startswith("Exception ignored ") and IGNORED_HEADER.match(norm.text):
            self._ignored[norm.rank] = line_no
            return True
        owner = OWNER_HEADER.match(norm.text) if ("[Rank " in norm.text or "(RANK " in norm.text) else None
        if owner:
            self._owner[norm.rank] = (line_no, int(owner.group(1) or owner.group(2)))
            self._records.discard(norm.rank)
        return owner is not None

    def _handled(self, line_no: int, norm: Normalized, api_ts: dt.datetime | None) -> bool:
        """A retrying record (kept; the line may be an event of its own), or the start of the traceback right under
        it: that traceback is handled (``ignored`` then drops its exception)."""
        if "etr" in norm.text and HANDLED_RECORD.search(norm.text):
            self._retrying[norm.rank] = (line_no, api_ts)
            return False
        record = self._retrying.pop(norm.rank, None) if norm.text.startswith("Traceback") else None
        if record is None or line_no - record[0] > HANDLED_GAP or not P.TRACEBACK_START.match(norm.text):
            return False
        if record[1] is not None and api_ts is not None and abs((api_ts - record[1]).total_seconds()) > 1:
            return False
        self._ignored[norm.rank] = line_no
        return True

    def record_start(self, line_no: int, norm: Normalized, head: Event) -> bool:
        """A traceback logged as one record behind one rank tag (SGLang's ``[… TP2] Scheduler hit an exception: Traceback …``):
        its next lines carry no tag, the exception ending it is that rank's; the start is no event (cut, a teardown's too)."""
        if not head.get("_embedded"):
            return False
        if norm.rank is not None:
            self._owner[None] = (line_no, norm.rank)
            self._records.add(None)
        return True

    def launcher_frame(self, line_no: int, norm: Normalized, text: str = "", api_ts: dt.datetime | None = None) -> bool:
        """A traceback frame in a launcher's own code, or in torch.distributed's API (the line itself is no event)."""
        self._library.frame(line_no, norm, text, api_ts)
        if P.LAUNCHER_FRAME.match(norm.text):
            self._launcher_frame = (line_no, norm.rank)
            return True
        if self._shape.frame(line_no, norm):
            return True
        if "exist_ok" in norm.text and MKDIR_EXIST_OK.search(norm.text):
            self._mkdir[norm.rank] = line_no
            return True
        self._shared.source_line(line_no, norm)  # remembered; the line goes on to be read as anything else
        if "main_process_first" in norm.text and MAIN_FIRST_FRAME.match(norm.text):
            self._main_first[norm.rank] = line_no  # the waiter's own wait under it (log_main_first.py)
            return True
        if "utils/data/dataloader.py" in norm.text and LOADER_FRAME.match(norm.text):
            self._loader[norm.rank] = line_no
            return True
        m = C10D_FRAME.match(norm.text) if "distributed_c10d.py" in norm.text else None
        if m is None:
            if "autograd/__init__" in norm.text and BACKWARD_FRAME.match(norm.text):
                self._c10d[norm.rank] = (line_no, "backward")
                return True
            return False
        self._loader.pop(norm.rank, None)  # a collective under the loader's frame: its errors are the collective's
        call = self._c10d.get(norm.rank)
        if call is not None and line_no - call[0] <= C10D_GAP and call[1] != "backward":  # under the first c10d frame
            self._c10d[norm.rank] = (line_no, call[1])
        elif m.group(1) != "wrapper":
            self._c10d[norm.rank] = (line_no, m.group(1))
        return True

    def c10d_call(self, line_no: int, norm: Normalized, head: Event) -> None:
        """The torch.distributed call a Python exception's traceback was in (``op_type``: its first c10d frame's
        function, ``all_reduce``, ``barrier``, ``new_group``), when that frame is ``C10D_GAP`` lines above it at most."""
        call = self._c10d.pop(norm.rank, None) if head["kind"] == "python_exception" else None
        if call is not None and line_no - call[0] <= C10D_GAP and head.get("op_type") is None and not head.get("_sub_group"):
            head["op_type"] = call[1]

    def loader_lost(self, line_no: int, norm: Normalized, head: Event) -> None:
        """A connection error raised in the DataLoader's queue (its frame ``LOADER_GAP`` lines above, no collective's
        under it): the worker handing the batch over is gone (killed: the OOM killer, a kill from outside), the rank's
        own failure, not a peer's teardown, whatever the words (``Connection reset by peer``)."""
        frame = self._loader.pop(norm.rank, None) if head["kind"] == "python_exception" else None
        if frame is None or line_no - frame > LOADER_GAP or not str(head.get("error_type") or "").endswith(LOADER_LOST):
            return
        head["subkind"] = "raised"
        head["error_message"] = (LOADER_LOST_MESSAGE + (head.get("error_message") or head["error_type"]))[:300]

    def raced_mkdir(self, line_no: int, norm: Normalized, head: Event) -> None:
        """A ``FileExistsError`` (pathlib's parent chain: ``FileNotFoundError``) raised ``MKDIR_GAP`` lines at most under
        an ``exist_ok=True`` directory creation of the same process: another process created it at once (its message
        marked ``RACED_MKDIR``)."""
        frame = self._mkdir.pop(norm.rank, None) if head["kind"] == "python_exception" else None
        if frame is None or line_no - frame > MKDIR_GAP or not str(head.get("error_type") or "").endswith(("FileExistsError", "FileNotFoundError")):
            return
        head["error_message"] = (RACED_MKDIR + (head.get("error_message") or head["error_type"]))[:300]

    def launchers_own(self, line_no: int, norm: Normalized, head: Event) -> bool:
        """An exception whose innermost frame is in a launcher's own code (DeepSpeed's runner failing in
        its SIGINT handler, torchrun's ``run.py``): the launcher's failure, no rank's (like ``ChildFailedError``)."""
        frame, self._launcher_frame = self._launcher_frame, None
        return (frame is not None and head["kind"] == "python_exception" and line_no - frame[0] <= FRAME_GAP
                and frame[1] == norm.rank)

    def ignored(self, line_no: int, norm: Normalized, head: Event) -> bool:
        """A line of a traceback Python reported as ignored (``IGNORED_HEADER`` above it, printed by the same
        process): its start and its exception are no events; the exception ends the report."""
        if head.get("_frame") and norm.rank in self._in_traceback:
            return True  # a frame of a traceback already started (its header or first frame seen): no event
        start = self._ignored.get(norm.rank)
        if start is None or head["kind"] not in ("python_exception", "python_traceback"):
            return False
        if line_no - start > OWNER_GAP:
            del self._ignored[norm.rank]
            return False
        if head["kind"] == "python_exception":
            del self._ignored[norm.rank]
        return True

    def cut_frames(self) -> list[Any]:
        """The innermost frames of tracebacks cut before their exception with no start event (log_library_frame.py)."""
        return self._library.cut()

    def no_event(self, norm: Normalized) -> None:
        """A line without an event: a launcher's own exception ends the pending traceback; another traceback's
        start ends a one-record claim (a header's traceback starts right under it)."""
        if norm.rank in self._owner and (P.PY_EXCEPTION.match(norm.text)
                                         or (norm.rank in self._records and P.TRACEBACK_START.match(norm.text))):
            del self._owner[norm.rank]

    def attribute(self, line_no: int, norm: Normalized, events: list[Event]) -> None:
        for ev in events:
            if norm.relayed and norm.pid is not None and ev.get("pid") is None and ev["kind"] in RELAYED_KINDS:
                ev["pid"] = norm.pid  # the process Ray relays the line from (``(RayWorkerVllm pid=7046)``), not the driver
            if ev["kind"] == "rank_spawn" and ev.get("subkind") == "ray" and ev.get("pid") is not None:
                self._worker_rank[ev["pid"]] = ev["rank"]
            if ev.get("rank") is None and norm.pid is not None and norm.pid in self._worker_rank:
                ev["rank"] = self._worker_rank[norm.pid]
            if ev.get("subkind") == "ray_worker_died" and ev.get("rank") is None and ev.get("pid") in self._worker_rank:
                ev["rank"] = self._worker_rank[ev["pid"]]
            failed = ev.get("_failed_ranks")
            if failed and ev.get("rank") is None and len(failed) == 1:
                ev["rank"] = failed[0]
            elif failed and ev.get("rank") not in failed:
                ev["subkind"] = "teardown"
        head = events[0]
        if head["kind"] == "python_traceback":  # a traceback starts (its header or first frame); its exception ends it
            self._in_traceback.add(norm.rank)
        elif head["kind"] in ("python_exception", "cuda_oom", "cuda_error", "nccl_error_other", "nccl_remote_error"):
            self._in_traceback.discard(norm.rank)
        self.c10d_call(line_no, norm, head)
        self._shape.mark(line_no, norm, head)
        self._library.mark(line_no, norm, head)
        self.loader_lost(line_no, norm, head)
        self.raced_mkdir(line_no, norm, head)
        self._shared.mark(line_no, norm, head)
        main_first_wait(self._main_first, line_no, norm.rank, events, norm.text)
        if head["kind"] in ("python_exception", "cuda_error", "cuda_oom") and self._pid_record is not None:
            record, self._pid_record = self._pid_record, None
            if head.get("rank") is None and head.get("pid") is None and line_no - record[0] <= OWNER_GAP:
                head["pid"] = record[1]
        task, self._ray_task = (self._ray_task, None) if str(head.get("error_type") or "").endswith("RayOutOfMemoryError") and not head.get("_ray_header") else (None, self._ray_task)
        if task is not None and line_no - task[0] <= OWNER_GAP and head.get("pid") in (None, task[1]):  # Ray < 2's memory monitor: that worker's
            head["pid"], head["ip"] = task[1], task[2]
        owned = self._owner.get(norm.rank)
        if owned is None or not (head["kind"] in ("python_exception", "cuda_error", "cuda_oom") or head.get("subkind") == "ray_worker_died"):
            return
        del self._owner[norm.rank]
        if line_no - owned[0] <= OWNER_GAP:
            head["rank"], head["_prefix_rank"] = owned[1], None


__all__ = ["CHECKPOINT_RANKS", "LOADER_LOST_MESSAGE", "OWNER_HEADER", "Owners"]
