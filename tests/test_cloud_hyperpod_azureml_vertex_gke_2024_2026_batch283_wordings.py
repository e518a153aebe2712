"""Cloud (SageMaker / HyperPod / aws-ofi-nccl / Azure NC A100 v4) multi-GPU failures (real incidents batch 283), pinned
as read. Four controls, collected blind, all read right as collected (no rank named, either way of bringing the log):
the SMDDP PyTorch MNIST example on two ml.p3.16xlarge (aws/amazon-sagemaker-examples#2044: ranks 0 and 8 print empty
progress bars, then Open MPI's banner cut at ``MPI_ABOR``; fixed in the example), HyperPod's ``[Auto Resume] Error: ...
Configuration error: slurm.conf has TaskPlugin=...`` for a whole step (awslabs/awsome-distributed-ai#584: the cluster's
slurm.conf, not a task), a p5.48xlarge CI runner's NCCL_DEBUG lines up to a traceback into ``init_process_group(``
(aws/aws-ofi-nccl#785: the plugin's static p5 topology file on a GPU subset) and nccl-tests ``-g 2`` on an Azure NC A100
v4 VM loading ``/opt/microsoft/ncv4/topo.xml`` (NVIDIA/nccl#1008: a 4-GPU ``NCCL_GRAPH_FILE`` in /etc/nccl.conf). No
rule changed (measure only). Contrasts: Open MPI's banner completed as ``MPI_ABORT was invoked on rank 8`` names rank 8
(abort); rank 8's CUDA OOM traceback under ``[1,8]<stderr>:`` names rank 8 (cuda-oom); a task-1 traceback and srun's
``task 1: Exited with exit code 1`` after the auto-resume lines name rank 1; the ``DistBackendError ... internal error``
the p5 traceback would end in is a failure of no rank; the plugin's ``NCCL WARN Attribute arch of node cpu not found``
block (as the maintainer quotes it, or rank-tagged as in aws/aws-ofi-nccl#476) and nccl-tests' own ``Test NCCL failure
common.cu:953 'unhandled system error'`` lines are not read at all (no finding). Pasted logs through ``k10s
import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted_cases, pasted_findings
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 5, 3, 0, tzinfo=dt.timezone.utc)

SMDDP_MNIST = corpus_lines("amazon-sagemaker-examples-2044-")
AUTO_RESUME = corpus_lines("awsome-distributed-ai-584-")
P5_SUBSET = corpus_lines("aws-ofi-nccl-785-")
NCV4_GRAPH = corpus_lines("nccl-1008-azure-")

#: Open MPI's banner completed (the paste cuts it at ``MPI_ABOR``): the abort names rank 8
SMDDP_ABORT_RANK8 = SMDDP_MNIST[:-1] + [
    "MPI_ABORT was invoked on rank 8 in communicator MPI_COMM_WORLD",
    "with errorcode 1.",
]
#: rank 8 (algo-2's first process) with a CUDA OOM traceback of its own before the banner
SMDDP_RANK8_OOM = (
    SMDDP_MNIST[:4]
    + [
        "[1,8]<stderr>:Traceback (most recent call last):",
        '[1,8]<stderr>:  File "train_pytorch_smdataparallel_mnist.py", line 140, in <module>',
        "[1,8]<stderr>:RuntimeError: CUDA error: out of memory",
    ]
    + SMDDP_MNIST[4:]
)
#: after the auto-resume lines, task 1's own traceback and srun's report of it
AUTO_RESUME_TASK1_ERROR = AUTO_RESUME + [
    "1: Traceback (most recent call last):",
    '1:   File "train.py", line 10, in <module>',
    "1: ValueError: bad batch",
    "srun: error: ip-10-1-2-3: task 1: Exited with exit code 1",
]
#: the exception the p5 traceback would end in (NCCL's internal error, as aws-ofi-nccl#785's title reports it)
P5_SUBSET_WITH_EXCEPTION = P5_SUBSET + [
    "torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1970, "
    "internal error - please report this issue to the NCCL developers, NCCL version 2.21.5",
    "ncclInternalError: Internal check failed.",
    "Last error:",
    "Attribute arch of node cpu not found",
]
#: the maintainer's quote of the failing process's lines (aws/aws-ofi-nccl#785)
P5_TOPO_WARN = [
    "2a8874e7d1e6:2196:2275 [1] graph/xml.h:101 NCCL WARN Attribute arch of node cpu not found",
    "2a8874e7d1e6:2196:2275 [1] NCCL INFO graph/topo.cc:493 -> 3",
    "2a8874e7d1e6:2196:2275 [1] NCCL INFO graph/topo.cc:623 -> 3",
    "2a8874e7d1e6:2196:2275 [1] NCCL INFO graph/topo.cc:773 -> 3",
]
#: the same failure in nccl-tests under mpirun's tag of rank 2 (aws/aws-ofi-nccl#476's shape, 2 nodes x 4 GPUs)
P5_TOPO_RANK2_NCCL_TESTS = [
    "[1,2]<stdout>:test-nccl-p5-2-worker-0:75:95 [2] graph/xml.h:101 NCCL WARN Attribute arch of node cpu not found",
    "[1,2]<stdout>:test-nccl-p5-2-worker-0:75:95 [2] NCCL INFO graph/topo.cc:493 -> 3",
    "[1,2]<stdout>:test-nccl-p5-2-worker-0:75:95 [2] NCCL INFO init.cc:1548 -> 3",
    "[1,2]<stdout>:test-nccl-p5-2-worker-0:75:95 [2] NCCL INFO group.cc:64 -> 3 [Async thread]",
    "[1,2]<stdout>:test-nccl-p5-2-worker-0: Test NCCL failure common.cu:961 'internal error - please report this "
    "issue to the NCCL developers / '",
    "[1,2]<stdout>: .. test-nccl-p5-2-worker-0 pid 75: Test failure common.cu:844",
]
#: nccl-tests' own failure lines after the NCv4 header (the failure the author reports in prose)
NCV4_GRAPH_TEST_FAILURE = NCV4_GRAPH + [
    "a100-4x-machines-23fsd-2-dev:648288:648307 [1] graph/search.cc:703 NCCL WARN XML Import Channel : dev 2 not found.",
    "a100-4x-machines-23fsd-2-dev:648288:648307 [1] NCCL INFO graph/search.cc:733 -> 2",
    "a100-4x-machines-23fsd-2-dev: Test NCCL failure common.cu:953 'unhandled system error'",
]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # as collected, pasted and laid out as the threads say (all four controls: no rank named)
    "smddp-mnist-as-pasted": (SMDDP_MNIST, None, None, None, None),
    "smddp-mnist-two-hosts-of-eight": (SMDDP_MNIST, 8, 16, None, None),
    "auto-resume-as-pasted": (AUTO_RESUME, None, None, None, None),
    "auto-resume-two-tasks": (AUTO_RESUME, 1, 2, None, None),
    "p5-subset-as-pasted": (P5_SUBSET, None, None, None, None),
    "p5-subset-two-gpu-runner": (P5_SUBSET, 2, 2, None, None),
    "ncv4-graph-as-pasted": (NCV4_GRAPH, None, None, None, None),
    "ncv4-graph-two-gpus": (NCV4_GRAPH, 2, 2, None, None),
    # contrasts
    "smddp-abort-banner-rank8-names-rank8": (SMDDP_ABORT_RANK8, 8, 16, 8, "abort"),
    "smddp-rank8-oom-names-rank8": (SMDDP_RANK8_OOM, 8, 16, 8, "cuda-oom"),
    "auto-resume-task1-error-names-rank1": (
        AUTO_RESUME_TASK1_ERROR,
        1,
        2,
        1,
        "python-exception",
    ),
    "p5-subset-with-exception-names-none": (P5_SUBSET_WITH_EXCEPTION, 2, 2, None, None),
    "p5-topo-warn-names-none": (P5_TOPO_WARN, 2, 2, None, None),
    "p5-topo-rank2-nccl-tests-names-none": (P5_TOPO_RANK2_NCCL_TESTS, 4, 8, None, None),
    "ncv4-graph-test-failure-names-none": (NCV4_GRAPH_TEST_FAILURE, 2, 2, None, None),
}
BATCHED = Batched("b283", list(CASES))


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_cloud_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(
        BATCHED.findings(key, tmp_path_factory, pasted_cases(CASES, NOW))
    )
    assert_one_rank(named, CASES[key][3], CASES[key][4])


def _all(
    lines: list[str], folder: Path, nproc: int | None, world: int | None
) -> list[tuple]:
    return [
        (f["rule"], f["severity"], f["cause"], f["ranks"])
        for f in pasted_findings(lines, folder, nproc, world, NOW)
    ]


def test_controls_as_collected_have_no_finding(tmp_path):
    """The four logs as pasted give no finding at all (no failure of any rank, nothing louder than nothing)."""
    for i, lines in enumerate((SMDDP_MNIST, AUTO_RESUME, P5_SUBSET, NCV4_GRAPH)):
        assert _all(lines, tmp_path / str(i), None, None) == [], i


def test_nccl_internal_error_is_a_failure_of_no_rank(tmp_path):
    """The ``DistBackendError ... internal error`` the p5 traceback ends in reads as an NCCL failure (warning) of no
    rank: one process's device index ``[0]`` is not a rank."""
    assert _all(P5_SUBSET_WITH_EXCEPTION, tmp_path, 2, 2) == [
        ("rank-failure", "warning", "nccl-error", [])
    ]


def test_nccl_tests_failure_wording_is_not_read(tmp_path):
    """nccl-tests' ``Test NCCL failure common.cu:<n> '<error>'`` and ``.. <host> pid <n>: Test failure`` lines, and the
    plugin's ``NCCL WARN Attribute arch of node cpu not found``, give no finding, even under mpirun's ``[1,2]`` tag:
    a failed nccl-tests run (a common health check on these clouds) is not seen as a failure today."""
    assert _all(P5_TOPO_RANK2_NCCL_TESTS, tmp_path / "a", 4, 8) == []
    assert _all(NCV4_GRAPH_TEST_FAILURE, tmp_path / "b", 2, 2) == []
