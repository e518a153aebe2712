"""A non-finite loss printed without a step counter (docs/rules.md, "Session 61: a non-finite loss with no step
counter"): ``Epoch 3 loss: nan``, ``epoch 2 | train loss nan``, ``[rank1] loss=nan``, ``Train loss: inf``, ``avg_loss nan``
are progress lines (training_step rows of subkind ``progress``, step null) whose value the one-rank reading of session 60
reads as it reads ``step 3 loss nan``. The shape is bounded (a loss / grad-norm word, a separator, a number, ``nan`` or
``inf``, and the line's start, an epoch counter or a rank before it), so near-misses stay no progress lines: ``loss scale:
inf``, ``loss_fn = nan_to_num``, ``NaN or Inf found in input tensor``, ``skipping step, loss scale reduced``, a config
dump's ``loss_type: nan-safe``, an exception's ``ValueError: loss is nan``. Contrasts: every rank's loss non-finite alike,
two ranks', a near-miss on one rank name no one.

The node sets are session 60's (tests/test_nonfinite_progress_rank.py): 2 x 2 under ``--tee 3``, every rank raising the
same ``clip_grad_norm_`` error milliseconds apart, each rank printing its loss before backward, here with no step counter.
"""

from __future__ import annotations

import duckdb
import pytest

from bundle_batch import analyze_node_sets, assert_names
from test_nonfinite_progress_rank import AGENT, CLIP, SIGTERM, _p, _stamp, _table, _tb
from torch_runs_kit import CAPTURED

#: each shape's finite progress text of rank r in epoch e, and its non-finite one
SHAPES = {
    "epoch": ("Epoch {e} loss: 0.1{e}{r}", "Epoch 3 loss: nan"),
    "epoch-bar": ("epoch {e} | train loss 0.1{e}{r}", "epoch 3 | train loss nan"),
    "rank-tag": ("[rank{r}] loss=0.1{e}{r}", "[rank{r}] loss=nan"),
    "train-loss": ("Train loss: 0.1{e}{r}", "Train loss: inf"),
    "avg-loss": ("avg_loss 0.1{e}{r}", "avg_loss nan"),
}
NEAR_MISSES = ["loss scale: inf", "loss_fn = nan_to_num", "UserWarning: NaN or Inf found in input tensor.",
               "skipping step, loss scale reduced", "loss_type: nan-safe", "ValueError: loss is nan"]


def _node(node: int, finite: str, last: dict[int, str]) -> str:
    """One node's log: each rank's epochs 0-2 (``finite``) and its last line (``last[r]``), every rank's clip_grad_norm_
    error, the agent's SIGTERM of local rank 1 and its report of local rank 0's exit 1 with the failure table."""
    r0, r1, agent, pids = 2 * node, 2 * node + 1, 27166 + node, (27176 + node * 10, 27177 + node * 10)
    errs = {0: "36:23.110000", 1: "36:23.111000", 2: "36:23.101000", 3: "36:23.102000"}
    lines = [(f"36:22.{e}0{r}000", _p(r % 2) + finite.format(e=e, r=r)) for e in range(3) for r in (r0, r1)]
    lines += [("36:23.00" + str(r) + "000", _p(r % 2) + last[r].format(r=r)) for r in (r0, r1)]
    for r in sorted((r0, r1), key=lambda r: errs[r]):
        lines += _tb(errs[r], r, CLIP)
    lines += [("36:23.900000", SIGTERM.format(t="36:23.890000", agent=agent, pid=pids[1])),
              ("36:24.100000", AGENT.format(t="36:24.090000", agent=agent, code=1, lr=0, pid=pids[0]))]
    lines += _table("36:24.100000", (r0, 0, pids[0], 1), (r1, 1, pids[1], -15))
    return _stamp(sorted(lines, key=lambda x: x[0]))


def _job(shape: str, odd: dict[int, str]) -> list[str]:
    """Every rank's last line finite (its epoch 3), but ``odd``'s."""
    finite, _ = SHAPES[shape]
    last = {r: odd.get(r, finite.format(e=3, r=r)) for r in range(4)}
    return [_node(0, finite, last), _node(1, finite, last)]


#: (name, node logs, the ranks warning/critical findings name, a cause one of them gives; [] and None: nothing named)
NODE_SETS = [
    ("epoch-loss-nan-rank1", _job("epoch", {1: SHAPES["epoch"][1]}), [1], "python-exception"),
    ("epoch-bar-train-loss-nan-rank2", _job("epoch-bar", {2: SHAPES["epoch-bar"][1]}), [2], "python-exception"),
    ("rank-tag-loss-eq-nan-rank3", _job("rank-tag", {3: SHAPES["rank-tag"][1]}), [3], "python-exception"),
    ("train-loss-inf-rank0", _job("train-loss", {0: SHAPES["train-loss"][1]}), [0], "python-exception"),
    ("avg-loss-nan-rank1", _job("avg-loss", {1: SHAPES["avg-loss"][1]}), [1], "python-exception"),
    # contrasts: every rank's loss non-finite alike (a learning rate too high), two ranks', near-misses on rank 1
    ("every-rank-epoch-loss-nan", _job("epoch", {r: SHAPES["epoch"][1] for r in range(4)}), [], None),
    ("two-ranks-avg-loss-nan", _job("avg-loss", {1: SHAPES["avg-loss"][1], 2: SHAPES["avg-loss"][1]}), [], None),
    *[(f"near-miss-{i}", _job("train-loss", {1: line}), [], None) for i, line in enumerate(NEAR_MISSES)],
]


@pytest.fixture(scope="module")
def findings(tmp_path_factory) -> list:
    return analyze_node_sets(NODE_SETS, tmp_path_factory.mktemp("nostep"), CAPTURED)


@pytest.mark.parametrize(("i", "want", "cause"), [(i, w, c) for i, (_, _, w, c) in enumerate(NODE_SETS)],
                         ids=[s[0] for s in NODE_SETS])
def test_a_non_finite_loss_with_no_step_counter(findings, i, want, cause):
    assert_names(findings, i, want, cause)


WORDINGS = [  # (line, progress_value: "nan", "inf" or a number; "not a progress line")
    ("Epoch 3 loss: nan", "nan"), ("epoch 2 | train loss nan", "nan"), ("[rank1] loss=nan", "nan"),
    ("Train loss: inf", "inf"), ("avg_loss nan", "nan"), ("[default1]:Epoch [3/10], Loss: nan", "nan"),
    ("rank 1: loss 0.52", 0.52), ("grad_norm: inf", "inf"), ("[rank0]: epoch 1 train_loss=2.31", 2.31),
    ("loss scale: 65536", None), ("loss_fn = nan_to_num", None), ("UserWarning: NaN or Inf found in input tensor.", None),
    ("skipping step, loss scale reduced", None), ("loss_type: nan-safe", None), ("ValueError: loss is nan", None),
    ("[rank1]: ValueError: loss is nan", None), ("[rank2]:     loss = _loss(step, model, x)", None),
    ("    loss, loss_info = compute_loss(", None), ("total loss_scale 1024", None), ("model.loss 3 layers", None),
]


def test_progress_lines_with_no_step_counter(tmp_path):
    from k10s_forensics.logimport import LogSource, import_logs

    # a minute apart: each line its own 10-s interval, none thinned out
    text = "".join(f"2026-12-06T04:{10 + i}:00.000000Z {line}\n" for i, (line, _) in enumerate(WORDINGS))
    import_logs([LogSource("node0.log", text)], tmp_path / "b", job="train", namespace="team-a", now=CAPTURED)
    path = next(tmp_path.rglob("log_events.parquet"))
    rows = {line: (step, subkind, value) for line, step, subkind, value in duckdb.sql(
        f"SELECT line, step, subkind, progress_value FROM '{path}' WHERE kind = 'training_step'").fetchall()}
    got = {line: str(rows[line][2]) if line in rows else "not a progress line" for line, _ in WORDINGS}
    want = {line: "not a progress line" if v is None else str(float(v)) for line, v in WORDINGS}
    assert got == want
    assert {(step, subkind) for step, subkind, _ in rows.values()} == {(None, "progress")}
