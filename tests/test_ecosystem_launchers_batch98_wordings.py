"""Batch 98's shapes (tests/data/real-incidents, ``"batch": 98``, family ``ecosystem-launchers``), with their wording
variants, as pasted logs through ``k10s import-logs`` (docs/rules.md, "Session 28: batch 98").

Paddle's dtype type-promotion check (``TypeError: (InvalidType) Type promotion only support calculations between
floating-point numbers and between complex and real numbers. But got different data type x: int64, y: int32.``) is the
installed build refusing an op on two dtypes; a tensor's dtype is the program's, not the data's, so every worker running
the same code on the same build meets it alike (ERNIE-1392: erniekit's MoE layer, the maintainer's answer an upgraded
image). Whichever container Paddle's launcher reports (``Container rank N status failed``), and whichever rank a
torchrun-style prefix tags, it names no one. Another exception behind the same launcher report keeps its culprit
(ERNIE-1291's ``ValueError: (InvalidArgument) concat()``), and the legacy launcher's ``ABORT!!!`` summaries keep
naming the trainers they list (PaddleOCR-3817's ``rank=[1]``; every trainer listed: no one).

The analyses go through tests/bundle_batch.py (every input in one analysis).
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import corpus_log, naming_findings

NOW = dt.datetime(2026, 12, 1, 7, 0, tzinfo=dt.timezone.utc)

ERNIE = corpus_log("ERNIE-1392-erniekit-container-rank0-moe-type-promotion-image-update-control")
PROMOTION = ("TypeError: (InvalidType) Type promotion only support calculations between floating-point numbers and "
             "between complex and real numbers. But got different data type x: int64, y: int32. "
             "(at /paddle/paddle/phi/common/type_promotion.h:228)")
CONCAT = ("ValueError: (InvalidArgument) concat(): argument 'x' (position 0) must be list of Tensors, but got empty list "
          "(at /paddle/paddle/fluid/pybind/eager_utils.cc:1393)")
ABORT_ONE = corpus_log("PaddleOCR-3817-legacy-launch-rank1-of-2-aborted-after-epoch3-save")
ABORT_ALL = corpus_log("PaddleOCR-8293-legacy-launch-doubled-abort-all-four-trainers-control")
TORCHRUN = """[rank{r}]: Traceback (most recent call last):
[rank{r}]:   File "/workspace/train.py", line 40, in <module>
[rank{r}]:     out = paddle.maximum(a, b)
[rank{r}]: {error}
"""


def _container(rank: int, text: str = ERNIE) -> str:
    """The ERNIE paste with the launcher reporting container ``rank`` (its workerlog too)."""
    return (text.replace("Container rank 0 status failed", f"Container rank {rank} status failed")
            .replace("erniekit_dist_log/workerlog.0", f"erniekit_dist_log/workerlog.{rank}"))


def _error(error: str, text: str = ERNIE) -> str:
    """The ERNIE paste with ``error`` in place of the type-promotion TypeError (both copies)."""
    return text.replace(PROMOTION, error)


#: key: (the log, processes per node, the rank a warning/critical finding must name alone: None for none)
CASES = {
    "ernie-container-rank0": (ERNIE, 8, None),
    "ernie-container-rank3": (_container(3), 8, None),
    "ernie-supports": (_error(PROMOTION.replace("only support ", "only supports ")), 8, None),
    "ernie-no-source-line": (_error(PROMOTION.split(" (at ")[0]), 8, None),
    "ernie-float16-bool": (_error(PROMOTION.replace("x: int64, y: int32", "x: float16, y: bool")), 8, None),
    "torchrun-lone-rank2": (TORCHRUN.format(r=2, error=PROMOTION), 4, None),
    # contrasts: another exception behind the same launcher report; the legacy launcher's summaries
    "ernie-concat-rank0": (_error(CONCAT), 8, 0),
    "torchrun-lone-rank2-other-typeerror": (
        TORCHRUN.format(r=2, error="TypeError: unsupported operand type(s) for +: 'int' and 'NoneType'"), 4, 2),
    "legacy-abort-rank1-of-2": (ABORT_ONE, 2, 1),
    "legacy-abort-every-trainer-doubled": (ABORT_ALL, 4, None),
}
BATCHED = Batched("b98", list(CASES))


def _make(key: str, folder: Path):
    text, nproc, _ = CASES[key]
    return pasted(text, folder, nproc, NOW)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_a_dtype_type_promotion_refusal_is_every_workers(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][2])
