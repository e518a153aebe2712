"""The older parallel frameworks (real incidents batch 181): their wordings, pinned as read.
Colossal-AI's Gemini example with host-memory placement under torchrun (hpcaitech/ColossalAI#2919: the agent's lone
``failed (exitcode: -9) local_rank: 1``, in the legacy and PyTorch 2.x wordings, with or without colossalai run's
``Error: failed to run torchrun ...`` after it) names rank 1, host-oom-kill. MXNet's parameter-server launcher
(tools/launch.py, the ps-lite/dmlc tracker) reporting one process's SIGABRT as ``CalledProcessError: Command '...'
returned non-zero exit status 134`` names no one, whether the abort is the kvstore's teardown after the last epoch
(apache/mxnet#1326) or ZeroMQ's ``msg.cpp`` assertion in the worker whose SSH command carries ``DMLC_WORKER_ID=1``
(apache/mxnet#5334, the paste's glued backtick kept or not): the tracker names the command, not a rank. ParlAI's
multiprocessing_train logging one rank's ``CRITICAL | Traceback`` cut before its exception (facebookresearch/ParlAI#4531)
names no one; OneFlow's unranked ``TimeoutException`` in ``optimizer.step()`` (Oneflow-Inc/models#191, the dead
'machine 4' only in the comment's prose) names no one, with or without the multiplexer's ``[5/1200]`` marker.
ParlAI's ``rank: 3 | <time> CRITICAL | `` prefix is that rank's (as ``rank=3 ERROR`` already was): the same traceback
with its exception below, unprefixed as ParlAI writes a message's later lines, names no one rather than the paste's
one imported process (rank 0, as it did before the prefix was read), and a ParlAI-prefixed one-line CUDA OOM of
rank 1 names rank 1, cuda-oom (docs/rules.md, "Session 35: batch 181").
Contrast: torchrun's lone root-cause entry under colossalai run (hpcaitech/ColossalAI#6386: ``rank : 2 (local_rank:
2)``, ``exitcode : 1``, ``<NO_OTHER_FAILURES>``) still names rank 2, the corpus's culprit shape (ColossalAI-2642,
ColossalAI-3582); the thread's every-rank assertion keeps it NOT_YET.
Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import naming_findings

NOW = dt.datetime(2026, 12, 2, 9, 0, tzinfo=dt.timezone.utc)
ENV = "/home/liuzixi01/.conda/envs/torch-cuda116"
SIGKILL_OLD = (
    f"ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: -9) local_rank: 1 (pid: 318) of binary: "
    f"{ENV}/bin/python3.9"
)
SIGKILL_NEW = (
    "E1106 10:12:31.442000 140211 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: -9) "
    f"local_rank: 1 (pid: 318) of binary: {ENV}/bin/python3.9"
)
AGENT_TB = [
    "Traceback (most recent call last):",
    f'  File "{ENV}/bin/torchrun", line 8, in <module>',
    "    sys.exit(main())",
    f'  File "{ENV}/lib/python3.9/site-packages/torch/distributed/launcher/api.py", line 245, in launch_agent',
    "    raise ChildFailedError(",
    "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ",
    "====================================================",
    "./train_glm_demo.py FAILED",
]
CAI_ERROR = (
    "Error: failed to run torchrun --nproc_per_node=2 --nnodes=1 --node_rank=0 --master_addr=127.0.0.1 "
    "--master_port=29500 train_glm_demo.py on 127.0.0.1, is localhost: True, exception: Encountered a bad command exit "
    "code!"
)
TRACKER = [
    "Exception in thread Thread-1:",
    "Traceback (most recent call last):",
    '  File "/usr/lib/python2.7/threading.py", line 810, in __bootstrap_inner',
    "    self.run()",
    '  File "/usr/lib/python2.7/subprocess.py", line 540, in check_call',
    "    raise CalledProcessError(retcode, cmd)",
]
TEARDOWN = (
    [
        "2016-01-21 14:28:45,146 Node[1] Epoch[9] Validation-accuracy=0.995593",
        "terminate called after throwing an instance of 'std::system_error'",
        "  what():  Operation not permitted",
        "Aborted (core dumped)",
    ]
    + TRACKER
    + [
        "CalledProcessError: Command 'python train_mnist.py --network lenet --kv-store dist_sync' returned non-zero exit "
        "status 134"
    ]
)
SSH = (
    "CalledProcessError: Command 'ssh -o StrictHostKeyChecking=no ip -p 22 'export DMLC_SERVER_ID=2; export "
    "DMLC_WORKER_ID=1; export DMLC_PS_ROOT_URI=ip; export DMLC_ROLE=worker; export DMLC_PS_ROOT_PORT=9098; export "
    "DMLC_NUM_WORKER=3; export DMLC_NUM_SERVER=3; cd /tmp/mxnet; python train_mnist.py --network lenet --kv-store "
    "dist_sync'' returned non-zero exit status 134"
)
ZMQ = (
    [
        "`Assertion failed: data_ != NULL || size_ == 0 (src/msg.cpp:97)",
        "bash: line 1:  2902 Aborted                 (core dumped) python train_mnist.py --network lenet --kv-store "
        "dist_sync",
    ]
    + TRACKER
    + [SSH]
)
PARLAI = "/data/kai/ParlAI/parlai"
CRITICAL = [
    "2022-05-08 14:35:33,820 INFO   | training...",
    "rank: 3 | 2022-05-08 14:35:40,808 CRITICAL | Traceback (most recent call last):",
    f' File "{PARLAI}/scripts/multiprocessing_train.py", line 45, in multiprocess_train',
    "  return single_train.TrainLoop(opt).train()",
    f' File "{PARLAI}/core/torch_generator_agent.py", line 736, in train_step',
    "  self.backward(loss)",
    f' File "{PARLAI}/core/torch_agent.py", line 2325, in backward',
    "  self.optimizer.backward(loss, update_main_grads=False)",
]
EXC = (
    "RuntimeError: expected to be in states [<TrainingState.BACKWARD_PRE: 3>] but current state is "
    "TrainingState.IDLE"
)
PARLAI_OOM = (
    "rank: 1 | 2022-05-08 14:35:40,808 ERROR | RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB (GPU 1; "
    "31.75 GiB total capacity; 29.10 GiB already allocated; 1.05 GiB free; 29.60 GiB reserved in total by PyTorch)"
)
MODELS = "/DATA/disk1/ldp/models/Vision/classification/image/resnet50/train.py"
TIMEOUT = [
    f'  File "{MODELS}", line 276, in train_eager',
    "    self.optimizer.step()",
    '  File "/home/ldp/.local/lib/python3.6/site-packages/oneflow/nn/optimizer/sgd.py", line 161, in step',
    "    beta=beta,",
    "oneflow._oneflow_internal.exception.TimeoutException:",
    '  File "/home/liangdepeng/oneflow/oneflow/oneflow/api/python/framework/op_expr.cpp", line 48, in Interpret',
]
ROOT = [
    "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ",
    "============================================================",
    "bug1.py FAILED",
    "------------------------------------------------------------",
    "Failures:",
    "  <NO_OTHER_FAILURES>",
    "------------------------------------------------------------",
    "Root Cause (first observed failure):",
    "[0]:",
    "  time      : 2025-11-01_18:19:50",
    "  host      : ubuntu",
    "  rank      : 2 (local_rank: 2)",
    "  exitcode  : 1 (pid: 230059)",
    "  error_file: <N/A>",
    "  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html",
    "============================================================",
    CAI_ERROR.replace("=2 ", "=4 ").replace("29500 train_glm_demo.py", "29005 bug1.py"),
]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone: None for
#: none, the cause it must carry)
CASES = {
    # ColossalAI-2919's shape: the agent's lone SIGKILL of local rank 1 is that rank's host-memory kill
    "gemini-sigkill-legacy": ([SIGKILL_OLD] + AGENT_TB, 2, 2, 1, "host-oom-kill"),
    "gemini-sigkill-legacy-no-layout": (
        [SIGKILL_OLD] + AGENT_TB,
        None,
        None,
        1,
        "host-oom-kill",
    ),
    "gemini-sigkill-glog": ([SIGKILL_NEW] + AGENT_TB, 2, 2, 1, "host-oom-kill"),
    "gemini-sigkill-colossalai-run": (
        [SIGKILL_OLD] + AGENT_TB + [CAI_ERROR],
        2,
        2,
        1,
        "host-oom-kill",
    ),
    # mxnet-1326's shape: the kvstore's teardown abort after the last epoch, the tracker naming the command
    "mxnet-teardown-abort": (TEARDOWN, None, 2, None, None),
    "mxnet-teardown-abort-one-per-node": (TEARDOWN, 1, 2, None, None),
    # mxnet-5334's shape: ZeroMQ's assertion in the worker whose ssh command carries DMLC_WORKER_ID=1
    "mxnet-zmq-assert-worker1": (ZMQ, None, 3, None, None),
    "mxnet-zmq-assert-worker1-no-backtick": (
        [ZMQ[0].lstrip("`")] + ZMQ[1:],
        None,
        3,
        None,
        None,
    ),
    "mxnet-zmq-assert-worker1-one-per-node": (ZMQ, 1, 3, None, None),
    # ParlAI-4531's shape: one rank's CRITICAL traceback cut before its exception
    "parlai-rank3-critical-cut": (CRITICAL, None, None, None, None),
    "parlai-rank3-critical-cut-four": (CRITICAL, 4, 4, None, None),
    # ParlAI's prefix read as the rank: the traceback's unprefixed exception names no one (before: the one imported
    # process, rank 0), and a prefixed one-line OOM names its rank
    "parlai-rank3-critical-exception": (CRITICAL + [EXC], None, None, None, None),
    "parlai-rank3-critical-exception-four": (CRITICAL + [EXC], 4, 4, None, None),
    "parlai-rank1-oom-line": ([CRITICAL[0], PARLAI_OOM], None, None, 1, "cuda-oom"),
    "parlai-rank1-oom-line-four": ([CRITICAL[0], PARLAI_OOM], 4, 4, 1, "cuda-oom"),
    # oneflow-models-191's shape: a survivor's unranked TimeoutException, the dead process only in prose
    "oneflow-timeout-unranked": (
        ["Traceback (most recent call last):" + " " * 108 + "[5/1200]"] + TIMEOUT,
        None,
        8,
        None,
        None,
    ),
    "oneflow-timeout-unranked-no-marker": (
        ["Traceback (most recent call last):"] + TIMEOUT,
        None,
        8,
        None,
        None,
    ),
    # contrast: torchrun's lone root cause under colossalai run is the corpus's culprit shape (ColossalAI-6386 NOT_YET)
    "colossalai-run-root-cause-rank2": (ROOT, 4, 4, 2, None),
}
BATCHED = Batched("b181", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world = CASES[key][:3]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_older_parallel_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])
