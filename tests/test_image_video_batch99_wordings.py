"""Batch 99's image/video-generation training shapes (tests/data/real-incidents, ``"batch": 99``, family
``image-video-gen``), each with its wording variants, as one pasted log through ``k10s import-logs`` (docs/rules.md,
"Session 28: batch 99"):

* controls: activation checkpointing's own check that the recompute reproduced the forward, raised by whichever rank's
  check fired first, names no one — ``torch.utils.checkpoint.CheckpointError: torch.utils.checkpoint: Recomputed values
  for the following tensors have different metadata than during the forward pass.`` with its per-tensor detail lines
  (ReCamMaster-22, ZeRO-3's partitioned parameters recomputed as ``torch.Size([0])``), the same at the end of a tagged
  traceback with the author's markdown bold (DiffSynth-Studio-576), the older ``A different number of tensors was
  saved during the original forward and recomputation.`` and an untagged copy under torchrun's failure report;
* culprits, the contrast: the same tagged traceback ending in another exception of the backward stays its rank's own,
  and so does a ``CheckpointError`` of another wording (not the recompute check).

The analyses go through tests/bundle_batch.py (every input in one analysis).
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import corpus_log, naming_findings

NOW = dt.datetime(2026, 12, 1, 10, 0, tzinfo=dt.timezone.utc)

RECAM = corpus_log("ReCamMaster-22-zero3-grad-ckpt-rank3-checkpointerror-control")
DIFFSYNTH = corpus_log("DiffSynth-Studio-576-zero3-ckpt-offload-rank4-checkpointerror-control")

#: a torchrun-tagged traceback through a DeepSpeed backward, ending in ``{error}``
TAGGED = ("[rank{r}]: Traceback (most recent call last):\n"
          "[rank{r}]:   File \"/workspace/train_video.py\", line 412, in <module>\n"
          "[rank{r}]:     main()\n"
          "[rank{r}]:   File \"/usr/local/lib/python3.10/dist-packages/deepspeed/runtime/engine.py\", line 2020, in backward\n"
          "[rank{r}]:     self.optimizer.backward(loss, retain_graph=retain_graph)\n"
          "[rank{r}]:   File \"/usr/local/lib/python3.10/dist-packages/torch/utils/checkpoint.py\", line 902, in "
          "check_recomputed_tensors_match\n"
          "[rank{r}]:     raise CheckpointError(\n"
          "[rank{r}]: {error}\n")
ERRORS = {
    "metadata": "torch.utils.checkpoint.CheckpointError: torch.utils.checkpoint: Recomputed values for the following "
                "tensors have different metadata than during the forward pass.",
    "count": "torch.utils.checkpoint.CheckpointError: torch.utils.checkpoint: A different number of tensors was saved "
             "during the original forward and recomputation.",
    "other_checkpoint": "torch.utils.checkpoint.CheckpointError: torch.utils.checkpoint: trying to save more tensors "
                        "during recomputation than during the original forward pass.",
    "shape": "RuntimeError: The size of tensor a (0) must match the size of tensor b (1536) at non-singleton dimension 0",
}
#: torchrun's agent after an untagged copy of the error: the first exit it saw
AGENT = ("W1201 10:00:05.100000 140 torch/distributed/elastic/multiprocessing/api.py:897] Sending process {other} closing "
         "signal SIGTERM\n"
         "E1201 10:00:06.200000 140 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: 1) "
         "local_rank: {r} (pid: {pid}) of binary: /usr/bin/python\n")


def _recam(rank: int) -> str:
    """ReCamMaster-22's lines, rank 3 (device 3) moved to ``rank``."""
    return RECAM.replace("[rank3]:", f"[rank{rank}]:").replace("index=3)", f"index={rank % 8})")


def _diffsynth(rank: int) -> str:
    return DIFFSYNTH.replace("[rank4]:", f"[rank{rank}]:")


def _tagged(error: str, rank: int) -> str:
    return TAGGED.format(r=rank, error=ERRORS[error])


def _untagged_agent(rank: int) -> str:
    """The same traceback with no rank tag, then torchrun's report of local rank ``rank`` (a two-process node)."""
    body = "".join(line.split("]: ", 1)[1] + "\n" for line in _tagged("metadata", rank).splitlines())
    return body + AGENT.format(r=rank, pid=300 + rank, other=300 + 1 - rank)


BUILD = {"recam": _recam, "diffsynth": _diffsynth, "untagged_agent": _untagged_agent,
         **{e: (lambda r, e=e: _tagged(e, r)) for e in ERRORS}}
#: (processes per node, world size) for each shape (None: not known)
SIZES = {"recam": (None, None), "diffsynth": (None, None), "untagged_agent": (2, 2), "metadata": (8, 8),
         "count": (4, 8), "other_checkpoint": (8, 8), "shape": (8, 16)}

# key: (shape, rank); the expected (culprit, cause)
CULPRITS = {("shape", 5): (5, "python-exception"), ("shape", 0): (0, "python-exception"),
            ("other_checkpoint", 2): (2, "python-exception")}
CONTROLS = [("recam", 3), ("recam", 0), ("recam", 6), ("diffsynth", 4), ("diffsynth", 1), ("metadata", 7),
            ("metadata", 0), ("count", 5), ("untagged_agent", 1)]
BATCHED = Batched("image-video-batch99", list(CULPRITS) + CONTROLS)


def _make(key: tuple, folder: Path) -> object:
    nproc, world = SIZES[key[0]]
    return pasted(BUILD[key[0]](key[1]), folder, nproc, NOW, world)


@pytest.mark.parametrize("key", BATCHED.params(CULPRITS))
def test_a_rank_s_own_exception_is_still_named(tmp_path_factory, key):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, *CULPRITS[key])


@pytest.mark.parametrize("key", BATCHED.params(CONTROLS))
def test_a_recompute_check_names_no_one(tmp_path_factory, key):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, None)


def test_the_variants_keep_their_shape():
    """The builders move the rank, not the wording the tests are about."""
    assert _recam(3) == RECAM and _diffsynth(4) == DIFFSYNTH
    assert "**Recomputed values for the following tensors have different metadata" in _diffsynth(1)
    assert _untagged_agent(1).startswith("Traceback (most recent call last):\n")
    assert "Sending process 300 closing signal SIGTERM" in _untagged_agent(1)
    assert "failed (exitcode: 1) local_rank: 1 (pid: 301) of binary" in _untagged_agent(1)
