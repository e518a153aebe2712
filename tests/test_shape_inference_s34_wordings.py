"""An exception raised under pipelining's shape inference names no one: the stage ran its own module on the shape the
previous stage sent (``PipelineStage._prepare_forward_infra`` -> ``_forward_metadata_inference``, torch 2.6 on;
``_shape_inference`` with its ``Shape inference: stage 2 receiving from stage 1`` record before), so a stage built wrong
on either side of that hand-over raises in the receiving one (the thirty-fourth launcher set: rank 1's stage 1 built 20
wide, rank 2 raises ``mat1 and mat2 shapes cannot be multiplied (2x20 and 16x16)`` and was named). Said at info, with
the stages where a record names them; the raising rank is not silent either (the others' receive timeouts do not make
it the one that never joined). The same error raised in a stage's forward during the schedule's steps (no inference
frame) is that rank's own, as before; a receive timing out under the frame is a wait (docs/rules.md, "Session 34:
leftovers"). Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import naming_findings

NOW = dt.datetime(2026, 12, 2, 6, 0, tzinfo=dt.timezone.utc)
TORCH = "/opt/venv/lib/python3.11/site-packages/torch"
GLOO = "/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp"
MATMUL = "RuntimeError: mat1 and mat2 shapes cannot be multiplied (2x20 and 16x16)"


def _frames(r: int, frames: list[tuple[str, str]], tag: str = "[rank{r}]:") -> list[str]:
    t = tag.format(r=r)
    return [f'{t}   File "{path}", line 1, in {fn}' for path, fn in frames]


def _infer(r: int, error: str = MATMUL, method: str = "_forward_metadata_inference", tag: str = "[rank{r}]:",
           deep: int = 0) -> list[str]:
    """Rank r's traceback raised in its stage's module under the inference frame (``deep`` more model frames)."""
    t = tag.format(r=r)
    model = [("/workspace/model.py", "forward")] * deep
    return ([f"{t} Traceback (most recent call last):"]
            + _frames(r, [(f"{TORCH}/distributed/pipelining/schedules.py", "step"),
                          (f"{TORCH}/distributed/pipelining/schedules.py", "_initialize_stages"),
                          (f"{TORCH}/distributed/pipelining/stage.py", "_prepare_forward_infra"),
                          (f"{TORCH}/distributed/pipelining/stage.py", method),
                          (f"{TORCH}/distributed/pipelining/stage.py", "_compute_outputs"),
                          (f"{TORCH}/nn/modules/module.py", "_call_impl")] + model
                      + [(f"{TORCH}/nn/modules/linear.py", "forward")], tag)
            + [f"{t}     return F.linear(input, self.weight, self.bias)", f"{t}            ^^^^^^^^^^^^^^^^^^^^^^^^^^^",
               f"{t} {error}"])


def _stepped(r: int, error: str = MATMUL) -> list[str]:
    """The same error raised in the stage's forward during the schedule's steps (no inference frame)."""
    t = f"[rank{r}]:"
    return ([f"{t} Traceback (most recent call last):"]
            + _frames(r, [(f"{TORCH}/distributed/pipelining/schedules.py", "_step_microbatches"),
                          (f"{TORCH}/distributed/pipelining/stage.py", "forward_one_chunk"),
                          (f"{TORCH}/distributed/pipelining/stage.py", "_compute_outputs"),
                          (f"{TORCH}/nn/modules/linear.py", "forward")])
            + [f"{t} {error}"])


def _recv_wait(r: int, under_inference: bool = True) -> list[str]:
    t = f"[rank{r}]:"
    frames = ([(f"{TORCH}/distributed/pipelining/stage.py", "_forward_metadata_inference"),
               (f"{TORCH}/distributed/pipelining/stage.py", "_recv_meta")] if under_inference
              else [(f"{TORCH}/distributed/pipelining/stage.py", "forward_one_chunk")])
    return ([f"{t} Traceback (most recent call last):"]
            + _frames(r, frames + [(f"{TORCH}/distributed/distributed_c10d.py", "recv_object_list")])
            + [f"{t}     work.wait()",
               f"{t} RuntimeError: [{GLOO}/unbound_buffer.cc:78] Timed out waiting 3000ms for recv operation to complete"])


def _closed(r: int) -> list[str]:
    return [f"[rank{r}]: Traceback (most recent call last):",
            f"[rank{r}]: RuntimeError: [{GLOO}/pair.cc:561] Connection closed by peer [127.0.0.1]:14236. This is "
            "typically caused by a remote worker crashing. Check the logs of the remote worker."]


def _start() -> list[str]:
    return [f"rank {r}/4 (local {r % 2}) starting, plan interleaved" for r in range(4)]


RECORD = "[rank{r}]:V1202 02:29:45.929000 3080918 torch/distributed/pipelining/stage.py:1354] Shape inference: stage {s} receiving from stage {p}"

#: key: (the pasted lines, the rank a warning/critical finding must name alone: None for none)
CASES = {
    # the run (2.14.1's order): rank 2 raises under the inference frame, ranks 1 and 3 time out receiving the metadata,
    # rank 0 sees the connection close
    "inference-frame-receiving-stage": (_start() + _infer(2) + _closed(0) + _recv_wait(3) + _recv_wait(1), None),
    # 2.13.0's order: the waiters first
    "inference-frame-waiters-first": (_start() + _recv_wait(1) + _infer(2) + _recv_wait(3) + _closed(0), None),
    # older torch's _shape_inference with its debug record naming the stages, a model's nested forwards under it
    "shape-inference-record-stages": (_start() + [RECORD.format(r=2, s=2, p=1)] + _infer(2, method="_shape_inference", deep=12)
                                      + _recv_wait(3) + _closed(0) + _recv_wait(1), None),
    # another shape error wording (a view), rank 1 the receiving stage, its waiters' timeouts only
    "inference-frame-view-error": (_start() + _infer(1, "RuntimeError: shape '[2, 16]' is invalid for input of size 40")
                                   + _recv_wait(2) + _recv_wait(0), None),
    # contrasts: the same error in the schedule's forward (no inference frame) names the rank, as before
    "stepped-forward-names-the-rank": (_start() + _stepped(2) + _closed(0) + _closed(1) + _closed(3), 2),
}
BATCHED = Batched("s34shape", list(CASES))


def _make(key: str, folder: Path):
    return pasted(CASES[key][0], folder, 2, NOW, world=4)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_an_error_in_pipelining_shape_inference_names_no_one(key, tmp_path_factory):
    findings = BATCHED.findings(key, tmp_path_factory, _make)
    assert_one_rank(naming_findings(findings), CASES[key][1])
    if CASES[key][1] is None:  # said at info, naming no one, with what the log shows
        said = [f for f in findings if f["rule"] == "rank-failure"]
        assert said and all(f["severity"] == "info" and f["ranks"] == [] for f in said), said
        assert all("shape inference" in f["summary"] for f in said)
        assert "stage 2 receiving from stage 1" in said[0]["summary"] or key != "shape-inference-record-stages"
