"""Distributed GNN and large-embedding training (real incidents batch 137): the family's shapes that name no rank, and
rightly so. DistDGL 2.4's torchrun ``ChildFailedError`` summary cut before its entries (dmlc/dgl#7753), DGL's
launch.py ssh thread re-raising a one-trainer machine's ``CalledProcessError`` for ``--local_rank=0`` (dmlc/dgl#2013),
and HugeCTR's two-node bring-up where Open MPI's UCX cannot resolve the endpoint ``for rank 1``
(NVIDIA-Merlin/HugeCTR#421): the unreachable peer is not a process seen failing. Contrast: a torchrun failure table
that names its rank still names it. No rule changed for the batch (its misses are NOT_YET); these pin the controls.
Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import naming_findings

NOW = dt.datetime(2026, 12, 1, 20, 0, tzinfo=dt.timezone.utc)
PY = "/opt/conda/envs/gnn/lib/python3.10/site-packages/torch/distributed"

CHILD_FAILED = [
    "Traceback (most recent call last):",
    f'  File "{PY}/run.py", line 870, in run',
    "    elastic_launch(",
    f'  File "{PY}/launcher/api.py", line 263, in launch_agent',
    "    raise ChildFailedError(",
    "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ",
    "============================================================",
    "node_classification.py FAILED",
    "------------------------------------------------------------",
    "Failures:",
]
TABLE_TAIL = [
    "  <NO_OTHER_FAILURES>",
    "------------------------------------------------------------",
    "Root Cause (first observed failure):",
    "[0]:",
    "  time      : 2024-08-20_10:11:12",
    "  host      : ip-172-31-8-78",
    "  rank      : 3 (local_rank: 1)",
    "  exitcode  : 1 (pid: 41213)",
    "  error_file: <N/A>",
    "  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html",
    "============================================================",
]
LAUNCH_THREAD = [
    "subprocess.CalledProcessError: Command '['/usr/bin/python3', '-u', 'train_dist.py', '--local_rank=0', "
    "'--graph_name', 'reddit']' returned non-zero exit status 1.",
    "Exception in thread Thread-5:",
    "Traceback (most recent call last):",
    '  File "./launch.py", line 20, in run',
    "    subprocess.check_call(cmd, shell = True)",
    '  File "/usr/lib/python3.8/subprocess.py", line 363, in check_call',
    "    raise CalledProcessError(retcode, cmd)",
]


def _ucx(spaced: bool) -> list[str]:
    gap = "  " if spaced else " "
    return [
        "[HCTR][17:28:15.456][WARNING][RK0][main]: The model name is not specified when creating the solver.",
        f"[1695144496.484294] [node-a:103648:0]{gap}ib_device.c:1250 UCX{gap}ERROR{gap}ibv_create_ah(dlid=49152 sl=0 "
        "port=1) for UD verbs connect on mlx5_0 failed: Connection timed out",
        f"[node-a:103648] pml_ucx.c:419{gap}Error: ucp_ep_create(proc=1) failed: Endpoint timeout",
        f"[node-a:103648] pml_ucx.c:472{gap}Error: Failed to resolve UCX endpoint for rank 1",
        "Traceback (most recent call last):",
        '  File "/workspace/train.py", line 344, in <module>',
        "    model = hugectr.Model(solver, reader, optimizer)",
        "RuntimeError: Runtime error: MPI_ERR_OTHER: known error not in list",
    ]


#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone: None)
CASES = {
    # dgl-7753's shape: the summary cut before its entries, no rank anywhere
    "torchrun-summary-cut": (CHILD_FAILED, 2, 4, None),
    # the same with a stray fence the paste left after the traceback header
    "torchrun-summary-cut-fence": (
        [CHILD_FAILED[0], "  ```"] + CHILD_FAILED[1:],
        2,
        4,
        None,
    ),
    # dgl-2013's shape: launch.py's thread re-raises a one-trainer machine's local rank 0 exit
    "dgl-launch-thread": (LAUNCH_THREAD, 1, 3, None),
    # HugeCTR-421's shape: rank 0 cannot reach rank 1 at MPI bring-up, spaces collapsed or kept
    "ucx-endpoint-rank1-collapsed": (_ucx(False), None, 2, None),
    "ucx-endpoint-rank1-spaced": (_ucx(True), None, 2, None),
    # contrast: the summary with its entries names the root cause's rank
    "torchrun-summary-with-table": (CHILD_FAILED + TABLE_TAIL, 2, 4, 3),
}
BATCHED = Batched("b137", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_graph_embedding_shapes_name_only_a_shown_failure(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3])
