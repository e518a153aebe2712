"""A traceback the program printed and caught, its retry announced right under it (session 37 leftovers; the torch
run t36-trun-2x2-sigkill-beside-recovered-traceback-rank3: rank 2's metrics thread ``traceback.print_exc()``, then
``retrying metrics push in 0.2s (1/3)``, while its node peer rank 3 is SIGKILLed). The exception is handled, as a
retrying record right above a logged traceback already says (log_owners' ``HANDLED_RECORD``): its events are dropped
and the launcher's report of another rank's signal is left to name the culprit (log_exception_tail.retried_after).
Variants: torchrun's tee tags, a rank tag, ``will retry`` / ``Retrying in`` wordings, another process's line between;
contrasts that stay the rank's own: no retry line, a retry of another printer, a retry three lines under, and the
handler-barrier shape (an exception, then the same rank's collective error). Pasted logs through ``k10s
import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import naming_findings

NOW = dt.datetime(2026, 12, 2, 16, 0, tzinfo=dt.timezone.utc)


def _tb(
    tag: str, exc: str = "ConnectionRefusedError: [Errno 111] Connection refused"
) -> list[str]:
    return [
        f"{tag}Traceback (most recent call last):",
        f'{tag}  File "/workspace/train.py", line 54, in _chatter',
        f'{tag}    raise ConnectionRefusedError(111, "Connection refused")',
        f"{tag}{exc}",
    ]


def _steps(tag: str, rank: int, first: int, n: int = 2) -> list[str]:
    return [f"{tag}rank {rank} step {s} loss 0.05{s}" for s in range(first, first + n)]


GLOO = (
    "RuntimeError: [/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:553] Connection closed by peer "
    "[127.0.0.1]:5812. This is typically caused by a remote worker crashing."
)
COLLECTIVE = [
    "[rank2]: Traceback (most recent call last):",
    '[rank2]:   File "/workspace/train.py", line 107, in _reduce',
    "[rank2]:     dist.all_reduce(t)",
    f"[rank2]: {GLOO}",
]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone: None for none)
CASES = {
    # torchrun's tee tags (the run's shape): the traceback, then the retry and the recovery
    "tee-print-exc-then-retrying": (
        _steps("[default0]:", 2, 0)
        + _tb("[default0]:")
        + [
            "[default0]:retrying metrics push in 0.2s (1/3)",
            "[default0]:metrics push succeeded after 1 retry",
        ]
        + _steps("[default0]:", 2, 2),
        2,
        2,
        None,
    ),
    # a rank tag; another process's line between; other wordings of the retry
    "rank-tag-then-retrying": (
        _tb("[rank2]: ") + ["[rank2]: retrying metrics push in 0.5s (1/3)"],
        None,
        None,
        None,
    ),
    "retry-after-another-process-line": (
        _tb("[rank2]: ")
        + ["[rank3]: step 4 loss 0.1", "[rank2]: Retrying in 2.0 seconds"],
        None,
        None,
        None,
    ),
    "will-retry-wording": (
        _tb("[rank2]: ") + ["[rank2]: upload failed (attempt 1/3), will retry"],
        None,
        None,
        None,
    ),
    # contrasts: the same exception without a retry is the rank's own ...
    "no-retry-line": (_tb("[rank2]: "), None, None, 2),
    # ... a retry printed by another rank says nothing of rank 2's ...
    "retry-of-another-printer": (
        _tb("[rank2]: ") + ["[rank3]: retrying metrics push in 0.5s (1/3)"],
        None,
        None,
        2,
    ),
    # ... nor a retry three lines under ...
    "retry-three-lines-under": (
        _tb("[rank2]: ")
        + [
            "[rank2]: metrics buffer 12 points",
            "[rank2]: metrics buffer 13 points",
            "[rank2]: retrying metrics push in 0.5s (1/3)",
        ],
        None,
        None,
        2,
    ),
    # ... and the handler-barrier shape: an exception, then the same rank's collective error
    "handler-barrier-shape": (
        _tb("[rank2]: ", "ValueError: bad shard index 7") + COLLECTIVE,
        None,
        None,
        2,
    ),
}
BATCHED = Batched("s37retry", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_a_traceback_with_its_retry_under_it_is_handled(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3])
