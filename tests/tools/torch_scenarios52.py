"""The fifty-second set of recorded runs (held out when recorded, the truths written before any recording): jobs that
collide with other jobs on a shared host or with their own leftovers, against controls where the collision is every
node's alike or harmless (tests/tools/t52_worker.py: one DDP program on gloo on CPU, 2 agents x 2 or 3 processes, under
plain ``torchrun``, c10d rendezvous on 127.0.0.1, gloo timeouts of 3 s; torchrun's output options varied). The program
never raises a fault of its own: the recorder leaves on the host, before the agents start, what an earlier job or
attempt left there: ``stale_port``: the nodes whose loader port (the one the node's local rank 0 opens at step 3) a
stale process of the previous run still holds (``OSError: [Errno 98] Address already in use``); ``stale_lock``: the
nodes whose ``loader.lock`` a stale process (``flock loader.lock sleep 600``) still holds (the node's local rank 0
blocks taking it at step 3); ``half_ckpt``: the ranks whose shard ``rank<r>.pt`` of the previous attempt's checkpoint
is half-written (every other rank's whole), or ``"all"``: the one ``last.pt`` every rank loads is half-written (each
rank's ``torch.load`` raises before the first step); ``owner``: the nodes whose scratch still holds the previous job's
cache files, ``rank<r>.cache``, under another uid (65534, mode 600: the program refuses them, ``PermissionError:
[Errno 13]``) or, ``same_owner``, under the job's own (overwritten, harmless); ``store``: what holds the rendezvous
port when the agents start: ``"socket"`` (a stale process of another protocol, an HTTP exporter answering 400 and
closing: the agents' c10d store cannot be reached) or ``"store"`` (another job's live TCPStore: the agents share it, their own --rdzv-id apart).

Culprits: rank 2 (node 1's local rank 0) failing to open its loader port a stale process holds (``OSError``: the
earlier sets' word for a Python error, ``python-exception``); rank 2 blocked on node 1's loader lock a stale process
holds, and rank 0 on node 0's (2 x 3): silent past the timeout while their peers' collectives time out
(``never-joined``, as t51's held checkpoint lock); rank 1 and rank 3 loading their half-written shards (``RuntimeError``
of torch.load: ``python-exception``); node 1's three ranks (3, 4, 5 in 2 x 3) refusing the cache files another uid owns
(each a ``PermissionError``: ``python-exception``, every one of them a culprit, node 0's none). Controls (no rank may
be named): the one ``last.pt`` every rank loads half-written (every rank's ``RuntimeError`` alike, before any step);
both nodes' loader ports held (ranks 0 and 2 alike: every node's); a stale HTTP exporter on the rendezvous port (the
launcher's own store: no worker starts, no rank's fault); another job's live store on the rendezvous port (the job
completes); node 1's scratch holding the previous job's files under the job's own uid (overwritten: the job
completes). ``victims``: the ranks that fail or wait because of the culprit.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import torch_scenarios41 as t41

HERE = Path(__file__).resolve().parent
WORKER = str(HERE / "t52_worker.py")
LAUNCHERS = ("t52run",)
_DIRS: list[str] = []
_HOLDERS: list[subprocess.Popen] = []
_HOLD_PORT = ("import socket, sys, time; s = socket.socket(); s.bind(('127.0.0.1', int(sys.argv[1]))); s.listen(); "
              "time.sleep(600)")
_HOLD_HTTP = ("import socket, sys; s = socket.socket(); s.bind(('127.0.0.1', int(sys.argv[1]))); s.listen()\n"
              "while True:\n    c, _ = s.accept(); c.recv(64); c.sendall(b'HTTP/1.0 400 Bad Request\\r\\n\\r\\n'); c.close()")
_HOLD_STORE = ("import sys, time; import torch.distributed as d; s = d.TCPStore('127.0.0.1', int(sys.argv[1]), "
               "is_master=True, wait_for_workers=False); s.set('other-job/step', '41'); time.sleep(600)")


def scenarios(S) -> list[dict]:
    def T(name: str, victims: list[int], culprits: list[int], fault: str, cause: str | None = None, nproc: int = 2,
          **kw) -> dict:
        mine = {k: kw.pop(k) for k in ("stale_port", "stale_lock", "half_ckpt", "owner", "same_owner", "store")
                if k in kw}
        sc = S(name, launcher="t52run", fault=fault, rank=-2 if culprits else -1, culprits=list(culprits),
               cause=cause if culprits else None, env={"K10S_GLOO_TIMEOUT_S": "3"}, nproc=nproc, steps=8, **kw)
        return {**sc, "victims": victims, "limit_s": 120, **mine}

    tee = ["--tee", "3"]
    exc, silent = "python-exception", "never-joined"
    return [
        # a stale process of the previous run holds node 1's loader port: rank 2's bind raises `OSError: [Errno 98]
        # Address already in use` at step 3; ranks 0, 1 and 3 time out (3 s); --tee 3
        T("t52-trun-2x2-stale-port-node1-tee", [0, 1, 3], [2], "port-in-use", exc, stale_port=[1], opts=tee),
        # a stale process holds node 1's loader.lock: rank 2 blocks taking it at step 3 (silent); ranks 0, 1 and 3 time
        # out; torchrun's defaults (untagged)
        T("t52-trun-2x2-stale-lock-node1", [0, 1, 3], [2], "lock-held", silent, stale_lock=[1]),
        # 2 x 3: a stale process holds node 0's loader.lock: rank 0 blocks at step 3; ranks 1-5 time out; --tee 3
        # --local-ranks-filter 1 (ranks 1 and 4 shown: rank 0 hidden)
        T("t52-trun-2x3-stale-lock-node0-filter1", [1, 2, 3, 4, 5], [0], "lock-held", silent, nproc=3,
          stale_lock=[0], opts=["--tee", "3", "--local-ranks-filter", "1"]),
        # the previous attempt left rank 1's checkpoint shard half-written: its torch.load raises before step 0; ranks
        # 0, 2 and 3 time out in DDP's first broadcast; --redirects 3 --log-dir (the consoles: the agents' tables)
        T("t52-trun-2x2-half-ckpt-rank1-redirects", [0, 2, 3], [1], "half-checkpoint", exc, half_ckpt=[1],
          opts=["--redirects", "3", "--log-dir", "{logdir}"]),
        # rank 3's shard half-written; --tee 3 --local-ranks-filter 0 (ranks 0 and 2 shown: rank 3 hidden)
        T("t52-trun-2x2-half-ckpt-rank3-filter0", [0, 1, 2], [3], "half-checkpoint", exc, half_ckpt=[3],
          opts=["--tee", "3", "--local-ranks-filter", "0"]),
        # 2 x 3: node 1's scratch holds the previous job's caches under uid 65534: ranks 3, 4 and 5 each raise
        # `PermissionError: [Errno 13]` at step 3; ranks 0-2 time out; --tee 3 --log-dir
        T("t52-trun-2x3-scratch-owner-node1-logdir", [0, 1, 2], [3, 4, 5], "stale-files", exc, nproc=3, owner=[1],
          opts=["--tee", "3", "--log-dir", "{logdir}"]),
        # controls: no rank may be named
        # the one last.pt every rank resumes from is half-written: every rank's torch.load raises alike; --tee 3
        T("t52-trun-2x2-half-ckpt-every-rank-tee", [], [], "half-checkpoint", half_ckpt="all", opts=tee),
        # stale processes hold both nodes' loader ports: ranks 0 and 2 raise `OSError: [Errno 98]` alike at step 3
        # (every node's); --tee 3
        T("t52-trun-2x2-stale-port-every-node-tee", [], [], "port-in-use", stale_port=[0, 1], opts=tee),
        # a stale HTTP exporter holds the rendezvous port (answers 400 and closes): the agents cannot reach their
        # store (the launcher's own: no rank's fault); torchrun's defaults
        T("t52-trun-2x2-store-port-held", [], [], "port-in-use", store="socket"),
        # another job's live TCPStore on the rendezvous port: the agents use it (their own --rdzv-id); the job
        # completes; --tee 3
        T("t52-trun-2x2-store-port-shared-tee", [], [], "port-in-use", store="store", opts=tee),
        # node 1's scratch holds the previous job's caches under the job's own uid: overwritten, the job completes;
        # --tee 3 --local-ranks-filter 1 (ranks 1 and 3 shown)
        T("t52-trun-2x2-stale-files-node1-filter1", [], [], "stale-files", same_owner=[1],
          opts=["--tee", "3", "--local-ranks-filter", "1"]),
    ]


def _say(what: str) -> None:
    """The recorder's own note (its output, never a node's log)."""
    print(f"  t52 leftover: {what}", flush=True)


def _hold(code: str, *args: str) -> subprocess.Popen:
    proc = subprocess.Popen([sys.executable, "-c", code, *args], stdin=subprocess.DEVNULL)
    _HOLDERS.append(proc)
    return proc


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _half_ckpt(path: str) -> None:
    import torch

    torch.manual_seed(1)
    model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 1))
    torch.save(model.state_dict(), path)
    size = os.path.getsize(path)
    with open(path, "r+b") as f:
        f.truncate(size // 2)
    _say(f"{os.path.basename(path)} half-written ({size // 2} of {size} bytes)")


def _whole_ckpt(path: str) -> None:
    import torch

    torch.manual_seed(1)
    torch.save(torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 1)).state_dict(), path)


def commands(sc: dict, opts: list[str], port: str) -> list[list[str]]:
    """Each node's command line: plain ``torchrun`` running t52_worker.py with the shared ``CKPT_DIR``, the node-local
    ``SCRATCH_DIR`` (``node<N>/`` each node's) and ``SIDE_PORTS`` (each node's loader port); the leftovers placed and
    the stale processes started first."""
    root = tempfile.mkdtemp(prefix="k10s-t52-")
    _DIRS.append(root)
    ckpt, scratch = os.path.join(root, "ckpt"), os.path.join(root, "scratch")
    nproc, agents = sc["nproc"], sc["agents"]
    for d in [ckpt] + [os.path.join(scratch, f"node{n}") for n in range(agents)]:
        os.makedirs(d)
    side = [str(_free_port()) for _ in range(agents)]
    for node in sc.get("stale_port", []):
        proc = _hold(_HOLD_PORT, side[node])
        _say(f"node {node}'s loader port {side[node]} held by pid {proc.pid}")
    for node in sc.get("stale_lock", []):
        _HOLDERS.append(subprocess.Popen(["flock", os.path.join(scratch, f"node{node}", "loader.lock"), "sleep", "600"]))
        _say(f"node {node}'s loader.lock held by pid {_HOLDERS[-1].pid}")
    half = sc.get("half_ckpt")
    if half == "all":
        _half_ckpt(os.path.join(ckpt, "last.pt"))
    elif half:
        for r in range(nproc * agents):
            (_half_ckpt if r in half else _whole_ckpt)(os.path.join(ckpt, f"rank{r}.pt"))
    for node in sc.get("owner", []) + sc.get("same_owner", []):
        for r in range(node * nproc, (node + 1) * nproc):
            path = os.path.join(scratch, f"node{node}", f"rank{r}.cache")
            Path(path).write_bytes(b"\1" * 4096)
            if node in sc.get("owner", []):
                os.chown(path, 65534, 65534)
                os.chmod(path, 0o600)
        _say(f"node {node}'s scratch holds the previous job's caches")
    if sc.get("store") == "socket":
        proc = _hold(_HOLD_HTTP, port)
        _say(f"rendezvous port {port} held by pid {proc.pid} (a stale HTTP exporter: answers 400, closes)")
    elif sc.get("store") == "store":
        proc = _hold(_HOLD_STORE, port)
        _say(f"rendezvous port {port} held by pid {proc.pid} (another job's TCPStore)")
    time.sleep(1.0)
    cmds = t41.plain_torchrun(sc, opts, port, WORKER)
    for cmd in cmds:
        assert cmd[1] == f"PYTHONPATH={HERE}"
        cmd[2:2] = [f"CKPT_DIR={ckpt}", f"SCRATCH_DIR={scratch}", f"SIDE_PORTS={','.join(side)}"]
    return cmds


def cleanup() -> None:
    while _HOLDERS:
        holder = _HOLDERS.pop()
        holder.kill()
        holder.wait()
    while _DIRS:
        shutil.rmtree(_DIRS.pop(), ignore_errors=True)


def public(part: str) -> str:
    """A command part as the user would type it."""
    for key, shown in (("CKPT_DIR=", "/mnt/shared/ckpt"), ("SCRATCH_DIR=", "/scratch/train")):
        if part.startswith(key) and "k10s-t52-" in part:
            return key + shown
    return "train.py" if part == WORKER else part
