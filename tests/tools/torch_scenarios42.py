"""The forty-second set of recorded runs (held out when recorded, the truths written before any recording): the issue's
own fault list crossed with torchrun's output options, one option set a fault, on a layout of 2 agents x 3 processes
(world 6, local rank 2 on each node) with c10d rendezvous on 127.0.0.1, gloo on CPU (tests/tools/torch_worker.py's loop
and faults, gloo timeouts of 3 s). Options: ``--log-dir`` alone, ``--redirects 2``, ``--tee 1`` (stdout prefixed, stderr
not), ``--local-ranks-filter 1,2``, ``--redirects 3 --log-dir``, ``--tee 3``, ``--redirects 1 --log-dir``,
``--local-ranks-filter 0``, ``--tee 2``, ``--max-restarts 2 --tee 3``. Controls: node 1 lost whole under
``--redirects 3 --log-dir``, a clean run under ``--tee 3 --local-ranks-filter 0``, every rank's same ``ValueError`` under
``--redirects 2``. ``victims``: the ranks that fail or wait because of the culprit (truth.json's ``victim_ranks``).
"""

from __future__ import annotations

from pathlib import Path

import torch_scenarios41 as t41

HERE = Path(__file__).resolve().parent
WORKER = str(HERE / "torch_worker.py")
LAUNCHERS = ("t42run",)
DETAIL = {"TORCH_DISTRIBUTED_DEBUG": "DETAIL"}
LOGDIR = ["--log-dir", "{logdir}"]


def _others(*culprits: int, world: int = 6) -> list[int]:
    return [r for r in range(world) if r not in culprits]


def scenarios(S) -> list[dict]:
    def T(name: str, victims: list[int], **kw) -> dict:
        env = {"K10S_GLOO_TIMEOUT_S": "3", **kw.pop("env", {})}
        return {**S(name, launcher="t42run", env=env, nproc=3, **kw), "victims": victims, "limit_s": 120}

    return [
        # rank 4 (node 1, local rank 1) SIGKILLed at step 3; --log-dir alone (no redirect: the console has everything)
        T("t42-trun-2x3-sigkill-rank4-logdir", _others(4), fault="sigkill", rank=4, cause="host-oom-kill", opts=LOGDIR),
        # rank 2 (node 0, local rank 2) segfaults; --redirects 2 (every worker's stderr to files in a temporary log dir)
        T("t42-trun-2x3-segfault-rank2-redirects2", _others(2), fault="segfault", rank=2, cause="segfault",
          opts=["--redirects", "2"]),
        # rank 5 (node 1, local rank 2) raises KeyError; --tee 1 (stdout prefixed [defaultN]:, stderr unprefixed)
        T("t42-trun-2x3-exception-rank5-tee1", _others(5), fault="exception", rank=5, cause="python-exception",
          opts=["--tee", "1"]),
        # rank 1 calls os.abort(); --local-ranks-filter 1,2 (local ranks 1 and 2 of each node shown)
        T("t42-trun-2x3-abort-rank1-filter12", _others(1), fault="abort", rank=1, cause="abort",
          opts=["--tee", "3", "--local-ranks-filter", "1,2"]),
        # rank 3 (node 1, local rank 0) sends itself SIGBUS; --redirects 3 --log-dir (workers' output in files only)
        T("t42-trun-2x3-sigbus-rank3-redirects3", _others(3), fault="sigbus", rank=3, cause="sigbus",
          opts=["--redirects", "3", *LOGDIR]),
        # rank 4 sleeps 18 s before init_process_group, then exits 0; --tee 3
        T("t42-trun-2x3-never-joins-rank4-tee3", _others(4), fault="never-joins", rank=4, cause="never-joined",
          opts=["--tee", "3"]),
        # rank 2 reaches monitored_barrier 12 s late; --redirects 1 --log-dir (stdout to files, stderr on the console)
        T("t42-trun-2x3-monitored-barrier-rank2-redirects1", _others(2), fault="monitored-barrier", rank=2,
          cause="never-joined", opts=["--redirects", "1", *LOGDIR]),
        # rank 2 broadcasts where the others all-reduce under DETAIL; --local-ranks-filter 0 hides rank 2's own output
        T("t42-trun-2x3-op-mismatch-rank2-filter0", _others(2), fault="op-mismatch", rank=2, cause="collective-mismatch",
          env=DETAIL, opts=["--tee", "3", "--local-ranks-filter", "0"]),
        # rank 4 all-reduces 5 elements where the others all-reduce 8 under DETAIL; --tee 2
        T("t42-trun-2x3-size-mismatch-rank4-tee2", _others(4), fault="size-mismatch", rank=4,
          cause="collective-mismatch", env=DETAIL, opts=["--tee", "2"]),
        # --max-restarts 2 --tee 3: rank 5 raises KeyError at step 3 in every attempt
        T("t42-trun-2x3-restarts2-exception-rank5", _others(5), fault="exception", rank=5, cause="python-exception",
          opts=["--max-restarts", "2", "--tee", "3"]),
        # controls: no rank may be named
        # node 1 lost whole (its agent and three workers SIGKILLed mid-run); --redirects 3 --log-dir
        T("t42-trun-2x3-node1-killed-redirects3", [0, 1, 2], culprits=[], kill_node=True, steps=60,
          opts=["--redirects", "3", *LOGDIR]),
        # a clean run; --tee 3 --local-ranks-filter 0
        T("t42-trun-2x3-clean-filter0", [], culprits=[], opts=["--tee", "3", "--local-ranks-filter", "0"]),
        # every rank raises the same ValueError at step 3; --redirects 2
        T("t42-trun-2x3-valueerror-every-rank-redirects2", [], fault="valueerror", rank=-1, culprits=[],
          opts=["--redirects", "2"]),
    ]


def commands(sc: dict, opts: list[str], port: str) -> list[list[str]]:
    """Each node's command line: plain ``torchrun`` running torch_worker.py (the forty-first set's form)."""
    return t41.plain_torchrun(sc, opts, port, WORKER)


def public(part: str) -> str:
    """A command part as the user would type it."""
    return "torch_worker.py" if part == WORKER else part
