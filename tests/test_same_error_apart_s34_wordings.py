"""Every rank of the world raising one same exception (the same type, the same message to the letter) is common mode
however far apart the ranks raised it: the thirty-fourth launcher set's ``Schedule1F1B`` given 2 microbatches for 4
stages, where every rank's ``ValueError: Number of microbatches (2) must be greater than or equal to the number of
stages (4).`` came seconds apart on a loaded machine (rank 0 two seconds first) and the one-second window of failing
together named rank 0. The same error on every rank of the world names no one, whatever the clock says; some ranks only
(the others alive) raising it more than ten seconds apart, ranks raising different errors, or one error carrying each
rank's own numbers read as before: the first is named (docs/rules.md, "Session 34: leftovers"; within ten seconds some
ranks alike name no one since session 63, "the same exception to the letter"). Pasted logs (``kubectl logs --timestamps``) through
``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import naming_findings

NOW = dt.datetime(2026, 12, 2, 6, 0, tzinfo=dt.timezone.utc)
T0 = dt.datetime(2026, 12, 2, 2, 34, 14, 990655, tzinfo=dt.timezone.utc)
MB = "ValueError: Number of microbatches (2) must be greater than or equal to the number of stages (4)."
SCHED = "/opt/venv/lib/python3.11/site-packages/torch/distributed/pipelining/schedules.py"


def _at(s: float) -> str:
    return (T0 + dt.timedelta(seconds=s)).strftime("%Y-%m-%dT%H:%M:%S.%f000Z")


def _raise(r: int, s: float, error: str = MB, tag: str = "[rank{r}]:") -> list[str]:
    t = tag.format(r=r)
    return [f"{_at(s)} {t} Traceback (most recent call last):",
            f'{_at(s)} {t}   File "/workspace/train.py", line 83, in __init__',
            f"{_at(s)} {t}     self.schedule = Schedule1F1B(stages[0], n_microbatches=MB, loss_fn=loss)",
            f'{_at(s)} {t}   File "{SCHED}", line 1232, in __init__', f"{_at(s)} {t}     raise ValueError(",
            f"{_at(s)} {t} {error}"]


def _start(ranks: list[int]) -> list[str]:
    return [f"{_at(-15 + r)} rank {r}/4 starting, plan 1f1b" for r in ranks]


def _agent(s: float, local: int, pid: int) -> list[str]:
    return [f"{_at(s)} E1202 02:34:23.886000 18911 torch/distributed/elastic/multiprocessing/api.py:1002] failed "
            f"(exitcode: 1) local_rank: {local} (pid: {pid}) of binary: /opt/venv/bin/python3"]


def _steps(ranks: list[int], s: float) -> list[str]:
    return [f"{_at(s + i)} rank {r} step {i} loss 0.2330" for i in range(3) for r in ranks]


#: key: (the pasted lines, the rank a warning/critical finding must name alone: None for none)
CASES = {
    # the run: rank 0 two seconds before ranks 1 and 3, rank 2 a second after them; each agent's report of its first
    "every-rank-same-error-2s-apart": (_start([0, 1, 2, 3]) + _raise(0, 0) + _raise(1, 2.09) + _raise(3, 2.09)
                                       + _raise(2, 3.2) + _agent(8.9, 0, 18995) + _agent(9.5, 1, 18998), None),
    # half a minute apart (a rank held up in its imports), torchrun's --tee prefix instead of torch's tag
    "every-rank-same-error-30s-apart-tee": (_start([0, 1, 2, 3]) + _raise(0, 0, tag="[default{r}]:")
                                            + sum((_raise(r, 30 + r, tag="[default{r}]:") for r in (1, 2, 3)), []), None),
    # three of four ranks raise it within ten seconds, rank 0 trains on: failing alike since session 63 (the same
    # exception to the letter within ten seconds; tests/test_same_exception_to_the_letter.py), no one named
    "three-of-four-same-error-apart": (_start([0, 1, 2, 3]) + _steps([0], 0) + _raise(1, 0.5) + _raise(2, 3) + _raise(3, 3.5),
                                       None),
    # contrasts: three of four ranks raise it further apart than ten seconds, rank 0 trains on: some ranks only, the
    # first named
    "three-of-four-same-error-15s-apart": (_start([0, 1, 2, 3]) + _steps([0], 0) + _raise(1, 0.5) + _raise(2, 15)
                                           + _raise(3, 16), 1),
    # every rank raises, rank 0 another error two seconds first: rank 0 named
    "every-rank-rank0-other-error-first": (_start([0, 1, 2, 3]) + _raise(0, 0, "KeyError: 'input_ids'")
                                           + sum((_raise(r, 2 + r / 10) for r in (1, 2, 3)), []), 0),
    # every rank's message carries its own numbers: not one same error, the first named
    "every-rank-own-numbers-apart": (_start([0, 1, 2, 3]) + sum((_raise(r, 2.5 * r, f"ValueError: shard {r} has {7 + r} rows, "
                                                                          "expected 8") for r in (0, 1, 2, 3)), []), 0),
}
BATCHED = Batched("s34apart", list(CASES))


def _make(key: str, folder: Path):
    return pasted(CASES[key][0], folder, 2, NOW, world=4)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_one_same_error_on_every_rank_names_no_one_however_far_apart(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][1])
