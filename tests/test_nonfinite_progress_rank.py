"""The one rank whose own progress value went non-finite (docs/rules.md, "Session 60: the one rank whose own loss went
non-finite"), in one analysis of small node sets, and the progress values the parser reads off progress lines.

2 x 2 under ``--tee 3``: one rank's batch makes its loss NaN, nothing checks it before backward, DDP's all-reduce
carries the NaN gradients to every rank and all four raise the same ``clip_grad_norm_`` error milliseconds apart (the
fifty-third launcher set's ``nan-spread``). Every rank failed alike, but each prints its loss before backward: the one
rank whose latest value is non-finite while the others' stayed finite is where it began (warning, medium). Contrasts:
every rank's loss non-finite alike (a learning rate too high), two ranks', no loss shown, a rank whose loss is merely
large, only rank 0 printing progress (the others' values unseen), and a near-miss wording (``loss scale: inf``) name no
one; the non-finite rank that also raised first on its own is named as before (critical).
"""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from bundle_batch import analyze_node_sets, assert_names, findings_of
from test_t51_launcher_shapes import AGENT, CLOSED, SIGTERM, _stamp, _table
from torch_runs_kit import CAPTURED

CLIP = ("[rank{r}]: RuntimeError: The total norm of order 2.0 for gradients from `parameters` is non-finite, so it cannot be "
        "clipped. To disable this error and scale the gradients by the non-finite norm anyway, set `error_if_nonfinite=False`")
OWN_FPE = "[rank{r}]: FloatingPointError: loss is nan at step 3"
FINITE = "loss 0.0{r}31"


def _p(local: int) -> str:
    return f"[default{local}]:"


def _tb(t: str, r: int, err: str) -> list[tuple[str, str]]:
    p = _p(r % 2)
    return [(t, f"{p}[rank{r}]: Traceback (most recent call last):"),
            (t, f'{p}[rank{r}]:   File "/workspace/train.py", line 120, in main'), (t, p + err.format(r=r))]


def _node(node: int, last: dict[int, str | None], errs: dict[int, tuple[str, str]], shown: set[int] | None = None) -> str:
    """One node's log: each shown rank's steps 0-2 (finite losses) and its step-3 progress line (``last[r]``: the text
    after ``step 3 ``, None: no line), each rank's error ``errs[r]`` (time, wording), the agent's SIGTERM of local rank
    1 and its report of local rank 0's exit 1 with the failure table."""
    r0, r1, agent, pids = 2 * node, 2 * node + 1, 27166 + node, (27176 + node * 10, 27177 + node * 10)
    shown = {r0, r1} if shown is None else shown
    lines = []
    for s in range(3):
        lines += [(f"36:22.{s}0{r}000", f"{_p(r % 2)}rank {r} step {s} loss 0.1{s}{r}") for r in (r0, r1) if r in shown]
    lines += [("36:23.00" + str(r) + "000", f"{_p(r % 2)}rank {r} step 3 {last[r]}") for r in (r0, r1)
              if r in shown and last.get(r) is not None]
    for r in sorted((r0, r1), key=lambda r: errs[r][0]):
        lines += _tb(errs[r][0], r, errs[r][1])
    lines += [("36:23.900000", SIGTERM.format(t="36:23.890000", agent=agent, pid=pids[1])),
              ("36:24.100000", AGENT.format(t="36:24.090000", agent=agent, code=1, lr=0, pid=pids[0]))]
    lines += _table("36:24.100000", (r0, 0, pids[0], 1), (r1, 1, pids[1], -15))
    return _stamp(sorted(lines, key=lambda x: x[0]))


def _alike(last: dict[int, str | None], shown: set[int] | None = None) -> list[str]:
    """Every rank raises the same clip_grad_norm_ error (ranks 2 and 3 first, as in 2.14.1's recording)."""
    errs = {0: ("36:23.110000", CLIP), 1: ("36:23.111000", CLIP), 2: ("36:23.101000", CLIP), 3: ("36:23.102000", CLIP)}
    return [_node(0, last, errs, shown), _node(1, last, errs, shown)]


def _losses(**nonfinite: str) -> dict[int, str]:
    """Every rank's step-3 progress text finite, but ``r<N>=text``."""
    return {r: nonfinite.get(f"r{r}", FINITE.format(r=r)) for r in range(4)}


def _raised_first() -> list[str]:
    """Rank 1 prints its NaN loss and raises its own FloatingPointError first; the others see its connection close."""
    errs = {0: ("36:23.400000", CLOSED), 1: ("36:23.101000", OWN_FPE), 2: ("36:23.402000", CLOSED), 3: ("36:23.403000", CLOSED)}
    last = _losses(r1="loss nan")
    return [_node(0, last, errs), _node(1, last, errs)]


#: (name, node logs, the ranks warning/critical findings name, a cause one of them gives; [] and None: nothing named)
NODE_SETS = [
    ("one-rank-loss-nan", _alike(_losses(r1="loss nan")), [1], "python-exception"),
    ("one-rank-hf-dict-nan", _alike(_losses(r2="{'loss': nan, 'grad_norm': nan, 'learning_rate': 1e-05, 'epoch': 0.3}")),
     [2], "python-exception"),
    ("one-rank-loss-colon-inf", _alike(_losses(r3="loss: inf lr 1e-4")), [3], "python-exception"),
    ("every-rank-loss-inf", _alike({r: "loss inf" for r in range(4)}), [], None),
    ("two-ranks-loss-nan", _alike(_losses(r1="loss nan", r2="loss=nan")), [], None),
    ("no-loss-shown", _alike({}), [], None),
    ("one-rank-loss-large", _alike(_losses(r1="loss 1.7e+30")), [], None),
    ("rank0-only-progress-nan", _alike(_losses(r0="loss nan"), shown={0}), [], None),
    ("near-miss-loss-scale-inf", _alike(_losses(r1="loss scale: inf")), [], None),
    ("nan-rank-raised-first", _raised_first(), [1], "python-exception"),
]


@pytest.fixture(scope="module")
def findings(tmp_path_factory) -> list:
    return analyze_node_sets(NODE_SETS, tmp_path_factory.mktemp("nonfinite"), CAPTURED)


@pytest.mark.parametrize(("i", "want", "cause"), [(i, w, c) for i, (_, _, w, c) in enumerate(NODE_SETS)],
                         ids=[s[0] for s in NODE_SETS])
def test_the_one_rank_whose_own_loss_went_non_finite(findings, i, want, cause):
    assert_names(findings, i, want, cause)


def test_the_named_rank_is_said_at_medium_with_its_progress_line(findings):
    named = [f for f in findings_of(findings, 0) if f["rule"] == "rank-failure" and f["ranks"]]
    assert [(f["severity"], f["confidence"], f["ranks"]) for f in named] == [("warning", "medium", [1])]
    assert [p.endswith("-master-0") for p in named[0]["pods"]] == [True], named[0]["pods"]  # node 0's pod: rank 1's
    assert "only this rank's own progress line" in named[0]["summary"]
    first = [f for f in findings_of(findings, len(NODE_SETS) - 1) if f["rule"] == "rank-failure" and f["ranks"]]
    assert [(f["severity"], f["ranks"]) for f in first] == [("critical", [1])]


WORDINGS = [  # (progress line, the value progress_value holds: None none, "nan", "inf", "-inf" or a number)
    ("step 3 loss nan", "nan"), ("step 3 loss: nan", "nan"), ("step 3 loss=nan lr=1e-4", "nan"),
    ("{'loss': nan, 'grad_norm': nan, 'learning_rate': 1e-05, 'epoch': 0.1}", "nan"),
    ("{'loss': 2.31, 'grad_norm': inf, 'epoch': 0.1}", 2.31),
    (" iteration       10/     100 | lm loss: 2.345678E+00 | loss scale: 65536.0 | grad norm: 1.2 |", 2.345678),
    (" iteration       10/     100 | lm loss: nan | loss scale: 65536.0 | grad norm: nan |", "nan"),
    ("step 3 | loss 'nan' | nll_loss 'nan'", "nan"), ("step 3 loss tensor(nan, device='cuda:0')", "nan"),
    ("Epoch 0:  45%|████▌     | 450/1000 [01:23<01:42, 5.36it/s, loss=nan, v_num=0]", "nan"),
    ("step 4 train_loss=-inf", "-inf"), ("step 3 grad_norm: inf", "inf"),
    ("step 3 loss_scale: 1024", None), ("step 3 loss scale: inf", None), ("step 3 losses 1.0", None),
]


def test_progress_values_as_trainers_print_them(tmp_path):
    from k10s_forensics.logimport import LogSource, import_logs

    # a minute apart: each line its own 10-s interval, none thinned out
    text = "".join(f"2026-12-06T04:{10 + i}:00.000000Z {line}\n" for i, (line, _) in enumerate(WORDINGS))
    bundle, _ = import_logs([LogSource("node0.log", text)], tmp_path / "b", job="train", namespace="team-a", now=CAPTURED)
    path = next(tmp_path.rglob("log_events.parquet"))
    rows = dict(duckdb.sql(f"SELECT line, progress_value FROM '{path}' WHERE kind = 'training_step'").fetchall())
    got = {line: rows.get(line, "not a progress line") for line, _ in WORDINGS}
    want = {line: (None if v is None else float(v)) for line, v in WORDINGS}
    assert {k: str(v) for k, v in got.items()} == {k: str(v) for k, v in want.items()}


def test_the_rule_reads_the_printing_rank_as_the_parser_thins_by_it():
    """_incident_common_mode.sql repeats the parser's regex of a script's rank tag opening a progress line (SQL cannot
    import it): the two must stay one pattern, or the rule and the thinning would part on which process printed a line."""
    from k10s_forensics.parsers.log_sql import SCRIPT_RANK_OPENING

    sql = (Path(__file__).resolve().parent.parent / "queries" / "_incident_common_mode.sql").read_text(encoding="utf-8")
    assert f"'{SCRIPT_RANK_OPENING}'" in sql
