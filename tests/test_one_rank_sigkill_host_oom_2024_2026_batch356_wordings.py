"""One rank SIGKILLed by the host's OOM killer, 2024-2026 (real incidents batch 356), pinned as read. Three incidents,
collected blind; each pasted excerpt holds only the torch-elastic agent's ``Sending process N closing signal SIGTERM``
lines to the survivors (the first glued to a tqdm bar in two of them), never the ``failed (exitcode: -9)`` line.
Read right as collected: hiyouga/LlamaFactory#8836 (four SIGTERMs while gpt-oss-120b's shards load; the maintainer:
CPU RAM OOM of the whole job, a control) names no one, as pasted or laid out as 8 GPUs. Read as nothing where the
batch wants rank 0 (NOT_YET, batch 356): modelscope/ms-swift#1208 (the step-1 loss dict and one SIGTERM to pid 1760810
at the first ZeRO-3-offload save; rank 0's ``failed (exitcode: -9) local_rank: 0`` is the issue's title) and
PKU-YuanGroup/Open-Sora-Plan#512 (seven SIGTERMs at checkpoint save; rank 0's failed line is the paste's next line,
cut by the excerpt). Scored 1/3 both ways as collected (243d7407); no rule changed (measure only).
Contrasts: the agent's own ``failed (exitcode: -9) local_rank: N`` line after the SIGTERMs names rank N (host-oom-kill,
critical) in every one of the three, whichever N it says (so the control is read as nothing only because the line is
absent); with ``exitcode: 1`` in its place the rank is a Python failure (warning), not an OOM kill; the failed line
alone, without the SIGTERMs, still names its rank. Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted, pasted_findings
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 6, 3, 0, tzinfo=dt.timezone.utc)

SHARDS_LOADING = corpus_lines("llamafactory-8836-")
ZERO3_SAVE = corpus_lines("ms-swift-1208-")
CKPT_SAVE = corpus_lines("open-sora-plan-512-")

#: the agent's failed lines as each launcher's version writes them (synthetic: the threads' excerpts stop before them)
SHARDS_FAILED = (
    "E0806 20:07:56.123456 148486 /mnt/dolphinfs/hdd_pool/docker/user/hadoop-friday-llm/ssy/condaEnv/verl/lib/"
    "python3.10/site-packages/torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: -9) "
    "local_rank: 0 (pid: 148592) of binary: /usr/bin/python3"
)
ZERO3_FAILED = (
    "E0622 19:47:17.565751 140373504014144 torch/distributed/elastic/multiprocessing/api.py:826] failed "
    "(exitcode: -9) local_rank: 0 (pid: 1760809) of binary: /home/xxx/miniconda3/envs/swift/bin/python"
)
CKPT_FAILED = (
    "[2024-10-28 06:14:37,244] torch.distributed.elastic.multiprocessing.api: [ERROR] failed (exitcode: -9) "
    "local_rank: 0 (pid: 598577) of binary: /usr/bin/python"
)


def _rank(line: str, rank: int) -> str:
    return line.replace("local_rank: 0", f"local_rank: {rank}")


#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # as collected, pasted and laid out as the threads say
    "shards-loading-as-pasted": (SHARDS_LOADING, None, None, None, None),
    "shards-loading-eight-gpus": (SHARDS_LOADING, 8, 8, None, None),
    # today's readings of the NOT_YET culprits
    "zero3-save-as-pasted": (ZERO3_SAVE, None, None, None, None),
    "zero3-save-two-gpus": (ZERO3_SAVE, 2, 2, None, None),
    "ckpt-save-as-pasted": (CKPT_SAVE, None, None, None, None),
    "ckpt-save-eight-gpus": (CKPT_SAVE, 8, 8, None, None),
    # contrasts: the agent's failed line after the SIGTERMs
    "shards-loading-failed-rank0-names-0": (SHARDS_LOADING + [SHARDS_FAILED], 8, 8, 0, "host-oom-kill"),
    "shards-loading-failed-rank2-names-2": (SHARDS_LOADING + [_rank(SHARDS_FAILED, 2)], 8, 8, 2, "host-oom-kill"),
    "zero3-save-failed-names-0": (ZERO3_SAVE + [ZERO3_FAILED], 2, 2, 0, "host-oom-kill"),
    "zero3-save-failed-as-pasted-names-0": (ZERO3_SAVE + [ZERO3_FAILED], None, None, 0, "host-oom-kill"),
    "zero3-save-exit1-names-0-python": (
        ZERO3_SAVE + [ZERO3_FAILED.replace("exitcode: -9", "exitcode: 1")],
        2,
        2,
        0,
        "python-exception",
    ),
    "ckpt-save-failed-names-0": (CKPT_SAVE + [CKPT_FAILED], 8, 8, 0, "host-oom-kill"),
    "ckpt-save-failed-rank3-names-3": (CKPT_SAVE + [_rank(CKPT_FAILED, 3)], 8, 8, 3, "host-oom-kill"),
    "ckpt-save-failed-alone-names-0": ([CKPT_FAILED], 8, 8, 0, "host-oom-kill"),
}
BATCHED = Batched("b356", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_one_rank_sigkill_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])


@pytest.mark.parametrize("lines", [SHARDS_LOADING, ZERO3_SAVE, CKPT_SAVE], ids=["8836", "1208", "512"])
def test_sigterms_to_survivors_alone_are_no_finding(lines, tmp_path):
    """The agent's SIGTERMs to the survivors, with nothing else, are no finding at all (not even an info one)."""
    assert pasted_findings(lines, tmp_path, None, None, NOW) == []


def test_failed_line_reads_critical_host_oom(tmp_path):
    """The agent's ``failed (exitcode: -9)`` line is one critical rank-failure, host-oom-kill, of its local rank."""
    gist = [
        (f["rule"], f["severity"], f["cause"], f["ranks"])
        for f in pasted_findings(CKPT_SAVE + [CKPT_FAILED], tmp_path, 8, 8, NOW)
    ]
    assert gist == [("rank-failure", "critical", "host-oom-kill", [0])]
