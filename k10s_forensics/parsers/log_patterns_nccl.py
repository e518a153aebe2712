"""The container-log parser's ProcessGroupNCCL watchdog and NCCL network/remote error patterns (see
docs/parsers-logs.md); re-exported by ``log_patterns``, the catalogue's one name space. Every pattern is bounded."""

from __future__ import annotations

import re

# ---------------------------------------------------------------------------------------
# ProcessGroupNCCL watchdog.
# ---------------------------------------------------------------------------------------
WORK_SEQ = re.compile(r"SeqNum=(\d+)")
WORK_OP = re.compile(r"OpType=(\w+)")
WORK_TIMEOUT = re.compile(r"Timeout\(ms\)=(\d+)")
WORK_NUMEL_IN = re.compile(r"NumelIn=(-?\d+)")
WORK_NUMEL_OUT = re.compile(r"NumelOut=(-?\d+)")
RAN_FOR = re.compile(r"ran for (\d+) milliseconds")
#: ``Watchdog caught collective operation timeout`` (watchdog); ``Caught collective operation timeout`` (1.x blocking wait)
WATCHDOG_CAUGHT = re.compile(r"(?:Watchdog c|\bC)aught collective operation timeout")
THREAD_TERMINATED = re.compile(r"watchdog thread terminated with exception")
BLOCKING_WAIT = re.compile(r"timed out in blocking wait")
FAILURE_DETECTED = re.compile(
    r"failure detected by watchdog at work sequence id: (\d+)(?: PG status: last enqueued work: (-?\d+), last completed work: (-?\d+))?"
)
TIMEOUT_AT_WORK = re.compile(
    r"Timeout at NCCL work: (\d+)(?:, last enqueued NCCL work: (-?\d+), last completed NCCL work: (-?\d+))?"
)
EXCEPTION_SUMMARY = re.compile(
    r"Exception \(either an error or timeout\) detected by watchdog at work: (\d+)(?:, last enqueued NCCL work: (-?\d+), last completed NCCL work: (-?\d+))?"
)
LAST_WORK = re.compile(r"[Ll]ast enqueued (?:NCCL )?work: (-?\d+), last completed (?:NCCL )?work: (-?\d+)")
WATCHDOG_HANG = re.compile(r"ProcessGroupNCCL watchdog hang|Heartbeat monitor timed out|watchdog hang")
ASYNC_TEARDOWN = re.compile(r"Some NCCL operations have failed or timed out|taking the entire process down")
PG_GUID = re.compile(r"\[PG ID (\d+) PG GUID ([^\s\]]{1,200}?) Rank \d+\]")
PG_PLAIN = re.compile(r"\[PG (\d+)(?: \(([^)\]]{1,100})\))? Rank \d+\]")
TIMEOUT_OPTION = re.compile(r"TIMEOUT\(ms\): (\d+)")

# ---------------------------------------------------------------------------------------
# NCCL network / remote errors.
# ---------------------------------------------------------------------------------------
_PEER = r"(<[A-Za-z][\w .-]{0,30}>|\[REDACTED\]|[^\s<>]{1,253})<(\d{1,5}|[A-Za-z]{1,10}|[xX*]{1,8}|…|\.{3})>"
PEER_PATTERNS = (
    ("connection_closed", re.compile(r"Connection closed by remote peer " + _PEER)),
    ("recv_failed", re.compile(r"Call to recv from " + _PEER + r" failed")),
    ("send_failed", re.compile(r"Call to send to " + _PEER + r" failed")),
    ("connect_failed", re.compile(r"Call to connect (?:to|returned [^,]{0,60}, ?)?\s*" + _PEER)),
    ("ib_completion_error", re.compile(r"Got completion from peer " + _PEER + r" with (?:error|status)")),
)
LOCAL_PEER_CLOSED = re.compile(r"Connection closed by localRank (\d+)")
REMOTE_ERROR = re.compile(r"ncclRemoteError|NcclError: NCCL_ERROR_REMOTE_ERROR\b|remote process exited or there was a network error")
OTHER_NCCL_ERROR = re.compile(
    r"ncclInternalError|ncclSystemError|ncclUnhandledCudaError|ncclInvalidUsage|ncclInvalidArgument|NCCL error|NCCL WARN|DistBackendError"
)
NCCL_ERROR_NAME = re.compile(r"\b(nccl[A-Z]\w+Error|ncclInvalidUsage|ncclInvalidArgument)\b")
LAST_ERROR = re.compile(r"Last error:\s*(.*)$")
CALLOC_BYTES = re.compile(r"Failed to CUDA calloc (\d+) bytes")
