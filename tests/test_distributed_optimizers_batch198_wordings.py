"""Multi-GPU training whose optimizer is itself distributed or memory-saving (real incidents batch 198): its
wordings, pinned as read. Held controls: ZeRO++ (qwZ/hpZ/qgZ) making every rank's NCCL allocator fail with
``include/alloc.h:38 NCCL WARN Cuda failure 'misaligned address'`` and ``Abort COMPLETE`` (deepspeedai/DeepSpeed#3827,
pdsh-prefixed, ranks 0 and 2 of 4 as pasted, or all four, or without the host prefix); DeepSpeedCPUAdam's
``KeyError: 'bias_correction'`` at the first step before the agent SIGTERMs the other workers (hiyouga/LlamaFactory
#10286: the param groups every rank builds); one rank's ``[rankN]:`` frames of ``optimizer.step()`` cut before the
exception, GaLore under Fabric FSDP (jiaweizzhao/GaLore#47) and MuonClip under Lightning AMP (GAD-cell/muon-clip#8): a
suspect at most (info), never a culprit. The two missed culprits as read: rank 0's ZeRO-3 offload ``see_memory_usage``
lines (hiyouga/LlamaFactory#9116) and every worker's CPU-only bitsandbytes warnings (bghira/SimpleTuner#41) name no
one, since the agent's ``failed (exitcode: -9) local_rank: N`` is in the issues' titles, not in the pastes; the
contrasts: with that line appended, local rank 0 / 4 is named (host-oom-kill). No rule changed for the batch
(docs/rules.md, "Session 36: batch 198"). Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 2, 12, 0, tzinfo=dt.timezone.utc)


ZEROPP = corpus_lines("DeepSpeed-3827-")
CPU_ADAM = corpus_lines("LlamaFactory-10286-")
GALORE = corpus_lines("GaLore-47-")
MUON = corpus_lines("muon-clip-8-")
OFFLOAD = corpus_lines("LlamaFactory-9116-")
BNB = corpus_lines("SimpleTuner-41-")
HOST = "192.168.1.51: "
MISALIGNED = [
    "iZuf69i4pwuzuijxvre2qmZ:{pid}:{tid} [{r}] include/alloc.h:38 NCCL WARN Cuda failure 'misaligned address'",
    "iZuf69i4pwuzuijxvre2qmZ:{pid}:{tid} [{r}] NCCL INFO comm 0x7f4dc419{r}800 rank {r} nranks 4 cudaDev {r} "
    "busId {r}0 - Abort COMPLETE",
]
AGENT = (
    "E0910 20:17:31.000000 140 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: {code}) "
    "local_rank: {r} (pid: {pid}) of binary: /opt/conda/bin/python"
)
LEGACY_AGENT = (
    "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: -9) local_rank: 4 (pid: 18320) of binary: "
    "/workspace/SimpleTuner/.venv/bin/python"
)


def _misaligned(ranks: list[int], prefix: str = HOST) -> list[str]:
    return [
        prefix + line.format(pid=166275 + r, tid=167285 + 6 * r, r=r)
        for r in ranks
        for line in MISALIGNED
    ]


#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone: None for
#: none, the cause one of them must give)
CASES = {
    "zeropp-misaligned-ranks-0-2-as-pasted": (ZEROPP, None, None, None, None),
    "zeropp-misaligned-every-rank": (_misaligned([0, 1, 2, 3]), 4, 4, None, None),
    "zeropp-misaligned-no-host-prefix": (
        _misaligned([0, 2, 3], prefix=""),
        4,
        4,
        None,
        None,
    ),
    "cpu-adam-bias-correction-sigterm": (CPU_ADAM, None, None, None, None),
    "cpu-adam-bias-correction-keyerror-worded": (
        [
            ("KeyError: 'bias_correction'" if line == "'bias_correction'" else line)
            for line in CPU_ADAM
        ],
        None,
        None,
        None,
        None,
    ),
    "galore-fsdp-rank1-frames-cut": (GALORE, 4, 4, None, None),
    "muonclip-rank0-frames-cut": (MUON, None, None, None, None),
    # the missed culprits as read: the agent's failed line is only in the issues' titles
    "zero3-offload-rank0-memory-report-only": (OFFLOAD, None, None, None, None),
    "bnb-cpu-only-warnings-only": (BNB, None, None, None, None),
    # contrasts: with the agent's line in the paste, the SIGKILLed local rank is named
    "zero3-offload-with-agent-sigkill": (
        OFFLOAD + [AGENT.format(code=-9, r=0, pid=438)],
        None,
        None,
        0,
        "host-oom-kill",
    ),
    "bnb-cpu-only-with-legacy-agent-sigkill": (
        BNB + [LEGACY_AGENT],
        None,
        None,
        4,
        "host-oom-kill",
    ),
}
BATCHED = Batched("b198", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world = CASES[key][:3]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_distributed_optimizer_wordings_read_as_collected(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])
