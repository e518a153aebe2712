"""The CUDA part of the log parser's regex catalogue (``log_patterns`` re-exports every name): CUDA out of
memory in PyTorch's, NCCL's and the runtime's wordings, and CUDA errors with their categories. Bounded
like the rest of the catalogue: applied to candidate lines only, no nested unbounded repetition.
"""

from __future__ import annotations

import re

# ---------------------------------------------------------------------------------------
# CUDA out of memory.
# ---------------------------------------------------------------------------------------
_SIZE = r"(\d+(?:\.\d+)? ?(?:[KMGT]i?B|bytes?|B))"
OOM_PYTORCH = re.compile(r"CUDA out of memory\.? ?")
#: NCCL's failed allocation: ``Cuda failure 'out of memory'`` and, from NCCL 2.19 on, with the runtime's number
#: (``Cuda failure 2 'out of memory'``, also the last line of PyTorch's ``ncclUnhandledCudaError`` message)
OOM_NCCL = re.compile(r"Cuda failure (?:\d{1,4} )?['\u2018]?out of memory['\u2019]?|Failed to CUDA calloc")
#: the runtime's OOM as a CUDA error: ``CUDA error: out of memory``, THC's ``cuda runtime error (2) : out of memory at …``
#: and the driver API's ``CUDA_ERROR_OUT_OF_MEMORY`` as torch_memory_saver prints it (SGLang, verl, slime: ``[torch_memory_saver.cpp]
#: CUresult error: 2 (out of memory)  file=csrc/utils.h func=cu_mem_create``), and a CUDA extension's own check of a
#: driver call as vLLM's sleep-mode allocator prints it (``CUDA Error: out of memory at /workspace/csrc/cumem_allocator.cpp:62``)
OOM_CUDA_ERROR = re.compile(r"(?:CUDA|HIP) error: out of memory|\bcuda runtime error \(2\) ?: ?out of memory|\bCUresult error: 2 \(out of memory\)"
                            r"|\bCUDA Error: out of memory at \S{1,400}:\d{1,6}")
#: the CUDA runtime's own name for a failed allocation before its message, printed by the process whose allocation
#: failed (CuPy's ``CUDARuntimeError: cudaErrorMemoryAllocation: out of memory``, mpi4jax's ``Error 2
#: cudaErrorMemoryAllocation: out of memory``, thrust's ``bad_alloc``): not a documentation hint naming the code alone
OOM_CUDA_RUNTIME = re.compile(r"\bcudaErrorMemoryAllocation\)?: out of memory")
#: a GPU allocator's own failure, printed by the process whose device allocation failed, with neither "CUDA" nor the
#: runtime's error name: Thrust's ``system_error`` from an algorithm's temporary storage as its uncaught ``what():``
#: (``what():  parallel_for failed: out of memory``, ``radix_sort: failed on 1st step: out of memory``), and the RAPIDS
#: Memory Manager's ``std::bad_alloc: out_of_memory: RMM failure at: …pool_memory_resource.hpp:192: Maximum pool size
#: exceeded`` / ``out_of_memory: CUDA error at: …`` (dask-cuda, cuDF, cuML, XGBoost workers)
OOM_ALLOCATOR = re.compile(r"\bwhat\(\):\s{1,4}[a-z_]\w{0,40}:? (?:[\w]{1,40} ){0,3}?failed[^\n:]{0,40}: out of memory\s*$"
                           r"|\bout_of_memory: (?:RMM failure|CUDA error) at:")
#: TensorFlow's and XLA's own GPU out of memory, printed by the process whose allocation failed: TensorFlow's
#: ``ResourceExhaustedError: OOM when allocating tensor with shape[2,1023,50257] and type float on
#: /job:localhost/replica:0/task:0/device:GPU:0 by allocator GPU_0_bfc`` (and its ``OP_REQUIRES failed … Resource
#: exhausted: OOM when allocating …`` warning: a GPU device or allocator named, not a host's), and XLA's BFC allocator under
#: JAX or TensorFlow: ``RESOURCE_EXHAUSTED: Out of memory while trying to allocate 17179869184 bytes.``. Not the BFC
#: allocator's ``Allocator (GPU_0_bfc) ran out of memory trying to allocate …``, which says it is no failure. Nor XLA's CUDA
#: async allocator's ``gpu_async_3 cuMemAllocAsync failed to allocate 1225195446464 bytes: … CUDA_ERROR_OUT_OF_MEMORY``:
#: one process's allocator per device (``gpu_async_N`` a local device), each logging the same request, the process's own
#: error following (batch 332's skyrl#624: every device asked 1.2 TB, a control; read as no rank's before JAX raises)
OOM_FRAMEWORK = re.compile(r"\bOOM when allocating tensor\b[^\n]{0,600}?(?:/device:GPU:\d{1,4}\b|\ballocator GPU_\d{1,4}_bfc\b)"
                           r"|\b(?:RESOURCE_EXHAUSTED|Resource exhausted): Out of memory while trying to allocate \d{1,20} bytes")
OOM_REQUESTED = re.compile(r"Tried to allocate " + _SIZE)
OOM_NEW = re.compile(r"GPU (\d*) ?has a total capac(?:i)?ty of " + _SIZE + r" of which " + _SIZE + r" is free")
OOM_THIS_PROCESS = re.compile(r"this process has " + _SIZE + r" memory in use")
OOM_ANY_PROCESS = re.compile(r"Process \d+ has " + _SIZE + r" memory in use")
OOM_LEGACY = re.compile(
    r"\(GPU (\d+); " + _SIZE + r" total capacity; " + _SIZE + r" already allocated; " + _SIZE + r" free;(?: " + _SIZE + r" reserved in total by PyTorch)?"
)
#: fairseq's trainer reporting the CUDA OOM it caught (``trainer._log_oom``: ``OOM: Ran out of memory with exception:
#: CUDA out of memory. … (GPU 1; …)``; before 2020 ``| WARNING: ran out of memory with exception: …;`` / `` Skipping
#: batch``): fairseq sets each process's CUDA device to its local rank (``distributed_main(i, …)``: ``device_id = i``,
#: ``torch.cuda.set_device(device_id)``; ``--local_rank``, ``SLURM_LOCALID`` and ``OMPI_COMM_WORLD_LOCAL_RANK`` alike),
#: so the allocator's ``GPU N`` in this wording is the reporting process's local rank (docs/rules.md, session 67)
OOM_FAIRSEQ = re.compile(r"(?:^|[\s|])OOM: Ran out of memory with exception: |\| WARNING: ran out of memory with exception: ")

# ---------------------------------------------------------------------------------------
# CUDA errors (docs/rules.md, rank-failure).
# ---------------------------------------------------------------------------------------
#: torch's ``CUDA error: <message>``, and ROCm's build of torch's ``HIP error: <message>`` (the same check of a HIP call:
#: ``RuntimeError: HIP error: an illegal memory access was encountered`` / ``HIP kernel errors might be asynchronously
#: reported …``; batch 342)
CUDA_ERROR = re.compile(r"(?:CUDA|HIP) error: ([^\n]{1,300}?)\s*(?:$|(?:CUDA|HIP) kernel errors|\.\s*(?:CUDA kernel|HIP kernel|For debugging|Compile with))")
#: The CUDA runtime's error name before its message (thrust/cub, extensions): ``failed to synchronize:
#: cudaErrorECCUncorrectable: uncorrectable ECC error encountered``; Kokkos' ``cudaSetDevice(…) error( cudaErrorDevicesUnavailable): …``
CUDA_ERROR_NAME = re.compile(r"\bcudaError[A-Z]\w{1,60}\)?: ([^\n]{1,300}?)\s*$")
#: The same name and message each quoted (alpaka's ``… returned error  : 'cudaErrorIllegalAddress': 'an illegal memory
#: access was encountered'!``): group 1 the message
CUDA_ERROR_NAME_QUOTED = re.compile(r"['\u2018]cudaError[A-Z]\w{1,60}['\u2019]: ['\u2018]([^'\u2019\n]{1,300})['\u2019]")
#: The CUDA driver API's error name before its message, as the programs that call the driver print it: TensorFlow/XLA's
#: ``failed call to cuDevicePrimaryCtxRetain: CUDA_ERROR_ECC_UNCORRECTABLE: uncorrectable ECC error encountered``, NVHPC
#: OpenACC's ``call to cuCtxCreate returned error 214 (CUDA_ERROR_ECC_UNCORRECTABLE): uncorrectable ECC error
#: encountered`` (or its name and message wrapped onto the next line), JAX's ``XlaRuntimeError: INTERNAL: …
#: CUDA_ERROR_ILLEGAL_ADDRESS: an illegal memory access was encountered``; group 1 the name, group 2 the message.
#: An out-of-memory is no such error (``OOM_CUDA_ERROR``; TensorFlow's allocator retries it), nor is ``cuInit``'s probe
#: finding no GPU (``failed call to cuInit: CUDA_ERROR_NO_DEVICE``: TensorFlow goes on without one)
CUDA_DRIVER_ERROR_NAME = re.compile(r"\b(CUDA_ERROR_[A-Z][A-Z0-9_]{1,60})\)?: ([^\n]{1,300}?)\s*$")
CUDA_DRIVER_NOT_FAILURES = ("CUDA_ERROR_OUT_OF_MEMORY", "CUDA_ERROR_NO_DEVICE")
#: NCCL's ``Cuda failure N 'message'``, and nccl-tests' own check of a CUDA call, with its source line and the host
#: that printed it: ``Cuda failure common.cu:891 'invalid device ordinal'`` (2017), ``node1: Test CUDA failure
#: common.cu:963 'invalid device ordinal'`` (2019-): the process's own CUDA error (docs/rules.md, "Session 33: batch 161")
NCCL_CUDA_FAILURE = re.compile(
    r"(?:Cuda|\bTest CUDA) failure (?:(\d+) |[\w.\-]{1,120}\.cu:\d{1,6} )?['\u2018]([^'\u2019\n]{1,200})(?:['\u2019]|\s*$)")
#: A CUDA extension's own check of a runtime call (vLLM's ``CUDACHECK`` in csrc/custom_all_reduce.cuh: ``Failed: Cuda error
#: /workspace/csrc/custom_all_reduce.cuh:164 'invalid argument'``, and its releases printing no ``Failed:``, ``Cuda error
#: /workspace/csrc/custom_all_reduce.cuh:143 'invalid resource handle'``: vllm#52778, blind batch 396), printed by the
#: process whose call failed, without a rank: group 1 the source file's name, group 2 its line, group 3 the runtime's
#: message. Not nvdiffrast's ``Cuda error: 700[…]`` (a colon after ``error``: RUNTIME_CALL_NUMBER)
EXTENSION_CUDA_CHECK = re.compile(
    r"\b(?:Failed: )?Cuda error (?:[^\s'\u2018\n]{0,300}/)?([^\s/'\u2018\n]{1,120}):(\d{1,6}) ['\u2018]([^'\u2019\n]{1,200})['\u2019]")
#: torch's probe of the GPUs failing at CUDA's initialization (c10's ``Unexpected error from cudaGetDeviceCount(). Did you
#: run some cuda functions before calling NumCudaDevices() that might have already set an error? Error 802: system not yet
#: initialized``), when it is not an exception's message (the log line of a server that caught it, vLLM's ``ERROR … engine.py:
#: 389] Unexpected error …``: gpustack#1254, blind batch 396; torch's ``UserWarning: CUDA initialization: Unexpected error …``,
#: torch.cuda.is_available() then False: dstack#2348): group 1 the runtime's error number, group 2 its message
DEVICE_COUNT_PROBE = re.compile(
    r"\bUnexpected error from cudaGetDeviceCount\(\)[^\n]{0,300}?\bError (\d{1,4}): ([^\n]{1,200}?)\s*$")
#: an exception raised with that message (``RuntimeError: Unexpected error …``): read as the exception it is
DEVICE_COUNT_RAISED = re.compile(r"\b[A-Za-z]\w{0,60}(?:Error|Exception): Unexpected error from cudaGetDeviceCount")
#: A communication library's report of a CUDA call of its own that failed, with the driver's or runtime's reason:
#: UCX's ``cuda_ipc_md.c:62  UCX  ERROR cuCtxGetDevice(&cu_device) is failed. ret:invalid device context`` (UCX 1.x),
#: ``UCX  ERROR cuMemGetAddressRange(&base, &size, addr) failed: invalid argument`` (later releases), ``… failed with 700``
#: (the runtime's number), UCC's ``UCC  ERROR cuCtxGetId(cu_ctx, &cu_ctx_id)() failed: 201(invalid device context)``:
#: group 1 the call, group 2 the reason. Not the library's other errors (``UCX  ERROR connect(…) failed``: no CUDA call)
TRANSPORT_CUDA_CALL = re.compile(
    r"\bUC[XC]\s{1,4}ERROR\s{1,4}((?:cu|cuda)[A-Z]\w{0,60})\((?:[^()\n]|\([^()\n]{0,100}\)){0,200}\)(?:\(\))?"
    r"\s{1,4}(?:is failed\.?\s{0,4}ret:|failed(?::| with\b))\s{0,4}([^\n]{1,200}?)\s*$")
#: A CUDA extension's own check of a runtime call, printing the runtime's error NUMBER and the call's source text:
#: nvdiffrast's ``RuntimeError: Cuda error: 700[cudaStreamSynchronize(stream);]``, ``Cuda error: 801[cudaGraphicsGLRegisterImage(
#: &s.cudaColorBuffer[i], …);]`` (the rasterizer of most 3D generation and reconstruction trainers; docs/rules.md, "Session 35:
#: batch 190"): group 1 the ``cudaError_t`` number, group 2 the call. Not torch's ``CUDA error: <message>`` (upper case)
RUNTIME_CALL_NUMBER = re.compile(r"\bCuda error: (\d{1,4}) ?\[((?:cuda|cu)[A-Z]\w{0,60})\(")
#: A C++ library's own check of a CUDA (or HIP) runtime call, the call's name then the runtime's message
#: (``cudaGetErrorString``) at the line's end, as Horovod's GPU operations throw it (``std::logic_error(std::string(
#: "cudaEventQuery failed: ") + cudaGetErrorString(...))``, uncaught: ``what():  cudaEventQuery failed: an illegal memory
#: access was encountered``) and many extensions print theirs (``cudaMemcpy failed: …``, ``cudaStreamSynchronize failed:
#: …``): group 1 the call, group 2 the message. The name must touch `` failed: `` (UCX's ``cuCtxGetDevice(&d) is failed``
#: is TRANSPORT_CUDA_CALL's)
RUNTIME_CALL_FAILED = re.compile(r"\b((?:cuda|hip)[A-Z]\w{1,60}) failed: ([^\n]{1,300}?)\s*$")
#: PyTorch's kernel-side assertion (``CUDA_KERNEL_ASSERT``), printed by the GPU of the process whose own kernel failed,
#: before its sticky ``CUDA error: device-side assert triggered``: ``.../ScatterGatherKernel.cu:144: operator(): block:
#: [7354,0,0], thread: [64,0,0] Assertion `idx_dim >= 0 && ...` failed.`` The kernel's name may be long (THC's ``void
#: indexSelectLargeIndex(...) [with T = float, ...]:``) or missing (a Windows build's ``ScatterGatherKernel.cu:145: block:
#: [0,0,0], thread: [59,0,0] Assertion ...``); group 1 the condition. ``block``/``thread`` are CUDA grid indices, no rank.
CUDA_KERNEL_ASSERT = re.compile(
    r"\.cuh?:\d{1,6}:(?: [^\n]{0,400}?:)? block: \[\d{1,10}, ?\d{1,10}, ?\d{1,10}\], thread: \[\d{1,10}, ?\d{1,10}, ?\d{1,10}\]"
    r" Assertion [`']([^\n]{1,300}?)[`'] failed")
#: A SYCL runtime's report of its own failed GPU runtime call (AdaptiveCpp / hipSYCL, on the HIP or CUDA backend):
#: ``hip_queue: hipMemsetAsync() failed (error code = HIP:1)``, ``cuda_queue: cudaMemcpyAsync() failed (error code =
#: CUDA:700)``; printed in its error report before the process is terminated
SYCL_RUNTIME_CALL = re.compile(r"\b((?:hip|cuda|cu)[A-Z]\w{1,60})\(\) failed \(error code = (HIP|CUDA):(-?\d{1,6})\)")
#: THC's check of a CUDA call (PyTorch <= 1.10, before ATen's ``CUDA error:``): ``THCudaCheck FAIL
#: file=../aten/src/THC/THCCachingHostAllocator.cpp line=280 error=710 : device-side assert triggered``, printed by the
#: process whose call failed, without a rank; group 1 the runtime's error number, group 2 its message
THC_CUDA_CHECK = re.compile(r"\bTHCudaCheck FAIL file=\S{1,400} line=\d{1,6} error=(\d{1,4}) ?: ?([^\n]{1,300}?)\s*$")
#: THC's exception for the same check (PyTorch <= 1.5): ``RuntimeError: cuda runtime error (39) : uncorrectable ECC error
#: encountered at /pytorch/aten/src/THC/THCCachingHostAllocator.cpp:265``; groups as THC_CUDA_CHECK's
THC_RUNTIME_ERROR = re.compile(r"\bcuda runtime error \((\d{1,4})\) ?: ?([^\n]{1,300}?) at \S{1,400}:\d{1,6}\s*$")
#: NCCL's report of the multicast memory its NVLS transport could not bind (the node's NVSwitch fabric: "This is usually
#: caused by a system or configuration error in the Fabric Manager or NVSwitches."): ``Failed to bind NVLink SHARP (NVLS)
#: Multicast memory of size 2097152 : CUDA error 401 'the operation cannot be performed in the present state'.``, a
#: ``Last error:`` payload under torch's ``ncclUnhandledCudaError``; group 1 the CUDA error's number, 2 its message
NVLS_BIND_FAILED = re.compile(r"\bFailed to bind NVLink SHARP \(NVLS\) Multicast memory of size \d{1,20} : CUDA error (\d{1,4}) ['\u2018]([^'\u2019\n]{1,200})")
#: ROCm's runtime on a GPU fault (log_cuda_calls.rocr_fault): ``Memory access fault by GPU node-3 (Agent handle:
#: 0x13e852f0) on address 0x77d445e00000. Reason: Unknown.`` (groups 1-4: the words, the agent, the address, the reason)
#: and ``HW Exception by GPU node-9 (Agent handle: 0x631351bb5a20) reason :GPU Hang`` (groups 5-6: the agent, the reason)
ROCR_FAULT = re.compile(r"(Memory access fault) by GPU node-(\d{1,4}) \(Agent handle: 0x[0-9a-fA-F]{1,16}\) on address "
                        r"(0x[0-9a-fA-F]{1,16})\.? ?(?:Reason: ?([^\n]{0,120}))?"
                        r"|HW Exception by GPU node-(\d{1,4}) \(Agent handle: 0x[0-9a-fA-F]{1,16}\) reason ?: ?([^\n]{0,120})")
#: Category of a CUDA error message, first match wins.
CUDA_KINDS = (
    ("ecc", re.compile(r"(?i)uncorrectable ECC|ECC error")),
    ("illegal-address", re.compile(r"(?i)illegal memory access|illegal address|misaligned address")),
    ("device-assert", re.compile(r"(?i)device-side assert")),
    # the build or driver does not fit the GPU (a kernel image or symbol missing for its architecture, a runtime newer than
    # the driver, PTX from a newer toolchain): the software stack every GPU of that model shares, not one GPU's fault
    ("stack-mismatch", re.compile(r"(?i)named symbol not found|no kernel image is available|invalid device function|"
                                  r"driver version is insufficient|unsupported toolchain|unsupported PTX|"
                                  r"forward compatibility was attempted|CUDA driver is a stub library")),
    ("launch-failure", re.compile(r"(?i)launch failure|launch timed out|too many resources requested for launch")),
    ("device-lost", re.compile(r"(?i)fell off the bus|GPU has fallen|unknown error|device not ready|no CUDA-capable device")),
    # the node not ready for CUDA: 802 (an NVSwitch system's Fabric Manager not running), 803 (driver and kernel module apart)
    ("system-not-ready", re.compile(r"(?i)system not yet initiali[sz]ed|unsupported display driver / cuda driver combination")),
    ("nvlink", re.compile(r"(?i)uncorrectable NVLink error|peer GPU memory over nvlink")),
)

#: a consequence's Xid naming the one that caused it (``NVRM: Xid (PCI:0000:dc:00): 45, pid=…, Ch 00000001 caused by previous
#: Xid 149``: the channels torn down after an NVLink error): the root Xid, read as an event of its own on the same GPU
#: (log_classify for pod logs, dmesg for the node's kernel log)
XID_CAUSE = re.compile(r"\bcaused by previous Xid (\d{1,4})\b")

__all__ = [name for name in dir() if name.isupper()]
#: The NVIDIA driver's failure to initialise a GPU (the kernel log; the GPU is then missing from nvidia-smi and from the
#: node's allocatable): ``NVRM: GPU 0000:d8:00.0: RmInitAdapter failed! (0x26:0xffff:1227)``, ``NVRM: GPU 0000:d8:00.0:
#: rm_init_adapter failed, device minor number 3``; older drivers without the GPU's address: ``NVRM: RmInitAdapter
#: failed! (0x26:0xffff:1127)``, ``NVRM: rm_init_adapter failed for device bearing minor number 0``. Group 1 the PCI
#: address, group 2 the driver's code, group 3 the device's minor number (``/dev/nvidiaN``)
GPU_INIT_FAILED = re.compile(
    r"NVRM: (?:GPU ([0-9a-fA-F]{4,8}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-9a-fA-F]): )?"
    r"(?:RmInitAdapter failed! \((0x[0-9a-fA-F]{1,8}:0x[0-9a-fA-F]{1,8}:\d{1,6})\)"
    r"|rm_init_adapter failed(?:,| for) device (?:bearing )?minor number (\d{1,4}))")
