"""Multi-GPU / multi-node reinforcement learning with simulators in the loop (real incidents batch 201): their wordings,
pinned as read. Held culprit: mjlab's two workers under torchrunx at 50K environments whose elastic agent, relayed under
torchrunx's ``[rank1]:`` prefix, reports ``failed (exitcode: -9) local_rank: 1`` and SIGTERMs local rank 0
(mujocolab/mjlab#576: rank 1, host-oom-kill; also without the relay prefix, in the legacy ``ERROR:torch.distributed...
of binary`` wording and in a layout of 2). Held controls: DD-PPO under mpirun whose processes' tracebacks interleave
into ``RuntimeError: Address already in use`` (facebookresearch/habitat-lab#457; also with four copies), Kit's
``No device could be created`` under a masked CUDA_VISIBLE_DEVICES (isaac-sim/IsaacLab#4012), a two-node master's
manager tables (isaac-sim/IsaacLab#4596) and Kit's ``Skipping NVIDIA GPU due CUDA being in bad state`` warnings
(isaac-sim/IsaacLab#2756) name no one. The agent's own records keep torchrunx's ``[rank1]:`` tag, which is the agent's
rank in torchrunx's launcher-and-agents group, no worker's (parsers/log_normalize.AGENT_TAGGED): the same paste with the
agent reporting local rank 0 names rank 0 (read as collected, the tag named rank 1 whatever local rank the record gave),
and a second host's agent (``[rank2]:``) reporting its local rank 0 names no one (its node is not the first). Contrast: the
``bad state`` warnings followed by rank 1's own ``invalid device ordinal`` name rank 1. Pasted logs through ``k10s
import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 2, 12, 0, tzinfo=dt.timezone.utc)


MJLAB = corpus_lines("mjlab-576-")
MPIRUN = corpus_lines("habitat-lab-457-")
NO_DEVICE = corpus_lines("IsaacLab-4012-")
TABLES = corpus_lines("IsaacLab-4596-")
BAD_STATE = corpus_lines("IsaacLab-2756-")
RELAY = "ERROR:torchrunx.localhost:[rank1]:"
#: mjlab-576 without torchrunx's relay: the agent's own lines as torchrun prints them
MJLAB_PLAIN = MJLAB[:7] + [line.replace(RELAY, "") for line in MJLAB[7:]]
#: the legacy (torch < 2.2) agent wording of the same failure
MJLAB_LEGACY = MJLAB[:7] + [
    "WARNING:torch.distributed.elastic.multiprocessing.api:Sending process 6701 closing signal SIGTERM",
    "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: -9) local_rank: 1 (pid: 6702) of binary: "
    "/root/mjlab/.venv/bin/python",
]
#: the agent (still tagged ``[rank1]:`` by torchrunx) reports local rank 0 killed and SIGTERMs local rank 1
MJLAB_RANK0 = [
    line.replace("process 6701", "process 6702").replace(
        "local_rank: 1 (pid: 6702)", "local_rank: 0 (pid: 6701)"
    )
    for line in MJLAB
]
#: torchrunx over two hosts: the second host's agent (torchrunx's group: launcher 0, agents 1 and 2) reports its local rank 0
#: SIGKILLed; which global rank that is the tag cannot say (worker 2 in a layout of 2 x 2: no single node is proven)
TWO_AGENTS = [
    'INFO:torchrunx:Launching "run_train" on node-a, node-b.',
    "[Gloo] Rank 0 is connected to 2 peer ranks. Expected number of connected peer ranks is : 2",
    "INFO:torchrunx.node-a:Starting 2 worker processes.",
    "INFO:torchrunx.node-b:Starting 2 worker processes.",
    "ERROR:torchrunx.node-b:[rank2]:W0204 21:34:02.274000 7001 .venv/lib/python3.13/site-packages/torch/multiprocessing/"
    "spawn.py:174] Terminating process 7103 via signal SIGTERM",
    "ERROR:torchrunx.node-b:[rank2]:E0204 21:34:02.943000 7001 .venv/lib/python3.13/site-packages/torch/distributed/elastic/"
    "multiprocessing/api.py:742] failed (exitcode: -9) local_rank: 0 (pid: 7102) of fn: worker_entrypoint "
    "(start_method: spawn)",
]
ADDR = "RuntimeError: Address already in use"
ORDINAL = "[rank1]: RuntimeError: CUDA error: invalid device ordinal"

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # mjlab-576's shape: the agent's -9 for local rank 1, relayed by torchrunx
    "torchrunx-minus9-rank1-as-pasted": (MJLAB, None, None, 1, "host-oom-kill"),
    "torchrunx-minus9-rank1-layout-2": (MJLAB, 2, 2, 1, "host-oom-kill"),
    "torchrun-minus9-rank1-no-relay-prefix": (MJLAB_PLAIN, 2, 2, 1, "host-oom-kill"),
    "torchrun-minus9-rank1-legacy-wording": (MJLAB_LEGACY, 2, 2, 1, "host-oom-kill"),
    # habitat-lab-457's shape: every process world rank 0 under mpirun, the store's port taken
    "mpirun-address-in-use-as-pasted": (MPIRUN, None, None, None, None),
    "mpirun-address-in-use-four-copies": (
        MPIRUN + [ADDR, ADDR],
        None,
        None,
        None,
        None,
    ),
    "mpirun-address-in-use-layout-4": (MPIRUN, 4, 4, None, None),
    # IsaacLab-4012's shape: Kit cannot create a device under a masked CUDA_VISIBLE_DEVICES
    "kit-no-device-created-as-pasted": (NO_DEVICE, None, None, None, None),
    "kit-no-device-created-layout-2": (NO_DEVICE, 2, 2, None, None),
    # IsaacLab-4596's shape: a master's manager tables, nothing failing
    "manager-tables-as-pasted": (TABLES, None, None, None, None),
    "manager-tables-layout-8x2": (TABLES, 8, 16, None, None),
    # IsaacLab-2756's shape: Kit skipping the masked GPUs as "in bad state"
    "kit-cuda-bad-state-as-pasted": (BAD_STATE, None, None, None, None),
    "kit-cuda-bad-state-layout-2": (BAD_STATE, 2, 2, None, None),
    # the agent's tag is the agent's rank in torchrunx's own group, not a worker's: the record's local rank names the worker
    "torchrunx-tag-rank1-reports-local-rank0": (MJLAB_RANK0, 2, 2, 0, "host-oom-kill"),
    "torchrunx-tag-rank1-reports-local-rank0-as-pasted": (
        MJLAB_RANK0,
        None,
        None,
        0,
        "host-oom-kill",
    ),
    # an agent past the first of torchrunx's group: its node is not the first, its local rank no global rank
    "torchrunx-second-agent-local-rank0-layout-2x2": (TWO_AGENTS, 2, 4, None, None),
    "torchrunx-second-agent-local-rank0-as-pasted": (
        TWO_AGENTS,
        None,
        None,
        None,
        None,
    ),
    # contrasts
    "kit-cuda-bad-state-then-rank1-ordinal-contrast": (
        BAD_STATE + [ORDINAL],
        2,
        2,
        1,
        "cuda-error",
    ),
}
BATCHED = Batched("b201", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_embodied_simulator_rl_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])
