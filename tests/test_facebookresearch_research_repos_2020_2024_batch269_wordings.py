"""facebookresearch research repositories, 2020-2024 (real incidents batch 269), pinned as read. Two culprits and two
controls: llama-recipes PEFT+FSDP on one node where the agent SIGTERMs pid 11312 and reports ``failed (exitcode: -9)
local_rank: 1`` (meta-llama/llama-cookbook#138, then facebookresearch/llama-recipes: each rank loads the whole
checkpoint into host memory; rank 1 host-oom-kill); Llama 2 13B's two model-parallel shards on a 32 GB host where
``local_rank: 0`` dies of -9 and pid 1796 is torn down (meta-llama/llama#603, then facebookresearch/llama: rank 0
host-oom-kill); a 4-GPU vision fine-tune whose torchrun table has ranks 0-3 all ``exitcode : 1`` in one second
(meta-llama/llama-cookbook#714: the recipe's memory at that resolution, no one); three identical unranked DINOv2
tracebacks ending in the NaN check's ``raise AssertionError`` after the all-reduced loss (facebookresearch/dinov2#143:
KoLeo inf on every rank, no one). Scored 4/4 both ways as collected; no rule changed (measure only).
Contrasts: without the agent's -9 line the SIGTERM alone names no one, and exit 1 instead of -9 is a python-exception
warning; the -9 moved to local rank 1 names rank 1, and -11 reads as a segfault; one ``exitcode : -9`` in the table
names that rank as host-oom-kill, and the table cut to its root-cause block names rank 0; one traceback tagged
``[rank3]:`` names rank 3. Pasted logs through ``k10s import-logs``, batched.
Since session 57 the dinov2 paste with one copy tagged ``[rank3]:`` names no one: its two untagged copies of the same
``AssertionError`` are more processes raising it alike (common mode).
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted, pasted_findings
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 4, 21, 30, tzinfo=dt.timezone.utc)

FSDP_SIGKILL = corpus_lines("llama-cookbook-138-")
MP2_SIGKILL = corpus_lines("llama-603-")
TABLE_EXIT1 = corpus_lines("llama-cookbook-714-")
NAN_ASSERT = corpus_lines("dinov2-143-")

#: the agent's ``failed (exitcode: -9) local_rank: 1`` line left out: the SIGTERM to pid 11312 and torchrun's traceback
NO_FAILED_LINE = [line for line in FSDP_SIGKILL if "exitcode: -9" not in line]
#: the same worker ending with exit 1 instead of a SIGKILL
EXIT1_NOT_KILLED = [line.replace("exitcode: -9", "exitcode: 1") for line in FSDP_SIGKILL]
#: the 13B paste with the killed and the terminated worker swapped
RANK1_KILLED = [line.replace("local_rank: 0 (pid: 1795)", "local_rank: 1 (pid: 1796)")
                .replace("process 1796", "process 1795") for line in MP2_SIGKILL]
#: worker 0 dying of SIGSEGV instead of SIGKILL
RANK0_SEGV = [line.replace("exitcode: -9", "exitcode: -11") for line in MP2_SIGKILL]
#: rank 2's row of the table killed by signal 9 while the others exit 1
RANK2_KILLED_ROW = [line.replace("exitcode  : 1 (pid: 11319)", "exitcode  : -9 (pid: 11319)") for line in TABLE_EXIT1]
#: the table cut to its ``Root Cause (first observed failure)`` block: rank 0's row alone
ROOT_CAUSE_ONLY = TABLE_EXIT1[-7:]
#: the second of the three tracebacks tagged as torch tags a rank's exception (``[rank3]:``)
ONE_TAGGED = NAN_ASSERT[:5] + ["[rank3]: " + line for line in NAN_ASSERT[5:13]] + NAN_ASSERT[13:]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # culprits, as pasted and laid out as the threads say
    "fsdp-sigkill-as-pasted": (FSDP_SIGKILL, None, None, 1, "host-oom-kill"),
    "fsdp-sigkill-two-procs": (FSDP_SIGKILL, 2, 2, 1, "host-oom-kill"),
    "mp2-sigkill-as-pasted": (MP2_SIGKILL, None, None, 0, "host-oom-kill"),
    "mp2-sigkill-two-procs": (MP2_SIGKILL, 2, 2, 0, "host-oom-kill"),
    # controls
    "table-exit1-as-pasted": (TABLE_EXIT1, None, None, None, None),
    "table-exit1-one-node-of-4": (TABLE_EXIT1, 4, 4, None, None),
    "nan-assert-as-pasted": (NAN_ASSERT, None, None, None, None),
    "nan-assert-one-node-of-8": (NAN_ASSERT, 8, 8, None, None),
    # contrasts
    "no-failed-line-names-none": (NO_FAILED_LINE, 2, 2, None, None),
    "exit1-names-rank1-python-exception": (EXIT1_NOT_KILLED, 2, 2, 1, "python-exception"),
    "rank1-killed-names-rank1": (RANK1_KILLED, 2, 2, 1, "host-oom-kill"),
    "rank0-segv-names-rank0-segfault": (RANK0_SEGV, 2, 2, 0, "segfault"),
    "rank2-killed-row-names-rank2": (RANK2_KILLED_ROW, 4, 4, 2, "host-oom-kill"),
    "root-cause-only-names-rank0": (ROOT_CAUSE_ONLY, 4, 4, 0, "python-exception"),
    # since session 57: the two untagged copies beside rank 3's are processes raising it alike (common mode)
    "one-tagged-names-none": (ONE_TAGGED, 8, 8, None, None),
}
BATCHED = Batched("b269", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_facebookresearch_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])


def _failures(findings):
    return [f for f in findings if f["rule"] == "rank-failure"]


def test_fsdp_sigkill_is_critical_and_says_oom_killer(tmp_path):
    """The -9 of local rank 1 with the other worker SIGTERMed: a critical host-oom-kill of rank 1, said as such."""
    failures = _failures(pasted_findings(FSDP_SIGKILL, tmp_path, 2, 2, NOW))
    assert [(f["severity"], f["cause"], f["ranks"]) for f in failures] == [("critical", "host-oom-kill", [1])]
    assert "OOM killer" in failures[0]["summary"], failures[0]["summary"]


def test_table_exit1_reads_every_rank_alike(tmp_path):
    """Ranks 0-3 all exit 1 in one second: a warning that names no one and lists the four ranks together."""
    failures = _failures(pasted_findings(TABLE_EXIT1, tmp_path, 4, 4, NOW))
    assert failures and all(not f["ranks"] for f in failures), [(f["cause"], f["ranks"]) for f in failures]
    assert all(f["severity"] != "critical" for f in failures)
    assert "Ranks 0, 1, 2, 3" in failures[0]["summary"], failures[0]["summary"]


def test_nan_assert_names_no_rank_but_a_python_exception(tmp_path):
    """Three unranked tracebacks of one AssertionError: a python-exception without a rank, never a culprit."""
    failures = _failures(pasted_findings(NAN_ASSERT, tmp_path, None, None, NOW))
    assert [(f["cause"], f["ranks"]) for f in failures] == [("python-exception", [])]
    assert failures[0]["severity"] != "critical"
