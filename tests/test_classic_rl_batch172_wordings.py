"""Distributed deep RL outside LLM post-training (real incidents batch 172): the held controls' wordings, pinned as read.
The rsl_rl-style runner's own progress line ``Synchronizing parameters for rank 0...`` before a hang (Hellod035/
LeggedLab#44, the script left every rank on cuda:0; Open-X-Humanoid/TienKung-Lab#56 after ``Finished preloading``)
names no one, alone, in a world of 2, printed by two ranks or by rank 4 of 5; Python multiprocessing's
``Process Process-3:`` header over a traceback cut in ``_bootstrap`` (xbpeng/MimicKit#70, a library device bug of
every worker) names no one, with or without the paste's trailing spaces; Kit's extension-shutdown warning with its
``[1]:type: <class 'frame'>`` reference list over Hydra's ``Error executing job`` and an unlabelled traceback into
``self._world.reset()`` (isaac-sim/OmniIsaacGymEnvs#45) names no one; Omniverse's PhysX-tensor ``CUDA error: an
illegal memory access was encountered`` over an unlabelled traceback after rl_games' broadcast banner
(isaac-sim/IsaacLab#519) names no one (a warning without a rank); a lone ``[rankN]:`` traceback cut before its
exception (project-instinct/InstinctLab#34) is read at info only; Sample Factory's runner naming a silent component
(alex-petrenko/sample-factory#285: ``No heartbeat for components :InferenceWorker_p0-w0 (337 seconds)``, also
``RolloutWorker_w2``) names no one.
Contrast: the torch-elastic agent's lone ``failed (exitcode: 1) local_rank: 2`` (Flowformer-8's culprit shape) still
names local rank 2. No rule changed for the batch.
Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import naming_findings

NOW = dt.datetime(2026, 12, 2, 6, 0, tzinfo=dt.timezone.utc)
SYNC = "Synchronizing parameters for rank {}..."
MP = (
    "/home/yueyi/miniconda3/envs/env_isaaclab/lib/python3.11/multiprocessing/process.py"
)
PROCESS3 = [
    "Process Process-3:" + " " * 46,
    "Traceback (most recent call last):" + " " * 95,
    f'  File "{MP}", line 314, in _bootstrap',
    "    self.run()" + " " * 99,
    f'  File "{MP}", line 108, in run',
    "    self._target(*self._args, **self._kwargs)" + " " * 84,
]
OV = "/home/bizon/.local/share/ov/pkg/isaac_sim-2022.2.0/exts/omni.isaac.gym/omni/isaac/gym/vec_env/vec_env_base.py"
KIT = (
    "2023-05-05 06:13:42 [9,713ms] [Warning] [omni.ext._impl._internal] omni.kit.viewport.window-104.1.18 -> <class "
    "'omni.kit.viewport.window.extension.ViewportWindowExtension'>: extension object is still alive, something holds a "
    "reference on it. References: [\"[0]:type: <class 'frame'>, id: 343270400\", \"[1]:type: <class 'frame'>, id: "
    '343118608", "[2]:type: <class \'frame\'>, id: 119418496"]'
)
WORLD_RESET = [
    "[9.697s] [ext: omni.kit.viewport.utility-1.0.12] shutdown",
    KIT,
    "Error executing job with overrides: ['headless=True', 'task=Ant', 'multi_gpu=True']",
    "Traceback (most recent call last):",
    '  File "scripts/rlgames_train.py", line 115, in parse_hydra_configs',
    "    task = initialize_task(cfg_dict, env)",
    f'  File "{OV}", line 80, in set_task',
    "    self._world.reset()",
]
TENSORS = "../../../extensions/runtime/source/omni.physx.tensors/plugins/gpu"
ILLEGAL = "[Error] [omni.physx.tensors.plugin] CUDA error: an illegal memory access was encountered"
TRAIN = "/data_new/newhome/makai1/code/GES-low-level-IsaacLab/source/standalone/workflows/rl_games/train.py"
PHYSX = [
    "====================broadcasting parameters",
    f"2024-06-15 06:54:19 [20,730ms] {ILLEGAL}: {TENSORS}/GpuRigidBodyView.cpp: 835",
    f"2024-06-15 06:54:19 [20,730ms] {ILLEGAL}: {TENSORS}/ThrustUtils.h: 40",
    "Traceback (most recent call last):",
    f'  File "{TRAIN}", line 150, in <module>',
    "    main()",
    f'  File "{TRAIN}", line 142, in main',
    '    runner.run({"train": True, "play": False, "sigma": None})',
]
MRM = "/home/InstinctLab/source/instinctlab/instinctlab/motion_reference/motion_reference_manager.py"
RANK3 = [
    "[AmassMotion Motion] 1 files found",
    "[rank3]: Traceback (most recent call last):",
    f'[rank3]:   File "{MRM}", line 513, in _initialize_impl',
    "[rank3]:     self._initialize_motion_buffers()",
    f'[rank3]:   File "{MRM}", line 621, in _initialize_motion_buffers',
    "[rank3]:     self._assign_motion_buffer_for_envs()",
]
HEARTBEAT = [
    "[2023-09-18 21:35:46,519][196071] No heartbeat for components :InferenceWorker_p0-w0 (337 seconds)",
    "[2023-09-18 21:35:46,519][196071] Stopping training due to lack of heartbeats from <class "
    "'sample_factory.algo.sampling.inference_worker.InferenceWorker\u2018>",
]
AGENT = "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: 1) local_rank: 2 (pid: 11410) of binary: "

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone: None)
CASES = {
    # LeggedLab-44 / TienKung-Lab-56: the runner's own progress line before the hang
    "sync-rank0-alone": ([SYNC.format(0)], None, None, None),
    "sync-rank0-two-per-node": (
        ["Finished preloading ", SYNC.format(0) + "."],
        2,
        2,
        None,
    ),
    "sync-two-ranks": ([SYNC.format(0), SYNC.format(1)], 2, 2, None),
    "sync-rank4-of-5": ([SYNC.format(4)], 5, 5, None),
    # MimicKit-70: multiprocessing's header over a traceback cut in _bootstrap
    "process3-trailing-spaces": (PROCESS3, 8, 8, None),
    "process3-stripped": ([x.rstrip() for x in PROCESS3], 8, 8, None),
    "process3-no-layout": (PROCESS3, None, None, None),
    # OmniIsaacGymEnvs-45: Kit's reference list over an unlabelled traceback cut at world.reset()
    "kit-refs-world-reset": (WORLD_RESET, 2, 2, None),
    "kit-refs-world-reset-no-layout": (WORLD_RESET, None, None, None),
    # IsaacLab-519: the PhysX-tensor illegal memory access, no rank or device
    "physx-illegal-access": (PHYSX, 2, 2, None),
    "physx-illegal-access-no-banner": (PHYSX[1:], 2, 2, None),
    "physx-illegal-access-no-layout": (PHYSX, None, None, None),
    # InstinctLab-34: a lone rank-tagged traceback cut before its exception (info only)
    "lone-rank3-traceback-cut": (RANK3, 4, 4, None),
    "lone-rank3-traceback-cut-no-layout": (RANK3, None, None, None),
    # sample-factory-285: the runner's verdict on a silent component
    "heartbeat-inference-worker": (HEARTBEAT, None, None, None),
    "heartbeat-rollout-worker-w2": (
        [
            "[2025-04-06 10:00:00,000][4242] No heartbeat for components: RolloutWorker_w2 (552 seconds)"
        ],
        None,
        None,
        None,
    ),
    # contrast: the agent's lone exit of local rank 2 (Flowformer-8's culprit shape) still names it
    "agent-lone-local-rank2-exit1": ([AGENT + "/opt/conda/bin/python"], 8, 8, 2),
}
BATCHED = Batched("b172", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_classic_rl_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3])
