"""The thirty-eighth set of recorded runs (held out when recorded): the issue's own fault list as a new user records it
today, on CPU with gloo. Each node is plain ``torchrun`` with its DEFAULT options (no ``--tee``, no ``--log-dir``, no
``--monitor-interval``, no ``--rdzv-conf``; ``--max-restarts`` only where the scenario sets it): c10d rendezvous on
127.0.0.1, 2 agents x 4 processes (world 8), running tests/tools/t38_worker.py (torch_worker.py's loop and faults, gloo
timeouts of 3 s as the thirty-third set's ``K10S_GLOO_TIMEOUT_S=3``). One fault on a rank that is neither 0 nor the last
(7): SIGKILL, a segfault (ctypes), an exception, ``os.abort()``, SIGBUS, a rank that never joins (sleeps before its
init), ``monitored_barrier`` with one rank late, a collective mismatch and a size mismatch under
``TORCH_DISTRIBUTED_DEBUG=DETAIL``, ``--max-restarts 1`` with the same rank failing in both attempts. Controls: a whole
node killed (node 1's agent and its workers SIGKILLed by the recorder: no rank is guilty), a clean run, every rank
raising the same configuration error before its init. Imported by torch_scenarios.py (its ``S`` builds each one);
``victims`` the ranks that fail or wait because of the culprit (truth.json's ``victim_ranks``).
"""

from __future__ import annotations

from pathlib import Path

import torch_scenarios11 as t11

HERE = Path(__file__).resolve().parent
WORKER = str(HERE / "t38_worker.py")
LAUNCHERS = ("t38run",)
DETAIL = {"TORCH_DISTRIBUTED_DEBUG": "DETAIL"}


def _others(*culprits: int, world: int = 8) -> list[int]:
    return [r for r in range(world) if r not in culprits]


def scenarios(S) -> list[dict]:
    def T(name: str, victims: list[int], **kw) -> dict:
        env = {"K10S_GLOO_TIMEOUT_S": "3", **kw.pop("env", {})}
        return {**S(name, launcher="t38run", env=env, nproc=4, **kw), "victims": victims, "limit_s": 120}

    return [
        # (a) rank 5 (node 1, local rank 1) SIGKILLed at step 3 (the kernel's OOM killer)
        T("t38-trun-2x4-sigkill-rank5", _others(5), fault="sigkill", rank=5, cause="host-oom-kill"),
        # (b) rank 2 (node 0, local rank 2) reads address 0 through ctypes: SIGSEGV
        T("t38-trun-2x4-segfault-rank2", _others(2), fault="segfault", rank=2, cause="segfault"),
        # (c) rank 6 (node 1, local rank 2) raises KeyError in its batch lookup
        T("t38-trun-2x4-exception-rank6", _others(6), fault="exception", rank=6, cause="python-exception"),
        # (d) rank 3 (node 0, local rank 3) calls os.abort(): SIGABRT
        T("t38-trun-2x4-abort-rank3", _others(3), fault="abort", rank=3, cause="abort"),
        # (e) rank 1 (node 0, local rank 1) sends itself SIGBUS
        T("t38-trun-2x4-sigbus-rank1", _others(1), fault="sigbus", rank=1, cause="sigbus"),
        # (f) rank 4 (node 1, local rank 0) sleeps 18 s before init_process_group, then exits 0: the others' init
        # times out (3 s) waiting for it
        T("t38-trun-2x4-never-joins-rank4", _others(4), fault="never-joins", rank=4, cause="never-joined"),
        # (g) rank 5 reaches monitored_barrier 12 s late (its timeout 1.5 s): rank 0 reports it
        T("t38-trun-2x4-monitored-barrier-rank5", _others(5), fault="monitored-barrier", rank=5, cause="never-joined"),
        # (h) rank 2 broadcasts where the others all-reduce, under TORCH_DISTRIBUTED_DEBUG=DETAIL
        T("t38-trun-2x4-op-mismatch-detail-rank2", _others(2), fault="op-mismatch", rank=2, cause="collective-mismatch",
          env=DETAIL),
        # (i) rank 6 all-reduces 5 elements where the others all-reduce 8, under TORCH_DISTRIBUTED_DEBUG=DETAIL
        T("t38-trun-2x4-size-mismatch-detail-rank6", _others(6), fault="size-mismatch", rank=6,
          cause="collective-mismatch", env=DETAIL),
        # (j) --max-restarts 1: rank 3 raises KeyError at step 3 in the first attempt and again in the second
        T("t38-trun-2x4-restarts1-exception-rank3-twice", _others(3), fault="exception", rank=3,
          cause="python-exception", opts=["--max-restarts", "1"]),
        # controls: no rank may be named
        # (k) node 1 lost whole: its agent and its four workers SIGKILLed mid-run (no rank is guilty; ranks 0-3 fail)
        T("t38-trun-2x4-node1-killed", [0, 1, 2, 3], culprits=[], kill_node=True, steps=60),
        # (l) a clean run
        T("t38-trun-2x4-clean", [], culprits=[]),
        # (m) every rank raises the same ValueError from its configuration before init_process_group
        T("t38-trun-2x4-same-config-error-every-rank", [], fault="config-error", rank=-1, culprits=[]),
    ]


def commands(sc: dict, opts: list[str], port: str) -> list[list[str]]:
    """Each node's command line, in start order: ``torchrun`` with its default options (only the rendezvous and the
    scenario's own options given)."""
    rdzv = ["--rdzv-backend", "c10d", "--rdzv-endpoint", f"127.0.0.1:{port}", "--rdzv-id", sc["name"]]
    return [["env", f"PYTHONPATH={HERE}", str(t11.BIN / "torchrun"), "--nnodes", str(sc["agents"]), "--nproc-per-node",
             str(sc["nproc"]), *rdzv, *opts, WORKER] for _ in range(sc["agents"])]


def public(part: str) -> str:
    """A command part as the user would type it."""
    return "t38_worker.py" if part == WORKER else part


__all__ = ["LAUNCHERS", "commands", "public", "scenarios"]
