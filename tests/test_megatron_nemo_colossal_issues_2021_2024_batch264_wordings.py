"""Megatron-LM / NeMo / ColossalAI / fairscale issue pastes of 2021-2024 (real incidents batch 264), pinned as read.
Five controls whose threads put the fault in the code, the library or the configuration, not in a rank: fairscale
FSDP's ``AssertionError: reduce_scatter received 2 inputs, expected group.size() (8)`` with no rank tag
(facebookresearch/fairscale#904: fixed by PR #907, a padding bug every rank hits); Megatron-LM's ``ImportError:
cannot import name 'helpers'`` on the nodes other than node 0 (NVIDIA/Megatron-LM#298: the helpers are built on global
rank 0 only); mp.spawn's ``-- Process 5 terminated`` with a ``SystemError`` out of ``run_backward``
(facebookresearch/fairscale#1139: FSDP handle bug under PP+TE, fixed in the library); mp.spawn's ``-- Process 3
terminated`` into a two-loss ``backward()`` (facebookresearch/fairscale#920: FSDP does not support the script's
multiple losses); one ``CUDA out of memory ... (GPU 4; ...)`` line of an 8-A100 gemini_auto finetune
(hpcaitech/ColossalAI#5030: the plugin's memory budget, answer full CPU offload). Scored 3/5 both ways as collected
(the two spawn relays name their process: NOT_YET); no rule changed (measure only).
Contrasts: the assertion on ``[rank3]:``-tagged lines names rank 3; the ImportError tagged ``[rank9]:`` on two nodes
of 8 names rank 9; the spawn relay without its ``-- Process N terminated`` line names no one, and with ``Process 1``
names rank 1; the OOM line tagged ``[rank4]:`` names rank 4 (cuda-oom).
Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 4, 18, 30, tzinfo=dt.timezone.utc)

FSDP_REDUCE_SCATTER = corpus_lines("fairscale-904-")
HELPERS_IMPORT = corpus_lines("Megatron-LM-298-")
SPAWN_SYSTEMERROR = corpus_lines("fairscale-1139-")
SPAWN_TWO_LOSSES = corpus_lines("fairscale-920-")
GEMINI_OOM = corpus_lines("ColossalAI-5030-")

#: the FSDP assertion as torch prints a rank's exception, every line tagged ``[rank3]:``
ASSERT_RANK3 = ["[rank3]: " + line for line in FSDP_REDUCE_SCATTER]
#: the helpers ImportError on lines tagged by the failing rank of the second node
IMPORT_RANK9 = ["[rank9]: " + line for line in HELPERS_IMPORT]
#: the two-loss relay with its ``-- Process 3 terminated ...`` line (and the blank line before it) left out
TWO_LOSSES_UNNUMBERED = SPAWN_TWO_LOSSES[:10] + SPAWN_TWO_LOSSES[12:]
#: the same relay naming spawn process 1 instead of 3
TWO_LOSSES_PROCESS1 = [line.replace("Process 3", "Process 1") for line in SPAWN_TWO_LOSSES]
#: the OOM line as rank 4 prints it under torch 2.x
OOM_RANK4 = ["[rank4]: " + GEMINI_OOM[0]]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # controls, as pasted and laid out as the threads say
    "reduce-scatter-as-pasted": (FSDP_REDUCE_SCATTER, None, None, None, None),
    "reduce-scatter-world-8": (FSDP_REDUCE_SCATTER, None, 8, None, None),
    "helpers-import-as-pasted": (HELPERS_IMPORT, None, None, None, None),
    "helpers-import-two-nodes-of-8": (HELPERS_IMPORT, 8, 16, None, None),
    "gemini-oom-as-pasted": (GEMINI_OOM, None, None, None, None),
    "gemini-oom-one-node-of-8": (GEMINI_OOM, 8, 8, None, None),
    # the two spawn relays, read as their process's exception (NOT_YET: the threads say every process fails alike)
    "spawn-systemerror-names-process5": (SPAWN_SYSTEMERROR, None, None, 5, "python-exception"),
    "spawn-two-losses-names-process3": (SPAWN_TWO_LOSSES, None, None, 3, "python-exception"),
    # contrasts
    "reduce-scatter-rank3-tagged-names-rank3": (ASSERT_RANK3, None, None, 3, "python-exception"),
    "helpers-import-rank9-tagged-names-rank9": (IMPORT_RANK9, 8, 16, 9, "python-exception"),
    "two-losses-unnumbered-names-none": (TWO_LOSSES_UNNUMBERED, None, None, None, None),
    "two-losses-process1-names-rank1": (TWO_LOSSES_PROCESS1, None, None, 1, "python-exception"),
    "gemini-oom-rank4-tagged-names-rank4": (OOM_RANK4, 8, 8, 4, "cuda-oom"),
}
BATCHED = Batched("b264", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_batch264_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])


def _findings(lines: list[str], folder: Path, nproc: int | None, world: int | None) -> list[dict]:
    from k10s_forensics.analyze.runner import analyze

    return analyze(pasted(lines, folder, nproc, NOW, world=world))["findings"]


def test_reduce_scatter_assertion_is_an_unranked_exception(tmp_path):
    """fairscale's assertion with no rank tag is still read as a Python exception (warning), naming no rank: the
    ``(8)`` of ``group.size() (8)`` is a group size, not a rank."""
    findings = _findings(FSDP_REDUCE_SCATTER, tmp_path, None, 8)
    failures = [f for f in findings if f["rule"] == "rank-failure"]
    assert [(f["severity"], f["cause"], f["ranks"]) for f in failures] == [("warning", "python-exception", [])], \
        [(f["rule"], f["severity"], f["cause"], f["ranks"]) for f in findings]


def test_gemini_oom_reads_as_an_unranked_cascade(tmp_path):
    """One pasted OOM line naming ``GPU 4`` is an OOM of some rank (critical oom-cascade) with no rank named: the
    device index in the message is not taken for a rank without a rank tag."""
    findings = _findings(GEMINI_OOM, tmp_path, 8, 8)
    ooms = [f for f in findings if f["cause"] == "cuda-oom"]
    assert ooms and all(not f["ranks"] for f in ooms), [(f["rule"], f["cause"], f["ranks"]) for f in findings]
    assert any(f["rule"] == "oom-cascade" and f["severity"] == "critical" for f in ooms), \
        [(f["rule"], f["severity"]) for f in ooms]


def test_spawn_relay_names_the_process_it_numbers(tmp_path):
    """The spawn relay's ``-- Process N terminated`` line is what names a rank: the same traceback numbered 3 or 1
    names that rank, and without the line it names no one."""
    named = {}
    for key, lines in (("3", SPAWN_TWO_LOSSES), ("1", TWO_LOSSES_PROCESS1), ("none", TWO_LOSSES_UNNUMBERED)):
        found = naming_findings(_findings(lines, tmp_path / key, None, None))
        named[key] = sorted({r for f in found for r in f["ranks"]})
    assert named == {"3": [3], "1": [1], "none": []}, named
