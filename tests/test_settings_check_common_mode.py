"""A settings dataclass's ``__post_init__`` refusing the run's settings is every rank's (parsers/log_shared_inputs.py,
``SETTINGS_CHECK``; queries/_incident_common_mode.sql; docs/rules.md, "Session 57: a settings check").

Every process parses the same command line and files into the same arguments dataclass, so a check in its
``__post_init__`` (ms-swift's ``swift/llm/argument/rlhf_args.py``, transformers' ``training_args.py``, a ``config.py``)
refuses them in each process alike, whichever rank's copy the paste shows (batch 346's ms-swift#7141: rank 1's
``NotImplementedError: The current rlhf_type 'gkd' does not support sequence_parallel``). Contrasts: the same exception
raised far below such a frame, or under a ``__post_init__`` of a module that holds no settings (a data sample's), or
under another function of the settings module, stays the rank's.
"""

from __future__ import annotations

import datetime as dt

import pytest

from bundle_batch import pasted
from incident_kit import corpus_lines, naming_findings
from k10s_forensics.analyze.runner import analyze

NOW = dt.datetime(2026, 12, 6, 0, 10, tzinfo=dt.timezone.utc)
SWIFT = "/opt/ms-swift/swift/llm/argument/rlhf_args.py"
HF = "/usr/lib/python3.11/site-packages/transformers/training_args.py"
DATA = "/workspace/data/sample.py"


def _lines(rank: int, path: str, func: str, error: str, gap: int = 0) -> list[str]:
    lines = [f"[rank{rank}]: Traceback (most recent call last):", f'[rank{rank}]:   File "train.py", line 30, in <module>',
             f"[rank{rank}]:     args = parser.parse_args_into_dataclasses()", f'[rank{rank}]:   File "{path}", line 252, in {func}',
             f"[rank{rank}]:     self._check()"]
    for i in range(gap):
        lines += [f'[rank{rank}]:   File "/workspace/lib/deep{i}.py", line {10 + i}, in step{i}', f"[rank{rank}]:     step{i + 1}()"]
    return lines + [f"[rank{rank}]:     raise ValueError(", f"[rank{rank}]: {error}"]


def _named(lines: list[str], folder) -> list[tuple]:
    return [(f["rule"], f["cause"], f["ranks"]) for f in naming_findings(analyze(pasted(lines, folder, 4, NOW, world=8))["findings"])]


ERR = "ValueError: --load_best_model_at_end requires the save and eval strategy to match"


@pytest.mark.parametrize("path", [SWIFT, HF, "/workspace/configs/config.py"], ids=["swift-args", "hf-training-args", "config"])
@pytest.mark.parametrize("rank", [1, 6])
def test_a_settings_check_names_no_rank(tmp_path, path, rank):
    assert _named(_lines(rank, path, "__post_init__", ERR), tmp_path) == []


@pytest.mark.parametrize(("path", "func", "gap"), [(DATA, "__post_init__", 0), (SWIFT, "load_dataset", 0), (SWIFT, "__post_init__", 4)],
                         ids=["data-sample", "another-function", "far-below"])
def test_other_frames_stay_the_ranks(tmp_path, path, func, gap):
    assert _named(_lines(6, path, func, ERR, gap), tmp_path) == [("rank-failure", "python-exception", [6])]


def test_ms_swift_7141_names_no_one(tmp_path):
    assert _named(corpus_lines("ms-swift-7141-"), tmp_path) == []
