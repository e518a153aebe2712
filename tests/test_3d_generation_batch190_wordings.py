"""Multi-GPU training of 3D generative and reconstruction models (real incidents batch 190): their wordings, pinned as
read. Held controls: Hunyuan3D-2.1's shape DiT recipe failing every rank's sanity-check validation, the excerpt rank 0's
``[rank0]:`` frames cut before the exception (Tencent-Hunyuan/Hunyuan3D-2.1#67), its hy3dpaint trainer switched to FSDP,
rank 0's Lightning fit-loop frames cut (#187), GET3D's four spawned workers failing at the first visualization, the
parent's traceback into ``torch.multiprocessing.spawn`` cut before a process is named, after nvdiffrast's plugin
``Lock file exists`` warning (nv-tlabs/GET3D#155), Grendel-GS's two ranks' ``Initializing -> world_size: 2 rank: N``
lines glued on one line under torchrun (nyu-systems/Grendel-GS#61) and TRELLIS.2's c10 interpreter frames of an illegal
memory access only multi-GPU runs hit (microsoft/TRELLIS.2#164): with or without a layout, none names a rank.

The batch's one miss as read: worker 5's ``[5]:``-prefixed frames of an LRM-style mesh generator, cut before the
exception (the issue's title holds nvdiffrast's ``Cuda error: 700[cudaStreamSynchronize(stream);]``,
NVlabs/nvdiffrast#197), name no one: a cut record names no one (tests/corpus_not_yet_s35.py). Contrasts: the same
frames ending in the worker's CUDA error behind torchrun's ``--tee`` prefix (``[default5]:``, or ``[5]:`` of an empty
role glued to the line) name rank 5, cuda-error.

The fix (parsers/log_cuda_calls.py ``runtime_call_number``): nvdiffrast's own check of a CUDA runtime call prints the
runtime's error NUMBER and the call, ``RuntimeError: Cuda error: 700[cudaStreamSynchronize(stream);]`` (``801[cudaGraphics
GLRegisterImage(…)]``, ``209[cudaLaunchKernel(…)]``): the printing process's own CUDA error (700: an illegal address),
where it read as a plain Python exception; ranked it names its rank, cuda-error; unranked it names no one; number 2
(``cudaMalloc``'s out of memory) is left as it was. Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 2, 10, 0, tzinfo=dt.timezone.utc)


PEEL = corpus_lines("nvdiffrast-197-")
SANITY = corpus_lines("Hunyuan3D-2.1-67-")
FSDP = corpus_lines("Hunyuan3D-2.1-187-")
SPAWN = corpus_lines("GET3D-155-")
GLUED = corpus_lines("Grendel-GS-61-")
FRAMES = corpus_lines("TRELLIS.2-164-")
IMA = "RuntimeError: CUDA error: an illegal memory access was encountered"
NVDR_700 = "RuntimeError: Cuda error: 700[cudaStreamSynchronize(stream);]"
NVDR_801 = (
    "RuntimeError: Cuda error: 801[cudaGraphicsGLRegisterImage(&s.cudaColorBuffer[i], s.glColorBuffer[i], "
    "GL_TEXTURE_3D, cudaGraphicsRegisterFlagsReadOnly);]"
)
NVDR_209 = "RuntimeError: Cuda error: 209[cudaLaunchKernel(func, gridSize, blockSize, args, 0, stream);]"
NVDR_2 = "RuntimeError: Cuda error: 2[cudaMalloc(&m_gpuPtr, bytes);]"

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # nvdiffrast-197's shape, the miss as read: worker 5's first frames, the exception cut
    "peel-rank5-frames-cut-as-pasted": (PEEL, None, None, None, None),
    "peel-rank5-frames-cut-layout-8": (PEEL, 8, 8, None, None),
    "peel-rank5-frames-cut-no-timestamps": (
        [x for x in PEEL if x.startswith("[5]:")],
        None,
        None,
        None,
        None,
    ),
    # Hunyuan3D-2.1-67's and -187's shape: rank 0's frames, the exception cut
    "sanity-val-rank0-frames-as-pasted": (SANITY, None, None, None, None),
    "sanity-val-rank0-frames-layout-4": (SANITY, 4, 4, None, None),
    "fsdp-fit-loop-rank0-frames-as-pasted": (FSDP, None, None, None, None),
    "fsdp-fit-loop-rank0-frames-layout-8": (FSDP, 8, 8, None, None),
    # GET3D-155's shape: the parent's traceback into spawn, cut before a process is named
    "spawn-visualization-traceback-cut-as-pasted": (SPAWN, None, None, None, None),
    "spawn-visualization-traceback-cut-layout-4": (SPAWN, 4, 4, None, None),
    "spawn-visualization-without-lock-warning": (SPAWN[1:], 4, 4, None, None),
    # Grendel-GS-61's shape: two ranks' init lines glued, no error
    "two-ranks-init-glued-as-pasted": (GLUED, None, None, None, None),
    "two-ranks-init-glued-layout-2": (GLUED, 2, 2, None, None),
    # TRELLIS.2-164's shape: c10 interpreter frames, no rank
    "c10-frames-no-rank-as-pasted": (FRAMES, None, None, None, None),
    "c10-frames-no-rank-layout-2": (FRAMES, 2, 2, None, None),
    "c10-frames-after-unranked-ima": ([IMA] + FRAMES, 2, 2, None, None),
    # contrasts: the worker's own CUDA error behind torchrun's --tee prefix names it
    "peel-rank5-frames-with-tee-cuda-error": (
        [x.replace("[5]: ", "[default5]:") for x in PEEL] + ["[default5]:" + IMA],
        8,
        8,
        5,
        "cuda-error",
    ),
    # the fix: nvdiffrast's numbered runtime-call check is the printing rank's CUDA error
    "peel-rank5-frames-with-nvdiffrast-700": (
        [x.replace("[5]: ", "[default5]:") for x in PEEL] + ["[default5]:" + NVDR_700],
        8,
        8,
        5,
        "cuda-error",
    ),
    "peel-rank5-frames-with-nvdiffrast-700-2x-tag": (
        [x.replace("[5]: ", "[rank5]: ") for x in PEEL] + ["[rank5]: " + NVDR_700],
        8,
        8,
        5,
        "cuda-error",
    ),
    "nvdiffrast-801-gl-register-rank3": (
        ["[rank3]: " + NVDR_801],
        4,
        4,
        3,
        "cuda-error",
    ),
    "nvdiffrast-209-no-kernel-image-local-rank1": (
        ["[default1]:" + NVDR_209],
        2,
        2,
        1,
        "cuda-error",
    ),
    "nvdiffrast-700-unranked": ([NVDR_700], 4, 4, None, None),
    "nvdiffrast-700-unranked-traceback": (
        [
            "Traceback (most recent call last):",
            '  File "/usr/local/lib/python3.10/dist-packages/nvdiffrast/torch/ops.py", line 248, in forward',
            "    out, out_db = _get_plugin().rasterize_fwd_cuda(raster_ctx.cpp_wrapper, pos, tri, resolution, ranges, peeling_idx)",
            NVDR_700,
        ],
        None,
        None,
        None,
        None,
    ),
    # number 2 (out of memory in cudaMalloc) is left as it was read: the rank's exception
    "nvdiffrast-2-cudamalloc-rank2": (["[default2]:" + NVDR_2], 4, 4, 2, None),
    "peel-rank5-empty-role-glued-cuda-error": (
        PEEL + ["[5]:" + IMA],
        8,
        8,
        5,
        "cuda-error",
    ),
}
BATCHED = Batched("b190", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_3d_generation_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])
