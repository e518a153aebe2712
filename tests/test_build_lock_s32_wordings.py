"""A log that ends while its processes wait on a JIT-built torch extension is said at info, naming no rank (session 32
leftovers; real incidents OpenRLHF/OpenRLHF#208: three processes' ``Using .cache/torch_extensions/py310_cu118 as
PyTorch extensions root...`` and nothing after, a build lock a killed build left behind). The finding says where the
lock may be left and to remove it (parsers/log_ext_build.py; queries/rank_failure.sql, ``build-lock``; docs/rules.md,
"Session 32: leftovers"). Contrasts: a build that loaded its module and went on, or a rank's own error after the
build lines, gives no such finding (the error names its rank as before). Pasted logs through ``k10s import-logs``,
batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import naming_findings
from k10s_forensics.parsers.log_ext_build import waiting

NOW = dt.datetime(2026, 12, 1, 17, 0, tzinfo=dt.timezone.utc)
ROOT = "Using  .cache/torch_extensions/py310_cu118 as PyTorch extensions root..."
BUILD = ["Emitting ninja build file /root/.cache/torch_extensions/py310_cu121/fused_adam/build.ninja...",
         "Building extension module fused_adam...",
         "Allowing ninja to set a default number of workers... (overridable by setting the environment variable MAX_JOBS=N)"]
ROOT2 = "Using /root/.cache/torch_extensions/py310_cu121 as PyTorch extensions root..."
RAISED = ["[rank1]: Traceback (most recent call last):", '[rank1]:   File "train.py", line 40, in <module>',
          "[rank1]:     optimizer = FusedAdam(params)", "[rank1]: ValueError: lr must be positive, got -0.001"]

#: key: (the pasted lines, whether the build-lock finding is made, the rank a warning/critical finding names: None)
CASES = {
    # OpenRLHF-208's wording: three processes, the author's double space, nothing after
    "three-roots": ([ROOT, ROOT, ROOT], True, None),
    # torch's rank tags, the build's own lines after the first root
    "tagged-building": ([f"[rank{r}]: {ROOT2}" for r in range(2)] + [f"[rank0]: {b}" for b in BUILD]
                        + [f"[rank{r}]: {ROOT2}" for r in range(2, 4)], True, None),
    # pdsh's host prefix of DeepSpeed's launcher
    "pdsh-host": ([f"10.0.0.{h}: {ROOT2}" for h in (1, 2)] + [f"10.0.0.1: {BUILD[0]}"], True, None),
    # contrasts: the module loaded and training went on ...
    "loaded-and-trained": ([ROOT2, *BUILD, "Loading extension module fused_adam...", "Time to load fused_adam op: 31.2 seconds",
                            "{'loss': 2.31, 'learning_rate': 1e-05, 'epoch': 0.01}"], False, None),
    # ... and a rank's own error after the build: the error names its rank, no build lock is said
    "error-after-build": ([ROOT2, ROOT2, *BUILD, "Loading extension module fused_adam...", *RAISED], False, 1),
}
BATCHED = Batched("s32lock", list(CASES))


def _make(key: str, folder: Path):
    return pasted(CASES[key][0], folder, None, NOW, world=None)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_a_log_ending_in_a_jit_build_says_the_lock_at_info(key, tmp_path_factory):
    findings = BATCHED.findings(key, tmp_path_factory, _make)
    lines, said, rank = CASES[key]
    assert_one_rank(naming_findings(findings), rank)
    lock = [f for f in findings if f["rule"] == "rank-failure" and f["cause"] == "build-lock"]
    assert bool(lock) == said, [(f["rule"], f["severity"], f["cause"], f["ranks"]) for f in findings]
    if said:
        assert lock[0]["severity"] == "info" and lock[0]["ranks"] == []
        assert "build lock may be left at " in lock[0]["summary"] and "remove" in lock[0]["recommendation"]


@pytest.mark.parametrize(("lines", "want"), [
    ([ROOT, ROOT, ROOT], (".cache/torch_extensions/py310_cu118", 3, 2)),
    ([ROOT2, *BUILD, "", ROOT2], ("/root/.cache/torch_extensions/py310_cu121", 2, 5)),
    ([ROOT2, *BUILD, "Loading extension module fused_adam..."], None),
    (["step 3 loss 1.2", ROOT2, "step 4 loss 1.1"], None),
])
def test_the_jit_build_reading(lines, want):
    assert waiting(lines) == want
