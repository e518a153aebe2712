"""The reference and teaching trainers (real incidents batch 167): their wordings, pinned as read.
The 2017 ImageNet example launched by hand as two gloo processes (pytorch/examples#253: one process's 0.x DDP
``AttributeError: ... '_module_copies'`` and ``gloo::EnforceNotMet``, no rank in the paste) names no one; a launcher's
static TCP rendezvous timing out before any worker exists (huggingface/transformers#14878: ``RuntimeError: connect()
timed out. Original timeout was 900000 ms.``, with or without the traceback's head) names no one; Horovod's stall
inspector listing rank 7 with the paste's own damage (NVIDIA/DeepLearningExamples#383, fixed by the example's code)
names no one; two local ranks of one node each reporting the other's NCCL proxy connection closed on its own host
during init (pytorch/pytorch#124380, the DDP tutorial series' ``multinode.py``) names no one, with or without the
paste's blank lines. Contrast: torch.multiprocessing's lone ``-- Process 1 terminated with the following error:``
names process 1, whether its exception shows or the traceback stops in the DataLoader (the corpus's culprit shape;
examples-447, whose thread reads it as every worker's, stays NOT_YET for that reason); with the stall inspector's
``Stalled ranks:`` header above its list (cut from DeepLearningExamples-383's excerpt) the listed rank is read as never
joined, as Horovod's other stall reports are. No rule changed for the batch.
Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import naming_findings

NOW = dt.datetime(2026, 12, 2, 6, 0, tzinfo=dt.timezone.utc)
SITE = "/home/andrew/ml/local/lib/python2.7/site-packages/torch"
GLOO = [
    "=> creating model 'resnet18'",
    "Traceback (most recent call last):",
    '  File "distributed_imagenet_main.py", line 319, in <module>',
    "    main()",
    '  File "distributed_imagenet_main.py", line 92, in main',
    "    model = torch.nn.parallel.DistributedDataParallel(model)",
    f'  File "{SITE}/nn/parallel/distributed.py", line 124, in __init__',
    "    for param_tuple in zip(*map(lambda m: m.parameters(), self._module_copies)):",
    f'  File "{SITE}/nn/modules/module.py", line 262, in __getattr__',
    "    type(self).__name__, name))",
    "AttributeError: 'DistributedDataParallel' object has no attribute '_module_copies'",
    "terminate called after throwing an instance of 'gloo::EnforceNotMet'",
]
GLOO_WHAT = [
    "  what():  [enforce fail at /pytorch/torch/lib/gloo/gloo/transport/tcp/pair.cc:468] op.preamble.length "
    "<= op.nbytes. 8773632 vs 4"
]
ELASTIC = "/path/to/py37/lib/python3.7/site-packages/torch/distributed"
RDZV = [
    f'  File "{ELASTIC}/elastic/rendezvous/static_tcp_rendezvous.py", line 61, in next_rendezvous',
    "    multi_tenant=True,",
    "RuntimeError: connect() timed out. Original timeout was 900000 ms.",
]
RDZV_HEAD = [
    "Traceback (most recent call last):",
    f'  File "{ELASTIC}/run.py", line 692, in run',
    "    )(*cmd_args)",
    f'  File "{ELASTIC}/launcher/api.py", line 116, in __call__',
    "    return launch_agent(self._config, self._entrypoint, list(args))",
]
BANNER = [
    "WARNING:torch.distributed.run:",
    "*****************************************",
    "Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being "
    "overloaded, please further tune the variable for optimal performance in your application as needed. ",
    "*****************************************",
]
OPT = "DistributedAdamWeightDecayOptimizer_Allreduce"
STALL = [
    f"7: [{OPT}/HorovodAllreduce_{OPT}_Cast_1000_0, DistributedAdamWeightDecayOptimizer_AllrehtDecayOptimizer_"
    f"Allreduce_Cast_1003_0, {OPT}/HorovodAllreduce_{OPT}_Cast_1006_0, DistrHorovodAllreduce_{OPT}_Cast_1009_0 ...]",
    "[2020-07-27 20:14:10.551108: W horovod/common/stall_inspector.cc:105] One or more tensors were submitted to be "
    "reduced, gathered or broadcasted by subset of ranks and re than 60 seconds. This may indicate that different "
    "ranks are trying to submit different tensors or that only subset of ranks is submitting tensors, which will "
    "cause",
]
H = "10-12-3-162"
PROXY = [
    f"{H}:7991:8058 [1] NCCL INFO group.cc:64 -> 2 [Async thread]",
    f"{H}:7991:7991 [1] NCCL INFO group.cc:418 -> 2",
    f"{H}:7991:8061 [1] NCCL INFO misc/socket.cc:806 -> 3",
    "",
    f"{H}:7991:8061 [1] proxy.cc:1533 NCCL WARN [Service thread] Could not receive type from localRank 2, res=3, "
    "closed=0",
    "",
    f"{H}:7991:8061 [1] proxy.cc:1557 NCCL WARN [Proxy Service 1] Failed to execute operation Init from rank 2, "
    "retcode 3",
    "",
    f"{H}:7992:8059 [2] misc/socket.cc:50 NCCL WARN socketProgress: Connection closed by remote peer {H}<55133>",
    f"{H}:7992:8059 [2] NCCL INFO misc/socket.cc:750 -> 6",
    "",
    f"{H}:7992:8059 [2] proxy.cc:1172 NCCL WARN Socket recv failed while polling for opId=0x7fe19f1554c0",
    f"{H}:7992:8059 [2] NCCL INFO proxy.cc:1076 -> 3",
    f"{H}:7992:8059 [2] NCCL INFO transport/p2p.cc:240 -> 3",
    f"{H}:7992:8059 [2] NCCL INFO init.cc:1396 -> 3",
    f"{H}:7992:8059 [2] NCCL INFO group.cc:64 -> 3 [Async thread]",
    f"{H}:7992:7992 [2] NCCL INFO group.cc:418 -> 3",
]
SPAWN = (
    "/home/libi/anaconda3/lib/python3.7/site-packages/torch/multiprocessing/spawn.py"
)


def _spawn(tail: list[str]) -> list[str]:
    """examples-447's shape: four workers' start, the parent's join traceback, process 1's traceback, then ``tail``."""
    return (
        ["Start training"] * 4
        + [
            "Traceback (most recent call last):",
            '  File "main_multiprocessing_distributed.py", line 483, in <module>',
            "    mp.spawn(main_worker, nprocs=ngpus_per_node, args=(ngpus_per_node, args))",
            f'  File "{SPAWN}", line 91, in join',
            "    raise Exception(msg)",
            "Exception: ",
            "",
            "-- Process 1 terminated with the following error:",
            "Traceback (most recent call last):",
            f'  File "{SPAWN}", line 11, in _wrap',
            "    fn(i, *args)",
            '  File "main_multiprocessing_distributed.py", line 289, in train',
            "    for i, (input, target) in enumerate(train_loader):",
        ]
        + tail
    )


LOADER = [
    '  File "/home/libi/anaconda3/lib/python3.7/site-packages/torch/utils/data/dataloader.py", line 819, in __iter__',
    "    return _DataLoaderIter(self)",
]
OOM = [
    "RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 1; 11.17 GiB total capacity; 10.79 GiB "
    "already allocated; 9.81 MiB free; 22.27 MiB cached)"
]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone: None)
CASES = {
    # examples-253's shape: one hand-launched gloo process's paste, with and without gloo's what() line
    "gloo-module-copies": (GLOO, None, 2, None),
    "gloo-module-copies-what": (GLOO + GLOO_WHAT, None, 2, None),
    "gloo-module-copies-two-per-node": (GLOO, 2, 2, None),
    # transformers-14878's shape: the launcher's rendezvous timeout, bare, with its traceback head, after the banner
    "static-rendezvous-timeout": (RDZV, 8, 32, None),
    "static-rendezvous-timeout-head": (RDZV_HEAD + RDZV, 8, 32, None),
    "static-rendezvous-timeout-banner": (BANNER + RDZV_HEAD + RDZV, None, None, None),
    # DeepLearningExamples-383's shape: the stall inspector's rank-7 list and its damaged warning
    "horovod-stall-rank7-damaged": (STALL, 4, 8, None),
    "horovod-stall-rank7-no-layout": (STALL, None, None, None),
    # pytorch-124380's shape: two local ranks of node 0, each naming the other, with and without blank lines
    "proxy-two-local-ranks": (PROXY, 4, 8, None),
    "proxy-two-local-ranks-no-blanks": ([x for x in PROXY if x], 4, 8, None),
    "proxy-two-local-ranks-no-layout": (PROXY, None, None, None),
    # contrast: spawn's lone process 1 is the corpus's culprit shape, its exception shown or cut in the DataLoader
    "spawn-process1-oom": (_spawn(OOM), 4, 4, 1),
    "spawn-process1-dataloader-cut": (_spawn(LOADER), 4, 4, 1),
    # boundary: with the inspector's `Stalled ranks:` header above the list (cut from DeepLearningExamples-383's
    # excerpt), the listed rank is read as the one that never joined (nccl-hang), as Horovod's other stall reports
    "horovod-stall-rank7-with-header": (["Stalled ranks:"] + STALL, 4, 8, 7),
    "horovod-stall-rank7-with-header-ompi-tag": (
        ["[1,0]<stderr>:Stalled ranks:"] + ["[1,0]<stderr>:" + x for x in STALL],
        4,
        8,
        7,
    ),
}
BATCHED = Batched("b167", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_education_reference_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3])
