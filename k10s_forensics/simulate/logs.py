"""Log lines in the exact formats PyTorch, torchrun and NCCL print (research section 1).

``style`` is the PyTorch generation: ``"1.13"`` (no ``[rankN]:`` prefix, 30-min era lines),
``"2.3"`` (``[rankN]:[E ProcessGroupNCCL.cpp:N]``), ``"2.5"`` (glog time, PG ID/GUID).
"""

from __future__ import annotations

import datetime as dt

OOM_DOC = (
    "If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid "
    "fragmentation.  See documentation for Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)"
)
TRACE_DOC = "To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html"


def rfc3339nano(ts: dt.datetime) -> str:
    """Go's RFC3339Nano as kubelet writes it (trailing zeros of the fraction trimmed)."""
    text = ts.isoformat(timespec="microseconds")[:26].rstrip("0")
    return text[:-1] + "Z" if text.endswith(".") else text + "Z"


def _glog(ts: dt.datetime, ns_extra: int = 0) -> str:
    return ts.strftime("%m%d %H:%M:%S") + f".{ts.microsecond:06d}{ns_extra % 1000:03d}"


def _cpp(style: str, sev: str, ts: dt.datetime, rank: int, line_no: int, msg: str) -> str:
    """A ProcessGroupNCCL C++ log line."""
    if style == "1.13":
        return f"[{sev} ProcessGroupNCCL.cpp:{line_no}] {msg}"
    if style == "2.3":
        return f"[rank{rank}]:[{sev} ProcessGroupNCCL.cpp:{line_no}] {msg}"
    return f"[rank{rank}]:[{sev}{_glog(ts, rank * 7919)} ProcessGroupNCCL.cpp:{line_no}] {msg}"


def _py(style: str, rank: int, text: str) -> str:
    return text if style == "1.13" else f"[rank{rank}]: {text}"


def agent(style: str, ts: dt.datetime, sev: str, pid: int, module: str, line_no: int, msg: str) -> str:
    """A torch.distributed.elastic agent log line."""
    level = {"I": "INFO", "W": "WARNING", "E": "ERROR"}[sev]
    mod = module.replace("/", ".").removesuffix(".py")
    if style == "1.13":
        return f"{level}:{mod}:{msg}"
    if style == "2.3":
        return f"[{ts.strftime('%Y-%m-%d %H:%M:%S')},{ts.microsecond // 1000:03d}] {mod}: [{level}] {msg}"
    return f"{sev}{ts.strftime('%m%d %H:%M:%S')}.{ts.microsecond:06d} {pid} {module}:{line_no}] {msg}"


def torchrun_start(style: str, ts: dt.datetime, pid: int, nproc: int) -> list[str]:
    out = []
    if nproc > 1:
        stars = "*****************************************"
        omp = ("Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being "
               "overloaded, please further tune the variable for optimal performance in your application as needed. ")
        out += [agent(style, ts, "W", pid, "torch/distributed/run.py", 793, m) for m in ("", stars, omp, stars)]
    out.append(agent(style, ts, "I", pid, "torch/distributed/elastic/agent/server/api.py", 696, "[default] Starting worker group"))
    return out


def nccl_prefix(host: str, pid: int, tid: int, local: int) -> str:
    return f"{host}:{pid}:{tid} [{local}]"


def nccl_init(host: str, pid: int, local: int, ip: str, rank: int, nranks: int, bus: str, comm: str, comm_id: str,
              nccl_version: str, cuda: str, iface: str) -> list[str]:
    """NCCL INFO lines of one process joining the world communicator."""
    p0 = nccl_prefix(host, pid, pid, local)
    p1 = nccl_prefix(host, pid, pid + 61, local)
    out = [f"{p0} NCCL INFO Bootstrap : Using {iface}:{ip}<0>"]
    if rank == 0:
        out.append(f"{p0} NCCL INFO NCCL version {nccl_version}+cuda{cuda}")
    out += [
        f"{p1} NCCL INFO NET/Plugin: No plugin found (libnccl-net.so), using internal implementation",
        f"{p1} NCCL INFO NET/Socket : Using [0]{iface}:{ip}<0>",
        f"{p1} NCCL INFO Using network Socket",
        f"{p1} NCCL INFO ncclCommInitRank comm {comm} rank {rank} nranks {nranks} cudaDev {local} nvmlDev {local} busId {bus} commId {comm_id} - Init START",
        f"{p1} NCCL INFO comm {comm} rank {rank} nranks {nranks} cudaDev {local} nvmlDev {local} busId {bus} commId {comm_id} - Init COMPLETE",
    ]
    return out


def pg_options(style: str, ts: dt.datetime, rank: int, world: int, timeout_ms: int) -> str:
    if style == "1.13":
        return (f"[I ProcessGroupNCCL.cpp:665] [Rank {rank}] ProcessGroupNCCL initialization options:NCCL_ASYNC_ERROR_HANDLING: 1, "
                f"NCCL_DESYNC_DEBUG: 0, NCCL_BLOCKING_WAIT: 0, TIMEOUT(ms): {timeout_ms}, USE_HIGH_PRIORITY_STREAM: 0")
    return _cpp(style, "I", ts, rank, 905, f"[PG ID 0 PG GUID 0(default_pg) Rank {rank}] ProcessGroupNCCL initialization options: "
                f"size: {world}, global rank: {rank}, TIMEOUT(ms): {timeout_ms}, USE_HIGH_PRIORITY_STREAM: 0, SPLIT_FROM: 0, "
                f"SPLIT_COLOR: 0, PG Name: 0")


def step_line(fmt: str, ts: str, rank: int, step: int, loss: float, step_ms: float, mfu: float, mem_gib: float,
              mem_pct: float, tokens: int) -> str:
    """One training-progress line (nanoGPT, torchtitan or key=value style); ``ts`` is ISO text (µs)."""
    if fmt == "nanogpt":
        return f"iter {step}: loss {loss:.4f}, time {step_ms:.2f}ms, mfu {mfu:.2f}%"
    if fmt == "titan":
        tps = int(tokens / (step_ms / 1000.0))
        return (f"[titan] {ts[:10]} {ts[11:19]},{ts[20:23]} - root - INFO - step: {step:>5}  "
                f"loss: {loss:7.4f}  memory: {mem_gib:5.2f}GiB({mem_pct:.2f}%)  tps: {tps:,}  mfu: {mfu:.2f}%")
    return f"step={step} rank={rank} loss={loss:.4f} step_time_ms={step_ms:.1f} tokens_per_s={int(tokens / (step_ms / 1000.0))}"


def _gib(mib: float) -> str:
    return f"{mib / 1024:.2f} GiB"


def cuda_oom(style: str, rank: int, local: int, total_mib: float, used_mib: float, request_mib: float, pid: int) -> list[str]:
    """Traceback tail and the OutOfMemoryError line of the OOM rank."""
    free = max(0.0, total_mib - used_mib)
    tb = [
        "Traceback (most recent call last):",
        '  File "/workspace/train.py", line 284, in <module>',
        "    main()",
        '  File "/workspace/train.py", line 241, in main',
        "    loss = model(batch).loss",
        '  File "/usr/local/lib/python3.10/dist-packages/torch/nn/modules/module.py", line 1553, in _wrapped_call_impl',
        "    return self._call_impl(*args, **kwargs)",
    ]
    alloc = used_mib * 0.93
    if style == "1.13":
        msg = (f"RuntimeError: CUDA out of memory. Tried to allocate {_gib(request_mib)} (GPU {local}; {_gib(total_mib)} total capacity; "
               f"{_gib(alloc)} already allocated; {free:.2f} MiB free; {_gib(used_mib * 0.97)} reserved in total by PyTorch) If reserved "
               "memory is >> allocated memory try setting max_split_size_mb to avoid fragmentation.  See documentation for Memory "
               "Management and PYTORCH_CUDA_ALLOC_CONF")
    else:
        name = "torch.cuda.OutOfMemoryError" if style == "2.3" else "torch.OutOfMemoryError"
        msg = (f"{name}: CUDA out of memory. Tried to allocate {_gib(request_mib)}. GPU {local} has a total capacity of {_gib(total_mib)} "
               f"of which {free:.2f} MiB is free. Process {pid} has {_gib(used_mib)} memory in use. Of the allocated memory "
               f"{_gib(alloc)} is allocated by PyTorch, and {_gib(used_mib * 0.05)} is reserved by PyTorch but unallocated. {OOM_DOC}")
    return [_py(style, rank, line) for line in tb + [msg]]


def watchdog_timeout(style: str, ts: dt.datetime, rank: int, seq: int, op: str, numel: int, timeout_ms: int, ran_ms: int,
                     last_enq: int, last_done: int) -> list[str]:
    """A rank's watchdog timeout lines, ending with the process teardown."""
    numels = "" if style == "1.13" else f", NumelIn={numel}, NumelOut={numel}"
    work = f"WorkNCCL(SeqNum={seq}, OpType={op}{numels}, Timeout(ms)={timeout_ms}) ran for {ran_ms} milliseconds before timing out."
    caught = f"[Rank {rank}] Watchdog caught collective operation timeout: {work}"
    if style == "1.13":
        return [
            _cpp(style, "E", ts, rank, 737, caught),
            _cpp(style, "E", ts, rank, 414, "Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, "
                 "subsequent GPU operations might run on corrupted/incomplete data. To avoid this inconsistency, we are taking the entire process down."),
            "terminate called after throwing an instance of 'std::runtime_error'",
            f"  what():  {caught}",
        ]
    if style == "2.3":
        status = _cpp(style, "E", ts, rank, 1537, f"[PG 0 Rank {rank}] Timeout at NCCL work: {seq}, last enqueued NCCL work: {last_enq}, last completed NCCL work: {last_done}.")
        pg = f"[PG 0 Rank {rank}]"
    else:
        status = _cpp(style, "E", ts, rank, 1785, f"[PG ID 0 PG GUID 0(default_pg) Rank {rank}] Exception (either an error or timeout) detected by watchdog at work: {seq}, last enqueued NCCL work: {last_enq}, last completed NCCL work: {last_done}.")
        pg = f"[PG ID 0 PG GUID 0(default_pg) Rank {rank}]"
    return [
        _cpp(style, "E", ts, rank, 616, caught),
        status,
        _cpp(style, "E", ts, rank, 630, f"[Rank {rank}] Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data."),
        _cpp(style, "E", ts, rank, 636, f"[Rank {rank}] To avoid data inconsistency, we are taking the entire process down."),
        _cpp(style, "E", ts, rank, 1595, f"{pg} Process group watchdog thread terminated with exception: {caught}"),
        "terminate called after throwing an instance of 'c10::DistBackendError'",
        f"  what():  {pg} Process group watchdog thread terminated with exception: {caught}",
    ]


def nccl_warn_peer(host: str, pid: int, local: int, peer_ip: str, peer_port: int, closed: bool) -> list[str]:
    """NCCL WARN lines naming a peer by IP<port>."""
    p = nccl_prefix(host, pid, pid + 97, local)
    if closed:
        return [f"{p} misc/socket.cc:538 NCCL WARN Net : Connection closed by remote peer {peer_ip}<{peer_port}>",
                f"{p} NCCL INFO misc/socket.cc:789 -> 6", f"{p} NCCL INFO transport/net_socket.cc:464 -> 6"]
    return [f"{p} misc/socket.cc:518 NCCL WARN Net : Call to recv from {peer_ip}<{peer_port}> failed : Connection reset by peer",
            f"{p} NCCL INFO misc/socket.cc:535 -> 6"]


def remote_error(style: str, rank: int, peer_ip: str, peer_port: int, nccl_version: str) -> list[str]:
    """The Python exception of a rank whose peer went away."""
    lines = [
        "Traceback (most recent call last):",
        '  File "/workspace/train.py", line 252, in main',
        "    loss.backward()",
        "torch.distributed.DistBackendError: NCCL error in: /opt/pytorch/pytorch/torch/csrc/distributed/c10d/NCCLUtils.hpp:268, "
        f"remote process exited or there was a network error, NCCL version {nccl_version}",
        "ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.",
        "Last error:",
        f"socketProgressOpt: Call to recv from {peer_ip}<{peer_port}> failed : Connection reset by peer",
    ]
    return [_py(style, rank, line) for line in lines]


def sigterm(style: str, ts: dt.datetime, pid: int, worker_pid: int) -> str:
    return agent(style, ts, "W", pid, "torch/distributed/elastic/multiprocessing/api.py", 897, f"Sending process {worker_pid} closing signal SIGTERM")


def worker_failed(style: str, ts: dt.datetime, pid: int, exit_code: int, local: int, worker_pid: int) -> str:
    return agent(style, ts, "E", pid, "torch/distributed/elastic/multiprocessing/api.py", 869,
                 f"failed (exitcode: {exit_code}) local_rank: {local} (pid: {worker_pid}) of binary: /usr/bin/python3")


def worker_group_failed(style: str, ts: dt.datetime, pid: int, left: int, total: int) -> str:
    return agent(style, ts, "I", pid, "torch/distributed/elastic/agent/server/api.py", 889,
                 f"[default] Worker group FAILED. {left}/{total} attempts left; will restart worker group")


def child_failed(ts: dt.datetime, host: str, failures: list[tuple[int, int, int, int]]) -> list[str]:
    """The ChildFailedError table; ``failures`` = (rank, local_rank, exitcode, pid), root cause first."""
    def entry(i: int, f: tuple[int, int, int, int]) -> list[str]:
        rank, local, code, pid = f
        tb = f"Signal {-code} ({'SIGABRT' if code == -6 else 'SIGTERM'}) received by PID {pid}" if code < 0 else TRACE_DOC
        return [f"[{i}]:", f"  time      : {ts.strftime('%Y-%m-%d_%H:%M:%S')}", f"  host      : {host}",
                f"  rank      : {rank} (local_rank: {local})", f"  exitcode  : {code} (pid: {pid})", "  error_file: <N/A>",
                f"  traceback : {tb}"]
    root, others = failures[0], failures[1:]
    out = ["Traceback (most recent call last):", '  File "/usr/local/bin/torchrun", line 8, in <module>', "    sys.exit(main())",
           "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ",
           "============================================================", "/workspace/train.py FAILED",
           "------------------------------------------------------------", "Failures:"]
    if others:
        for i, f in enumerate(others, 1):
            out += entry(i, f)
    else:
        out.append("  <NO_OTHER_FAILURES>")
    out += ["------------------------------------------------------------", "Root Cause (first observed failure):"]
    out += entry(0, root)
    out.append("============================================================")
    return out
