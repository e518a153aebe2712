"""The fifty-third set's runs not read right yet (tests/test_torch_runs.py's NOT_YET, both ways), with why."""

from __future__ import annotations

_T53: dict[str, str] = {}
# t53-trun-2x2-nan-spread-shown-rank1-tee (2.13.0 and 2.14.1) read right since session 60 (rank 1's NaN sample, no
# check before backward: DDP's all-reduce carries its NaN gradients to every rank and all four raise the same
# `clip_grad_norm_` error within 0.09 s / 0.013 s; the only line telling where the NaN came from is rank 1's own
# `rank 1 step 3 loss nan`, printed before backward, every other rank's loss finite: rank 1, warning, medium;
# docs/rules.md, "Session 60: the one rank whose own loss went non-finite")
