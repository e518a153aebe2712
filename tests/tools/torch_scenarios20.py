"""The twentieth set of recorded runs (held out when recorded): store timeouts at setup where some ranks never start.
The store's host (global rank 0) waits for every client and times out with ``DistStoreError: Timed out after N
seconds waiting for clients. J/M clients joined.`` — a count, not which ranks. Lightning's own launcher at 2 x 2 (ranks
1 and 3 late: the shape seen while recording the nineteenth set, whose discarded takes named the host), at 2 x 2 with
one rank late and at 1 x 4 with two; ``mp.spawn`` at 1 x 4 on ``tcp://`` init (no rank announces itself before the
store). The truth: the ranks that started late (the worker marks them), cause ``never-joined``.
Imported by torch_scenarios.py (its ``S`` builds each one); the program: tests/tools/t20_worker.py.
Launch styles: ``t20lightning`` (torch_scenarios4's Lightning wrapper, this set's program), ``t20spawn``.
"""

from __future__ import annotations

import socket
import sys
from pathlib import Path

import torch_scenarios4 as t4

HERE = Path(__file__).resolve().parent
WORKER = str(HERE / "t20_worker.py")
LAUNCHERS = ("t20lightning", "t20spawn")


def scenarios(S) -> list[dict]:
    env = {"K10S_GLOO_TIMEOUT_S": "20"}  # the store's wait: long enough for an on-time rank of a loaded machine
    late = [("t20-lightning-2x2-late-ranks1-3", "t20lightning", [1, 3], 2, 2), ("t20-lightning-2x2-late-rank3", "t20lightning", [3], 2, 2),
            ("t20-lightning-1x4-late-ranks2-3", "t20lightning", [2, 3], 4, 1), ("t20-spawn-1x4-late-ranks1-3", "t20spawn", [1, 3], 4, 1)]
    return [{**S(name, launcher=launcher, fault="late", rank=ranks[0], culprits=ranks, cause="never-joined", nproc=n, agents=a,
                 env={**env, "K10S_LATE_RANKS": ",".join(map(str, ranks))}), "culprits_from_marks": True}
            for name, launcher, ranks, n, a in late]


def commands(sc: dict, opts: list[str], port: str) -> list[list[str]]:
    """Each node's command line: the fourth set's Lightning wrapper, or one ``mp.spawn`` process, this set's program."""
    if sc["launcher"] == "t20lightning":
        cmds = t4.commands({**sc, "launcher": "lightning"}, port)
        return [[WORKER if p == t4.WORKER else p for p in cmd] for cmd in cmds]
    n = str(sc["nproc"])
    code = ("import sys, torch.multiprocessing as mp; sys.path.insert(0, %r); import t20_worker as w; "
            "mp.spawn(w.spawn_main, args=(%s, %d), nprocs=%s)") % (str(HERE), n, _free_port(), n)
    return [[sys.executable, "-c", code]]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def public(part: str) -> str:
    """A command part as the user would type it."""
    return "t20_worker.py" if part == WORKER else part


__all__ = ["LAUNCHERS", "commands", "public", "scenarios"]
