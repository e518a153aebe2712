"""accelerate's checks of the launch's own setup are every process's (queries/_incident_common_mode.sql; docs/rules.md,
"Session 57: accelerate's setup checks").

``ValueError: Please make sure to properly initialize your accelerator via `accelerator = Accelerator()` before using any
functionality from the `accelerate` library.`` (a library version or the script's order: trl#2377's PPO trainer under
accelerate 1.0-1.8) and ``You can't use batches of different size with `dispatch_batches=True` or when using an
`IterableDataset``` (the data loader's setting, applied by the main process only: trl#3950's streaming dataset) are raised
by whichever process reaches the check, the same for every rank (batch 349's suggestion). Another exception at the same
place stays the rank's.
"""

from __future__ import annotations

import datetime as dt

import pytest

from bundle_batch import pasted
from incident_kit import naming_findings
from k10s_forensics.analyze.runner import analyze

NOW = dt.datetime(2026, 12, 6, 0, 0, tzinfo=dt.timezone.utc)
INIT = ("ValueError: Please make sure to properly initialize your accelerator via `accelerator = Accelerator()` before "
        "using any functionality from the `accelerate` library.")
DISPATCH = ("RuntimeError: You can't use batches of different size with `dispatch_batches=True` or when using an "
            "`IterableDataset`.either pass `dispatch_batches=False` and have each process fetch its own batch  or pass "
            "`split_batches=True`. By doing so, the main process will no longer fetch all the batches.")


def _named(rank: int, error: str, folder) -> list[tuple]:
    lines = [f"[rank{rank}]: Traceback (most recent call last):", f'[rank{rank}]:   File "train.py", line 40, in <module>',
             f"[rank{rank}]:     trainer.train()", f"[rank{rank}]: {error}"]
    return [(f["rule"], f["cause"], f["ranks"]) for f in naming_findings(analyze(pasted(lines, folder, 4, NOW, world=4))["findings"])]


@pytest.mark.parametrize("error", [INIT, DISPATCH], ids=["init", "dispatch"])
@pytest.mark.parametrize("rank", [0, 3])
def test_a_setup_check_names_no_rank(tmp_path, error, rank):
    assert _named(rank, error, tmp_path) == []


def test_another_exception_stays_the_ranks(tmp_path):
    assert _named(0, "RuntimeError: Sizes of tensors must match except in dimension 0. Expected size 512 but got 384",
                  tmp_path) == [("rank-failure", "python-exception", [0])]
