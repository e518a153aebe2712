"""The CUDA driver API's error names (``CUDA_ERROR_*``) as the programs that call the driver print them: TensorFlow/XLA
(``failed call to cuDevicePrimaryCtxRetain: CUDA_ERROR_ECC_UNCORRECTABLE: …``), NVHPC OpenACC (``call to cuCtxCreate
returned error 214 (CUDA_ERROR_ECC_UNCORRECTABLE): …``, often wrapped after the number), JAX (``XlaRuntimeError:
INTERNAL: … CUDA_ERROR_ILLEGAL_ADDRESS: …``). Before session 54 only the runtime's ``cudaError…:`` form was read
(blind batch 315: MFlowCode/MFC#1748's OpenACC line read as nothing); the runtime's name and message each quoted
(alpaka) and NCCL's ``Cuda failure N 'message`` with its closing quote lost are read since then too. An out-of-memory is not such an error here
(TensorFlow's allocator retries it) nor is ``cuInit``'s probe finding no GPU. Pasted logs through ``k10s import-logs``,
batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import naming_findings
from k10s_forensics.parsers.log_failures import cuda_error

NOW = dt.datetime(2026, 12, 5, 14, 0, tzinfo=dt.timezone.utc)

ECC_TF = "E external/xla/xla/stream_executor/cuda/cuda_driver.cc:152] failed call to cuDevicePrimaryCtxRetain: CUDA_ERROR_ECC_UNCORRECTABLE: uncorrectable ECC error encountered"
ECC_ACC = ["Accelerator Fatal Error: call to cuCtxCreate returned error 214", "  (CUDA_ERROR_ECC_UNCORRECTABLE): uncorrectable ECC error encountered"]
JAX_ILLEGAL = ("jaxlib.xla_extension.XlaRuntimeError: INTERNAL: Failed to execute XLA Runtime executable: run time error: custom call "
               "'xla.gpu.func.launch' failed: Failed to launch CUDA kernel: CUDA_ERROR_ILLEGAL_ADDRESS: an illegal memory access was encountered")
NO_DEVICE = "E tensorflow/compiler/xla/stream_executor/cuda/cuda_driver.cc:268] failed call to cuInit: CUDA_ERROR_NO_DEVICE: no CUDA-capable device is detected"
TF_OOM = "E tensorflow/stream_executor/cuda/cuda_driver.cc:806] failed to allocate 2.00G (2147483648 bytes) from device: CUDA_ERROR_OUT_OF_MEMORY: out of memory"


@pytest.mark.parametrize(
    ("line", "subkind", "message"),
    [
        (ECC_TF, "ecc", "uncorrectable ECC error encountered"),
        (ECC_ACC[1], "ecc", "uncorrectable ECC error encountered"),
        (" ".join(ECC_ACC), "ecc", "uncorrectable ECC error encountered"),
        (JAX_ILLEGAL, "illegal-address", "an illegal memory access was encountered"),
        (NO_DEVICE, None, None),
        (TF_OOM, None, None),
        ("see CUDA_ERROR_ECC_UNCORRECTABLE in the driver API reference", None, None),  # the name alone, no message after it
        # the runtime's name and message each quoted (alpaka; picongpu#3077's shape)
        ("Error: /opt/alpaka/include/alpaka/mem/buf/BufCudaRt.hpp(166) 'cudaFree(ptr)' returned error  : 'cudaErrorIllegalAddress': "
         "'an illegal memory access was encountered'!", "illegal-address", "an illegal memory access was encountered"),
        # NCCL's ``Cuda failure N 'message'`` with its closing quote lost to the paste (nccl-tests#276's shape)
        ("gpu47:4962:5097 [1] transport/nvls.cc:223 NCCL WARN Cuda failure 999 'unknown error", "device-lost", "unknown error"),
    ],
    ids=["tf-ctx-retain", "openacc-wrapped", "openacc-one-line", "jax-illegal-address", "cuinit-no-device", "tf-oom", "name-only",
         "alpaka-quoted", "nccl-unclosed-quote"],
)
def test_driver_api_error_name_is_a_cuda_error(line, subkind, message):
    ev = cuda_error(line)
    assert (ev and ev["subkind"], ev and ev["error_message"]) == (subkind, message)


def _ranked(rank_lines: dict[int, list[str]]) -> list[str]:
    return [f"[rank{r}]: {line}" for r, lines in sorted(rank_lines.items()) for line in lines]


WAIT = "Watchdog caught collective operation timeout: WorkNCCL(SeqNum=88, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600012 milliseconds before timing out."

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    "ecc-rank3-others-wait": (_ranked({3: [ECC_TF], 0: [WAIT], 1: [WAIT], 2: [WAIT]}), 4, 4, 3, "cuda-error"),
    "ecc-rank1-renumbered": (_ranked({1: [ECC_TF], 0: [WAIT], 2: [WAIT], 3: [WAIT]}), 4, 4, 1, "cuda-error"),
    "jax-illegal-rank2": (_ranked({2: [JAX_ILLEGAL], 0: [WAIT], 1: [WAIT], 3: [WAIT]}), 4, 4, 2, "cuda-error"),
    "ecc-every-rank-alike": (_ranked({r: [ECC_TF] for r in range(4)}), 4, 4, None, None),
    "cuinit-no-device-rank3": (_ranked({3: [NO_DEVICE], 0: ["step 10 loss 2.1"], 1: ["step 10 loss 2.1"], 2: ["step 10 loss 2.1"]}), 4, 4, None, None),
    "tf-oom-retried-rank3": (_ranked({3: [TF_OOM], 0: ["step 10 loss 2.1"], 1: ["step 10 loss 2.1"], 2: ["step 10 loss 2.1"]}), 4, 4, None, None),
}
BATCHED = Batched("cuda-driver-names", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_driver_api_error_names_in_pastes(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])
