"""Launchers other than torchrun, 2024-2026 wordings (real incidents batch 412), pinned as read. Collected blind
(d5bea6cb): two incidents, both controls (docs/rules.md's section records the search yield). Scored once as
collected: 2/2 both ways (no control named):

- deepspeedai/DeepSpeed#1956 (control, read right as collected): GPT-J-6B ``run_clm.py`` under the ``deepspeed``
  launcher on 2 GPUs, resumed from ``finetuned/checkpoint-22``: DeepSpeed's ``successfully read 2 ZeRO state_dicts for
  rank 0``, then the launcher's ``sigkill_handler`` ``Killing subprocess 97277`` / ``97278`` (its ERROR command line is
  cut by the excerpt and left out). Truth (the sister thread huggingface/transformers#17258): host memory, the machine's
  cgroups resource control killed the job while both processes reloaded the model. k10s finds nothing (as pasted, as 2
  processes).
- hiyouga/LlamaFactory#3698 (control, read right as collected): one line, rank 4's ``[4] is setting up NCCL communicator
  and retrieving ncclUniqueId from [0] ... store->get('0') got error: Socket Timeout``; the maintainer: 'Check NCCL
  connection'. k10s finds nothing (as pasted, as 8 processes, tagged ``[rank4]:``).

Contrasts: the launcher's ERROR record completed (synthetic ``--local_rank=1`` ... ``exits with return code = -9``) is
one warning host-oom-kill of no rank (the launcher prints its last-spawned command, whichever child failed); the elastic
agent's ``failed (exitcode: -9) local_rank: 1`` in its place names local rank 1 (host-oom-kill), and a CUDA OOM of rank
1 after the paste names rank 1 (cuda-oom). The same store-timeout line from every waiter 1-7 names no one; a CUDA OOM of
rank 0 (synthetic ``[rank0]:`` tag) before rank 4's line names rank 0 (cuda-oom): the key's owner is named only by its
own failure. Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted, pasted_findings
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 7, 23, 0, tzinfo=dt.timezone.utc)

DEEPSPEED = corpus_lines("DeepSpeed-1956-")
LLAMAFACTORY = corpus_lines("LlamaFactory-3698-")

#: Synthetic: the deepspeed launcher's ERROR record completed (the excerpt cuts the real one mid-argument).
LAUNCHER_ERROR = ("[2022-05-15 00:12:57,786] [ERROR] [launch.py:184:sigkill_handler] ['/usr/bin/python3', '-u', "
                  "'run_clm.py', '--local_rank=1', '--deepspeed', 'ds_config_gptj6b.json'] exits with return code = -9")
#: Synthetic: torchrun's elastic agent in the launcher's place, naming the SIGKILLed local rank.
AGENT_SIGKILL = ("torch.distributed.elastic.multiprocessing.api:failed (exitcode: -9) local_rank: 1 (pid: 97278) of "
                 "binary: /usr/bin/python3")


def _oom(rank: int) -> str:
    """Synthetic: rank ``rank``'s own CUDA out-of-memory error (torch 2.x wording)."""
    return (f"[rank{rank}]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU {rank} has a "
            f"total capacity of 22.07 GiB of which 1.12 GiB is free.")


def _waiter(rank: int) -> str:
    """Synthetic: rank ``rank``'s store timeout waiting for rank 0's NCCL id (the paste's wording)."""
    return (f"torch.distributed.DistBackendError: [{rank}] is setting up NCCL communicator and retrieving ncclUniqueId "
            f"from [0] via c10d key-value store by key '0', but store->get('0') got error: Socket Timeout")


#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # as collected (both controls)
    "deepspeed-as-pasted": (DEEPSPEED, None, None, None, None),
    "deepspeed-two-processes": (DEEPSPEED, 2, 2, None, None),
    "llamafactory-as-pasted": (LLAMAFACTORY, None, None, None, None),
    "llamafactory-eight-processes": (LLAMAFACTORY, 8, 8, None, None),
    # variants that must not name anyone
    "deepspeed-launcher-error-local-rank1-names-none": (DEEPSPEED + [LAUNCHER_ERROR], 2, 2, None, None),
    "llamafactory-tagged-rank4-names-none": ([f"[rank4]: {LLAMAFACTORY[0]}"], 8, 8, None, None),
    "llamafactory-waiters-1-to-7-names-none": ([_waiter(r) for r in range(1, 8)], 8, 8, None, None),
    # contrasts that must name a rank
    "deepspeed-agent-sigkill-local-rank1-names-rank1": (DEEPSPEED[:6] + [AGENT_SIGKILL], 2, 2, 1, "host-oom-kill"),
    "deepspeed-then-oom-rank1-names-rank1": (DEEPSPEED + [_oom(1)], 2, 2, 1, "cuda-oom"),
    "llamafactory-oom-rank0-first-names-rank0": ([_oom(0), *LLAMAFACTORY], 8, 8, 0, "cuda-oom"),
}
BATCHED = Batched("b412", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_launchers_other_than_torchrun_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])


def _gist(lines: list[str], folder: Path, nproc: int | None, world: int | None) -> list[tuple]:
    return [(f["rule"], f["severity"], f["cause"], f["ranks"]) for f in pasted_findings(lines, folder, nproc, world, NOW)]


def test_deepspeed_killing_subprocess_finds_nothing(tmp_path):
    """deepspeedai/DeepSpeed#1956 (control) as collected: the checkpoint-load lines and the launcher's two `Killing
    subprocess` lines give no finding; the completed ERROR record is one warning host-oom-kill of no rank."""
    assert _gist(DEEPSPEED, tmp_path / "a", None, None) == []
    assert _gist(DEEPSPEED, tmp_path / "b", 2, 2) == []
    assert _gist(DEEPSPEED + [LAUNCHER_ERROR], tmp_path / "c", 2, 2) == [("rank-failure", "warning", "host-oom-kill", [])]


def test_llamafactory_store_timeout_finds_nothing(tmp_path):
    """hiyouga/LlamaFactory#3698 (control) as collected: rank 4's wait for rank 0's NCCL id finds nothing, as pasted
    and as 8 processes; rank 0 is not read as never-joined from the key's owner alone."""
    assert _gist(LLAMAFACTORY, tmp_path / "a", None, None) == []
    assert _gist(LLAMAFACTORY, tmp_path / "b", 8, 8) == []
