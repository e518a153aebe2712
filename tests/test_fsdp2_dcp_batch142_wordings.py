"""FSDP2, DTensor and distributed checkpointing (real incidents batch 142): the family's shapes that name no rank, and
rightly so. A DTensor reproduction's lone ``[rankN]:`` traceback cut before its error (pytorch/pytorch#143748: rank 3's
frames through ``nn.Module`` into a ``Linear`` whose sharding rule fails on every rank; #143372: the middle of rank 0's
frames of an uneven-shard ``view``), and torchtitan's rank-0 log of a DCP save that hangs (pytorch/torchtitan#3065:
``[titan]`` progress, "Saving the checkpoint", wandb's shutdown, rank 0's traceback into ``checkpointer.save``, one
prefix missing its bracket). torchtitan and DTensor repros print rank 0's (or one rank's) stream only, so the one rank
seen is no more the failing one than its peers. Contrast: a lone rank's traceback that ends in its own CUDA OOM still
names that rank (torchtitan-2362's shape). No rule changed for the batch (its misses are NOT_YET); these pin the
controls. Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import naming_findings

NOW = dt.datetime(2026, 12, 1, 23, 0, tzinfo=dt.timezone.utc)
NN = "/opt/miniconda/envs/torchtitan/lib/python3.11/site-packages/torch/nn/modules/module.py"


def _dtensor_frames(r: int, header: bool = True) -> list[str]:
    lines = [f"[rank{r}]: Traceback (most recent call last):"] if header else []
    return lines + [
        f'[rank{r}]:   File "/path/to/repro/linear_bug.py", line 34, in <module>',
        f"[rank{r}]:     mod(x_dt)",
        f'[rank{r}]:   File "{NN}", line 1739, in _wrapped_call_impl',
        f"[rank{r}]:     return self._call_impl(*args, **kwargs)",
        f"[rank{r}]:            ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^",
        f'[rank{r}]:   File "{NN}", line 1750, in _call_impl',
        f"[rank{r}]:     return forward_call(*args, **kwargs)",
        f'[rank{r}]:   File "/path/to/repro/linear_bug.py", line 20, in forward',
        f"[rank{r}]:     return self.layer(x)",
    ]


def _view_frames(r: int) -> list[str]:
    return [
        f'[rank{r}]:   File "/opt/tiger/test.py", line 13, in a',
        f"[rank{r}]:     d_x = d_x.view(-1)",
        f"[rank{r}]:           ^^^^^^^^^^^^",
        f'[rank{r}]:   File "/usr/local/lib/python3.11/dist-packages/torch/_compile.py", line 31, in inner',
        f"[rank{r}]:     return disable_fn(*args, **kwargs)",
    ]


def _titan_save(lost_bracket: bool) -> list[str]:
    tb = (
        "rank0]:Traceback (most recent call last):"
        if lost_bracket
        else "[rank0]:Traceback (most recent call last):"
    )
    return [
        "[rank0]:[titan] 2026-05-12 17:07:23,237 - root - INFO - step: 3000  loss:  3.63069  memory: 92.49GiB(97.36%)  "
        "tps: 77,538  tflops: 111.76  mfu: 11.30% ",
        "[rank0]:[titan] 2026-05-12 17:07:23,237 - root - INFO - Saving the checkpoint (or staging if async is enabled).",
        "[rank0]:wandb: ",
        "[rank0]:wandb: You can sync this run to the cloud by running:",
        tb,
        '[rank0]:  File "/torchtitan/torchtitan/train.py", line 55, in main',
        "[rank0]:    trainer.train()",
        '[rank0]:  File "/torchtitan/torchtitan/trainer.py", line 998, in train',
        "[rank0]:    self.checkpointer.save(",
        "[rank0]:        self.step, last_step=(self.step == config.training.steps)",
    ]


OOM = (
    "[rank3]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 7.65 GiB. GPU 3 has a total capacity of "
    "79.19 GiB of which 6.87 GiB is free. Including non-PyTorch memory, this process has 72.31 GiB memory in use."
)

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone: None)
CASES = {
    # pytorch-143748's shape: one rank's traceback header and frames, cut before the error
    "dtensor-lone-rank3-frames-cut": (_dtensor_frames(3), 4, 4, None),
    # the same in a paste that gives no world size
    "dtensor-lone-rank3-frames-cut-no-world": (_dtensor_frames(3), None, None, None),
    # pytorch-143372's shape: the middle of rank 0's frames, no header, no error
    "dtensor-rank0-mid-frames": (_view_frames(0), 4, 4, None),
    # torchtitan-3065's shape: rank 0's progress, "Saving the checkpoint", its traceback into checkpointer.save
    "titan-dcp-save-rank0-traceback-cut": (_titan_save(False), 4, 4, None),
    # ... with the paste's lost bracket on the traceback header
    "titan-dcp-save-rank0-traceback-cut-lost-bracket": (_titan_save(True), 4, 4, None),
    # contrast: the lone rank's traceback ending in its own CUDA OOM names it
    "contrast-lone-rank3-frames-then-oom": (_dtensor_frames(3) + [OOM], 4, 4, 3),
}
BATCHED = Batched("b142", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_fsdp2_dtensor_dcp_one_rank_streams_place_no_one(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(
        named, CASES[key][3], "cuda-oom" if key.startswith("contrast") else None
    )
