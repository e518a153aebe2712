"""Multi-GPU fine-tuning failures of 2025-2026 (real incidents batch 255), pinned as read. One culprit: VLM-R1's GRPO
run pasted as one physical line, rank 2's ``RuntimeError: shape mismatch`` with the agent's three SIGTERMs and
``failed (exitcode: 1) local_rank: 2`` glued on (om-ai-lab/VLM-R1#86: rank 2's batch), named rank 2
(python-exception). Four controls: unsloth's DDP rank 5 OOM with seven peer contexts on GPU 5 and rank 3's traceback
(OEvortex/unsloth#20: 2x VRAM on every rank), read as an alike OOM naming no one; ms-swift's agent ``Received 1 death
signal`` glued to a tqdm bar and one worker SIGHUPed (modelscope/ms-swift#9788: the launcher's own SIGHUP), read as
nothing. Two controls were read as a culprit as collected: axolotl's FSDP-offload ``pin_memory`` ``CUDA error: invalid
argument`` on rank 0 alone (axolotl-ai-cloud/axolotl#2743) named rank 0 (cuda-error; since session 50 a CUDA call
refused as an invalid argument names a suspect only, info, so no one is named), and ms-swift's Qwen2.5-VL rank 0 OOM
tail (modelscope/ms-swift#5199) names rank 0 (cuda-oom; NOT_YET, tests/corpus_not_yet_s38.py). Scored 3/5 both ways as
collected; 4/5 after.
Contrasts: VLM-R1's exception without its ``[rank2]:`` tag still names rank 2 through the glued agent record, and
without both names no one; the same line for rank 1 names rank 1; unsloth's rank 5 OOM without rank 3's traceback is the
lone-rank OOM shape and names rank 5; axolotl's tail without the ``[rank0]:`` tags names no one; ms-swift's SIGHUP
paste with an agent ``failed (exitcode: -9) local_rank: 0`` names rank 0; axolotl's tail with an illegal memory access
in place of the refused call names rank 0; ms-swift#5199 with rank 1's OOM line as well
names no one. Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt

import pytest

from bundle_batch import Batched, assert_one_rank, pasted_cases, pasted_findings
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 4, 13, 0, tzinfo=dt.timezone.utc)

GLUED_SHAPE = corpus_lines("VLM-R1-86-")
DDP_2X_VRAM = corpus_lines("unsloth-fork-20-")
OFFLOAD_PIN = corpus_lines("axolotl-2743-")
AGENT_SIGHUP = corpus_lines("ms-swift-9788-")
VL_OOM_TAIL = corpus_lines("ms-swift-5199-")

#: the exception part of VLM-R1's one line, before the glued agent records
EXCEPTION_ONLY = GLUED_SHAPE[0].split(" W0227")[0]
#: the whole line with the ``[rank2]:`` tag taken off: the agent's ``local_rank: 2`` still there
UNTAGGED_WITH_AGENT = [GLUED_SHAPE[0].replace("[rank2]: ", "")]
#: neither the tag nor the agent's records: an exception of no rank
UNTAGGED_NO_AGENT = [EXCEPTION_ONLY.replace("[rank2]: ", "")]
#: the same line for rank 1 (tag and agent record)
RANK1_LINE = [GLUED_SHAPE[0].replace("[rank2]", "[rank1]").replace("local_rank: 2", "local_rank: 1")]
#: unsloth's rank 5 OOM alone, rank 3's traceback left out
RANK5_OOM_ALONE = DDP_2X_VRAM[:1]
#: axolotl's tail without the rank tags torch prints
OFFLOAD_UNTAGGED = [line.replace("[rank0]: ", "") for line in OFFLOAD_PIN]
#: the same tail with a kernel's illegal memory access in place of the refused call
OFFLOAD_ILLEGAL = [line.replace("CUDA error: invalid argument", "CUDA error: an illegal memory access was encountered")
                   for line in OFFLOAD_PIN]
#: the SIGHUP paste with the agent reporting its one worker killed
SIGHUP_THEN_KILLED = AGENT_SIGHUP[:10] + [
    "E0722 21:16:14.900000 3681165 /appdata/zhangkailin/conda/envs/swift-sft/lib/python3.12/site-packages/torch/"
    "distributed/elastic/multiprocessing/api.py:984] failed (exitcode: -9) local_rank: 0 (pid: 3681211) of binary: "
    "/appdata/zhangkailin/conda/envs/swift-sft/bin/python3"
]
#: ms-swift#5199's tail with rank 1's OOM line as well (the thread: both cards out of memory)
BOTH_RANKS_OOM = VL_OOM_TAIL + [
    VL_OOM_TAIL[-1].replace("[rank0]", "[rank1]").replace("GPU 0", "GPU 1").replace("Process 30047", "Process 30048")
]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # the culprit, as pasted and laid out (4 workers)
    "glued-shape-as-pasted": (GLUED_SHAPE, None, None, 2, "python-exception"),
    "glued-shape-one-node-of-4": (GLUED_SHAPE, 4, 4, 2, "python-exception"),
    # controls
    "ddp-2x-vram-as-pasted": (DDP_2X_VRAM, None, None, None, None),
    "ddp-2x-vram-one-node-of-8": (DDP_2X_VRAM, 8, 8, None, None),
    "agent-sighup-as-pasted": (AGENT_SIGHUP, None, None, None, None),
    "agent-sighup-one-worker": (AGENT_SIGHUP, 1, 1, None, None),
    # controls read as a culprit today (NOT_YET in the corpus), pinned as read
    "offload-pin-as-read-names-none": (OFFLOAD_PIN, 6, 6, None, None),
    "vl-oom-tail-as-read-names-rank0": (VL_OOM_TAIL, 2, 2, 0, "cuda-oom"),
    # contrasts
    "exception-only-names-rank2": ([EXCEPTION_ONLY], None, None, 2, "python-exception"),
    "untagged-with-agent-names-rank2": (UNTAGGED_WITH_AGENT, None, None, 2, "python-exception"),
    "untagged-no-agent-names-none": (UNTAGGED_NO_AGENT, None, None, None, None),
    "rank1-line-names-rank1": (RANK1_LINE, None, None, 1, "python-exception"),
    "rank5-oom-alone-names-rank5": (RANK5_OOM_ALONE, 8, 8, 5, "cuda-oom"),
    "offload-untagged-names-none": (OFFLOAD_UNTAGGED, 6, 6, None, None),
    "offload-illegal-access-names-rank0": (OFFLOAD_ILLEGAL, 6, 6, 0, "cuda-error"),
    "sighup-then-killed-names-rank0": (SIGHUP_THEN_KILLED, 1, 1, 0, None),
    "both-ranks-oom-names-none": (BOTH_RANKS_OOM, 2, 2, None, None),
}
BATCHED = Batched("b255", list(CASES))


_make = pasted_cases(CASES, NOW)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_finetuning_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])


def test_ddp_2x_vram_reads_as_an_alike_oom(tmp_path):
    """Rank 5's OOM with rank 3 already unwinding: an OOM cascade naming no rank, not rank 5's fault."""
    findings = pasted_findings(DDP_2X_VRAM, tmp_path, 8, 8, NOW)
    ooms = [f for f in findings if f["rule"] == "oom-cascade"]
    assert ooms and all(not f["ranks"] and f["cause"] == "cuda-oom" for f in ooms), [
        (f["rule"], f["severity"], f["ranks"]) for f in findings]


def test_agent_sighup_names_no_failure(tmp_path):
    """The launcher's own ``Received 1 death signal`` glued to a bar: no warning or critical finding at all."""
    findings = pasted_findings(AGENT_SIGHUP, tmp_path, 1, 1, NOW)
    loud = [(f["rule"], f["severity"], f["cause"], f["ranks"]) for f in findings
            if f["severity"] in ("critical", "warning")]
    assert loud == [], loud
