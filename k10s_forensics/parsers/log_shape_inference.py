"""An exception raised under pipelining's shape inference: the stage ran its own module on the shape the previous
stage sent, so a stage built wrong on either side of that hand-over raises in the receiving one.

torch.distributed.pipelining's schedules infer each stage's inputs and outputs on their first step
(``PipelineStage._prepare_forward_infra`` -> ``_forward_metadata_inference``, torch 2.6 on; ``_shape_inference``
before it, whose debug record says ``Shape inference: stage 2 receiving from stage 1``): a stage receives the previous
stage's output metadata and runs its own module on tensors of that shape. A stage whose layer is built wider (rank 1's
stage 1 sending 20 columns) makes the NEXT stage raise there (``RuntimeError: mat1 and mat2 shapes cannot be multiplied
(2x20 and 16x16)`` on rank 2), as a receiving stage built narrower does: which of the two is wrong no line says.

So an exception raised (subkind ``raised``, and no torch.distributed call under the frame: the metadata's receive
timing out is a wait, read as before) through such a frame of the same printer, ``SHAPE_GAP`` lines above it at most,
gets its message marked (``SHAPE_INFERENCE``, with the stages the printer's last ``Shape inference:`` record names
where it printed one), and queries/_incident.sql names no one for it (info; docs/rules.md, "Session 34: leftovers").
A CUDA error or OOM there is the rank's own device's, read as before.
"""

from __future__ import annotations

import re
from typing import Any

from k10s_forensics.parsers.log_normalize import Normalized

Event = dict[str, Any]

#: a frame of the stage's shape inference: ``File ".../torch/distributed/pipelining/stage.py", line 2068, in
#: _forward_metadata_inference`` (2.6 on), ``… in _shape_inference`` (2.4, 2.5)
SHAPE_FRAME = re.compile(r"^\s*File \"[^\"]{0,400}torch/distributed/pipelining/stage\.py\", line \d{1,7}, "
                         r"in (?:_forward_metadata_inference|_shape_inference)\s*$")
#: the stage's debug record of the hand-over it infers from: ``stage.py:1354] Shape inference: stage 2 receiving from stage 1``
SHAPE_RECORD = re.compile(r"\bShape inference: stage (\d{1,5}) receiving from stage (\d{1,5})\b")
SHAPE_GAP = 300  # that frame, the module's frames under it (a model's nested forwards), then the exception
#: the mark such an exception's message gets (queries/_incident.sql, shape_inference)
SHAPE_INFERENCE = "raised in pipelining's shape inference"


class ShapeInference:
    """Per printing rank: its last shape-inference frame and its last ``Shape inference:`` record's stages."""

    def __init__(self) -> None:
        self._frame: dict[int | None, int] = {}
        self._stages: dict[int | None, tuple[str, str]] = {}

    def frame(self, line_no: int, norm: Normalized) -> bool:
        """Remember a shape-inference frame (no event: True) or record (its stages; it goes on to be read: False)."""
        if "pipelining/stage.py" in norm.text and SHAPE_FRAME.match(norm.text):
            self._frame[norm.rank] = line_no
            return True
        m = SHAPE_RECORD.search(norm.text) if "Shape inference" in norm.text else None
        if m is not None:
            self._stages[norm.rank] = (m.group(1), m.group(2))
        return False

    def mark(self, line_no: int, norm: Normalized, head: Event) -> None:
        """Mark the exception ending a traceback under such a frame (the frame is used up by any failure line)."""
        if head["kind"] not in ("python_exception", "cuda_error", "cuda_oom", "nccl_error_other", "nccl_remote_error"):
            return
        frame = self._frame.pop(norm.rank, None)
        if (frame is None or line_no - frame > SHAPE_GAP or head["kind"] != "python_exception" or head.get("subkind") != "raised"
                or head.get("op_type") is not None or head.get("error_type") is None):
            return
        stages = self._stages.get(norm.rank)
        where = f" (stage {stages[0]} receiving from stage {stages[1]})" if stages else ""
        head["error_message"] = f"{SHAPE_INFERENCE}{where}: {head.get('error_message') or head['error_type']}"[:300]


__all__ = ["SHAPE_FRAME", "SHAPE_GAP", "SHAPE_INFERENCE", "SHAPE_RECORD", "ShapeInference"]
