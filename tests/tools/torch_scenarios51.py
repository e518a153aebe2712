"""The fifty-first set of recorded runs (held out when recorded, the truths written before any recording): ranks stalled
or slowed from OUTSIDE the training process, against controls where every rank stalls alike or a stall ends within the
timeout (tests/tools/t51_worker.py: one DDP program on gloo on CPU, 2 agents x 2 or 3 processes, under plain
``torchrun``, c10d rendezvous on 127.0.0.1, gloo timeouts of 3 s; torchrun's output options varied). The program never
raises a fault of its own: the recorder's side thread (``_Outside``, started with the commands) acts on a rank when
its status file (``STATUS_DIR/rank<r>``: pid and step) reaches the step: ``stop`` SIGSTOPs it (a debugger attach or a
stuck ``ptrace`` does the same; SIGCONT after ``for_s`` or never); ``freeze`` puts it in a frozen cgroup freezer
(thawed after ``for_s``); ``starve`` puts it in a cpu cgroup with a CFS quota, ``nice`` 19 and one CPU (``taskset``);
``stop_agent`` SIGSTOPs a node's torchrun agent (its workers run on; SIGCONT after ``for_s``). ``fifo``: the ranks whose
shard on the shared ``DATA_DIR`` is a FIFO (a hung NFS/Lustre mount): ``hung`` (never written: the read blocks for
good), ``trickle`` (fed at 32 KiB/s: 8 s for its 256 KiB), ``late`` (fed whole after 5 s), ``eio`` (closed unwritten
after 6 s, as a soft mount gives up: the program's short read, ``OSError: [Errno 5]``). ``lock_held``: another process
(``flock ckpt.lock sleep``) holds the checkpoint lock rank 0 takes at step 3.

A rank frozen, blocked or slowed past the 3 s timeout prints nothing more while its peers' collectives time out: the
word the earlier sets' truths give such a silent, lagging rank (t9's SIGSTOPped and slow ranks, the hang-recv-timeout
runs) is ``never-joined``, and every culprit here takes it. Culprits: rank 2 SIGSTOPped at step 3 for good; rank 4 (2 x 3)
frozen by a cgroup freezer at step 3 and thawed 15 s later (its peers have failed by then); rank 1 blocked in the read of
a FIFO no one writes; rank 3's shard read trickling for 8 s; rank 0 blocked on the checkpoint lock another process holds.
Controls (no rank may be named): rank 1 starved of CPU (a 10 % quota, nice 19, one CPU) but within the timeout (its
steps slower, the job completes); node 1's agent SIGSTOPped for 10 s while its workers run on (the job completes); every
rank's shard a FIFO the mount closes unwritten after 6 s (every rank's ``OSError: [Errno 5]``, alike: the mount hung for
all); every rank's shard fed 5 s late alike (2 x 3: every rank waits the same, the job completes); rank 2 SIGSTOPped for
1.5 s (shorter than the timeout: the job completes). ``victims``: the ranks that fail or wait because of the culprit.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from pathlib import Path

import torch_scenarios41 as t41

HERE = Path(__file__).resolve().parent
WORKER = str(HERE / "t51_worker.py")
LAUNCHERS = ("t51run",)
SHARD_BYTES = 256 << 10
_DIRS: list[str] = []
_OUTSIDE: list["_Outside"] = []
_HOLDERS: list[subprocess.Popen] = []


def scenarios(S) -> list[dict]:
    def T(name: str, victims: list[int], culprits: list[int], fault: str, nproc: int = 2, **kw) -> dict:
        mine = {k: kw.pop(k) for k in ("stop", "freeze", "starve", "stop_agent", "fifo", "lock_held") if k in kw}
        sc = S(name, launcher="t51run", fault=fault, rank=-2 if culprits else -1, culprits=list(culprits),
               cause="never-joined" if culprits else None, env={"K10S_GLOO_TIMEOUT_S": "3"}, nproc=nproc, steps=8, **kw)
        return {**sc, "victims": victims, "limit_s": 120, **mine}

    tee = ["--tee", "3"]
    return [
        # rank 2 SIGSTOPped at step 3 (never continued): its peers time out (3 s) in the step's all-reduce; node 1's
        # agent SIGTERMs it (pending while stopped) and SIGKILLs it 30 s later; --tee 3
        T("t51-trun-2x2-sigstop-rank2-tee", [0, 1, 3], [2], "sigstop", stop=(2, 3, None), opts=tee),
        # 2 x 3: rank 4 put in a frozen cgroup freezer at step 3, thawed 15 s later (it then dies of its agent's pending
        # SIGTERM); ranks 0-3 and 5 time out; --tee 3 --log-dir
        T("t51-trun-2x3-freezer-rank4-logdir", [0, 1, 2, 3, 5], [4], "cgroup-freezer", nproc=3, freeze=(4, 3, 15.0),
          opts=["--tee", "3", "--log-dir", "{logdir}"]),
        # rank 1's shard is a FIFO no one writes (a hung mount): its open blocks at step 3 for good; ranks 0, 2 and 3
        # time out; torchrun's defaults (untagged)
        T("t51-trun-2x2-hung-mount-rank1", [0, 2, 3], [1], "hung-read", fifo={1: "hung"}),
        # rank 3's shard trickles in at 32 KiB/s (8 s for 256 KiB): ranks 0-2 time out before it arrives; --redirects 3
        # --log-dir (the consoles: the agents' tables)
        T("t51-trun-2x2-slow-read-rank3-redirects", [0, 1, 2], [3], "slow-read", fifo={3: "trickle"},
          opts=["--redirects", "3", "--log-dir", "{logdir}"]),
        # another process (`flock ckpt.lock sleep 600`, a stale job) holds the checkpoint lock: rank 0 blocks taking it
        # at step 3; ranks 1-3 time out; --tee 3 --local-ranks-filter 0 (ranks 0 and 2 shown)
        T("t51-trun-2x2-lock-held-rank0-filter0", [1, 2, 3], [0], "lock-held", lock_held=True,
          opts=["--tee", "3", "--local-ranks-filter", "0"]),
        # controls: no rank may be named
        # rank 1 starved from step 1 (cpu cgroup quota 10 ms per 100 ms, nice 19, one CPU): its steps slower, within the
        # timeout; the job completes; --tee 3
        T("t51-trun-2x2-cpu-starved-rank1-tee", [], [], "cpu-starved", starve=(1, 1, 0.1), opts=tee),
        # node 1's agent SIGSTOPped when rank 2 starts step 1, continued 10 s later: its workers run on and finish, the
        # agent then reaps them; the job completes; torchrun's defaults
        T("t51-trun-2x2-agent-sigstop-node1", [], [], "agent-sigstop", stop_agent=(1, 1, 10.0)),
        # every rank's shard a FIFO closed unwritten after 6 s (the shared mount hung for all, then gave up): every
        # rank's `OSError: [Errno 5] Input/output error` at step 3, alike; --tee 3
        T("t51-trun-2x2-hung-mount-every-rank-tee", [], [], "hung-read", fifo={r: "eio" for r in range(4)}, opts=tee),
        # 2 x 3: every rank's shard fed whole 5 s late, alike: they reach the all-reduce together; the job completes;
        # --tee 3 --local-ranks-filter 1 (ranks 1 and 4 shown)
        T("t51-trun-2x3-slow-read-every-rank-filter1", [], [], "slow-read", nproc=3, fifo={r: "late" for r in range(6)},
          opts=["--tee", "3", "--local-ranks-filter", "1"]),
        # rank 2 SIGSTOPped at step 3 for 1.5 s (shorter than the 3 s timeout): the job completes; --tee 3
        T("t51-trun-2x2-short-stall-rank2-tee", [], [], "sigstop", stop=(2, 3, 1.5), opts=tee),
    ]


def _say(what: str) -> None:
    """The outside actor's own note (the recorder's output, never a node's log)."""
    print(f"  t51 outside: {what}", flush=True)


def _write(path: str, data: bytes) -> None:
    try:
        with open(path, "w") as f:
            f.write(data.decode())
    except OSError as e:
        print(f"t51: {path}: {e}", flush=True)


class _Outside(threading.Thread):
    """The recorder's stand-in for what acts on a rank from outside: watches the status files, acts at the step."""

    def __init__(self, sc: dict, status: str, data: str) -> None:
        super().__init__(daemon=True)
        self.sc, self.status, self.data = sc, status, data
        self.done = threading.Event()
        self.cgroups: list[str] = []
        self.fifos = [os.path.join(data, f"shard-{r}.bin") for r in sc.get("fifo", {})]

    def _at(self, rank: int, step: int) -> int | None:
        """The rank's pid once its status file shows ``step`` or later (None: the run is over)."""
        path = os.path.join(self.status, f"rank{rank}")
        while not self.done.is_set():
            try:
                pid, at = map(int, Path(path).read_text().split())
                if at >= step:
                    return pid
            except (OSError, ValueError):
                pass
            time.sleep(0.02)
        return None

    def _later(self, delay: float | None, fn) -> None:
        if delay is not None and not self.done.wait(delay):
            fn()

    def _signal(self, pid: int, sig: signal.Signals) -> None:
        _say(f"{sig.name} pid {pid}")
        try:
            os.kill(pid, sig)
        except ProcessLookupError:
            pass

    def _feed(self, rank: int, mode: str) -> None:
        path = os.path.join(self.data, f"shard-{rank}.bin")
        try:
            with open(path, "wb", buffering=0) as f:  # blocks until the rank opens it
                if self.done.is_set():
                    return
                _say(f"rank {rank} opened its FIFO shard: {mode}")
                if mode == "trickle":
                    for _ in range(SHARD_BYTES // (32 << 10)):
                        if self.done.wait(1.0):
                            return
                        f.write(b"\0" * (32 << 10))
                elif mode == "late" and not self.done.wait(5.0):
                    f.write(b"\0" * SHARD_BYTES)
                elif mode == "eio":
                    self.done.wait(6.0)
        except OSError:
            pass

    def run(self) -> None:
        sc = self.sc
        for rank, mode in sc.get("fifo", {}).items():
            if mode != "hung":
                threading.Thread(target=self._feed, args=(rank, mode), daemon=True).start()
        if "stop" in sc:
            rank, step, for_s = sc["stop"]
            if (pid := self._at(rank, step)) is not None:
                self._signal(pid, signal.SIGSTOP)
                self._later(for_s, lambda: self._signal(pid, signal.SIGCONT))
        if "freeze" in sc:
            rank, step, for_s = sc["freeze"]
            if (pid := self._at(rank, step)) is not None:
                cg = self._cgroup("freezer")
                _say(f"rank {rank} pid {pid} frozen (cgroup freezer) at step {step}, thawed after {for_s} s")
                _write(os.path.join(cg, "cgroup.procs"), str(pid).encode())
                _write(os.path.join(cg, "freezer.state"), b"FROZEN")
                self._later(for_s, lambda: _write(os.path.join(cg, "freezer.state"), b"THAWED"))
        if "starve" in sc:
            rank, step, quota = sc["starve"]
            if (pid := self._at(rank, step)) is not None:
                cg = self._cgroup("cpu")
                _say(f"rank {rank} pid {pid} starved at step {step}: quota {quota}, nice 19, CPU 0")
                _write(os.path.join(cg, "cpu.cfs_period_us"), b"100000")
                _write(os.path.join(cg, "cpu.cfs_quota_us"), str(int(quota * 100000)).encode())
                _write(os.path.join(cg, "cgroup.procs"), str(pid).encode())
                for tid in os.listdir(f"/proc/{pid}/task"):
                    try:
                        os.sched_setaffinity(int(tid), {0})
                        os.setpriority(os.PRIO_PROCESS, int(tid), 19)
                    except OSError:
                        pass
        if "stop_agent" in sc:
            node, step, for_s = sc["stop_agent"]
            if (pid := self._at(node * sc["nproc"], step)) is not None:
                agent = int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])  # the worker's parent
                _say(f"node {node}'s agent (pid {agent}, rank {node * sc['nproc']}'s parent)")
                self._signal(agent, signal.SIGSTOP)
                self._later(for_s, lambda: self._signal(agent, signal.SIGCONT))

    def _cgroup(self, controller: str) -> str:
        cg = f"/sys/fs/cgroup/{controller}/k10s-t51-{self.sc['name']}"
        os.makedirs(cg, exist_ok=True)
        self.cgroups.append(cg)
        return cg

    def stop(self) -> None:
        self.done.set()
        for path in self.fifos:  # release a feeder still blocked opening its FIFO
            try:
                os.close(os.open(path, os.O_RDONLY | os.O_NONBLOCK))
            except OSError:
                pass
        self.join(timeout=5)
        for cg in self.cgroups:
            if cg.startswith("/sys/fs/cgroup/freezer/"):
                _write(os.path.join(cg, "freezer.state"), b"THAWED")
            for _ in range(50):
                try:
                    os.rmdir(cg)
                    break
                except OSError:
                    time.sleep(0.1)


def commands(sc: dict, opts: list[str], port: str) -> list[list[str]]:
    """Each node's command line: plain ``torchrun`` running t51_worker.py with the shared ``DATA_DIR`` (its shards:
    files, or FIFOs), ``CKPT_DIR`` and ``STATUS_DIR``; the outside actor started beside them."""
    root = tempfile.mkdtemp(prefix="k10s-t51-")
    _DIRS.append(root)
    data, ckpt, status = (os.path.join(root, d) for d in ("data", "ckpt", "status"))
    for d in (data, ckpt, status):
        os.makedirs(d)
    for r in range(sc["nproc"] * sc["agents"]):
        path = os.path.join(data, f"shard-{r}.bin")
        if r in sc.get("fifo", {}):
            os.mkfifo(path)
        else:
            Path(path).write_bytes(b"\0" * SHARD_BYTES)
    if sc.get("lock_held"):
        _HOLDERS.append(subprocess.Popen(["flock", os.path.join(ckpt, "ckpt.lock"), "sleep", "600"]))
        time.sleep(0.5)
        _say(f"ckpt.lock held by pid {_HOLDERS[-1].pid} (flock ... sleep 600)")
    outside = _Outside(sc, status, data)
    outside.start()
    _OUTSIDE.append(outside)
    cmds = t41.plain_torchrun(sc, opts, port, WORKER)
    for cmd in cmds:
        assert cmd[1] == f"PYTHONPATH={HERE}"
        cmd[2:2] = [f"DATA_DIR={data}", f"CKPT_DIR={ckpt}", f"STATUS_DIR={status}"]
    return cmds


def cleanup() -> None:
    while _OUTSIDE:
        _OUTSIDE.pop().stop()
    while _HOLDERS:
        holder = _HOLDERS.pop()
        holder.kill()
        holder.wait()
    while _DIRS:
        shutil.rmtree(_DIRS.pop(), ignore_errors=True)


def public(part: str) -> str:
    """A command part as the user would type it."""
    for key, shown in (("DATA_DIR=", "/mnt/shared/data"), ("CKPT_DIR=", "/mnt/shared/ckpt"),
                       ("STATUS_DIR=", "/run/train-status")):
        if part.startswith(key) and "k10s-t51-" in part:
            return key + shown
    return "train.py" if part == WORKER else part
