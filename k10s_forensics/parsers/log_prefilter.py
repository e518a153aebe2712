"""The container-log parser's prefilters (see docs/parsers-logs.md): RE2 expressions DuckDB runs
(``regexp_matches``) over *every* log line before any Python sees it.

They are deliberately cheap (literals, few classes) and generous: a line they pass is only a
candidate for the compiled patterns of ``log_patterns``. Keep them RE2-compatible (no
look-arounds, no backreferences). A new wording that must reach the Python classifier needs a
literal here too.
"""

from __future__ import annotations

# training progress: re-exported, the parsers read both prefilters through this module
from k10s_forensics.parsers.log_prefilter_step import PREFILTER_STEP, STEP_EXTRACT, STEP_HF

# ---------------------------------------------------------------------------------------
# Prefilters (RE2, run in DuckDB over every line).
# ---------------------------------------------------------------------------------------
_EVENT_LITERALS = (
    # ProcessGroupNCCL watchdog (all PyTorch versions)
    r"[Cc]aught collective operation",
    r"timed out in blocking wait",
    r"detected by watchdog at work",
    r"Timeout at NCCL work",
    r"watchdog hang",
    r"Heartbeat monitor timed out",
    r"Some NCCL operations have failed",
    r"[Ll]ast enqueued (?:NCCL )?work",
    r"Exception raised from (?:checkTimeout|ncclCommWatchdog) at ",
    # PyTorch 2.14's opt-in nccl2 backend (log_nccl2.py)
    r"\] Operation timed out after \d+ ms",
    r"Aborting process (?:on rank \d+ )?due to (?:timeout|error)",
    r"Revoking communicator on rank \d+ - watchdog detected timeout",
    r"NCCL operation timed out",
    r"(?:nccl hit a|\bA)sync error on rank \d",
    r"CUDA error during end event query: ",
    # NCCL errors (WARN lines, PyTorch exceptions, "Last error:" payloads)
    r"NCCL WARN|Duplicate GPU detected",  # and NCCL's duplicate-GPU check as a bare payload (log_comm_lines)
    r"Bootstrap ?: ?no socket interface found",  # a "Last error:" payload (log_comm_lines._NO_SOCKET_INTERFACE)
    r"ncclRemoteError",
    r"ncclInternalError",
    r"ncclSystemError",
    r"ncclUnhandledCudaError",
    r"ncclInvalidUsage",
    r"NCCL error",
    r"remote process exited",
    r"Connection closed by remote peer",
    r"Connection reset by peer",
    r"Call to (?:recv|send|connect)",
    r"Got completion from peer",
    r"socketProgress",
    r"Connection closed by localRank",
    # CUDA OOM
    r"out of memory|OOM in all workers",  # fairseq's word that every worker ran out (log_lines: no device names one)
    r"OutOfMemoryError",
    r"OOM when allocating tensor",  # TensorFlow's GPU OOM (log_patterns_cuda.OOM_FRAMEWORK)
    r"Out of memory while trying to allocate",  # XLA's (JAX, TensorFlow)
    # torchrun / elastic agent and its ChildFailedError table
    r"\(exitcode: ",
    r"\(local_rank: ",
    r"\(pid: ",
    r"(?:^|\s)exitcode\s*: ?-?\d+\s*$",  # a failure-table entry's status without its pid (real incidents batch 69)
    r"closing signal SIG",
    r"torchelastic\.worker\.status\.FAILED",  # the agent's event record of a failed worker (--event-log-handler console)
    r"forcefully exiting via",
    r"Worker group FAILED",
    r"Reaping worker_(?:pid|id)=",
    r"attempts left",
    r"Root Cause(?: \(first observed|:)",
    r"Failures:",
    r"NO[_ ]OTHER[_ ]FAILURES",
    r"time\s*: \d{4}-\d\d-\d\d_",
    r"(?:^|\s)\[\d+\]:\s*$",
    r"received by PID",
    r"Fatal Python error: ",
    r"\*\*\* SIG[A-Z]{3,4} received at time=",
    r"(?i:exit(?:ed)?(?: with)? (?:exit )?code)",
    # NCCL identity lines
    r"NCCL INFO Bootstrap ?:",
    r"NET/Socket ?: Using",
    r"NET/IB ?: Using",
    r"NET/IB ?: ?No device found",
    r"comm 0x[0-9a-fA-F]+ rank \d",
    # NCCL's error return (`NCCL INFO init.cc:1929 -> 2`): the process's NCCL call failed
    r"\.(?:cc|cpp|cu|h|c):[0-9]+ -> [1-9]",
    # Xid, desync reports, flight recorder
    r"NVRM: Xid",
    r"RmInitAdapter failed",
    r"rm_init_adapter failed",
    r"Detected mismatch between collectives",
    r"Received data size doesn't match expected size",
    r"is running collective",
    r"didn't join collective",
    r"didn't finish collective",
    r"never joined any collectives",
    r"is running inconsistent collective",
    r"mismatching number of cc ops",  # the Neuron runtime's cross-rank program check (log_reports.NEFF_CC_OPS)
    r"missing ranks:",
    r"Missing ranks:",
    r"Stalled ranks:",  # Horovod before 0.21: the same header (log_patterns.HOROVOD_MISSING_HEADER)
    r"ready ranks: ",
    r"^(?:\([^)]{0,200}\)\s*)?\s*name: \S{0,200}_\d{1,4}:\d{1,7}\s*$",
    r"\[c10d\] (?:waitForInput: (?:socket|poll for socket)|While waitForInput, poolFD failed)",
    # a Horovod stall row (log_patterns.HOROVOD_MISSING_ROW), bare, behind a launcher's tag (`[1,0]<stderr>:4: [...]`)
    # or behind the API server's timestamp (`kubectl logs --timestamps`: `2022-07-20T04:51:42.895382Z 2: [...]`)
    r"(?:^|[>:\]]\s?|\d(?:Z|[+-]\d\d:\d\d) )\d{1,7}!?: \[[\w./:-]{1,400}(?:, |\]\s*$|[$…]?\s*$)",
    r"Not all ranks joining collective",
    r"group info: ",
    r"collective: nccl:",
    # rank failures: CUDA errors, Python exceptions, launchers' exit reports
    r"CUDA error: ",
    r"HIP error: ",  # ROCm's build of torch (log_patterns_cuda.CUDA_ERROR)
    r"by GPU node-\d",  # ROCm's runtime on a GPU fault (log_patterns_cuda.ROCR_FAULT)
    r"cudaError[A-Z]",
    r"CUDA_ERROR_[A-Z]",
    r"Cuda failure ",
    r"THCudaCheck FAIL ",  # THC's check of a CUDA call, PyTorch <= 1.10 (log_patterns_cuda.THC_CUDA_CHECK)
    r"cuda runtime error \(",  # the exception THC raised for it, PyTorch <= 1.5 (log_patterns_cuda.THC_RUNTIME_ERROR)
    r"Test (?:CUDA|NCCL) failure ",  # nccl-tests' own check of a CUDA call (log_patterns_cuda.NCCL_CUDA_FAILURE), an NCCL call's (log_nccl_tests)
    r"Cuda error [^:]",  # a CUDA extension's own check (log_patterns_cuda.EXTENSION_CUDA_CHECK)
    r"from cudaGetDeviceCount",  # torch's GPU probe failing, logged (log_patterns_cuda.DEVICE_COUNT_PROBE)
    r"\b(?:cuda|hip)[A-Z]\w{1,60} failed: ",  # a C++ library's check of a runtime call (log_patterns_cuda.RUNTIME_CALL_FAILED)
    r"\(\) failed \(error code = (?:HIP|CUDA):",
    r"UC[XC]\s+ERROR\s+cu",
    # a kernel's own assertion (log_patterns_cuda.CUDA_KERNEL_ASSERT): `...Kernel.cu:144: ...: block: [..], thread: [..] Assertion `
    r"\] Assertion [`']",
    # glibc's assert() failing in native code (log_failures.NATIVE_ASSERT): `…: Assertion 'cond' failed.`
    r": Assertion [`'].{1,300}' failed\.",
    # NCCL's NVLS multicast memory the node's NVSwitch fabric would not bind (log_patterns_cuda.NVLS_BIND_FAILED)
    r"Failed to bind NVLink SHARP",
    # the class name's letter before it either case: OSError, BlockingIOError, EOFError, HTTPError (log_patterns.PY_EXCEPTION)
    r"[A-Za-z](?:Error|Exception|Interrupt)(?::|$)|RayTaskError\(\w",  # and Ray's task error header (log_ray_task_error.py)
    r"\[rank\d{1,6}\]:\s{1,8}File \"",  # a rank-tagged traceback frame: the first of one cut above its header starts it (log_classify)
    r"File \"[^\"]{1,400}\", line \d{1,7}, in \S",  # any frame: the innermost one's file, a library's install (log_library_frame)
    r"ERROR: Unexpected [a-z -]{1,30} encountered in worker",  # a DataLoader worker's own signal report (log_py_exceptions.WORKER_SIGNAL)
    r"BdbQuit$",  # pdb's quit ending a traceback (a breakpoint left in, stdin closed): no message
    # the same behind mpirun's / horovodrun's tag of the write that followed (log_normalize: `RuntimeError[1,19]<stderr>:: …`)
    r"[A-Za-z](?:Error|Exception|Interrupt)\[[0-9,]{1,16}\]<std",
    r"(?:^|[\s:|>])Exception: ",
    # a warning raised as an error ends its traceback as `UserWarning: message` at the line's start (behind a
    # timestamp, a launcher's `[rank2]: ` tag, a Ray prefix), not behind its file (`x.py:74: UserWarning: …`)
    r"(?:^|Z |\]:? ?|\) )[A-Z][A-Za-z0-9_]{0,80}Warning: ",
    r"died with <Signals",
    r"returned non-zero exit status",
    r"exits with return code",
    r"Process name: (?:\[|\d)",
    r"noticed that process rank",
    r"\] Signal: [A-Z]",
    # gfortran's runtime report of its process's fatal signal (log_failures.py)
    r"Program received signal SIG[A-Z]{2,4}: ",
    # Open MPI's MPI_Abort help text and its count of the processes that sent it too (log_ompi.py)
    r"MPI_ABORT was invoked on rank",
    # Cray MPICH's report of a rank's fatal MPI error (log_mpich.py)
    r"MPICH ERROR \[Rank",
    # Open MPI's error handler report: the rank that reported it and the MPI_ERR_OTHER class (log_ompi_errors.py)
    r"\] \*\*\* (?:reported by process \[|MPI_ERR_OTHER\b|An error occurred in )",
    r"more process(?:es)? (?:have|has) sent help message",
    r"terminated with (?:signal|exit code|the following error)",
    r"monitoredBarrier",
    r"wait timeout after",
    r"check rank \d+ logs for faulty rank",
    r"exit with status code",
    r"srun: error: .{0,300}tasks? \d",
    r"\.py: error: ",
    r": can't open file |python[\w.]{0,12}: No module named ",  # the interpreter could not open its script or -m module (log_launchers)
    r": error: (?:unrecognized arguments|the following arguments are required|ambiguous option|argument -)",  # any prog
    # torch_xla's process unable to reach its launcher's mesh master (log_failures.XLA_MESH_MASTER)
    r"Failed to connect to client mesh master: |Timeout: The file lock '|No available shared memory broadcast block",  # and filelock's timeout (log_py_exceptions), vLLM's shm wait (log_group_waits)
    r"Traceback \(most recent call last\)",
    # a chained traceback's marker (log_failures.TRACEBACK_CHAINED): under a rank's tag, that rank's traceback
    r"The above exception was the direct cause of the following exception|During handling of the above exception, another exception occurred",
    # gloo's pair wait timed out (log_reports.GLOO_PAIR_WAIT), a monitored barrier's original exception
    r"Timed out waiting \d+ ?ms for (?:send|recv) operation",
    # torch.utils.checkpoint's CheckpointError body below a cut headline (log_failures.CHECKPOINT_BODY)
    r"recomputed metadata: \{'shape'",
    r"Number of tensors saved during recomputation: \d",
    # a script's own excepthook logging the exception it did not handle, no traceback (log_failures.LOGGED_UNCAUGHT)
    r"(?:[Uu]ncaught|[Uu]nhandled|UNCAUGHT|UNHANDLED) [A-Za-z_]",
    # Python's report of an exception it ignored (a __del__, an atexit callback): the traceback under it is no failure
    r"Exception ignored (?:in|while|on)\b",
    # a logged exception the program will retry: the record right above its traceback (log_owners.py)
    r"[Ww]ill (?:be )?retr(?:y|ied)\b",
    r"[Rr]etrying\b",
    # a logging record with its process id and no rank, right above the traceback it logs (log_owners.py)
    r"\[\d{1,9}\] (?:ERROR|CRITICAL)\b",
    r"spawned with command",
    # more launchers (log_launchers.py): vLLM's executor on a dead worker, a launch that never started,
    # torch elastic's @record on a failure without an error file
    r"(?:Worker|Engine core) proc \S+ died unexpectedly",
    r"Workers \(tasks / actors\) killed due to memory pressure",
    # ... and its notice on the worker it killed, newer Ray's account of those (log_ray_workers.RAY_MEMORY_NOTICE, RAY_KILL_POLICY)
    r"Memory on the node \(IP: ", r"actual memory used=",
    # Ray Train v2's preemption notice (log_ray_workers.RAY_PREEMPTED_SELF / RAY_PREEMPTION_WATCHER)
    r"received preemption signal \(this_worker_preempted=True",
    r"PreemptionWatcher: preemption detected",
    r"FAILED with no error file",
    r"\) FAILED \(exitcode -?\d",
    r"Container rank \d+ status failed cmd ",
    r"the trainer process with rank=\[",
    r"Child process with PID .{1,40}? terminated with code",
    r"rank \d+ died from signal \d",
    r"possible application crash on rank",
    # HCCL (Ascend) on a rank whose heartbeat was lost: its cluster exception report, its heartbeat trace
    r"Cluster Exception Location\[IP/ID\]",
    r"status\[LOST\] by rank",
    r"deviceId\[\d{1,4}\], Heartbeat Lost Occurred",  # CANN's older verdict (log_launchers.HCCL_LOST_DEVICE)
    # HCCL's error-code report of a wait on a remote rank (log_hccl.HCCL_PEER_WAIT)
    r"EI000[26]: ",
    # HCCL's topology exchange: the ranks that never connected, listed or left out (log_hccl_topo.py)
    r"Failed to connect agent\[",
    r"connectFailedAgentIdList\[",
    r"total connected num is \[",
    r"need connect rankNum is \[",
    r"connected rankinfo\[LINE ",
    # DDP's reducer naming the rank whose backward left parameters without a gradient (log_exception_tail.REDUCER_RANK)
    r"did not receive grad for rank \d",
    # Gaudi's bridge: what failed, on the line under its launch-thread wrapper (log_habana.DETAIL)
    r"Check \$HABANA_LOGS/ for details",
    r"FATAL ERROR :: MODULE:",
    # ... and the eager bridge's failure alone under its inner wrapper (log_habana.BARE): Synapse refusing the graph
    r"Graph compile failed\. synStatus",
    r"synNodeCreateWithId failed for node: ",
    # MindSpore's scheduler / msrun on a worker whose heartbeat was lost
    r"The node: \d+ is timed out",
    r"Time out nodes are \[['‘’]",  # literal quotes: pyarrow's RE2 reads this too (no \\u escapes)
    r"error: execve\(\): ",
    # Slurm ending a job step (log_slurm.SRUN_STEP_END): a task's exit after it is the teardown's
    r"srun: (?:launch/slurm: _step_signal: Terminating StepId=|Terminating job step |Job step aborted: Waiting up to )\d",
    r"\*\*\* STEP \d+\.\S+ ON \S+ CANCELLED AT ",
    # ... and Slurm's reason for ending it, or its word that a node of the job failed (log_slurm)
    r"CANCELLED AT \S+ DUE TO ",
    r"srun: error: Node failure on ",
    # ... and other schedulers' and platforms' words (log_slurm.OTHER_STOPS)
    r"(?:this job|The cluster) is preempted\.|The node was low on resource: |in response to imminent node shutdown",
    # a native library's fault-signal handler (log_native_handlers): UCX's, tvm_ffi's
    r"\] ?Caught signal \d|!!!!!!! Segfault encountered",
    # a scheduler's word that the job's pods cannot be placed (log_sched_pending), a runtime's that they cannot start (log_container_start)
    r"\d/\d+ nodes are (?:un)?available: |pod didn't trigger scale-up|tasks in gang unschedulable|required for gang scheduling|couldn't assign flavors to pod set|\d node\(s\) (?:didn't have enough resource|cannot allocate)"
    r"|nvidia-container-cli: |no runtime for \"?nvidia|unknown runtime handler|could not select device driver|Allocate failed due to ",
    r"executable file not found in \$PATH",
    r": command not found\s*$",
    # a frame of a launcher's own code or of the flight-recorder analyzer: the exception right after it is no rank's (log_lines.py)
    r"File \"[^\"]{0,400}(?:deepspeed/launcher/|torch/distributed/(?:run|launch)\.py|torch/distributed/flight_recorder/|accelerate/commands/|pyspark/ml/torch/)",
    # a frame of torch.distributed's API: the exception under it gets the call it was in (log_owners.py)
    r"distributed_c10d\.py\", line \d",
    # ... or autograd's entry frame: a collective's error under it is DDP's gradient all-reduce (log_owners.py)
    r"torch/autograd/__init__\.py\", line \d{1,7}, in backward",
    # a traceback's source line creating a directory that may exist: a FileExistsError under it is a race (log_owners.py)
    r"(?:makedirs|mkdir)\([^)]{0,300}exist_ok\s*=\s*True",
    # a frame of the main-process-first block: a wait for rank 0's NCCL id under it names rank 0 late (log_main_first.py)
    r"\", line \d{1,7}, in (?:local_)?main_process_first",
    # pipelining's shape inference: its frame, its debug record of the stages (log_shape_inference.py)
    r"pipelining/stage\.py\", line \d{1,7}, in _(?:forward_metadata|shape)_inference",
    r"Shape inference: stage \d",
    # a source line reading what every process shares (log_shared_inputs.py): a sequence subscripted by the rank, the
    # command line's argument decoded as JSON, an assert on the launch's size; the exception under it is common mode
    r"[\w\])]\[\s*(?:[A-Za-z_]\w{0,40}\.)?(?:global_|local_|dp_|data_parallel_|node_|world_)?rank(?:_id|_idx)?\s*\]",
    r"json\.loads\(\s*(?:args|opt|opts|cli_args|cmd_args|script_args)\.\w|\bassert\s.{0,240}(?:world_size|nprocs?\b|n_?gpus?\b|num_gpus|num_processes|device_count\()",
    # a frame of the DataLoader's queue: a connection error under it is the rank's worker lost (log_owners.py)
    r"utils/data/dataloader\.py\", line \d",
    # JAX's coordination service naming a task (process) that failed or stopped sending heartbeats
    r"/task:\d{1,7}(?: heartbeat timeout| has been set to ERROR)",
    # the coordination service (JAX, TensorFlow) on a barrier that timed out: the header, then one task per row
    r"[Tt]imed out task names:",
    # JAX's coordination service on tasks whose heartbeats stopped: the header, then one task per row (log_stall_rows)
    r"The following tasks are unhealthy \(stopped sending heartbeats\):",
    r"/job:[\w-]{1,100}/replica:\d{1,5}/task:\d{1,7}\s*$",
    r"Initializing distributed: GLOBAL_RANK: |node_rank|NODE_RANK|--node[_-]rank|nprocs ?=|--nproc[_-]per[_-]node|local_world_size|LOCAL_WORLD_SIZE",  # and a node's rank, its processes (log_spawn_node.PREFILTER)
    r"__rank__['\"]: ?['\"]\(\d",  # webdataset's sample metadata under an exception (log_rank_mentions.sample_rank)
    r"store based barrier to initialize",
    r"store_based_barrier_key:\d+ to store for rank",
    r"Completed store-based barrier",
    # Ray Train: the worker group's ranks, a failure report's per-rank snippets, a worker process's death
    r"world_rank=\d",
    r"Error Snippet\]:",
    r"^\[Rank \d{1,7}\]:?\s*$",  # Ray Train V2's first header (Ray 2.43-): ``[Rank 0]`` over that worker's error
    r"worker process has died",
    r"The actor is dead because",  # the dead-actor report's closing sentence (its name field above it)
    r"The actor died unexpectedly before finishing",  # the report's head without its class (Ray Train V2's controller)
    r"The actor died because its node has died",
    r"A worker died or was killed",
    r"Worker \d{1,7} has failed\.",
    # a pod's end pasted beside the log: kubectl get pods rows, the training operator (log_pods.py)
    r"-(?:master|chief|worker|launcher|ps|evaluator)(?:-\d+)? +\d+/\d+ +[A-Z]",
    r"-\d+-\d+-[a-z0-9]{5} +\d+/\d+ +[A-Z]",  # a JobSet's / TrainJob's pod row
    r"\b(?:kubectl|oc|k) [^|;&]*delete +(?:pods?|po)[ /]",  # a pod deleted at the shell
    r"Error pod \S+ container \S+ exitCode: ",
    r"Pod: \S+ exited with code",
    r"Job=\S+, ReplicaType=(?:Master|Chief|Launcher)",
    # kubectl describe pod beside the log (log_describe.py)
    r"Name: +[a-z0-9][a-z0-9.-]*-(?:master|chief|worker|launcher)",
    r"State: +(?:Terminated|Running|Waiting)",
    r"^ +Reason: +[A-Z]",
    r"^ +Exit Code: +-?\d",
    r"replica-(?:type|index)=",
    r"^ +RANK: +\d",
)
PREFILTER_EVENT = "(?:" + "|".join(_EVENT_LITERALS) + ")"

__all__ = ["PREFILTER_EVENT", "PREFILTER_STEP", "STEP_EXTRACT", "STEP_HF"]
