"""Multi-GPU training that failed while saving a checkpoint (real incidents batch 334), pinned as read.
Five controls, collected blind, four read right as collected: transformers' staging-directory save renamed by several
processes onto one ``checkpoint-N`` is every rank's, whoever loses. Rank 1's ``FileExistsError: [Errno 17] File exists:
'.../tmp-checkpoint-v2a6x7pi' -> '.../checkpoint-414'`` (hiyouga/LlamaFactory#6848) and an untagged ``FileNotFoundError``
of ``tmp-checkpoint-162 -> checkpoint-162`` on a shared NAS (hiyouga/LlamaFactory#2010) read as a failure of no rank;
an untagged traceback after ``Save model to embed_finetuning/tmp-checkpoint-1000`` cut before its exception
(FlagOpen/FlagEmbedding#704) and rank 1's frames with terminal-wrapped ``File "...", l`` / ``ine 2555, ...`` lines
(huggingface/transformers#36076) name no one. The fifth (NOT_YET, batch 334): torchelastic's table naming ``rank : 1
(local_rank: 1)`` ``exitcode : 1`` over SpeechBrain's ``delete_checkpoints(`` (speechbrain/speechbrain#2397: two
processes pruning one checkpoint directory) names rank 1. Scored 4/5 both ways as collected; no rule changed (measure
only). Contrasts: a rank's own ``KeyError`` or CUDA OOM in place of the rename error names that rank; the rename error
under another rank's tag still names no one, while the same ``FileNotFoundError`` of another file names its rank; the
SpeechBrain table without its ``rank`` row names no one, renumbered names the new rank, ``exitcode : -9`` is a host OOM
kill. Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import (
    Batched,
    assert_info_suspect,
    assert_one_rank,
    pasted,
    pasted_cases,
)
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 5, 21, 0, tzinfo=dt.timezone.utc)

WRAPPED_FRAMES = corpus_lines("transformers-36076-")
FILE_EXISTS = corpus_lines("LlamaFactory-6848-")
ELASTIC_TABLE = corpus_lines("speechbrain-2397-")
SAVE_THEN_TRACEBACK = corpus_lines("FlagEmbedding-704-")
NAS_RENAME = corpus_lines("LlamaFactory-2010-")

OOM = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 1 has a total capacity of 79.15 GiB"
RENAME_39 = (
    "OSError: [Errno 39] Directory not empty: 'embed_finetuning/tmp-checkpoint-1000' -> "
    "'embed_finetuning/checkpoint-1000'"
)
#: the exception line of LlamaFactory#6848 (without its ``[rank1]: `` tag)
FILE_EXISTS_ERROR = next(
    line for line in FILE_EXISTS if "FileExistsError" in line
).removeprefix("[rank1]: ")
#: the NAS rename's two paths, for the same FileNotFoundError of another file
NAS_PATHS = (
    "tmp-checkpoint-162' -> '/mnt/nas/abc/saved_model/mixtral-8x7b-title-desc-mix-4e-6-5epoch/"
    "checkpoint-162'"
)


def _unwrapped(lines: list[str]) -> list[str]:
    """The frame lines the terminal split mid-word (``..., l`` / ``ine 2555, ...``) joined again."""
    out: list[str] = []
    for line in lines:
        if out and out[-1].endswith('", l') and line.startswith("ine "):
            out[-1] += line
        else:
            out.append(line)
    return out


#: rank 1's wrapped frames ending in an exception of its own
WRAPPED_KEYERROR = WRAPPED_FRAMES + ["[rank1]: KeyError: 'eval_loss'"]
WRAPPED_OOM = WRAPPED_FRAMES + [f"[rank1]: {OOM}"]
#: the title's rename error under rank 1's tag
WRAPPED_RENAME = WRAPPED_FRAMES + [
    "[rank1]: OSError: [Errno 39] Directory not empty: 'data/tmp-checkpoint-pe8ry7n_' -> 'data/checkpoint-40'"
]
#: the same rename error reported by rank 3; a rank's KeyError or CUDA OOM in place of it
FILE_EXISTS_RANK3 = [line.replace("[rank1]", "[rank3]") for line in FILE_EXISTS]
FILE_EXISTS_KEYERROR = [
    line.replace(FILE_EXISTS_ERROR, "KeyError: 'eval_loss'") for line in FILE_EXISTS
]
FILE_EXISTS_OOM = [line.replace(FILE_EXISTS_ERROR, OOM) for line in FILE_EXISTS]
#: the table without its ``rank`` row; renumbered to rank 0; the exit a SIGKILL; the directory's FileNotFoundError added
TABLE_NO_RANK = [line for line in ELASTIC_TABLE if "rank      :" not in line]
TABLE_RANK0 = [
    line.replace("rank      : 1 (local_rank: 1)", "rank      : 0 (local_rank: 0)")
    for line in ELASTIC_TABLE
]
TABLE_EXIT_9 = [
    line.replace("exitcode  : 1 (pid", "exitcode  : -9 (pid") for line in ELASTIC_TABLE
]
TABLE_FILE_NOT_FOUND = ELASTIC_TABLE + [
    "    FileNotFoundError: [Errno 2] No such file or directory: "
    "'experiments/ddp_crash_repro/save/CKPT+2024-02-08+07-41-37+00'"
]
#: the title's exception appended; the traceback (from ``Traceback``) and that exception under rank 3's tag; a CUDA OOM
SAVE_THEN_RENAME = SAVE_THEN_TRACEBACK + [RENAME_39]
SAVE_RANK3_RENAME = [
    f"[rank3]: {line}" for line in SAVE_THEN_TRACEBACK[2:] + [RENAME_39]
]
SAVE_RANK3_OOM = [f"[rank3]: {line}" for line in SAVE_THEN_TRACEBACK[2:] + [OOM]]
#: the NAS rename under rank 9's tag; the same FileNotFoundError of a data file
NAS_RANK9 = [f"[rank9]: {line}" for line in NAS_RENAME]
NAS_RANK9_OTHER_FILE = [line.replace(NAS_PATHS, "train.json'") for line in NAS_RANK9]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # as collected, pasted and laid out as the threads say
    "wrapped-frames-as-pasted": (WRAPPED_FRAMES, None, None, None, None),
    "wrapped-frames-eight-gpus": (WRAPPED_FRAMES, 8, 8, None, None),
    "file-exists-as-pasted": (FILE_EXISTS, None, None, None, None),
    "file-exists-four-gpus": (FILE_EXISTS, 4, 4, None, None),
    "elastic-table-as-pasted": (ELASTIC_TABLE, None, None, 1, "python-exception"),
    "elastic-table-two-procs": (ELASTIC_TABLE, 2, 2, 1, "python-exception"),
    "save-then-traceback-as-pasted": (SAVE_THEN_TRACEBACK, None, None, None, None),
    "save-then-traceback-two-gpus": (SAVE_THEN_TRACEBACK, 2, 2, None, None),
    "nas-rename-as-pasted": (NAS_RENAME, None, None, None, None),
    "nas-rename-two-nodes-of-eight": (NAS_RENAME, 8, 16, None, None),
    # contrasts
    "wrapped-frames-own-keyerror-names-rank1": (
        WRAPPED_KEYERROR,
        8,
        8,
        1,
        "python-exception",
    ),
    "wrapped-frames-cuda-oom-names-rank1": (WRAPPED_OOM, 8, 8, 1, "cuda-oom"),
    "wrapped-frames-rename-error-names-none": (WRAPPED_RENAME, 8, 8, None, None),
    "file-exists-rank3-names-none": (FILE_EXISTS_RANK3, 4, 4, None, None),
    "file-exists-keyerror-instead-names-rank1": (
        FILE_EXISTS_KEYERROR,
        4,
        4,
        1,
        "python-exception",
    ),
    "file-exists-cuda-oom-instead-names-rank1": (FILE_EXISTS_OOM, 4, 4, 1, "cuda-oom"),
    "elastic-table-without-rank-row-names-none": (TABLE_NO_RANK, 2, 2, None, None),
    "elastic-table-rank0-names-rank0": (TABLE_RANK0, 2, 2, 0, "python-exception"),
    "elastic-table-exit-9-names-rank1-host-oom": (
        TABLE_EXIT_9,
        2,
        2,
        1,
        "host-oom-kill",
    ),
    "elastic-table-file-not-found-still-names-rank1": (
        TABLE_FILE_NOT_FOUND,
        2,
        2,
        1,
        "python-exception",
    ),
    "save-then-rename-error-names-none": (SAVE_THEN_RENAME, None, None, None, None),
    "save-rank3-rename-error-names-none": (SAVE_RANK3_RENAME, 4, 4, None, None),
    "save-rank3-cuda-oom-names-rank3": (SAVE_RANK3_OOM, 4, 4, 3, "cuda-oom"),
    "nas-rename-rank9-names-none": (NAS_RANK9, 8, 16, None, None),
    "nas-rank9-other-file-names-rank9": (
        NAS_RANK9_OTHER_FILE,
        8,
        16,
        9,
        "python-exception",
    ),
}
BATCHED = Batched("b334", list(CASES))
_MAKE = pasted_cases(CASES, NOW)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_checkpoint_save_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _MAKE))
    assert_one_rank(named, CASES[key][3], CASES[key][4])


def _failures(
    lines: list[str], folder: Path, nproc: int | None, world: int | None
) -> list[tuple]:
    from k10s_forensics.analyze.runner import analyze

    findings = analyze(pasted(lines, folder, nproc, NOW, world=world))["findings"]
    return [
        (f["severity"], f["cause"], f["ranks"])
        for f in findings
        if f["rule"] == "rank-failure"
    ]


def test_rename_race_is_a_failure_of_no_rank(tmp_path):
    """The tmp-checkpoint rename error still reads as a Python failure (warning), but of no rank: tagged (rank 1 of 4)
    or untagged (a shared NAS, two nodes of eight)."""
    assert _failures(FILE_EXISTS, tmp_path / "a", 4, 4) == [
        ("warning", "python-exception", [])
    ]
    assert _failures(NAS_RENAME, tmp_path / "b", 8, 16) == [
        ("warning", "python-exception", [])
    ]


def test_wrapped_frames_are_no_suspect_until_rejoined(tmp_path):
    """Rank 1's frames with no exception line: split mid-word by the terminal (``..., l`` / ``ine 2555, ...``) they
    read as nothing at all; rejoined, rank 1 is an info suspect (a traceback with no exception), nothing louder."""
    assert _failures(WRAPPED_FRAMES, tmp_path / "a", 8, 8) == []
    from k10s_forensics.analyze.runner import analyze

    findings = analyze(
        pasted(_unwrapped(WRAPPED_FRAMES), tmp_path / "b", 8, NOW, world=8)
    )["findings"]
    assert_info_suspect(findings, 1)
