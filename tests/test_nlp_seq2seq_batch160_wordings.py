"""Multi-process training of the classic NLP stacks (real incidents batch 160): the readings held.
The controls: DeepLearningExamples' BERT/PyTorch whose first parameter broadcast fails with NCCL's unhandled system
error in one unlabelled traceback (NVIDIA/DeepLearningExamples#581: 4 GPUs work, 6 do not), OpenNMT-py launched with
``CUDA_VISIBLE_DEVICES="4,5,6,7"`` and ``-gpu_ranks 4 5 6 7`` where every child asks for a missing ordinal
(OpenNMT/OpenNMT-py#1456), and ``onmt_train``'s parent relay (``-- Tracebacks above this line can probably be ignored
--``) with the child's traceback cut (OpenNMT/OpenNMT-py#1605): none names a rank at warning or above. The fairseq
OOM culprits (fairseq-1164's ``(GPU 0; ...)`` / `` Skipping batch``, fairseq-2867's ``fairseq.trainer | OOM: ... (GPU
1; ...)``) stayed unnamed until session 67 decided (docs/rules.md, "Session 67: fairseq's OOM report names its local
rank"): in fairseq's own report the device is the worker's local rank (fairseq sets it so), so they name ranks 0 and 1. Contrast: spawn's lone ``-- Process 5 terminated`` still names process 5 (the
corpus's culprit shape, fairseq-3538; fairseq-780's control of that shape is NOT_YET). No rule changed for the batch.
Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import naming_findings

NOW = dt.datetime(2026, 12, 2, 3, 0, tzinfo=dt.timezone.utc)
BERT = "/workspace/bert/DeepLearningExamples/PyTorch/LanguageModeling/BERT/run_pretraining.py"
APEX = "/opt/conda/lib/python3.6/site-packages/apex/parallel/distributed.py"
MP = "/opt/conda/envs/learn-dev/lib/python3.7/multiprocessing"

#: DeepLearningExamples-581's shape: one unlabelled traceback into apex's broadcast of the parameters
BERT_BROADCAST = [
    "loss_scale             : dynamic",
    "Traceback (most recent call last):",
    f'  File "{BERT}", line 640, in <module>',
    "    args, final_loss, train_time_raw = main()",
    f'  File "{BERT}", line 393, in prepare_model_and_optimizer',
    "    flat_dist_call([param.data for param in model.parameters()], torch.distributed.broadcast, (0,) )",
    f'  File "{APEX}", line 75, in flat_dist_call',
    "    apply_flat_dist_call(bucket, call, extra_args)",
]
#: the same with its exception line, as the title gives it (PyTorch 1.5's wording)
BERT_NCCL = BERT_BROADCAST + [
    '  File "/opt/conda/lib/python3.6/site-packages/torch/distributed/distributed_c10d.py", line 804, in broadcast',
    "    work = _default_pg.broadcast([tensor], opts)",
    "RuntimeError: NCCL error in: /opt/pytorch/pytorch/torch/lib/c10d/ProcessGroupNCCL.cpp:514, unhandled system "
    "error, NCCL version 2.6.3",
]


def _onmt_relay(ordinal: bool, child: bool) -> list[str]:
    """OpenNMT-py-1456/1605's shape: the parent's join traceback and OpenNMT's relay banner."""
    head = []
    if ordinal:
        head = [
            '/workspace/OpenNMT-py# CUDA_VISIBLE_DEVICES="4,5,6,7" python train.py -data data/cate2/processed '
            "-world_size 8 -gpu_ranks 4 5 6 7 --tensorboard    ",
            "[2019-06-04 08:41:35,843 INFO] Loading dataset from data/cate2/processed.train.0.pt",
            "THCudaCheck FAIL file=/pytorch/torch/csrc/cuda/Module.cpp line=33 error=10 : invalid device ordinal",
        ]
    body = [
        "Traceback (most recent call last):",
        '  File "train.py", line 78, in main',
        "    p.join()",
        f'  File "{MP}/process.py", line 140, in join',
        "    res = self._popen.wait(timeout)",
        f'  File "{MP}/popen_fork.py", line 28, in poll',
        "    pid, sts = os.waitpid(self.pid, flag)",
        '  File "train.py", line 180, in signal_handler',
        "    raise Exception(msg)",
        "Exception: ",
        "",
        "-- Tracebacks above this line can probably",
        "                 be ignored --",
        "",
    ]
    tail = ["Traceback (most recent call last):"] if child else []
    return head + body + tail


#: fairseq-1164's shape: the master's recovered OOMs on GPU 0, then two ranks' NCCL debug lines
FAIRSEQ_SKIP = [
    "| WARNING: ran out of memory with exception: CUDA out of memory. Tried to allocate 3.07 GiB (GPU 0; 31.72 GiB "
    "total capacity; 29.28 GiB already allocated; 767.56 MiB free; 556.92 MiB cached);",
    " Skipping batch",
    "pcn-7-02:343884:343884 [2] NCCL INFO AllReduce: opCount 2 sendbuff 0x2aabca255400 recvbuff 0x2aabca255400 count "
    "65536 datatype 1 op 0 root 0 comm 0x2aabcc001af0 [nranks=4] stream 0x25e0960",
    "Traceback (most recent call last):",
]
#: fairseq-2867's shape: fairseq 0.10's logging of an OOM on GPU 1 and its recovery
FAIRSEQ_RECOVER = [
    "2020-11-06 22:55:35 | WARNING | fairseq.trainer | OOM: Ran out of memory with exception: CUDA out of memory. "
    "Tried to allocate 28.00 MiB (GPU 1; 10.92 GiB total capacity; 10.13 GiB already allocated; 13.38 MiB free; "
    "10.33 GiB reserved in total by PyTorch)",
    "2020-11-06 22:55:35 | WARNING | fairseq.trainer | attempting to recover from OOM in forward/backward pass",
    "Traceback (most recent call last):",
    '  File "/data/rwd/fairseq/fairseq/distributed_utils.py", line 254, in call_main',
    "    nprocs=args.distributed_num_procs,",
]
#: the contrast: spawn's parent reporting one process (fairseq-3538/780's header)
SPAWN_PROCESS5 = [
    "Traceback (most recent call last):",
    '  File "/home/ubuntu/.local/lib/python3.6/site-packages/torch/multiprocessing/spawn.py", line 114, in join',
    "    raise Exception(msg)",
    "Exception: ",
    "",
    "-- Process 5 terminated with the following error:",
    "Traceback (most recent call last):",
]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone: None)
CASES = {
    "bert-broadcast-cut": (BERT_BROADCAST, None, None, None),
    "bert-broadcast-cut-six": (BERT_BROADCAST, 6, 6, None),
    "bert-broadcast-nccl-error": (BERT_NCCL, None, None, None),
    "bert-broadcast-nccl-error-fenced": (["```"] + BERT_NCCL + ["```"], 6, 6, None),
    "onmt-invalid-ordinal": (_onmt_relay(True, True), None, None, None),
    "onmt-invalid-ordinal-four": (_onmt_relay(True, True), 4, 4, None),
    "onmt-relay-only": (_onmt_relay(False, False), None, None, None),
    "onmt-relay-tmux-marker": (
        [_onmt_relay(False, False)[0] + " " * 40 + "[0/1981]"]
        + _onmt_relay(False, False)[1:],
        None,
        None,
        None,
    ),
    # fairseq's own OOM report: its device is the worker's local rank (session 67; PyTorch's own message names none)
    "fairseq-oom-skip-gpu0": (FAIRSEQ_SKIP, None, None, 0),
    "fairseq-oom-skip-gpu0-four": (FAIRSEQ_SKIP, 4, 4, 0),
    "fairseq-oom-recover-gpu1": (FAIRSEQ_RECOVER, None, None, 1),
    # contrast: spawn's lone process header names that process
    "spawn-process5": (SPAWN_PROCESS5, None, None, 5),
    "spawn-process5-eight": (SPAWN_PROCESS5, 8, 8, 5),
}
BATCHED = Batched("b160", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_nlp_seq2seq_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3])
