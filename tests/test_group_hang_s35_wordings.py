"""A hang whose every wait line names one process group smaller than the world is said at info, naming no rank
(nccl-hang, cause ``group-hang``): which ranks wait, in which group, which ranks of the job print nothing. Read from
what the waiters' lines say of their group: the watchdog's ``[PG ID 6 PG GUID 266(PIPELINE_MODEL_PARALLEL_GROUP) Rank
6]`` (a group rank that is not the global one, a model-parallel group's name, a p2p op), pipelining's ``Shape inference:
stage 2 receiving from stage 1`` records beside a wait (c10d's poll waking empty). The real wordings: NVIDIA-NeMo/RL#2140
(Ray's policy worker rank 107, group rank 6 of its PIPELINE_MODEL_PARALLEL_GROUP) and pytorch/torchtitan#1492 (ranks 4-7
in shape inference, ranks 0-3 silent); their variants (NCCL versions' group spellings, Megatron's group names, Ray and
``[rankN]:`` prefixes, paste damage); contrasts: a whole-world hang is nccl-hang's as before, a group member's own
error names that member as before, shape-inference records without a wait are a healthy start, waiters in two groups
are not one group's hang (docs/rules.md, "Session 35: leftovers"). Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import corpus_log, naming_findings

NOW = dt.datetime(2026, 12, 2, 9, 0, tzinfo=dt.timezone.utc)
NEMO = corpus_log("NeMo-RL-2140-qwen3-235b-pp-group-first-p2p-timeout-rank107-control")
TITAN = corpus_log("torchtitan-1492-pp-stage-init-shape-inference-multinode-hang-control")
WD = ("{tag}[E1202 08:{m:02d}:49.683087154 ProcessGroupNCCL.cpp:1923] {pg} Process group watchdog thread terminated with "
      "exception: [Rank {g}] Watchdog caught collective operation timeout: WorkNCCL(SeqNum={s}, OpType={op}, NumelIn=0, "
      "NumelOut=0, Timeout(ms)=600000) ran for 600096 milliseconds before timing out.")
STACK = "{tag}Exception raised from checkTimeout at /opt/pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:658 (most recent call first):"
GUID = "[PG ID {i} PG GUID {u}({d}) Rank {g}]"


def _wd(r: int, g: int, pg: str, s: int = 1, op: str = "COALESCED", tag: str = "[rank{r}]:", m: int = 22) -> list[str]:
    t = tag.format(r=r)
    return [WD.format(tag=t, m=m, pg=pg.format(g=g), g=g, s=s, op=op), STACK.format(tag=t)]


def _pp(r: int, g: int, desc: str = "PIPELINE_MODEL_PARALLEL_GROUP", tag: str = "[rank{r}]:", op: str = "COALESCED") -> list[str]:
    return _wd(r, g, GUID.format(i=6, u=90, d=desc, g="{g}"), op=op, tag=tag)


def _titan(text: str) -> list[str]:
    return text.splitlines()


#: key: (lines, processes per node, world, the rank a warning/critical finding must name alone (None: none),
#:       the group-hang finding's waiters (None: no such finding), words its summary holds)
CASES = {
    # the real wordings: Ray's policy worker rank 107, group rank 6 of its PIPELINE_MODEL_PARALLEL_GROUP
    "nemo-rl-ray-pp-group": (NEMO.splitlines(), None, None, None, [107], ["PIPELINE_MODEL_PARALLEL_GROUP", "group rank 6"]),
    # pipelining's shape inference on ranks 4-7 (the launcher's tag outside torch's), c10d's poll waking empty
    "torchtitan-shape-inference": (_titan(TITAN), 4, 8, None, [4, 5, 6, 7], ["stage 2 receiving from stage 1", "Ranks 0-3"]),
    # variants: NCCL 2.2/2.3's group spelling `[PG 6 (PIPELINE_MODEL_PARALLEL_GROUP) Rank 1]`
    "pg-plain-desc": (_wd(10, 1, "[PG 6 (PIPELINE_MODEL_PARALLEL_GROUP) Rank {g}]"), 8, 16, None, [10],
                      ["PIPELINE_MODEL_PARALLEL_GROUP", "group rank 1"]),
    # a group without a description, the group rank alone differing from the global one
    "pg-rank-differs-no-desc": (_wd(13, 1, "[PG ID 3 PG GUID 67 Rank {g}]", op="ALLREDUCE", s=52), 8, 16, None, [13], ["group rank 1"]),
    # Megatron's other groups' names, the group rank equal to the global one's number
    "tensor-group-name": (_wd(1, 1, GUID.format(i=5, u=83, d="TENSOR_MODEL_PARALLEL_GROUP", g="{g}"), op="ALLREDUCE", s=7), 4, 8,
                          None, [1], ["TENSOR_MODEL_PARALLEL_GROUP"]),
    "expert-group-name": (_wd(4, 0, GUID.format(i=12, u=99, d="EXPERT_MODEL_PARALLEL_GROUP", g="{g}"), op="ALLTOALL_BASE", s=31),
                          8, 16, None, [4], ["EXPERT_MODEL_PARALLEL_GROUP"]),
    # two members of one pipeline group (two stages' ranks), the rest of the job silent
    "two-waiters-one-group": (_pp(4, 1) + _pp(12, 3), 8, 16, None, [4, 12], ["Ranks 0-3, 5-11, 13-15"]),
    # Ray's actor prefix before torch's tag; a p2p op in the group
    "ray-prefix-recv": (_pp(6, 1, tag="(RayWorkerWrapper pid=3340050, ip=10.1.107.221) [rank{r}]:", op="RECV"), 4, 8, None, [6],
                        ["RECV"]),
    # paste damage: CRLF line ends, ANSI colour, a markdown fence
    "paste-damage": (["```"] + [f"\x1b[31m{line}\x1b[0m\r" for line in _pp(10, 1)] + ["```"], 8, 16, None, [10],
                     ["PIPELINE_MODEL_PARALLEL_GROUP"]),
    # the watchdog's C++ stack pasted without the rank's tag (Megatron-Bridge#943's paste): it says nothing of the group
    "untagged-stack": (_pp(10, 1)[:1] + [STACK.format(tag="")], 8, 16, None, [10], ["PIPELINE_MODEL_PARALLEL_GROUP"]),
    # contrasts: two waiters of one group rank are in two instances of one group id (xDiT#147's PG 5): no one group
    "same-group-rank-twice": (_wd(0, 0, "[PG 5 Rank {g}]", op="ALLREDUCE", s=9) + _wd(4, 0, "[PG 5 Rank {g}]", op="ALLREDUCE", s=9),
                              4, 8, None, None, []),
    # every waiter on the default group is a whole-world hang, nccl-hang's as before (the silent rank named)
    "world-hang-default-pg": (sum((_wd(r, r, "[PG ID 0 PG GUID 0(default_pg) Rank {g}]", op="ALLREDUCE", s=88) for r in (0, 1, 2)), []),
                              4, 4, 3, None, []),
    # a member's own error (rank 5's illegal memory access) names it as before, no group finding
    "member-own-error": (["[rank5]:[E1202 08:12:55.123831168 ProcessGroupNCCL.cpp:1923] [PG ID 6 PG GUID 90(PIPELINE_MODEL_PARALLEL_GROUP) "
                          "Rank 1] Process group watchdog thread terminated with exception: CUDA error: an illegal memory access "
                          "was encountered"] + _pp(4, 0), 8, 8, 5, None, []),
    # the shape-inference records without any wait: a healthy start
    "shape-records-no-wait": (_titan(TITAN)[:6], 4, 8, None, None, []),
    # waiters in two different groups (a pipeline group and a tensor group): no one group's hang
    "two-groups": (_pp(4, 1) + _wd(9, 1, GUID.format(i=5, u=83, d="TENSOR_MODEL_PARALLEL_GROUP", g="{g}"), op="ALLREDUCE", s=7),
                   8, 16, None, None, []),
    # a group named without a description whose group rank is the global one: nothing says it is smaller than the world
    "pg1-same-rank": (_wd(1, 1, "[PG ID 1 PG GUID 1 Rank {g}]", op="ALLREDUCE", s=300), 2, 2, None, None, []),
}
BATCHED = Batched("s35group", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world = CASES[key][:3]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_a_hang_confined_to_one_group_is_said_naming_no_one(key, tmp_path_factory):
    findings = BATCHED.findings(key, tmp_path_factory, _make)
    _, _, _, want, waiters, words = CASES[key]
    assert_one_rank(naming_findings(findings), want)
    said = [f for f in findings if f["cause"] == "group-hang"]
    if waiters is None:
        assert said == [], said
        return
    assert len(said) == 1, [(f["rule"], f["cause"], f["ranks"]) for f in findings]
    f = said[0]
    assert (f["rule"], f["severity"], f["ranks"], f["pods"]) == ("nccl-hang", "info", [], [])
    assert f["evidence"][0]["victim_ranks"] == waiters
    for word in words:
        assert word in f["summary"], (word, f["summary"])
