"""The fiftieth set of recorded runs (held out when recorded, the truths written before any recording): one node's
environment differing from the other's, as heterogeneous clusters make it, against controls where every node shares the
same fault (tests/tools/t50_worker.py: one DDP program on gloo on CPU, 2 agents x 2 processes, under plain ``torchrun``,
c10d rendezvous on 127.0.0.1, gloo timeouts of 3 s; torchrun's output options varied). Nothing in the program switches
a fault on: each node's command line carries its own environment (``node_env``: more ``env`` settings for one node;
``no_package``: the nodes whose ``PYTHONPATH`` lacks the site folder holding ``fused_ops``; ``full_scratch``: the nodes
whose ``SCRATCH_DIR`` is a 64 KiB tmpfs, full when their ranks write their 256 KiB batch cache at step 3;
``node_as``: a node's ``prlimit --as`` (``ulimit -v``); ``node_hidden``: a node running an older copy of the program
whose ``HIDDEN`` differs). A node is named by the agents' start order: the first-started agent joins the rendezvous
first and is given node rank 0 (each recording's ``commands``, by node, show which node got what).

Culprits: node 1 running another copy of the model (hidden 24 against 16: ranks 2 and 3 fail DDP's parameter-shape
check); node 1 lacking ``fused_ops`` (``ModuleNotFoundError`` on ranks 2 and 3 at step 3); node 1's scratch full
(``OSError: [Errno 28]`` on ranks 2 and 3 at step 3); node 1 exporting ``GRAD_ACCUM=2`` (its ranks all-reduce the
accumulated loss, a collective node 0's ranks never run: ranks 2 and 3 the culprits of the mismatch); node 0's
``CUDA_VISIBLE_DEVICES=-1`` (``RuntimeError`` on ranks 0 and 1 at start); node 1's ``ulimit -v`` of 6 GiB (rank 2,
its local rank 0, cannot reserve its 8 GiB prefetch buffer: torch's allocator fails, host memory). Controls (no rank may
be named): both nodes lacking ``fused_ops``, both nodes given ``CUDA_VISIBLE_DEVICES=-1``, both nodes' scratch full,
a clean run whose nodes' environments differ harmlessly. ``victims``: the ranks that fail or wait because of the
culprits.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import torch_scenarios41 as t41

HERE = Path(__file__).resolve().parent
WORKER = str(HERE / "t50_worker.py")
LAUNCHERS = ("t50run",)
_DIRS: list[str] = []
_MOUNTS: list[str] = []
_FUSED_OPS = '''"""fused_ops: the site's fused optimizer kernels (a stand-in)."""
import torch


@torch.no_grad()
def sgd_step(params, lr):
    for p in params:
        if p.grad is not None:
            p.add_(p.grad, alpha=-lr)
'''


def scenarios(S) -> list[dict]:
    def T(name: str, victims: list[int], culprits: list[int], cause: str | None = None, **kw) -> dict:
        mine = {k: kw.pop(k) for k in ("node_env", "no_package", "full_scratch", "node_as", "node_hidden") if k in kw}
        env = {"K10S_GLOO_TIMEOUT_S": "3", **kw.pop("env", {})}
        sc = S(name, launcher="t50run", fault=kw.pop("fault", "node-env"), rank=-2 if culprits else -1,
               culprits=list(culprits), cause=cause, env=env, nproc=2, **kw)
        return {**sc, "victims": victims, "limit_s": 120, **mine}

    tee = ["--tee", "3"]
    return [
        # node 1 runs an older copy of train.py whose HIDDEN is 24 (node 0's: 16): DDP's start-up check of the
        # parameters' shapes fails on ranks 2 and 3 (a RuntimeError naming the mismatched shape); ranks 0 and 1 fail
        # waiting for them in the next collective; torchrun's defaults (untagged)
        T("t50-trun-2x2-model-hidden-node1", [0, 1], [2, 3], "python-exception", fault="model-version",
          node_hidden={1: 24}),
        # node 1's PYTHONPATH lacks the site folder holding fused_ops: at step 3 ranks 2 and 3 raise
        # `ModuleNotFoundError: No module named 'fused_ops'`; ranks 0 and 1 wait in the step's all-reduce; --tee 3
        T("t50-trun-2x2-missing-package-node1-tee", [0, 1], [2, 3], "python-exception", fault="missing-package",
          no_package=[1], opts=tee),
        # node 1's SCRATCH_DIR is a full 64 KiB tmpfs: at step 3 ranks 2 and 3 raise `OSError: [Errno 28] No space left
        # on device` writing their batch cache; ranks 0 and 1 wait; --redirects 3 --log-dir (the consoles: the agents'
        # tables)
        T("t50-trun-2x2-scratch-full-node1-redirects", [0, 1], [2, 3], "python-exception", fault="scratch-full",
          full_scratch=[1], opts=["--redirects", "3", "--log-dir", "{logdir}"]),
        # node 1 exports GRAD_ACCUM=2 (node 0: unset, 1): its ranks all-reduce each step's accumulated loss, a collective
        # node 0's ranks never run; the job's collectives fall out of step (ranks 2 and 3 the culprits); --tee 3
        T("t50-trun-2x2-grad-accum-node1-tee", [0, 1], [2, 3], "collective-mismatch", fault="grad-accum",
          node_env={1: ["GRAD_ACCUM=2"]}, opts=tee),
        # node 0 exports CUDA_VISIBLE_DEVICES=-1 (node 1: 0,1): the program's device check raises RuntimeError on ranks
        # 0 and 1 after init_process_group; ranks 2 and 3 wait in DDP's start-up collectives; torchrun's defaults
        T("t50-trun-2x2-no-devices-node0", [2, 3], [0, 1], "python-exception", fault="devices",
          node_env={0: ["CUDA_VISIBLE_DEVICES=-1"], 1: ["CUDA_VISIBLE_DEVICES=0,1"]}),
        # node 1's agent runs under `prlimit --as` of 6 GiB (ulimit -v): at step 3 rank 2 (its local rank 0) cannot
        # reserve its 8 GiB prefetch buffer (torch's DefaultCPUAllocator: can't allocate memory); rank 3 and node 0's
        # ranks wait; --tee 3 --local-ranks-filter 0 (ranks 0 and 2 shown)
        T("t50-trun-2x2-ulimit-v-node1-rank2-filter0", [0, 1, 3], [2], "host-oom", fault="ulimit-v",
          node_as={1: 6 << 30}, opts=["--tee", "3", "--local-ranks-filter", "0"]),
        # controls: no rank may be named
        # neither node's PYTHONPATH holds fused_ops: every rank's `ModuleNotFoundError` at step 3; --tee 3
        T("t50-trun-2x2-missing-package-every-node-tee", [], [], fault="missing-package", no_package=[0, 1], opts=tee),
        # both nodes export CUDA_VISIBLE_DEVICES=-1: every rank's RuntimeError at start; torchrun's defaults
        T("t50-trun-2x2-no-devices-every-node", [], [], fault="devices",
          node_env={0: ["CUDA_VISIBLE_DEVICES=-1"], 1: ["CUDA_VISIBLE_DEVICES=-1"]}),
        # both nodes' scratch full: every rank's `OSError: [Errno 28]` at step 3; --tee 3 --local-ranks-filter 1
        # (ranks 1 and 3 shown)
        T("t50-trun-2x2-scratch-full-every-node-filter1", [], [], fault="scratch-full", full_scratch=[0, 1],
          opts=["--tee", "3", "--local-ranks-filter", "1"]),
        # a clean run, the nodes' environments differing harmlessly (their own scratch folders, device lists, node pool
        # names, node 0's explicit GRAD_ACCUM=1 against node 1's default); --tee 3
        T("t50-trun-2x2-clean-node-env-differs-tee", [], [], fault="none",
          node_env={0: ["CUDA_VISIBLE_DEVICES=0,1", "NODE_POOL=pool-a", "GRAD_ACCUM=1"],
                    1: ["CUDA_VISIBLE_DEVICES=2,3", "NODE_POOL=pool-b"]}, opts=tee),
    ]


def _site() -> str:
    """The site folder holding ``fused_ops`` (a node's extra packages)."""
    site = tempfile.mkdtemp(prefix="k10s-t50-site-")
    _DIRS.append(site)
    os.makedirs(os.path.join(site, "fused_ops"))
    with open(os.path.join(site, "fused_ops", "__init__.py"), "w") as f:
        f.write(_FUSED_OPS)
    return site


def _scratch(node: int, full: bool) -> str:
    """A node's own scratch folder; ``full``: a 64 KiB tmpfs mounted there (needs root)."""
    scratch = tempfile.mkdtemp(prefix=f"k10s-t50-scratch-node{node}-")
    _DIRS.append(scratch)
    if full:
        subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", scratch], check=True)
        _MOUNTS.append(scratch)
    return scratch


def _older_program(hidden: int) -> str:
    """A copy of the program whose ``HIDDEN`` is ``hidden`` (an older checkout on that node)."""
    older = tempfile.mkdtemp(prefix="k10s-t50-older-")
    _DIRS.append(older)
    text = Path(WORKER).read_text(encoding="utf-8")
    assert "\nHIDDEN = 16\n" in text
    path = os.path.join(older, "t50_worker.py")
    Path(path).write_text(text.replace("\nHIDDEN = 16\n", f"\nHIDDEN = {hidden}\n"), encoding="utf-8")
    return path


def commands(sc: dict, opts: list[str], port: str) -> list[list[str]]:
    """Each node's command line (by start order): plain ``torchrun`` running t50_worker.py, the node's ``PYTHONPATH``
    (with or without the site folder), its ``SCRATCH_DIR`` and ``node_env`` after ``env``, ``prlimit --as`` before
    it, and a node's older copy of the program."""
    cmds = t41.plain_torchrun(sc, opts, port, WORKER)
    site = _site()
    for node, cmd in enumerate(cmds):
        assert cmd[1] == f"PYTHONPATH={HERE}"
        if node not in sc.get("no_package", []):
            cmd[1] = f"PYTHONPATH={HERE}:{site}"
        cmd[2:2] = [f"SCRATCH_DIR={_scratch(node, node in sc.get('full_scratch', []))}", *sc.get("node_env", {}).get(node, [])]
        if node in sc.get("node_hidden", {}):
            cmd[cmd.index(WORKER)] = _older_program(sc["node_hidden"][node])
        if node in sc.get("node_as", {}):
            cmd[0:0] = ["prlimit", f"--as={sc['node_as'][node]}"]
    return cmds


def cleanup() -> None:
    while _MOUNTS:
        subprocess.run(["umount", _MOUNTS.pop()], check=False)
    while _DIRS:
        shutil.rmtree(_DIRS.pop(), ignore_errors=True)


def public(part: str) -> str:
    """A command part as the user would type it."""
    if part.startswith("SCRATCH_DIR="):
        return "SCRATCH_DIR=/scratch"
    if part.startswith("PYTHONPATH=") and "k10s-t50-site-" in part:
        return part.split(":")[0] + ":/opt/site-extras"
    return "train.py" if part == WORKER or "k10s-t50-older-" in part else part
