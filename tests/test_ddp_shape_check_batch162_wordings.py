"""DDP's check that every rank built the same model, in its shape or strides wording (``[5]: params[0] in this process
with sizes [53, 15] appears not to match sizes of the same param in process 0.``; torch 1.x: ``replicas[0][0] in this
process ...``), raised by a rank with no peer seen past it (real incidents batch 162, sktime/pytorch-forecasting#1825:
a TFT whose categorical encoders each process fits on its own share of the data, every rank raising it with its own
shapes). Every rank whose parameter differs from process 0's raises the check, and the message names the pair compared,
not the side that differs: the paste's rank is the copy shown, no culprit. Where a peer saw the reporter's connection
close (gloo's ``Connection closed by peer``), the others got past the check and the reporter's model is the odd one: it
is named, collective-mismatch (docs/rules.md, "Session 34: batch 162"). Pasted logs through ``k10s import-logs``,
batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import naming_findings

NOW = dt.datetime(2026, 12, 2, 6, 0, tzinfo=dt.timezone.utc)
SHAPE = "params[0] in this process with sizes [{a}, 15] appears not to match sizes of the same param in process 0."
STRIDES = "params[3] in this process with sizes [1024] appears not to match strides of the same param in process 0."
OLD = "replicas[0][0] in this process with sizes [200, 128] appears not to match sizes of the same param in process 0."
FRAMES = [
    '  File "/opt/conda/lib/python3.11/site-packages/pytorch_lightning/strategies/ddp.py", line 281, in _setup_model',
    "    return DistributedDataParallel(module=model, device_ids=device_ids, **self._ddp_kwargs)",
    '  File "/opt/conda/lib/python3.11/site-packages/torch/nn/parallel/distributed.py", line 835, in __init__',
    "    _verify_param_shape_across_processes(self.process_group, parameters)",
    '  File "/opt/conda/lib/python3.11/site-packages/torch/distributed/utils.py", line 282, in _verify_param_shape_across_processes',
    "    return dist._verify_params_across_processes(process_group, tensors, logger)",
]
CLOSED = (
    "[rank{r}]: RuntimeError: [/opt/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:534] Connection closed by peer "
    "[10.0.0.7]:{port}"
)


def _traced(rank: int, message: str, tag: str = "") -> list[str]:
    head = f"{tag}[rank{rank}]: "
    return (
        [head + "Traceback (most recent call last):"]
        + [head + f for f in FRAMES]
        + [head + f"RuntimeError: [{rank}]: {message}"]
    )


#: key: (the pasted lines, processes per node, world size, the rank a warning/critical finding must name alone: None)
CASES = {
    # pytorch-forecasting-1825's one line, as pasted
    "lone-rank5-shape": (
        [f"[rank5]: RuntimeError: [5]: {SHAPE.format(a=53)}"],
        None,
        None,
        None,
    ),
    "lone-rank5-shape-world8": (
        [f"[rank5]: RuntimeError: [5]: {SHAPE.format(a=53)}"],
        8,
        8,
        None,
    ),
    "lone-rank2-strides": ([f"[rank2]: RuntimeError: [2]: {STRIDES}"], 4, 4, None),
    # the whole traceback of the rank, under torchrun's --tee prefix too
    "rank3-traceback": (_traced(3, SHAPE.format(a=41)), 4, 4, None),
    "rank3-traceback-tee": (
        _traced(3, SHAPE.format(a=41), tag="[default3]:"),
        4,
        4,
        None,
    ),
    # torch 1.x's wording, unranked (UniAD-189's line)
    "torch1-replicas-unranked": (
        ["Traceback (most recent call last):"] + FRAMES[2:4] + [f"RuntimeError: {OLD}"],
        None,
        None,
        None,
    ),
    # several ranks reporting it, each with its own shape
    "ranks-1-2-3-alike": (
        [
            f"[rank{r}]: RuntimeError: [{r}]: {SHAPE.format(a=50 + r)}"
            for r in (1, 2, 3)
        ],
        4,
        4,
        None,
    ),
    # contrast: a peer saw the reporter's connection close (it got past the check): the reporter's model is the odd one
    "rank1-peer-closed": (
        [
            f"[rank1]: RuntimeError: [1]: {SHAPE.format(a=6)}",
            CLOSED.format(r=0, port=40100),
            CLOSED.format(r=3, port=59080),
        ],
        2,
        4,
        1,
    ),
}
BATCHED = Batched("b162", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_a_lone_reporter_of_ddps_shape_check_names_no_one(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    want = CASES[key][3]
    assert_one_rank(named, want, None if want is None else "collective-mismatch")
