"""Native libraries' own fatal-signal handlers reporting the signal their process took, then re-raising it (the process
dies of it), read by log_failures.fatal_signal:

* UCX (HPC-X, Open MPI's UCX PML, NCCL's and NVSHMEM's UCX paths, UCCL, Mooncake): ``[pool0-1616:1864777:0:1864777]
  Caught signal 4 (Illegal instruction: illegal operand)`` then ``==== backtrace (tid:1864777) ====``; the prefix is
  ``[host:pid:thread:tid]`` (the pid may be padded, ``[megatron_cicd:1610 :0:1610]``). UCX catches only the fault
  signals (SIGILL, SIGSEGV, SIGBUS, SIGFPE by default), never a teardown's SIGTERM. Read as Open MPI's handler's
  ``[host:pid] Signal: …`` is (a ``native_signal``, the process by host and pid, no exit and no rank of its own): its
  process may be crashing in the transport's own failure (``UCX ERROR connect(…) failed``, ``Failed to resolve UCX
  endpoint``, NeMo-Aligner#541), so the launcher's exit names the rank; processes taking one signal alike are counted
  (queries/_incident.sql ``signal_alike``).
* tvm_ffi (FlashInfer's and other JIT kernels' runtime, 2026: vLLM, SGLang, Megatron checkpoint saves):
  ``!!!!!!! Segfault encountered !!!!!!!`` then ``File "<unknown>", line 0, in <native frame>`` lines: the process's exit
  on SIGSEGV, as faulthandler's ``Fatal Python error: Segmentation fault`` is.
"""

from __future__ import annotations

import re
from typing import Any

Event = dict[str, Any]

#: UCX's handler: group 1 the host, 2 the pid, 3 the signal's number, 4 UCX's words for it
UCX_SIGNAL = re.compile(r"\[([\w.-]{1,253}):\s{0,8}(\d{1,10})\s{0,8}:\s{0,8}\d{1,6}\s{0,8}:\s{0,8}\d{1,10}\s{0,8}\]\s{0,8}"
                        r"Caught signal (\d{1,2}) \(([^\n]{0,160}?)\)?\s*$")
#: tvm_ffi's banner
TVM_FFI_SEGFAULT = re.compile(r"!!!!!!! Segfault encountered !!!!!!!")


def native_handler_signal(text: str) -> Event | None:
    """The fault signal a native library's handler reported for its process (None: no such line)."""
    m = UCX_SIGNAL.search(text) if "Caught signal " in text else None
    if m is not None and int(m.group(3)) in (4, 7, 8, 11):
        return {"kind": "native_signal", "subkind": "ucx", "exit_code": -int(m.group(3)), "nccl_host": m.group(1),
                "pid": int(m.group(2)), "error_message": f"UCX: Caught signal {m.group(3)} ({m.group(4)})"[:300], "_no_rank": True}
    if "Segfault encountered" in text and TVM_FFI_SEGFAULT.search(text):
        return {"kind": "process_exit", "subkind": "tvm_ffi_segfault", "exit_code": -11,
                "error_message": "tvm_ffi: Segfault encountered"}
    return None


__all__ = ["TVM_FFI_SEGFAULT", "UCX_SIGNAL", "native_handler_signal"]
