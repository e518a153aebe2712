"""Point-cloud and LiDAR training with sparse convolutions under DDP (real incidents batch 228, all five controls), pinned
as read, with the one miss's fix. As collected, mit-han-lab/spvnas#65 named rank 3: ``torchpack dist-run -np 4`` (SPVCNN
on torchsparse) whose processes all lack ``mpi4py`` (``ModuleNotFoundError: No module named 'mpi4py'`` from
``dist.init()``, one unranked traceback), and Open MPI's ``The first process to do so was: Process name:
[[16228,1],3]``. Two general readings name no one now: torchpack's launcher line is a one-host launch
(``torchpack dist-run -np N`` with no ``-H``/hostfile runs ``mpirun -np N -H localhost:N``: parsers/log_launch_cmd.py),
and a Python module missing on a one-host launch is the environment every process runs, whichever rank the launcher
reports first (queries/_incident_common_mode.sql ``one_host_alike``; docs/rules.md, "Session 40: batch 228"). Contrasts keep naming
the rank: a launch over two hosts (a node's environment may lack what the other's has), no launch line, rank 0's own
missing module (rank 0 alone runs evaluations and saves), a launch over two nodes under torchrun, an exception of the
rank's own code. The other four controls (EfficientLPS#4's and CloserLook3D#10's extensions built against another
torch, Pointcept#381's rank-less segfault, MinkowskiEngine#235's rank-less K80 launch timeout) named no one as
collected. Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import corpus_lines, naming_findings
from k10s_forensics.parsers.log_launch_cmd import launch

NOW = dt.datetime(2026, 12, 3, 9, 0, tzinfo=dt.timezone.utc)
SPVNAS = corpus_lines("spvnas-65-")


def _mpi_first(cmd: str, rank: int, error: str = "ModuleNotFoundError: No module named 'mpi4py'") -> list[str]:
    """spvnas-65's shape: a launch line, one unranked traceback, Open MPI's first exit."""
    return ([cmd] if cmd else []) + [
        "Traceback (most recent call last):", '  File "train.py", line 23, in main', "    dist.init()",
        '  File "/opt/conda/lib/python3.8/site-packages/torchpack/distributed/context.py", line 15, in init',
        "    from mpi4py import MPI", error,
        "-------------------------------------------------------",
        "Primary job  terminated normally, but 1 process returned",
        "a non-zero exit code.. Per user-direction, the job has been aborted.",
        "-------------------------------------------------------",
        "--------------------------------------------------------------------------",
        "mpirun detected that one or more processes exited with non-zero status, thus causing",
        "the job to be terminated. The first process to do so was:", "",
        f"  Process name: [[16228,1],{rank}]", "  Exit code:    1",
        "--------------------------------------------------------------------------"]


def _torchrun(cmd: str, rank: int, error: str = "ModuleNotFoundError: No module named 'spconv'") -> list[str]:
    return [cmd, f"[rank{rank}]: Traceback (most recent call last):",
            f'[rank{rank}]:   File "tools/train.py", line 12, in <module>',
            f"[rank{rank}]:     import spconv.pytorch as spconv", f"[rank{rank}]: {error}",
            "W1203 08:59:58.100000 1200 torch/distributed/elastic/multiprocessing/api.py:897] Sending process 1210 closing "
            "signal SIGTERM",
            "E1203 08:59:58.300000 1200 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: 1) "
            f"local_rank: {rank} (pid: 121{rank}) of binary: /opt/venv/bin/python"]


#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # the batch's controls as read (spvnas-65 named rank 3 as collected)
    "spvnas-as-pasted": (SPVNAS, None, None, None, None),
    "spvnas-layout-4": (SPVNAS, 4, 4, None, None),
    "efficientlps-as-pasted": (corpus_lines("EfficientLPS-4-"), None, None, None, None),
    "closerlook3d-as-pasted": (corpus_lines("CloserLook3D-10-"), None, None, None, None),
    "pointcept-layout-4": (corpus_lines("Pointcept-381-"), 4, 4, None, None),
    "minkowski-k80-layout-4": (corpus_lines("MinkowskiEngine-235-"), 4, 4, None, None),
    # variants: torchpack with its verbose flag and only the local host, a plain mpirun, torchrun on one host
    "torchpack-verbose-localhost": (_mpi_first("$ torchpack dist-run -v -np 2 -H localhost:2 python train.py c.yaml", 1),
                                    None, None, None, None),
    "mpirun-np4-unranked": (_mpi_first("(spvnas) user@box:~/spvnas$ mpirun -np 4 python train.py c.yaml", 2),
                            None, None, None, None),
    "torchrun-one-host-rank1": (_torchrun("$ torchrun --standalone --nproc_per_node 2 tools/train.py c.py", 1),
                                None, None, None, None),
    # contrasts that name: two hosts (one node's environment may lack the module), no launch line, rank 0's own import,
    # torchrun over two nodes, the rank's own exception on one host
    "torchpack-two-hosts": (_mpi_first("torchpack dist-run -np 8 -H s1:4,s2:4 python train.py c.yaml", 5),
                            None, None, 5, "python-exception"),
    "no-launch-line": (_mpi_first("", 3), None, None, 3, "python-exception"),
    "torchrun-one-host-rank0": (_torchrun("$ torchrun --nproc_per_node 2 tools/train.py c.py", 0),
                                None, None, 0, "python-exception"),
    "torchrun-two-nodes-rank1": (_torchrun("torchrun --nnodes 2 --node_rank 0 --nproc_per_node 2 tools/train.py c.py", 1),
                                 None, None, 1, "python-exception"),
    "torchpack-own-valueerror": (_mpi_first("torchpack dist-run -np 4 python train.py c.yaml", 3,
                                            "ValueError: sample 000123.bin has no points"), None, None, 3, None),
}
BATCHED = Batched("b228", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_pointcloud_batch228_wordings(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])


@pytest.mark.parametrize(("line", "want"), [
    ("(spvnas) ~root# torchpack dist-run -np 4 python train.py configs/semantic_kitti/spvcnn/cr0p5.yaml", ("one_host", 4)),
    ("torchpack dist-run --nproc 6 python tools/train.py configs/nuscenes/det.yaml", ("one_host", 6)),
    ("torchpack dist-run -v -np 2 -H localhost:2 python train.py", ("one_host", 2)),
    ("torchpack dist-run -np 8 -H server1:4,server2:4 python train.py", ("hosts", 8)),
    ("torchpack dist-run -np 16 -hostfile hosts.txt python train.py", ("hosts", 16)),
    # not a launch this reads: one process, another torchpack command, torchpack named in a sentence
    ("torchpack dist-run -np 1 python evaluate.py c.yaml", None),
    ("torchpack -np 4 python train.py", None),
    ("I ran torchpack dist-run -np 2 python train.py and it hung", None),
])
def test_the_torchpack_launch_line_reading(line, want):
    assert launch(line) == want
