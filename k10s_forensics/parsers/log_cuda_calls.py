"""CUDA errors reported by something other than torch's own ``CUDA error: …`` wording (``log_failures.cuda_error``
reads that and NCCL's ``Cuda failure``): a CUDA extension's own check of a runtime call (vLLM's ``CUDACHECK``), a SYCL
runtime's failed HIP or CUDA call, a communication library's (UCX's, UCC's) failed CUDA call, an extension's check that
prints the runtime's error number (nvdiffrast's ``Cuda error: 700[…]``), a C++ library's check naming the runtime
call and its message (Horovod's ``cudaEventQuery failed: an illegal memory access was encountered``), ROCm's runtime reporting a GPU fault in the
process (``Memory access fault by GPU node-3 …``, ``HW Exception by GPU node-9 … reason :GPU Hang``); and the category of a CUDA error's message
(``cuda_kind``). Same event dict shape as ``log_failures``.
"""

from __future__ import annotations

from typing import Any

from k10s_forensics.parsers import log_patterns as P
from k10s_forensics.parsers.common import normalize_pci_bus_id

Event = dict[str, Any]


def cuda_kind(message: str) -> str:
    for name, rx in P.CUDA_KINDS:
        if rx.search(message):
            return name
    return "other"


def extension_check(text: str) -> Event | None:
    """A CUDA extension's own check of a runtime call that failed (vLLM's ``Failed: Cuda error
    /workspace/csrc/custom_all_reduce.cuh:164 'invalid argument'``): the printing process's CUDA error, its message
    followed by the source file and line that checked it (the custom all-reduce's refusal reads as every worker's:
    queries/_incident_common_mode.sql, ``common_mode``)."""
    m = P.EXTENSION_CUDA_CHECK.search(text) if "Cuda error " in text else None
    if m is None or "out of memory" in m.group(3):
        return None
    message = f"{m.group(3)} ({m.group(1)}:{m.group(2)})"
    return {"kind": "cuda_error", "subkind": cuda_kind(m.group(3)), "error_type": "CUDA error", "error_message": message[:300]}


def device_count_probe(text: str) -> Event | None:
    """torch's probe of the GPUs failing at CUDA's initialization, logged rather than raised (a server's log line, torch's
    ``UserWarning: CUDA initialization: …``): the printing process's CUDA error when it is the node not ready for CUDA
    (802/803) or the stack not fitting the GPU (804's forward compatibility): every process on the node meets it alike
    (queries/_incident_common_mode.sql). Another number (100's ``no CUDA-capable device``: one container's devices) is
    left unread, as a warning the process may go on past; raised as an exception it is that exception."""
    m = P.DEVICE_COUNT_PROBE.search(text) if "cudaGetDeviceCount" in text else None
    if m is None or P.DEVICE_COUNT_RAISED.search(text):
        return None
    kind = cuda_kind(m.group(2))
    if kind not in ("system-not-ready", "stack-mismatch"):
        return None
    message = f"{m.group(2)} (CUDA error {m.group(1)}, at CUDA initialization)"
    return {"kind": "cuda_error", "subkind": kind, "error_type": "CUDA error", "error_message": message[:300]}


def sycl_call(text: str) -> Event | None:
    """A SYCL runtime's (AdaptiveCpp's) failed HIP or CUDA call, which its error report then ends the process for:
    the printing process's own CUDA error (a HIP one is the same failure on AMD GPUs)."""
    m = P.SYCL_RUNTIME_CALL.search(text) if "(error code = " in text else None
    if m is None:
        return None
    message = f"{m.group(1)}() failed (error code = {m.group(2)}:{m.group(3)})"
    return {"kind": "cuda_error", "subkind": "sycl_call", "error_type": f"{m.group(2)} error", "error_message": message[:300]}


def transport_call(text: str) -> Event | None:
    """A communication library's (UCX's, UCC's) own CUDA call that failed: the printing process's CUDA error, but a
    weak one (``transport_call``: the library reports the call, not how the process ended; a later fatal signal of the
    same rank stays its cause: queries/_incident.sql)."""
    m = P.TRANSPORT_CUDA_CALL.search(text) if "ERROR" in text and "UC" in text else None
    if m is None or "out of memory" in m.group(2):
        return None
    message = f"{m.group(1)} failed: {m.group(2)}"
    return {"kind": "cuda_error", "subkind": "transport_call", "error_type": "CUDA error", "error_message": message[:300]}


def thc_check(text: str) -> Event | None:
    """THC's check of a CUDA call (PyTorch <= 1.10: ``THCudaCheck FAIL file=… line=280 error=710 : device-side assert
    triggered``, or the ``RuntimeError: cuda runtime error (39) : uncorrectable ECC error encountered at …`` it raised):
    the printing process's own CUDA fault, read only for a fault's message (a kernel's assert, an illegal
    address, ECC, a launch failure, a lost device). A set-up refusal in the same wording (``error=10 : invalid device
    ordinal``: more processes than GPUs, every process alike) and an allocation (``out of memory``) stay unread."""
    m = P.THC_CUDA_CHECK.search(text) if "THCudaCheck FAIL" in text else None
    if m is None and "cuda runtime error (" in text:  # the exception THC raised for it (PyTorch <= 1.5)
        m = P.THC_RUNTIME_ERROR.search(text)
    kind = cuda_kind(m.group(2)) if m else "other"
    if m is None or kind == "other":
        return None
    message = f"{m.group(2)} (THC error {m.group(1)})"
    return {"kind": "cuda_error", "subkind": kind, "error_type": "CUDA error", "error_message": message[:300]}


#: ``cudaError_t`` numbers an extension prints instead of the message (CUDA runtime API), the ones ``cuda_kind`` sorts;
#: any other number reads as a CUDA error of kind ``other``
_RUNTIME_NUMBERS = {
    "100": "no CUDA-capable device is detected",
    "214": "uncorrectable ECC error encountered",
    "700": "an illegal memory access was encountered",
    "701": "too many resources requested for launch",
    "702": "the launch timed out and was terminated",
    "710": "device-side assert triggered",
    "716": "misaligned address",
    "719": "unspecified launch failure",
    "999": "unknown error",
}


def runtime_call_number(text: str) -> Event | None:
    """An extension's check of a CUDA runtime call that prints the runtime's error number and the call (nvdiffrast's
    ``Cuda error: 700[cudaStreamSynchronize(stream);]``): the printing process's own CUDA error, its kind from the number
    (700: an illegal address). Number 2 (``cudaErrorMemoryAllocation``) is left to the out-of-memory wordings."""
    m = P.RUNTIME_CALL_NUMBER.search(text) if "Cuda error: " in text else None
    if m is None or m.group(1) == "2":
        return None
    reason = _RUNTIME_NUMBERS.get(m.group(1))
    message = f"{m.group(2)}() failed: " + (f"{reason} (error {m.group(1)})" if reason else f"runtime error {m.group(1)}")
    return {"kind": "cuda_error", "subkind": cuda_kind(reason or ""), "error_type": "CUDA error", "error_message": message[:300]}


def runtime_call_failed(text: str) -> Event | None:
    """A C++ library's own check of a CUDA runtime call, the call's name and the runtime's message (Horovod's uncaught
    ``what():  cudaEventQuery failed: an illegal memory access was encountered``): the printing process's own CUDA fault,
    read, as THC's check is, only for a fault's message (an illegal address, ECC, a device-side assert, a launch
    failure, a lost device). A set-up refusal (``invalid device ordinal``), any message ``cuda_kind`` does not sort, and
    an allocation (``cudaMalloc failed: out of memory``: the out-of-memory wordings') stay unread."""
    m = P.RUNTIME_CALL_FAILED.search(text) if " failed: " in text else None
    if m is None or "out of memory" in m.group(2) or (kind := cuda_kind(m.group(2))) == "other":
        return None
    message = f"{m.group(1)}() failed: {m.group(2)}"
    return {"kind": "cuda_error", "subkind": kind, "error_type": "CUDA error", "error_message": message[:300]}


def rocr_fault(text: str) -> Event | None:
    """ROCm's runtime (ROCr) reporting a fault of a GPU the process uses, before the process aborts: ``Memory access fault by
    GPU node-3 (Agent handle: 0x13e852f0) on address 0x77d445e00000. Reason: Unknown.`` (a kernel's access outside its
    memory: CUDA's illegal address) and ``HW Exception by GPU node-9 (Agent handle: 0x…) reason :GPU Hang`` (a kernel that
    never finished: CUDA's launch timeout). ``node-N`` is the HSA agent's number (the CPUs counted first), no rank, no
    host: the printing process's own CUDA-style error (batch 342)."""
    m = P.ROCR_FAULT.search(text) if "by GPU node-" in text else None
    if m is None:
        return None
    if m.group(1):
        reason = (m.group(4) or "").strip().rstrip(".") or "unknown"
        # (the agent and the address left out: one message for every process that meets the same fault)
        message = f"ROCm: memory access fault by the process's GPU (reason: {reason})"
        return {"kind": "cuda_error", "subkind": "illegal-address", "error_type": "CUDA error", "error_message": message[:300]}
    message = f"ROCm: hardware exception by the process's GPU: {m.group(6).strip() or 'unknown'}"
    return {"kind": "cuda_error", "subkind": "launch-failure", "error_type": "CUDA error", "error_message": message[:300]}


def gpu_init_failed(text: str) -> dict[str, Any] | None:
    """The driver's failure to initialise a GPU (``NVRM: GPU <pci>: RmInitAdapter failed! (…)``, ``… rm_init_adapter
    failed, device minor number N``): a ``gpu_init_failed`` event with the GPU's address when the line gives it; None
    for any other line. It is the node's GPU, no process's: the line names no rank."""
    m = P.GPU_INIT_FAILED.search(text) if "NVRM: " in text else None
    if m is None:
        return None
    what = f"RmInitAdapter failed ({m.group(2)})" if m.group(2) else f"rm_init_adapter failed, minor number {m.group(3)}"
    return {"kind": "gpu_init_failed", "subkind": "rm_init_adapter", "bus_id": normalize_pci_bus_id(m.group(1)) if m.group(1) else None,
            "error_message": what}
