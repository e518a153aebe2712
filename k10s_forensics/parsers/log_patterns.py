"""The regex catalogue of the container-log parser (see docs/parsers-logs.md).

Two layers:

* ``log_prefilter``: RE2 expressions (DuckDB ``regexp_matches``) run over *every* log line;
  a line they pass is only a candidate.
* The compiled Python expressions below are applied to candidate lines only, to decide the kind and pull out the
  fields. Every pattern is bounded (no nested unbounded repetition): a 64 KiB candidate cannot backtrack catastrophically.

Sources of every wording: /work/shared/research/gpu-training.md section 1 and the real samples under shared/real-samples/.
"""

from __future__ import annotations

import re

from k10s_forensics.parsers.log_normalize import MASK
# CUDA out of memory and CUDA errors live in log_patterns_cuda; re-exported here, the catalogue's one name space
from k10s_forensics.parsers.log_patterns_cuda import (  # noqa: F401
    CUDA_DRIVER_ERROR_NAME, CUDA_DRIVER_NOT_FAILURES, CUDA_ERROR, CUDA_ERROR_NAME, CUDA_ERROR_NAME_QUOTED, CUDA_KERNEL_ASSERT, CUDA_KINDS, GPU_INIT_FAILED, EXTENSION_CUDA_CHECK, DEVICE_COUNT_PROBE, DEVICE_COUNT_RAISED, NCCL_CUDA_FAILURE, OOM_ANY_PROCESS, OOM_CUDA_ERROR, OOM_ALLOCATOR, OOM_CUDA_RUNTIME, OOM_FRAMEWORK,
    NVLS_BIND_FAILED, OOM_FAIRSEQ, OOM_LEGACY, OOM_NCCL, OOM_NEW, OOM_PYTORCH, OOM_REQUESTED, OOM_THIS_PROCESS, RUNTIME_CALL_NUMBER, SYCL_RUNTIME_CALL, THC_CUDA_CHECK,
    ROCR_FAULT, RUNTIME_CALL_FAILED, THC_RUNTIME_ERROR, TRANSPORT_CUDA_CALL)
# ProcessGroupNCCL watchdog and NCCL network errors live in log_patterns_nccl; re-exported here likewise
from k10s_forensics.parsers.log_patterns_nccl import (  # noqa: F401
    WORK_SEQ, WORK_OP, WORK_TIMEOUT, WORK_NUMEL_IN, WORK_NUMEL_OUT, RAN_FOR, WATCHDOG_CAUGHT, THREAD_TERMINATED,
    BLOCKING_WAIT, FAILURE_DETECTED, TIMEOUT_AT_WORK, EXCEPTION_SUMMARY, LAST_WORK, WATCHDOG_HANG, ASYNC_TEARDOWN,
    PG_GUID, PG_PLAIN, TIMEOUT_OPTION, PEER_PATTERNS, LOCAL_PEER_CLOSED, REMOTE_ERROR, OTHER_NCCL_ERROR,
    NCCL_ERROR_NAME, LAST_ERROR, CALLOC_BYTES)

#: A PID / port field: digits, or what the user masked it with (``xxxxxx``, ``<PID>``, ``***``)
_PID = r"(\d+|" + MASK + r")"
#: A host / node field: a name, or a masked one (``<hostname>``, ``[REDACTED]``, ``xxxxxxxx``)
_HOSTF = r"(\[REDACTED\]|<[A-Za-z][\w .-]{0,30}>|\S+)"

# ---------------------------------------------------------------------------------------
# Line prefixes and timestamps (Python, candidates only).
# ---------------------------------------------------------------------------------------
API_TS = r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d) "
RANK_PREFIX = re.compile(r"\[rank(\d+)\]:")
MESSAGE_RANK = re.compile(r"\[(?:PG [^\]]{0,200}?)?\bRank (\d+)\]", re.IGNORECASE)
GLOG_TS = re.compile(r"(?:^|[\s\[\]:])([EWIF])(\d{3,4}) (\d\d):(\d\d):(\d\d)(?:\.(\d{1,9}))?\b")
GLOG_OLD = re.compile(r"\[([EWIF]) [\w./-]+\.(?:cpp|cc|h|hpp|py):\d+\]")
ISO_TS = re.compile(r"(\d{4})-(\d\d)-(\d\d)[ T_](\d\d):(\d\d)(?::(\d\d)(?:[.,](\d{1,9}))?)?")
#: ctime, as mpirun --timestamp-output writes it: ``Fri Aug 11 12:31:45 2023``
CTIME_TS = re.compile(r"\b(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) ([ \d]\d) (\d\d):(\d\d):(\d\d) (\d{4})\b")
MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
LEVEL_MMDD_TS = re.compile(r"\b(?:DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL) (\d\d)-(\d\d) (\d\d):(\d\d):(\d\d)\b")
TABLE_TIME = re.compile(r"^\s*time\s*: (\d{4})-(\d\d)-(\d\d)_(\d\d):(\d\d):(\d\d)")
PY_LEVEL = re.compile(r"(?:^|\[|\s)(ERROR|WARNING|CRITICAL|FATAL)[\]:]")

# NCCL debug line prefix: <host>:<pid>:<tid> [<cudaDev>] ...
NCCL_PREFIX = re.compile(r"([^\s:\[\]]{1,253}):" + _PID + ":" + _PID + r" \[(\d+)\] ")
#: The part of NCCL_PREFIX after the host: found first, the host is then read backwards (``log_classify.nccl_prefix``),
#: which is what NCCL_PREFIX.search finds without trying every start position.
NCCL_PREFIX_TAIL = re.compile(r":" + _PID + ":" + _PID + r" \[(\d+)\] ")
PY_LEVEL_WORDS = ("ERROR", "WARNING", "CRITICAL", "FATAL")
NCCL_LEVEL = re.compile(r"\bNCCL (INFO|WARN|ERROR|TRACE)\b")

# ---------------------------------------------------------------------------------------
# torchrun / elastic agent.
# ---------------------------------------------------------------------------------------
#: the agent's ``failed (exitcode: -6) local_rank: 1 (pid: 223) of binary: …``; a paste (an issue title, a line
#: cut at the screen edge) can end right after ``local_rank: N``: the pid is then None (real incidents batch 38)
AGENT_FAILED = re.compile(r"failed \(exitcode: (-?\d+)\) local_rank: (\d+)(?: \(pid: " + _PID + r"\)|\s*$)")
CLOSING_SIGNAL = re.compile(r"Sending process " + _PID + r" closing signal (SIG\w+)")
#: torchrun's grace period ran out: the SIGTERMed worker is SIGKILLed (its -9 is not a host OOM kill)
FORCE_KILL = re.compile(r"Unable to shutdown process " + _PID + r" via (?:Signals\.)?(SIG\w+), forcefully exiting via (?:Signals\.)?(SIG\w+)")
WORKER_GROUP = re.compile(r"Worker group FAILED\. (\d+)/(\d+) attempts left")
TABLE_HEADER = re.compile(r"^\s*\[(\d+)\]:\s*$")
TABLE_FIELD = re.compile(r"^\s*(time|host|rank|exitcode|error_file|traceback)\s*: ?(.*)$")
#: the exception line ending a table entry's ``traceback :`` field (``  RuntimeError: DataLoader worker (pid N) is killed by
#: signal: Bus error. …``): a dotted class name ending in Error/Exception/Exit/Interrupt, a colon
TABLE_TRACEBACK_END = re.compile(r"^\s*(?:[A-Za-z_]\w*\.){0,6}[A-Za-z_]\w*(?:Error|Exception|Exit|Interrupt)(?::\s|$)")
TABLE_RANK = re.compile(r"^(-?\d+) \(local[_ ]rank: (-?\d+)\)")
#: A failure-table entry whose rows lost their line breaks, and markdown its underscores (``_rank_``
#: read as emphasis), when a paste went through a rendered page or a screenshot's text:
#: ``rank2 (local rank: 2)exitcode: -9 (pid: 36071)error file: <N/A>``
TABLE_FLAT = re.compile(r"\brank\s*:?\s*(-?\d{1,7})\s*\(local[_ ]rank:\s*(-?\d{1,7})\)\s*exitcode\s*:\s*(-?\d{1,4})\s*\(pid:\s*" + _PID + r"\)")
#: torch's ``<NO_OTHER_FAILURES>`` (its underscores lost to markdown the same way)
NO_OTHER_FAILURES = re.compile(r"<NO[_ ]OTHER[_ ]FAILURES>")
#: an entry's ``exitcode  : 1 (pid: 2062900)``; a version (or a paste) without the pid leaves the bare status
#: (``exitcode  : 1 ``, colossalai run over torch-elastic: real incidents batch 69)
TABLE_EXIT = re.compile(r"^(-?\d+)(?: \(pid: " + _PID + r"\)|$)")
#: the table's sections; torch 1.9 titled them ``Root Cause:`` / ``Other Failures:`` (rows ``time: …`` unpadded)
TABLE_ROOT = re.compile(r"Root Cause \(first observed failure\)|^\s*Root Cause:\s*$")
TABLE_FAILURES = re.compile(r"^\s*(?:Other )?Failures:\s*$")
SIGNAL_RECEIVED = re.compile(r"Signal (\d+) \((SIG\w+)\) received by PID " + _PID)
#: faulthandler's report of the signal that ends the process (``faulthandler.enable()``, ``python -X
#: faulthandler``, ``PYTHONFAULTHANDLER=1``); only the fatal signals' names (not other fatal errors)
#: (Ray's dedup note after it, `` [repeated 7x across cluster]``, is read apart: log_classify.classify)
FAULTHANDLER = re.compile(r"Fatal Python error: (Segmentation fault|Bus error|Aborted|Floating point exception|Illegal instruction)\s*$")
FAULTHANDLER_SIGNALS = {"Segmentation fault": 11, "Bus error": 7, "Aborted": 6, "Floating point exception": 8, "Illegal instruction": 4}
#: Open MPI's signal handler (opal's ``show_stackframe``) in a process it runs: ``[host:pid] Signal: Segmentation fault (11)``
OMPI_SIGNAL = re.compile(r"\[([\w.-]{1,253}):(\d{1,10})\] Signal: ([A-Za-z][A-Za-z ]{0,40}?) \((\d{1,2})\)")
#: glog's failure signal handler (PaddlePaddle's processes, other C++ runtimes) on the signal that ends its process, with its
#: pid: ``*** SIGSEGV (@0x0) received by PID 24044 (TID 0x7f…) from PID 0; stack trace: ***``, Paddle 2's ``[SignalInfo: ***
#: SIGSEGV (@0x0) received by PID 18581 (TID 0x7f…) from PID 0 ***]``; only a fault of its own (a SIGTERM is its launcher's teardown)
GLOG_SIGNAL = re.compile(r"\*\*\* SIG(SEGV|BUS|ABRT|FPE|ILL) \(@0x[0-9a-fA-F]{1,16}\) received by PID (\d{1,10}\b|" + MASK + ")")
GLOG_SIGNALS = {"SEGV": 11, "BUS": 7, "ABRT": 6, "FPE": 8, "ILL": 4}
EXIT_CODE = re.compile(r"(?i)\bexit(?:ed)?(?: with)? (?:exit )?code[ :=]*(-?\d+)")

# ---------------------------------------------------------------------------------------
# NCCL identity lines.
# ---------------------------------------------------------------------------------------
_IP = r"(<[A-Za-z][\w .-]{0,30}>|[^\s<]+)"
_PORT = r"<(?:\d+|[A-Za-z]{1,10}|[xX*]{1,8}|…|\.{3})>"
BOOTSTRAP = re.compile(r"Bootstrap ?: Using ([^\s:]+):" + _IP + _PORT)
NET_SOCKET = re.compile(r"NET/Socket ?: Using ((?:\[\d+\][^\s:]+:(?:<[A-Za-z][\w .-]{0,30}>|[^\s<]+)" + _PORT + r" ?){1,64})")
NET_SOCKET_ITEM = re.compile(r"\[\d+\]([^\s:]+):" + _IP + _PORT)
NET_IB_OOB = re.compile(r"NET/IB ?: Using .{0,2000}?; OOB ([^\s:]+):" + _IP + _PORT)
COMM_LINE = re.compile(r"comm (0x[0-9a-fA-F]+) rank (\d+) n[Rr]anks (\d+)")
COMM_CUDADEV = re.compile(r"cudaDev (\d+)")
COMM_BUSID = re.compile(r"busId ([0-9a-fA-F]+)")
COMM_STATE = re.compile(r"- (Init START|Init COMPLETE|Abort COMPLETE|Destroy COMPLETE)")

# ---------------------------------------------------------------------------------------
# Xid, desync, flight recorder.
# ---------------------------------------------------------------------------------------
XID = re.compile(r"NVRM: Xid \(PCI:([0-9a-fA-F:.]+)\): (\d+),? ?(.{0,300})")
XID_PID = re.compile(r"\bpid=(\d+)")
MISMATCH = re.compile(r"Detected mismatch between collectives")
#: Fingerprint and desync report wordings: log_reports.py.
FR_MISSING = re.compile(r"missing ranks: \{([\d, ]{0,20000})\}")
FR_HEADER = re.compile(r"Not all ranks joining collective(?::? sequence number:? (\d+)| (\d+) at entry \d+)")
#: Horovod's stall warning: ``Stalled ranks:`` (< 0.21; renamed by horovod#2289) or ``Missing ranks:``, then per missing
#: rank the tensors it never submitted (``1: [allreduce.fc.weight, allreduce.fc.bias]``; ``1!: [...]``: to be shut down)
HOROVOD_MISSING_HEADER = re.compile(r"\b(?:Missing|Stalled) ranks:\s*$")
HOROVOD_MISSING_ROW = re.compile(r"^(\d{1,7})!?: \[[\w./:-]{1,400}(?:, |\]\s*$|[$…]?\s*$)")
FR_GROUP = re.compile(r"^\s*group info: (\S+)")
FR_COLLECTIVE = re.compile(r"^\s*collective: (nccl:\w+)")

# ---------------------------------------------------------------------------------------
# Rank failures: Python exceptions, launchers (docs/rules.md, rank-failure; CUDA errors: log_patterns_cuda).
# ---------------------------------------------------------------------------------------
#: The last line of a Python traceback, on the normalised message: ``[pkg.]ClassName[: message]``. A warning raised as
#: an error (``PYTHONWARNINGS=error::UserWarning``, ``-W error``, ``warnings.simplefilter("error")``) ends its traceback
#: as ``UserWarning: message``, with its message; a warning only printed starts with its file (``x.py:74: UserWarning: …``); pdb's quit on a closed stdin ends it as ``bdb.BdbQuit``
PY_EXCEPTION = re.compile(r"^((?:[A-Za-z_]\w{0,80}\.){0,8}(?:_{0,2}[A-Z]\w{0,80}(?:Error|Exception|Interrupt)|Exception|BdbQuit"
                          r"|[A-Z]\w{0,80}Warning(?=: \S)))(?:: ?(.{0,2000}))?\s*$")
#: Exceptions a rank raises because ANOTHER rank failed or the launcher tore the group down. A
#: DataLoader's own timeout (``DataLoader timed out after 3 seconds``: its worker process sent no
#: batch) is the rank's own failure, no peer's: ``timed out`` does not count after ``DataLoader``; nor does Python's own
#: ``BrokenPipeError: [Errno 32] Broken pipe`` (the rank's write to a pipe whose reader ended; c10d words its socket's alike). A rank that cannot reach the rendezvous' store waits on another (c10d: ``host not found: Name or service not known``). SGLang's load check is raised by the ranks that DID load (``TP rank 1 could finish the model loading, but there are other ranks that didn't finish loading``).
PY_TEARDOWN = re.compile(
    r"Horovod has been shut down|DistBackendError|DistNetworkError|DistStoreError|ChildFailedError|CalledProcessError|"
    r"KeyboardInterrupt|SignalException|got signal: ?\d+|monitoredBarrier|faulty rank|(?<!\[Errno 32\] )Broken pipe|Connection reset|Connection closed|ncclRemoteError|host not found: Name or service not known|^RuntimeError: Connection refused$|could finish the model loading, but (?:there are )?other ranks|"
    r"remote process exited|[Ww]atchdog caught|[Cc]aught collective operation timeout|(?<!DataLoader )[Tt]imed out|Timeout|wait timeout|(?:Read|Write) timeout|timeout caused pair closure|connectFullMesh failed|NCCL communicator (?:was )?aborted|ProcessGroupNCCL is (?:aborted|shut)|"
    # torch.distributed.rpc's TensorPipe agent: the peer's end of the pipe closed (the peer process ended) or its address refused the connection (``eof (this error originated at tensorpipe/transport/shm/connection_impl.cc:259)``, ``ECONNRESET: connection reset by peer``, ``pipe closed``, ``ECONNREFUSED: connection refused``; torch <= 1.7 printed the libuv error bare: ``EOF: end of file``);
    # an RPC its callee did not answer in time (``RPC ran for more than set timeout (60000 ms) and will now be marked with an error``) is the caller's wait on that peer, as a watchdog's is
    r"(?i:(?:^|: )(?:eof|pipe closed|econnreset: connection reset by peer|epipe: broken pipe|econnrefused: connection refused) \(this error originated at tensorpipe/)|"
    r"(?:^|: )(?:EOF: end of file|ECONNRESET: connection reset by peer|EPIPE: broken pipe|ECONNREFUSED: connection refused)(?: \([^)]{0,200}\))?\s*$|\bRPC ran for more than (?:set timeout \(\d+ ?ms\)|\d+ milliseconds)|"
    # DeepEP's own timeouts (an expert-parallel dispatch or combine whose peers did not send in time: ``RuntimeError:
    # DeepEP error: timeout (dispatch CPU)``, its kernels' ``DeepEP timeout for combine receivers, rank 3, …``): a wait on
    # peers, as a watchdog's is (real incidents batch 358)
    r"DeepEP error: timeout\b|\bDeepEP timeout for (?:dispatch|combine)\b"
)
#: argparse's usage error (``train.py: error: unrecognized arguments: --local-rank=2``): exit status 2
ARGPARSE_ERROR = re.compile(r"^[\w.-]{1,200}\.py: error: (.{1,500}?)\s*$")
#: Exceptions of the launcher itself, not of a rank: its failure report, and the elastic agent's
#: rendezvous errors (closed when another agent shut down, timed out, lost its store).
LAUNCHER_EXCEPTIONS = ("ChildFailedError", "CalledProcessError", "ProcessRaisedException", "ProcessExitedException",
                       "RendezvousClosedError", "RendezvousTimeoutError", "RendezvousConnectionError", "RendezvousStateError",
                       "RendezvousGracefulExitError", "RendezvousError",
                       # Ray's driver (or a caller actor) reporting another process dead: the report, not the failure
                       "ActorDiedError", "RayActorError", "ActorUnavailableError", "WorkerCrashedError", "OwnerDiedError",
                       "NodeDiedError", "RaySystemError",
                       # Ray Train's driver / controller reporting its workers' failures (each worker's own line is the event)
                       "WorkerGroupError", "TrainingFailedError",
                       # Spark's driver relaying a task's Python worker error (PySpark's ``PythonException: … An exception was
                       # thrown from the Python worker``, py4j's ``Py4JJavaError``): the task's own traceback is below it
                       "PythonException", "Py4JJavaError")
#: Ray's dead-actor report (``ray.exceptions.ActorDiedError: The actor died unexpectedly ...``), then
#: indented ``pid:`` / ``name:`` fields; verl's worker groups name each actor
#: ``<prefix><Class>_<placement group>:<rank in it>`` (``07GxnAWorkerDict_0:3``): in the first group the rank
RAY_ACTOR_DIED = re.compile(r"ActorDiedError: The actor died|The actor died unexpectedly before finishing this task")
#: the fields may sit behind the Ray prefix of the process that printed the report (verl's driver
#: actor: ``(TaskRunner pid=892962) \tname: gxgUtgWorkerDict_0:1``)
RAY_ACTOR_NAME = re.compile(r"^(?:\([^)]{0,200}\)\s*)?\s*name: (?P<name>\S{0,200}?_(\d{1,4}):(\d{1,7}))\s*$")
#: the report's closing sentence under its fields (``The actor is dead because its worker process has died. …``, ``… its node
#: has died.``): a paste that begins inside the report (its ``ActorDiedError`` line cut off) still shows whose death it is
RAY_ACTOR_DEAD_BECAUSE = re.compile(r"\bThe actor is dead because\b")
#: Ray Train V2's worker in its controller's report of a failed health check (``A worker health check failed.`` /
#: ``Worker info: Worker(actor=…, distributed_context=DistributedContext(world_rank=1, world_size=2, …), …)``), the
#: dead-actor report of that worker right under it; the world rank is the rank (log_ray_actor.py)
RAY_V2_CONTEXT = re.compile(r"\bdistributed_context=DistributedContext\(world_rank=(\d{1,7})\b")
#: Ray's dead-actor report on an actor whose node died (drained, preempted, lost): ``The actor died because its node has
#: died. Node Id: …``, then ``the actor's node was preempted: …`` / ``… was terminated unexpectedly: …``
RAY_NODE_DIED = re.compile(r"\bThe actor died because its node has died\b")
#: a runner's log of its one training command's ``CalledProcessError`` (its text, without the class): Cloud ML Engine's
#: ``/runcloudml.py``, ``Command '['python', '-m', u'trainer.task', …]' returned non-zero exit status -9``
RUNNER_EXIT = re.compile(r"\bCommand '\[u?'(?:[\w/.-]{0,200}/)?python[\d.]{0,5}', .{0,20000}?\]' returned non-zero exit status (-?\d{1,3})\b")
LEGACY_LAUNCH_EXIT = re.compile(r"CalledProcessError: Command .{0,20000}? (?:died with <Signals\.SIG\w+: (\d+)>|returned non-zero exit status (-?\d+))")
DEEPSPEED_EXIT = re.compile(r"exits with return code = (-?\d+)")
#: the local rank a launcher passed its (last spawned) command: ``--local_rank=0`` there means it spawned one process
LAST_CMD_LOCAL_RANK = re.compile(r"--local[_-]rank[= ]'?(\d{1,4})\b")
#: PyTorch Lightning / Fabric, each process as it enters init_process_group: ``Initializing distributed: GLOBAL_RANK: 2, MEMBER: 3/4``
RANK_JOINING = re.compile(r"Initializing distributed: GLOBAL_RANK: (\d{1,7}), MEMBER: \d{1,7}/(\d{1,7})\b")
#: c10d's store-based barrier (torch < 2.0), one line per rank that reached it: ``Waiting in store based barrier to initialize
#: process group for rank: 3, key: store_based_barrier_key:1 (world_size=8, worker_count=7, ...)``, ``Added key: ... for rank: 3``, ``Rank 3: Completed ...``
STORE_BARRIER_WAIT = re.compile(r"store based barrier to initialize process group for rank: (\d{1,7}), key: \S{1,200} "
                                r"\(world_size=(\d{1,7}), worker_count=(\d{1,7})\b")
STORE_BARRIER_ADDED = re.compile(r"Added key: store_based_barrier_key:\d{1,7} to store for rank: (\d{1,7})\b")
STORE_BARRIER_DONE = re.compile(r"Rank (\d{1,7}): Completed store-based barrier for key:\s?store_based_barrier_key:\d{1,7} with (\d{1,7}) nodes")
SPAWNED = re.compile(r"process " + _PID + r" spawned with command: .{0,20000}?--local_rank[= ]'?(\d+)")
#: horovodrun's Gloo launcher: ``Process 2 exit with status code 1.`` (the process is the rank)
HOROVOD_EXIT = re.compile(r"^Process (\d+) exit with status code (-?\d+)")
#: Slurm's srun, one line per exit status and group of tasks (the task id is the global rank; read after an indent):
#: ``srun: error: node1: task 3: Exited with exit code 255``, ``srun: error: node1: tasks 0-2,5: Terminated``,
#: ``task 1: Killed``, ``task 0: Out Of Memory`` (the cgroup OOM killer), ``task 2: Segmentation fault (core dumped)``
SRUN_TASKS = re.compile(r"^[ \t]{0,40}srun: error: (?:(\S{1,253}): )?tasks? (\d{1,7}(?:-\d{1,7})?(?:,\d{1,7}(?:-\d{1,7})?){0,200}): "
                        r"(?:Exited with exit code (\d{1,3})|(Killed|Terminated|Out Of Memory|Segmentation fault|Aborted|Bus error|"
                        r"Floating point exception|Hangup|Interrupt))")
#: srun's signal wordings (strsignal) as exit statuses; Out Of Memory is a SIGKILL by the cgroup OOM killer
SRUN_SIGNALS = {"Killed": -9, "Terminated": -15, "Out Of Memory": -9, "Segmentation fault": -11, "Aborted": -6, "Bus error": -7,
                "Floating point exception": -8, "Hangup": -1, "Interrupt": -2}
#: A traceback's first line; SGLang's processes print theirs behind ``<Name> hit an exception: ``
#: (``Scheduler hit an exception: Traceback (most recent call last):``).
TRACEBACK_START = re.compile(r"^(?P<embedded>\w{1,60} hit an exception: )?Traceback \(most recent call last\):?\s*$")
#: A traceback frame in a launcher's own code (DeepSpeed's runner, torchrun, the legacy launch, accelerate's CLI) or in
#: ``torchfrtrace`` (the flight-recorder analyzer): an exception right after it (the innermost frame) is no rank's.
LAUNCHER_FRAME = re.compile(r"^\s*File \"[^\"]{0,400}(?:deepspeed/launcher/|torch/distributed/(?:run|launch)\.py|torch/distributed/flight_recorder/|accelerate/commands/|pyspark/ml/torch/)[^\"]{0,200}\", line \d{1,7}, in ")
#: JAX's coordination service (XLA/TSL ``coordination_service.cc``, run by process 0) on a task it lost:
#: ``/job:jax_worker/replica:0/task:37 has been set to ERROR in coordination service: UNAVAILABLE: Task
#: /job:jax_worker/replica:0/task:37 heartbeat timeout. This indicates that the remote task has failed, …``
JAX_TASK_ERROR = re.compile(r"/job:jax_worker/replica:\d{1,5}/task:(\d{1,7})(?: has been set to ERROR in coordination service| heartbeat timeout)")
#: ``mpirun.real``: the binary Horovod's and the MPI operator's images wrap with a ``mpirun`` script
MPI_NOTICED = re.compile(r"(?:mpirun|mpiexec|orterun|prterun|prte)(?:\.[\w-]{1,20})? noticed that process rank (\d+) with PID " + _PID + r" on node " + _HOSTF + r" exited on signal (\d+)")
#: torch.multiprocessing.spawn (the process index is the local rank): ``process 3 terminated with
#: signal SIGKILL`` / ``with exit code 1``, ``-- Process 2 terminated with the following error:``
SPAWN_EXIT = re.compile(r"\bprocess (\d+) terminated with (?:signal (SIG[A-Z]+)|exit code (-?\d+))")
SPAWN_RAISED = re.compile(r"-- Process (\d+) terminated with the following error")
#: c10d's TCPStore client giving up on a key another rank was to set (PyTorch 2.4+: ``[c10d] waitForInput:
#: socket SocketImpl(fd=80, …) timed out after 1800000ms``; 2.3: ``While waitForInput, poolFD failed with
#: (errno: 0 - Success)``, a poll that returned nothing): the rank waited for a peer, its own teardown follows
STORE_SOCKET_TIMEOUT = re.compile(r"\[c10d\] (?:waitForInput: socket .{0,300}? timed out after (\d{1,12}) ?ms"
                                  r"|While waitForInput, poolFD failed with \(errno: 0 - Success\))")
#: monitored_barrier (gloo): the ranks that never reached it, named by a rank that did
BARRIER_FAILED = re.compile(r"\bRanks? (\d+(?:, ?\d+){0,4095}) failed to pass monitoredBarrier")
#: gloo's full-mesh rendezvous (PyTorch 2.x): a rank waits, in rank order, for each other rank's
#: address under ``<pg prefix>//<device>//<index>/<rank>``; the key it timed out on names the
#: first rank that never joined (``DistStoreError: wait timeout after 6000ms, keys: /default_pg/0//cpu//0/3``)
STORE_WAIT_RANK = re.compile(r"wait timeout after \d+ ?ms, keys: \S{0,400}?//(?:cpu|cuda)//\d+/(\d+)(?:$|[\s,\]'\"])")
BARRIER_PEER = re.compile(r"reached monitoredBarrier, but received errors while waiting for send/recv from rank (\d+)|[Pp]lease check rank (\d+) logs for faulty rank")

# --- Helpers ---------------------------------------------------------------------------
_NOT_HOST = frozenset(":[]")


def nccl_prefix(text: str) -> tuple[str, str, str, str, int] | None:
    """``NCCL_PREFIX.search(text)`` as (host, pid, tid, cuda_dev, end), in linear time.

    The host class ``[^\\s:\\[\\]]`` excludes ``:``, so a match ends its host at the colon that
    starts ``NCCL_PREFIX_TAIL``: the leftmost tail preceded by at least one host character
    gives the leftmost match, whose host is the (at most 253) host characters before it.
    """
    if " [" not in text:
        return None
    pos = 0
    while True:
        m = NCCL_PREFIX_TAIL.search(text, pos)
        if m is None:
            return None
        colon = start = m.start()
        while start > 0 and colon - start < 253 and text[start - 1] not in _NOT_HOST and not text[start - 1].isspace():
            start -= 1
        if start < colon:
            return text[start:colon], m.group(1), m.group(2), m.group(3), m.end()
        pos = colon + 1


__all__ = [name for name in dir() if name.isupper()] + ["nccl_prefix"]
