"""Session 51 (batch 281): the run's batch arithmetic refused is every process's. A trainer's check that the global
batch divides by its grouping, or equals its factors, compares the settings and the world's size every process computes
alike at start, so one rank's pasted copy names no one; another exception of that rank, or a batch shape of one rank's
data, still names it.
"""

from __future__ import annotations

import datetime as dt

import pytest

from incident_kit import naming_findings
from k10s_forensics.analyze.runner import analyze
from k10s_forensics.logimport import LogSource, import_logs

NOW = dt.datetime(2026, 12, 5, 12, 0, tzinfo=dt.timezone.utc)
FRAMES = [
    "[rank{r}]: Traceback (most recent call last):",
    '[rank{r}]:   File "/workspace/train.py", line 88, in <module>',
    "[rank{r}]:     trainer = build_trainer(cfg)",
]
AGENT = (
    "[2025-03-01 10:00:03,518] torch.distributed.elastic.multiprocessing.api: [ERROR] failed (exitcode: 1) "
    "local_rank: {r} (pid: 2465952) of binary: /usr/bin/python3"
)


def _named(tmp_path, rank: int, error: str, agent: bool = False):
    lines = (
        [f.format(r=rank) for f in FRAMES]
        + [f"[rank{rank}]: {error}"]
        + ([AGENT.format(r=rank)] if agent else [])
    )
    bundle, _ = import_logs(
        [LogSource("paste.txt", "\n".join(lines) + "\n")],
        tmp_path / "b",
        job="train",
        namespace="team-a",
        now=NOW,
        nproc_per_node=8,
    )
    return [
        (f["rule"], f["cause"], f["ranks"])
        for f in naming_findings(analyze(bundle)["findings"])
    ]


BATCH_CHECKS = [
    "ValueError: The global train batch size (7 x 1) must be evenly divisible by the number of generations per prompt (8). "
    "Given the current train batch size, the valid values for the number of generations are: [7].",
    "AssertionError: Check batch related parameters. train_batch_size is not equal to micro_batch_per_gpu * gradient_acc_step "
    "* world_size 256 != 4 * 8 * 4",
    "AssertionError: global batch size (128) is not divisible by micro batch size (3) times data parallel size (8)",
    "ValueError: total batch size 100 should be divisible by the number of devices",
]


@pytest.mark.parametrize("error", BATCH_CHECKS)
@pytest.mark.parametrize("rank,agent", [(1, False), (5, True)])
def test_a_batch_arithmetic_check_is_every_process_s(tmp_path, error, rank, agent):
    assert _named(tmp_path, rank, error, agent) == []


@pytest.mark.parametrize(
    "error",
    [
        # one rank's own data: a sample's shape, not the run's settings
        "ValueError: Expected input batch_size (15) to match target batch_size (16).",
        "ValueError: sample 1187 has no field 'prompt' in shard 3",
        "RuntimeError: size mismatch at batch 17: got 15 labels for 16 samples",
    ],
)
def test_a_rank_s_own_batch_error_still_names_it(tmp_path, error):
    assert _named(tmp_path, 3, error) == [("rank-failure", "python-exception", [3])]
