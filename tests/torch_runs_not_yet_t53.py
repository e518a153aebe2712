"""The fifty-third set's runs not read right yet (tests/test_torch_runs.py's NOT_YET, both ways), with why."""

from __future__ import annotations

_SPREAD_SHOWN = ("rank 1's NaN sample, no check before backward: DDP's all-reduce carries its NaN gradients to every "
                 "rank and all four raise the same `RuntimeError: The total norm of order 2.0 for gradients from "
                 "`parameters` is non-finite` (clip_grad_norm_) within 0.09 s (2.13.0) / 0.013 s (2.14.1); the only "
                 "line telling where the NaN came from is rank 1's own `rank 1 step 3 loss nan`, printed before "
                 "backward (2.13.0: before every rank's error; 2.14.1: 12 ms after ranks 2 and 3 raised, before ranks 0 "
                 "and 1): read as `Ranks failed (python-exception) but no single rank brought the job down` (warning, "
                 "no rank): the rules compare the failures, alike, and read no progress line's non-finite loss as a "
                 "rank's own sign")
_T53 = {f"{v}/t53-trun-2x2-nan-spread-shown-rank1-tee": _SPREAD_SHOWN for v in ("2.13.0", "2.14.1")}
