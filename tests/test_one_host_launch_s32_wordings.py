"""A pasted launch command line that starts every process on one host makes a host-level failure common mode (session
32 leftovers; real incidents horovod/horovod#319: `mpiexec -np 2 ./horovod-helloworld.py` on one Mac, then mpiexec's
`process rank 0 … exited on signal 4 (Illegal instruction: 4)`). ``mpirun``/``mpiexec -np N`` with no host list or
with only ``localhost``, ``horovodrun -np N -H localhost:N``, ``torchrun --nproc_per_node N`` with no ``--nnodes`` but 1
run one binary with one set of libraries on one CPU: an illegal instruction, a missing shared library or a C library
too old meets every process alike, whichever the launcher reports (parsers/log_launch_cmd.py; queries/_incident.sql
``one_host_alike``; docs/rules.md, "Session 32: leftovers"). Contrasts keep naming the rank: a launch over several
hosts, a lone SIGILL with no launch line (lmdeploy-1221's shape), a kill (relion-112's `signal 9`), an exception of
the rank's own code. Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import naming_findings
from k10s_forensics.parsers.log_launch_cmd import launch

NOW = dt.datetime(2026, 12, 1, 17, 0, tzinfo=dt.timezone.utc)
BANNER = ["-------------------------------------------------------",
          "Primary job  terminated normally, but 1 process returned",
          "a non-zero exit code. Per user-direction, the job has been aborted.",
          "-------------------------------------------------------",
          "--------------------------------------------------------------------------"]


def _noticed(rank: int, sig: int = 4, what: str = "Illegal instruction", tool: str = "mpirun") -> str:
    return f"{tool} noticed that process rank {rank} with PID 4242 on node matrix exited on signal {sig} ({what})."


def _mpi(cmd: str, rank: int = 0, sig: int = 4, what: str = "Illegal instruction", tool: str = "mpirun") -> list[str]:
    return ([cmd] if cmd else []) + BANNER + [_noticed(rank, sig, what, tool)]


def _hvd_import(cmd: str, rank: int = 1, error: str = "ImportError: libcudart.so.11.0: cannot open shared object file: "
                "No such file or directory") -> list[str]:
    tag = f"[1,{rank}]<stderr>:"
    return [cmd, f"{tag}Traceback (most recent call last):", f'{tag}  File "train.py", line 3, in <module>',
            f"{tag}    import horovod.torch as hvd", f"{tag}{error}", *BANNER[:4],
            "--------------------------------------------------------------------------",
            "mpirun detected that one or more processes exited with non-zero status, thus causing",
            "the job to be terminated. The first process to do so was:", "",
            f"  Process name: [[50371,1],{rank}]", "  Exit code:    1"]


def _torchrun(cmd: str, rank: int = 1, error: str = "ImportError: /lib/x86_64-linux-gnu/libc.so.6: version "
              "`GLIBC_2.32' not found (required by /opt/venv/lib/python3.10/site-packages/apex_C.so)") -> list[str]:
    return [cmd, f"[rank{rank}]: Traceback (most recent call last):", f'[rank{rank}]:   File "train.py", line 9, in <module>',
            f"[rank{rank}]:     import apex_C", f"[rank{rank}]: {error}",
            "W1201 16:59:58.100000 1200 torch/distributed/elastic/multiprocessing/api.py:897] Sending process 1210 closing "
            "signal SIGTERM",
            "E1201 16:59:58.300000 1200 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: 1) "
            f"local_rank: {rank} (pid: 1211) of binary: /opt/venv/bin/python"]


#: key: (the pasted lines, the rank a warning/critical finding must name alone: None for none)
CASES = {
    # horovod-319's wording: mpiexec on one Mac, the rank it reaped first named
    "mpiexec-np2-sigill": (_mpi("mpiexec -np 2 ./horovod-helloworld.py", 0, 4, "Illegal instruction: 4", "mpiexec"), None),
    # behind a prompt, with only the local host listed
    "prompt-mpirun-localhost-sigill": (_mpi("$ mpirun -np 4 -H localhost:4 --allow-run-as-root python train.py", 2), None),
    "root-prompt-mpirun-n-127-sigill": (_mpi("root@4a93:/src# mpirun -n 2 --host 127.0.0.1:2 -x NCCL_DEBUG=INFO ./a.out", 1),
                                        None),
    # a set -x trace of a script with a backslash continuation
    "xtrace-mpirun-continued-sigill": (["+ mpirun -np 4 \\", "    -bind-to none -map-by slot \\", "    python train.py",
                                        *BANNER, _noticed(3)], None),
    # horovodrun on one host, a rank's missing CUDA runtime library
    "horovodrun-localhost-shared-lib": (_hvd_import("horovodrun -np 2 -H localhost:2 python train.py"), None),
    # torchrun on one host, a C library too old for an extension
    "torchrun-glibc": (_torchrun("$ torchrun --standalone --nproc_per_node 2 train.py"), None),
    "legacy-launch-glibc": (_torchrun("CUDA_VISIBLE_DEVICES=0,1 python -m torch.distributed.launch --nproc_per_node=2 "
                                      "--use_env train.py"), None),
    # contrasts: a launch over two hosts keeps naming the rank ...
    "mpirun-two-hosts-sigill": (_mpi("mpirun -np 4 -H node1:2,node2:2 python train.py", 2), 2),
    "mpirun-hostfile-sigill": (_mpi("mpirun -np 8 --hostfile hosts.txt python train.py", 5), 5),
    "torchrun-two-nodes-glibc": (_torchrun("torchrun --nnodes 2 --node_rank 0 --nproc_per_node 2 train.py"), 1),
    # ... a launch with no host list whose log names two hosts (NCCL's host:pid:tid: inside a batch allocation) ...
    "mpirun-no-hosts-two-nccl-hosts-sigill": (["mpirun -np 4 python train.py",
                                               "gpu-a01:1201:1201 [0] NCCL INFO Bootstrap : Using ib0:10.1.0.1<0>",
                                               "gpu-a02:3301:3301 [0] NCCL INFO Bootstrap : Using ib0:10.1.0.2<0>",
                                               *BANNER, _noticed(2)], 2),
    # ... a lone SIGILL without a launch line keeps today's reading (lmdeploy-1221's shape) ...
    "no-launch-line-sigill": (_mpi("", 1), 1),
    # ... a kill is one process's (relion-112's mpirun signal 9) ...
    "mpirun-np2-sigkill": (_mpi("mpirun -np 2 python train.py", 1, 9, "Killed"), 1),
    # ... and an exception of the rank's own code on one host is still its own
    "torchrun-own-exception": (_torchrun("torchrun --nproc_per_node 2 train.py", 1,
                                         "ValueError: sample 1832 has no 'label' field"), 1),
}
BATCHED = Batched("s32host", list(CASES))


def _make(key: str, folder: Path):
    return pasted(CASES[key][0], folder, None, NOW, world=None)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_a_host_failure_of_a_one_host_launch_names_no_rank(key, tmp_path_factory):
    findings = BATCHED.findings(key, tmp_path_factory, _make)
    assert_one_rank(naming_findings(findings), CASES[key][1])
    if CASES[key][1] is None:  # the cause is still said, with the launch that makes it common
        said = [f for f in findings if f["rule"] == "rank-failure" and not f["ranks"]]
        assert said and "one-host launch" in said[0]["summary"], [(f["rule"], f["summary"]) for f in findings]


@pytest.mark.parametrize(("line", "want"), [
    ("mpiexec -np 2 ./horovod-helloworld.py", ("one_host", 2)),
    ("$ mpirun -np 4 -H localhost:4 python train.py", ("one_host", 4)),
    ("# mpirun -n 4 --mca btl ^openib -x LD_LIBRARY_PATH python t.py -n 9", ("one_host", 4)),
    ("horovodrun -np 2 python t.py", ("one_host", 2)),
    ("torchrun --nnodes=1:1 --nproc-per-node=8 t.py", ("one_host", 8)),
    ("mpirun -np 4 -H a:2,b:2 python t.py", ("hosts", 4)),
    ("mpirun -np 16 -npernode 8 python t.py", ("hosts", 16)),
    ("mpirun -np 8 --map-by ppr:4:node python t.py", ("hosts", 8)),
    ("horovodrun -np 8 -hostfile hosts python t.py", ("hosts", 8)),
    ("torchrun --nnodes=$NNODES --nproc_per_node=8 t.py", ("hosts", 8)),
    ("torchrun --node_rank 1 --nproc_per_node 4 --master_addr 10.0.0.5 t.py", ("hosts", 4)),
    ("torchrun --node-rank=0 --nproc-per-node=4 t.py", ("one_host", 4)),
    # not a launch this reads: the launcher's own report, a sentence, srun's, one process, an unknown count, paste damage
    ("mpirun noticed that process rank 0 with PID 0 on node matrix exited on signal 4", None),
    ("I ran mpirun -np 2 python t.py and it crashed", None),
    ("srun -N 2 torchrun --nproc_per_node 4 t.py", None),
    ("mpirun -np 1 ./a.out", None),
    ("torchrun --nproc_per_node=gpu t.py", None),
    ("mpirun -np 32 - H s1:4,s2:4 python t.py", None),
])
def test_the_launch_line_reading(line, want):
    assert launch(line) == want
