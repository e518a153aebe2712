"""Multi-worker TensorFlow/Keras training with tf.distribute strategies (real incidents batch 191): the readings the
batch met, pinned with their variants. One host's NCCL ``NET/IB : collective mismatch error`` during a
MultiWorkerMirroredStrategy stall (tensorflow/tensorflow#34375: it shows up on a random node), the Keras tutorial's
``Collective Op  has group_size 8 and group_key2 but that group has size 4`` (#33979: a cluster configuration
mismatch), a Kubernetes worker's allocator lines ``failed to allocate 12.99G ... CUDA_ERROR_OUT_OF_MEMORY`` (#39110:
every worker without memory_growth), Cloud ML Engine's recoverable-session line ``An error was raised. This may be due
to a preemption ... Error: OS Error`` naming ps task 1 and worker task 4 only as ``_Recv`` edge devices
(tensorflow/models#6220), a TPU pod's checkpoint save ``From /job:worker/replica:0/task:1: All 10 retry attempts
failed ... HTTP response code 503`` (google-research/text-to-text-transfer-transformer#280: Cloud Storage), a worker's
bring-up ``DEADLINE_EXCEEDED`` from remote target task 0 then ``Fatal Python error: Aborted`` (#60706) and
MirroredStrategy under srun whose NCCL ``ibv_create_qp``/``ibv_create_cq`` fail for GPUs [3] and [4] alike (#51760)
name no one, as pasted, at the world sizes the threads give, and with the paste's damage undone or varied.
Contrast (NOT_YET, analytics-zoo-158): MultiWorkerMirroredStrategy's peer health check ``/job:worker/replica:0/task:7
seems down, retrying 1/3`` names no one: a first retry is not a verdict, and the paste stops before the check's
``is down`` or any failure of task 7. No rule changed for the batch. Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import naming_findings

NOW = dt.datetime(2026, 12, 2, 9, 0, tzinfo=dt.timezone.utc)
CORPUS = Path(__file__).parent / "data" / "real-incidents"


def _log(folder: str) -> list[str]:
    return (CORPUS / folder / "log.txt").read_text(encoding="utf-8").splitlines()


IB_34375 = _log(
    "tensorflow-34375-mwms-nccl-ib-collective-mismatch-host2-random-node-control"
)
GROUP_33979 = _log("tensorflow-33979-mwms-keras-collective-group-size-8-vs-4-control")
OOM_39110 = _log(
    "tensorflow-39110-k8s-mwms-worker4-cuda-oom-without-memory-growth-control"
)
RETRY_6220 = _log(
    "models-6220-cmle-preemption-retry-ps-task1-worker-task4-os-error-control"
)
GCS_280 = _log(
    "text-to-text-transfer-transformer-280-tpu-worker-task1-gcs-503-checkpoint-save-control"
)
DEADLINE_60706 = _log(
    "tensorflow-60706-mwms-deadline-exceeded-remote-task0-abort-control"
)
IBV_51760 = _log("tensorflow-51760-mirrored-srun-nccl-ibv-create-qp-gpus3-4-control")
DOWN_158 = _log("analytics-zoo-158-orca-tf2-mwms-eight-workers-task7-seems-down")
#: the terminal copy's wrap (202 columns) and right padding undone: one line per record
GCS_UNWRAPPED = ["".join(GCS_280[:3]).rstrip(), *(ln.rstrip() for ln in GCS_280[3:])]
#: worker 0's copy of the same health-check warning (the line the excerpt cut), then the second retry
DOWN_MORE = [
    *DOWN_158,
    "(pid=100306, ip=172.16.0.156) WARNING:tensorflow:/job:worker/replica:0/task:7 seems down, retrying 1/3",
    "(pid=16731, ip=172.16.0.116) WARNING:tensorflow:/job:worker/replica:0/task:7 seems down, retrying 2/3",
]

#: key: (the pasted lines, processes per node, world size, the rank a warning/critical finding must name alone (None:
#: none), its cause)
CASES = {
    "ib-collective-mismatch-host2": (IB_34375, None, None, None, None),
    "ib-collective-mismatch-host2-world4": (IB_34375, 2, 4, None, None),
    "collective-group-size-8-vs-4": (GROUP_33979, None, None, None, None),
    "collective-group-size-8-vs-4-world2": (GROUP_33979, 1, 2, None, None),
    "worker4-cuda-oom-allocator": (OOM_39110, None, None, None, None),
    "worker4-cuda-oom-allocator-world5": (OOM_39110, 1, 5, None, None),
    "worker4-cuda-oom-allocator-no-tfds-lines-world5": (
        OOM_39110[:2] + OOM_39110[-1:],
        1,
        5,
        None,
        None,
    ),
    "preemption-retry-edge-devices": (RETRY_6220, None, None, None, None),
    "preemption-retry-edge-devices-info-prefix": (
        ["INFO:tensorflow:" + RETRY_6220[0]],
        None,
        None,
        None,
        None,
    ),
    "preemption-retry-edge-devices-world8": (RETRY_6220, 1, 8, None, None),
    "gcs-503-save-task1-padded": (GCS_280, None, None, None, None),
    "gcs-503-save-task1-unwrapped": (GCS_UNWRAPPED, None, None, None, None),
    "gcs-503-save-task1-unwrapped-world4": (GCS_UNWRAPPED, 1, 4, None, None),
    "deadline-remote-task0-abort": (DEADLINE_60706, None, None, None, None),
    "deadline-remote-task0-abort-world3": (DEADLINE_60706, 1, 3, None, None),
    "srun-ibv-gpus3-4": (IBV_51760, None, None, None, None),
    "srun-ibv-gpus3-4-no-blank-lines": (
        [ln for ln in IBV_51760 if ln],
        None,
        None,
        None,
        None,
    ),
    "srun-ibv-gpus3-4-world8": (IBV_51760, 8, 8, None, None),
    # contrast (NOT_YET): a peer health check's retry is no verdict on the task it names
    "health-check-task7-seems-down": (DOWN_158, None, None, None, None),
    "health-check-task7-seems-down-world8": (DOWN_158, 1, 8, None, None),
    "health-check-task7-seems-down-two-peers-retry2-world8": (
        DOWN_MORE,
        1,
        8,
        None,
        None,
    ),
}
BATCHED = Batched("b191", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_tf_strategy_pastes_name_what_the_batch_met(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])
