"""Single-line classification, the communication wordings: NCCL/c10d watchdog timeouts and their
process group, remote-peer errors, identity lines (a rank joining, NCCL's bootstrap and ``comm``
lines) and other NCCL errors, named by NCCL's error name or, where only its words are printed, by them
(``log_classify.classify`` calls them; same event dict shape)."""

from __future__ import annotations

import re
from typing import Any

from k10s_forensics.parsers import log_nccl2 as nccl2
from k10s_forensics.parsers import log_patterns as P
from k10s_forensics.parsers.common import normalize_pci_bus_id
from k10s_forensics.parsers.log_nccl_tests import nccl_test_failure

Event = dict[str, Any]


#: the int64 range of the table columns these numbers go to
INT64_MIN, INT64_MAX = -(1 << 63), (1 << 63) - 1


def to_int(value: str | None) -> int | None:
    """A number of a line, or None: not a number, or one no int64 column holds. c10d prints the
    unknown element count of coalesced or point-to-point work (``batch_isend_irecv``: a pipeline
    stage's send/recv) as -1 read unsigned, ``NumelIn=18446744073709551615``: unknown, not a size."""
    if value is None or value == "":
        return None
    try:
        number = int(value)
    except ValueError:
        return None
    return number if INT64_MIN <= number <= INT64_MAX else None


def process_group(text: str) -> str | None:
    m = P.PG_GUID.search(text)
    if m:
        return m.group(2)
    m = P.PG_PLAIN.search(text)
    if m:
        return m.group(1) + (f"({m.group(2)})" if m.group(2) else "")
    return None


#: the c10 error location that heads the watchdog's own C++ stack: ``Exception raised from checkTimeout at …`` (the
#: timeout it caught), ``… from ncclCommWatchdog at …`` (its thread ending with that exception)
WATCHDOG_STACK = re.compile(r"Exception raised from (?:checkTimeout|ncclCommWatchdog) at ")


def watchdog(text: str) -> Event | None:
    caught = P.WATCHDOG_CAUGHT.search(text)
    if caught or (P.BLOCKING_WAIT.search(text) and "WorkNCCL(" in text):
        # field by field: a line cut short still yields what it holds
        seq, op, tmo = P.WORK_SEQ.search(text), P.WORK_OP.search(text), P.WORK_TIMEOUT.search(text)
        ran = P.RAN_FOR.search(text)
        numel_in, numel_out = P.WORK_NUMEL_IN.search(text), P.WORK_NUMEL_OUT.search(text)
        if P.THREAD_TERMINATED.search(text):
            subkind = "thread_terminated"
        else:
            subkind = "watchdog_caught" if caught else "blocking_wait"
        return {
            "kind": "nccl_watchdog_timeout",
            "subkind": subkind,
            "seq_num": to_int(seq.group(1)) if seq else None,
            "op_type": op.group(1) if op else None,
            "timeout_ms": to_int(tmo.group(1)) if tmo else None,
            "ran_for_ms": to_int(ran.group(1)) if ran else None,
            "numel_in": to_int(numel_in.group(1)) if numel_in else None,
            "numel_out": to_int(numel_out.group(1)) if numel_out else None,
        }
    for regex, subkind in ((P.FAILURE_DETECTED, "failure_detected"), (P.TIMEOUT_AT_WORK, "timeout_at_work")):
        m = regex.search(text)
        if m:
            return {
                "kind": "nccl_watchdog_timeout",
                "subkind": subkind,
                "seq_num": to_int(m.group(1)),
                "last_enqueued_seq": to_int(m.group(2)),
                "last_completed_seq": to_int(m.group(3)),
            }
    if P.WATCHDOG_HANG.search(text):
        return {"kind": "nccl_watchdog_timeout", "subkind": "watchdog_hang"}
    m = P.EXCEPTION_SUMMARY.search(text)
    if m:
        return {
            "kind": "watchdog_exception_summary",
            "subkind": "exception_detected",
            "seq_num": to_int(m.group(1)),
            "last_enqueued_seq": to_int(m.group(2)),
            "last_completed_seq": to_int(m.group(3)),
        }
    m = P.LAST_WORK.search(text)
    if m:
        return {
            "kind": "watchdog_exception_summary",
            "subkind": "dump_signal" if "dump signal" in text else "pg_status",
            "last_enqueued_seq": to_int(m.group(1)),
            "last_completed_seq": to_int(m.group(2)),
        }
    if "Exception raised from " in text and WATCHDOG_STACK.search(text):
        # the watchdog's C++ stack without its summary line (cut by a paste): the process's watchdog ended it
        return {"kind": "watchdog_exception_summary", "subkind": "watchdog_stack"}
    return nccl2.watchdog(text)  # PyTorch 2.14's opt-in nccl2 backend's own wordings


def remote_error(text: str) -> Event | None:
    for subkind, regex in P.PEER_PATTERNS:
        m = regex.search(text)
        if m:
            return {"kind": "nccl_remote_error", "subkind": subkind, "peer_ip": m.group(1), "peer_port": to_int(m.group(2))}
    if P.REMOTE_ERROR.search(text):
        return {"kind": "nccl_remote_error", "subkind": "remote_error"}
    m = P.LOCAL_PEER_CLOSED.search(text)
    if m:
        return {"kind": "nccl_peer_closed", "subkind": "local_rank", "local_rank": to_int(m.group(1))}
    return None


#: NCCL's IB/RoCE transport that found no usable device in this process (``NCCL INFO NET/IB : No device found.``): a
#: host without one, or a container the device plugin admitted none to; the rules read it beside its peers' device lists
_NET_IB_NONE = re.compile(r"NET/IB ?: ?No device found")


def identity(text: str) -> list[Event]:
    m = P.RANK_JOINING.search(text) if "Initializing distributed" in text else None
    if m:  # the rank said it is joining the process group (a store timeout then names who never did)
        return [{"kind": "rank_joining", "subkind": "lightning", "rank": to_int(m.group(1)), "nranks": to_int(m.group(2))}]
    joining = store_barrier(text) if "barrier" in text else None
    if joining:  # c10d's store-based barrier (torch < 2.0): the rank reached init_process_group's barrier
        return [joining]
    m = P.BOOTSTRAP.search(text)
    if m:
        return [{"kind": "nccl_bootstrap", "subkind": "bootstrap", "ip": m.group(2)}]
    if "No device found" in text and _NET_IB_NONE.search(text):  # this process's NCCL found no IB/RoCE device to use
        return [{"kind": "nccl_net_missing", "subkind": "ib_no_device"}]
    m = P.NET_IB_OOB.search(text)
    if m:
        return [{"kind": "nccl_bootstrap", "subkind": "net_ib_oob", "ip": m.group(2)}]
    m = P.NET_SOCKET.search(text)
    if m:
        return [
            {"kind": "nccl_bootstrap", "subkind": "net_socket", "ip": ip}
            for _iface, ip in P.NET_SOCKET_ITEM.findall(m.group(1))
        ]
    m = P.COMM_LINE.search(text)
    if m:
        state = P.COMM_STATE.search(text)
        state_text = state.group(1) if state else None
        if state_text == "Destroy COMPLETE":
            return []
        dev = P.COMM_CUDADEV.search(text)
        bus = P.COMM_BUSID.search(text)
        return [
            {
                "kind": "nccl_comm_abort" if state_text == "Abort COMPLETE" else "nccl_comm_init",
                "subkind": state_text.lower().replace(" ", "_") if state_text else None,
                "rank": to_int(m.group(2)),
                "pg_rank": to_int(m.group(2)),
                "nranks": to_int(m.group(3)),
                "cuda_dev": to_int(dev.group(1)) if dev else None,
                "bus_id": normalize_pci_bus_id(bus.group(1)) if bus else None,
            }
        ]
    return []


def store_barrier(text: str) -> Event | None:
    """c10d's store-based barrier: the rank reached it (``nranks``: the world size a line gives; the SQL reads ``worker_count=``)."""
    for pattern in (P.STORE_BARRIER_WAIT, P.STORE_BARRIER_DONE, P.STORE_BARRIER_ADDED):
        m = pattern.search(text)
        if m:
            nranks = to_int(m.group(2)) if pattern.groups >= 2 else None
            return {"kind": "rank_joining", "subkind": "store_barrier", "rank": to_int(m.group(1)), "nranks": nranks}
    return None


#: an NCCL call's failure in NCCL's own words (``ncclGetErrorString``) where no ``ncclXxxError`` name is
#: printed: Horovod and TensorFlow (``ncclCommInitRank failed: unhandled cuda error``), torch
#: (``NCCL error in: ProcessGroupNCCL.cpp:1275, unhandled cuda error, NCCL version 2.14.3``), vLLM's pynccl
#: (``RuntimeError: NCCL error: unhandled system error (run with NCCL_DEBUG=INFO for details)``), torch's own NCCL
#: check (torch/csrc/cuda/nccl.cpp: ``RuntimeError: NCCL Error 2: unhandled system error``, the number before the words)
_NCCL_STRING = re.compile(r"(?:\bnccl[A-Z]\w{2,40} failed: |NCCL error in: [^,\n]{1,400}, |\bNCCL error: |\bNCCL Error \d{1,2}: |"
                          + nccl2.ASYNC_ERROR + ")"
                          r"(unhandled cuda error|unhandled system error|internal error|invalid usage|invalid argument)")
_NCCL_STRING_NAME = {"unhandled cuda error": "ncclUnhandledCudaError", "unhandled system error": "ncclSystemError",
                     "internal error": "ncclInternalError", "invalid usage": "ncclInvalidUsage", "invalid argument": "ncclInvalidArgument"}
#: CuPy's NCCL binding raising NCCL's result by its C enum's name (``cupy_backends.cuda.libs.nccl.NcclError:
#: NCCL_ERROR_SYSTEM_ERROR: unhandled system error``; cupy.cuda.nccl before 8): the same ncclResult_t torch and
#: pynccl print in words, read with their subkinds (``NCCL_ERROR_REMOTE_ERROR``: P.REMOTE_ERROR, a peer's loss)
_CUPY_NCCL = re.compile(r"\bNcclError: NCCL_ERROR_(UNHANDLED_CUDA_ERROR|SYSTEM_ERROR|INTERNAL_ERROR|INVALID_USAGE|INVALID_ARGUMENT)\b")
_CUPY_NCCL_NAME = {"UNHANDLED_CUDA_ERROR": "ncclUnhandledCudaError", "SYSTEM_ERROR": "ncclSystemError", "INTERNAL_ERROR": "ncclInternalError",
                   "INVALID_USAGE": "ncclInvalidUsage", "INVALID_ARGUMENT": "ncclInvalidArgument"}


#: NCCL's error return, one line per function it unwinds (``NCCL_DEBUG=INFO``): ``host:pid:tid [dev] NCCL INFO init.cc:1929 -> 2``,
#: the source site and the ``ncclResult_t`` it returned (0 is success and never printed). RCCL (ROCm) and NCCL builds that
#: keep their debug info print the source's absolute path (``NCCL INFO /usr/src/debug/rccl/build/hipify/src/init.cc:2278 -> 1``,
#: ``/long_pathname_so_that_rpms_can_package_the_debug_info/src/extlibs/rccl/build/src/init.cpp:1585 -> 1``): the same return
_RETURN = re.compile(r"(?:\[(\d{1,3})\] )?NCCL INFO (?:\[[^\]]{0,40}\] )?(/?(?:[\w.-]{1,120}/){0,12}[\w.-]{1,80}\.(?:cc|cpp|cu|h|c):\d{1,6}) -> ([1-9]\d?)\b")
_RESULT = {1: "ncclUnhandledCudaError", 2: "ncclSystemError", 3: "ncclInternalError", 4: "ncclInvalidArgument",
           5: "ncclInvalidUsage", 6: "ncclRemoteError", 7: "ncclInProgress"}


def nccl_return(text: str) -> Event | None:
    """NCCL's error return (``… NCCL INFO init.cc:1929 -> 2``): ``error_message`` the site and the code (``init.cc:1929 -> 2``),
    ``subkind`` the code's name; the process is the NCCL prefix's ``host:pid`` (no rank: queries/_incident.sql ``nccl_alike``),
    ``cuda_dev`` its ``[dev]`` even where a masked pid (``[REDACTED]:***:***``) hides the prefix."""
    m = _RETURN.search(text) if " -> " in text else None
    if not m:
        return None
    code, dev = int(m.group(3)), {"cuda_dev": int(m.group(1))} if m.group(1) else {}
    return {"kind": "nccl_return", "subkind": _RESULT.get(code, f"code_{code}"), "error_message": f"{m.group(2)} -> {code}", **dev}


#: NCCL's bootstrap that found no network interface to use (none matches NCCL_SOCKET_IFNAME, or the host has none but
#: loopback): a ``Last error:`` payload under the error the init call returned (ncclInternalError in NCCL 2.21,
#: ncclInvalidUsage in 2.27); log_lines merges it into that error (the SQL's common_mode reads it), alone it says nothing
_NO_SOCKET_INTERFACE = re.compile(r"\bBootstrap ?: ?no socket interface found")


#: the HCA's own fatal device event (verbs IBV_EVENT_DEVICE_FATAL, "local catastrophic error") as NCCL's IB async thread reports
#: it: ``NET/IB : Got async event : local catastrophic error`` (NCCL <= 2.18), ``NET/IB : mlx5_0:1 Got async event : …`` (2.19+),
#: ``NET/IB : mlx5_0:1 async fatal event: …`` (2.2x): the reporting host's adapter failed. Not a port's event (``port error``: the
#: link, either end) nor a queue pair's (``local work queue catastrophic error``)
_IB_DEVICE_FATAL = re.compile(r"(?:Got async event|async fatal event) ?: ?local catastrophic error")


#: NCCL's IB/RoCE transport failing to move a queue pair to its next state (``NCCL WARN Call to ibv_modify_qp failed with
#: 110 Connection timed out, on dev mlx5_0:1, curr state INIT, next state RTR, local GID index 3``; ``… failed with error
#: Connection timed out`` / ``Invalid argument`` / ``Network is unreachable``): the two ends' HCAs could not agree a path
#: (a GID index or RoCE version, a rail-only fabric, a port down), the fabric's or the host's configuration, no rank's
#: own failure: read with no rank (tagged or not), said as a rankless note of what to check (session 63)
_IB_QP_SETUP = re.compile(r"Call to ibv_modify_qp failed with (?:error )?[^,]{1,80}(?:, on dev [\w.:-]{1,40})?(?:, curr state \w{1,8}, next state \w{1,8})?")


#: NCCL's communicator-init check of two ranks placed on one GPU (``Duplicate GPU detected : rank 7 and rank 5 both on
#: CUDA device 10000``, ncclInvalidUsage), with or without its ``NCCL WARN`` prefix or as a ``Last error:`` payload: the
#: launch's placement (CUDA_VISIBLE_DEVICES, LOCAL_RANK's device, Ray's GPU colocation), never either rank's or the GPU's;
#: the device id may be cut (rl_games#284)
_DUPLICATE_GPU = re.compile(r"Duplicate GPU detected ?: ?rank (\d{1,6}) and rank (\d{1,6}) both on CUDA device(?: ([0-9A-Fa-f]{1,16}))?")


def nccl_other(text: str) -> Event | None:
    if "Test NCCL failure " in text and (tested := nccl_test_failure(text)) is not None:  # nccl-tests' own report
        return tested  # of a failed NCCL call (log_nccl_tests)
    if P.ASYNC_TEARDOWN.search(text):
        return {"kind": "nccl_error_other", "subkind": "async_error_teardown"}
    if "Duplicate GPU detected" in text and (dup := _DUPLICATE_GPU.search(text)) is not None:  # session 62 (rllm#10)
        return {"kind": "nccl_error_other", "subkind": "ncclInvalidUsage",
                "error_message": f"Duplicate GPU detected: rank {dup.group(1)} and rank {dup.group(2)} both on CUDA device {dup.group(3) or '?'}"}
    qp = _IB_QP_SETUP.search(text) if "ibv_modify_qp" in text else None
    if qp:  # a queue pair NCCL could not bring up (the fabric's config or a port): no rank's own failure (session 63)
        return {"kind": "nccl_error_other", "subkind": "ib_qp_setup", "error_message": qp.group(0)[:300], "_no_rank": True}
    if "catastrophic" in text and _IB_DEVICE_FATAL.search(text):  # the process's own host adapter failed (batch 145)
        return {"kind": "nccl_error_other", "subkind": "ib_device_fatal"}
    cupy = _CUPY_NCCL.search(text) if "NcclError: NCCL_ERROR_" in text else None
    if cupy:  # CuPy's NcclError: the result's enum name, whatever words follow it
        return {"kind": "nccl_error_other", "subkind": _CUPY_NCCL_NAME[cupy.group(1)]}
    said = _NCCL_STRING.search(text) if " failed: " in text or "NCCL error" in text or "NCCL Error" in text or "sync error" in text else None
    if said or P.OTHER_NCCL_ERROR.search(text):
        m = P.NCCL_ERROR_NAME.search(text)
        name = m.group(1) if m else _NCCL_STRING_NAME[said.group(1)] if said else None
        return {"kind": "nccl_error_other", "subkind": name or ("nccl_warn" if "NCCL WARN" in text else "nccl_error")}
    if _NO_SOCKET_INTERFACE.search(text):  # a "Last error:" payload: part of the error above it, or nothing (log_lines)
        return {"kind": "nccl_error_other", "subkind": "nccl_error", "_payload": True}
    return None


__all__ = ["Event", "identity", "nccl_other", "nccl_return", "process_group", "remote_error", "store_barrier", "to_int", "watchdog"]
