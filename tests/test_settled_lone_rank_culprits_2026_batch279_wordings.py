"""Settled lone-rank failures of 2025-2026 (real incidents batch 279), pinned as read.
Two culprits and a control, collected blind. Rank 1's ``torch.OutOfMemoryError ... GPU 1 has a total capacity of 79.14
GiB`` before the agent's single SIGTERM and ``failed (exitcode: 1) local_rank: 1`` (modelscope/ms-swift#9112, a
two-process Qwen3-VL-8B LoRA run) names rank 1 (cuda-oom). Rank 1's traceback into ``_save_checkpoint`` ->
``os.renames`` with its exception line cut (modelscope/ms-swift#3049: the checkpoint rename race only rank 1 lost, a
transformers bug per the maintainer) is an info suspect holding rank 1, nothing louder (NOT_YET, batch 279). A torchrun
failures table listing ranks 1 and 2, both exit 1 in the same second, with no Root Cause block in view
(HorizonRobotics/BIP3D#5: the config import every worker fails) is a failure of no rank. Scored 2/3 both ways as
collected; no rule changed (measure only). Contrasts: without the OOM line the agent's ``local_rank: 1`` still names rank
1 (python-exception); without it and the agent's line too, rank 1's frames are only a suspect; renumbered to rank 0 the
OOM names rank 0; the race's traceback as rank 3's is a rank-3 suspect; its cut line restored (``FileExistsError`` of the
moved ``tmp-checkpoint``) is read as every process's (no rank), a ``FileNotFoundError`` there names rank 1; a Root Cause
block for rank 0 killed by SIGKILL under the table names rank 0 (host-oom-kill). Pasted logs through ``k10s
import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import (
    Batched,
    assert_info_suspect,
    assert_one_rank,
    pasted_cases,
    pasted_findings,
)
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 5, 1, 0, tzinfo=dt.timezone.utc)

LONE_OOM = corpus_lines("ms-swift-9112-")
RENAME_RACE = corpus_lines("ms-swift-3049-")
FAILURES_TABLE = corpus_lines("BIP3D-5-")

#: rank 1's frames and the agent's lines without the ``torch.OutOfMemoryError`` line
OOM_NO_OOM_LINE = [line for line in LONE_OOM if "OutOfMemoryError" not in line]
#: rank 1's frames and the SIGTERM without the OOM line or the agent's ``failed (exitcode: 1) local_rank: 1``
OOM_FRAMES_ONLY = [line for line in OOM_NO_OOM_LINE if "failed (exitcode" not in line]
#: the same OOM on rank 0 / GPU 0 / local_rank 0
OOM_RANK_0 = [
    line.replace("[rank1]", "[rank0]")
    .replace("GPU 1 has", "GPU 0 has")
    .replace("local_rank: 1", "local_rank: 0")
    for line in LONE_OOM
]
#: the rename traceback as rank 3's
RACE_RANK_3 = [line.replace("[rank1]", "[rank3]") for line in RENAME_RACE]
#: the cut exception line restored, as the author's summary words it
RACE_FILE_EXISTS = RENAME_RACE + [
    "[rank1]: FileExistsError: [Errno 17] File exists: "
    "'/root/autodl-tmp/Qwen2.5-VL/output/Qwen/v4-20250210-182955/tmp-checkpoint-f4fsdt_x' -> "
    "'/root/autodl-tmp/Qwen2.5-VL/output/Qwen/v4-20250210-182955/checkpoint-276'"
]
#: DeepSpeed's missing ``global_step276`` in that place instead
RACE_FILE_NOT_FOUND = RENAME_RACE + [
    "[rank1]: FileNotFoundError: [Errno 2] No such file or directory: 'global_step276'"
]
#: the table closed by a Root Cause block: rank 0 killed by SIGKILL
TABLE_ROOT_CAUSE_SIGKILL = FAILURES_TABLE + [
    "  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html",
    "------------------------------------------------------------",
    "Root Cause (first observed failure):",
    "[0]:",
    "  time      : 2025-03-27_14:55:48",
    "  host      : inner-OMEN-by-HP-Gaming-Laptop-16-wf0xxx",
    "  rank      : 0 (local_rank: 0)",
    "  exitcode  : -9 (pid: 78735)",
    "  error_file: <N/A>",
    "  traceback : Signal 9 (SIGKILL) received by PID 78735",
    "============================================================",
]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # as collected, pasted and laid out as the threads say
    "lone-oom-as-pasted": (LONE_OOM, None, None, 1, "cuda-oom"),
    "lone-oom-two-processes": (LONE_OOM, 2, 2, 1, "cuda-oom"),
    "rename-race-as-pasted": (RENAME_RACE, None, None, None, None),
    "rename-race-four-ranks": (RENAME_RACE, 4, 4, None, None),
    "failures-table-as-pasted": (FAILURES_TABLE, None, None, None, None),
    "failures-table-eight-gpus": (FAILURES_TABLE, 8, 8, None, None),
    # contrasts
    "lone-oom-without-oom-line-names-rank1-from-agent": (
        OOM_NO_OOM_LINE,
        2,
        2,
        1,
        "python-exception",
    ),
    "lone-oom-frames-only-names-none": (OOM_FRAMES_ONLY, 2, 2, None, None),
    "lone-oom-renumbered-names-rank0": (OOM_RANK_0, 2, 2, 0, "cuda-oom"),
    "rename-race-rank3-names-none": (RACE_RANK_3, 4, 4, None, None),
    "rename-race-file-exists-names-none": (RACE_FILE_EXISTS, 4, 4, None, None),
    "rename-race-file-not-found-names-rank1": (
        RACE_FILE_NOT_FOUND,
        4,
        4,
        1,
        "python-exception",
    ),
    "failures-table-root-cause-sigkill-names-rank0": (
        TABLE_ROOT_CAUSE_SIGKILL,
        8,
        8,
        0,
        "host-oom-kill",
    ),
}
BATCHED = Batched("b279", list(CASES))


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_settled_lone_rank_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(
        BATCHED.findings(key, tmp_path_factory, pasted_cases(CASES, NOW))
    )
    assert_one_rank(named, CASES[key][3], CASES[key][4])


@pytest.mark.parametrize(
    ("lines", "nproc", "rank"),
    [
        pytest.param(RENAME_RACE, 4, 1, id="rename-race-rank1"),
        pytest.param(RACE_RANK_3, 4, 3, id="rename-race-rank3"),
        pytest.param(OOM_FRAMES_ONLY, 2, 1, id="oom-frames-rank1"),
    ],
)
def test_cut_traceback_is_an_info_suspect(lines, nproc, rank, tmp_path):
    """A rank's traceback frames with no exception line (and no agent line naming its exit): an info python-exception
    suspect holding that rank, nothing louder."""
    assert_info_suspect(pasted_findings(lines, tmp_path, nproc, nproc, NOW), rank)


def _failures(lines: list[str], folder: Path, nproc: int) -> list[tuple]:
    return [
        (f["severity"], f["cause"], f["ranks"])
        for f in pasted_findings(lines, folder, nproc, nproc, NOW)
        if f["rule"] == "rank-failure"
    ]


def test_moved_file_race_is_every_process_s(tmp_path):
    """Rank 1's ``FileExistsError`` renaming a ``tmp-checkpoint`` another process moved first is read as every
    process's (same command line and code): a warning python-exception of no rank."""
    assert _failures(RACE_FILE_EXISTS, tmp_path, 4) == [
        ("warning", "python-exception", [])
    ]


def test_failures_table_without_root_cause_names_no_rank(tmp_path):
    """Ranks 1 and 2 listed under ``Failures:`` with the Root Cause block out of view: a warning python-exception of no
    rank (another worker failed too, unseen)."""
    assert _failures(FAILURES_TABLE, tmp_path, 8) == [
        ("warning", "python-exception", [])
    ]
