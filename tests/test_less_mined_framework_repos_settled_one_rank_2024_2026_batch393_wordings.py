"""Threads in training-framework repos the corpus has few of, settled, 2024-2026 (real incidents batch 393), pinned as
read. One control, collected blind (only one usable thread in about a hundred searches: the listed repos' settled
lone-rank threads are mined already, or their settlement or log lies past what the stored excerpt shows). Read right
as collected: the head of rank 0's traceback out of modded-nanogpt's speedrun, ``[rank0]:     loss.backward() # just
sync on the last step`` down through autograd into ``call_compiled_backward()``, the exception line past the excerpt
(KellerJordan/modded-nanogpt#12: eight 45 GB GPUs, a per-device batch sized for 80 GB H100s, every rank out of memory
alike; the maintainer's 'try reducing the per device batch size to 32' worked) holds rank 0 as an info
python-exception suspect only, confidence low, as pasted or as its 8 GPUs: no one is named. Scored 1/1 both ways as
collected. Contrasts: the same head with rank 0's ``torch.OutOfMemoryError`` line after it names rank 0 (cuda-oom,
warning: a lone rank's OOM, which the paste cannot tell from a configuration every rank hits), and re-tagged as rank
3 names rank 3; the OOM line printed by all eight ranks, by ranks 0 and 5 with their heads, or untagged names no one
(cuda-oom at critical, no rank); the head untagged names no one. Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted, pasted_findings
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 6, 5, 0, tzinfo=dt.timezone.utc)

OOM_HEAD = corpus_lines("modded-nanogpt-12-")

#: the OOM line the title names, as rank ``r`` would print it on its 45 GB GPU
def _oom(r: int, tag: bool = True) -> str:
    line = (f"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.53 GiB. GPU {r} has a total capacity of "
            "44.40 GiB of which 1.02 GiB is free.")
    return f"[rank{r}]: {line}" if tag else line


def _retag(lines: list[str], r: int) -> list[str]:
    return [line.replace("[rank0]", f"[rank{r}]") for line in lines]


#: rank 0's head with its OOM line after it (the part of the paste past the excerpt)
HEAD_WITH_OOM = OOM_HEAD + [_oom(0)]
#: the same, re-tagged as rank 3
HEAD_WITH_OOM_RANK3 = _retag(OOM_HEAD, 3) + [_oom(3)]
#: the OOM line as every one of the 8 ranks prints it
OOM_EVERY_RANK = [_oom(r) for r in range(8)]
#: ranks 0 and 5 each with head and OOM line: two copies of one failure
TWO_COPIES = HEAD_WITH_OOM + _retag(OOM_HEAD, 5) + [_oom(5)]
#: the OOM line without the rank tag (an untagged console)
OOM_UNTAGGED = [_oom(0, tag=False)]
#: the head without the rank tags
HEAD_UNTAGGED = [line.replace("[rank0]: ", "") for line in OOM_HEAD]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # as collected, pasted and laid out as the thread says
    "oom-head-as-pasted": (OOM_HEAD, None, None, None, None),
    "oom-head-eight-gpus": (OOM_HEAD, 8, 8, None, None),
    # variants that must not name anyone
    "oom-every-rank-names-none": (OOM_EVERY_RANK, 8, 8, None, None),
    "two-copies-names-none": (TWO_COPIES, 8, 8, None, None),
    "oom-untagged-names-none": (OOM_UNTAGGED, 8, 8, None, None),
    "head-untagged-names-none": (HEAD_UNTAGGED, 8, 8, None, None),
    # contrasts that name a rank (a lone rank's OOM, as k10s reads it now)
    "head-with-oom-names-rank0": (HEAD_WITH_OOM, 8, 8, 0, "cuda-oom"),
    "head-with-oom-rank3-names-rank3": (HEAD_WITH_OOM_RANK3, 8, 8, 3, "cuda-oom"),
}
BATCHED = Batched("b393", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_less_mined_framework_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])


def _gist(lines: list[str], folder: Path, nproc: int | None, world: int | None) -> list[tuple]:
    return [(f["rule"], f["severity"], f["cause"], f["ranks"], f.get("confidence"))
            for f in pasted_findings(lines, folder, nproc, world, NOW)]


def test_rank0_traceback_head_without_exception_is_a_suspect_only(tmp_path):
    """modded-nanogpt#12 as collected: rank 0's traceback frames with no exception line hold rank 0 as an info
    python-exception suspect, confidence low, as pasted or as 8 GPUs: no one is named. The truth: every rank out of
    memory alike (the per-device batch), the author copied rank 0's copy."""
    want = [("rank-failure", "info", "python-exception", [0], "low")]
    assert _gist(OOM_HEAD, tmp_path / "a", None, None) == want
    assert _gist(OOM_HEAD, tmp_path / "b", 8, 8) == want


def test_oom_printed_by_every_rank_is_a_rankless_critical(tmp_path):
    """The same OOM from all eight ranks is the job's, not one rank's: cuda-oom at critical, no rank."""
    assert _gist(OOM_EVERY_RANK, tmp_path, 8, 8) == [("oom-cascade", "critical", "cuda-oom", [], "high")]


def test_lone_tagged_oom_names_its_rank_at_warning(tmp_path):
    """The head with rank 0's own OOM line names rank 0 (warning, medium): what k10s would have said had the excerpt
    held the line the title names. A paste of one rank's lines cannot tell a lone rank's OOM from a configuration
    every rank hits (docs/rules.md, "Session 63: batch 393")."""
    assert _gist(HEAD_WITH_OOM, tmp_path, 8, 8) == [("oom-cascade", "warning", "cuda-oom", [0], "medium")]
