"""The eighth set of recorded runs (held out when recorded): faults inside the library's own
machinery (a distributed checkpoint, an object collective, a DataLoader worker), signals and
output shapes the first seven lack. Imported by torch_scenarios.py (its ``S`` builds each one); the
program: tests/tools/t8_worker.py (a tiny model, gradients all-reduced over gloo).

Launch style: ``t8run``, the ``torchrun`` script, c10d rendezvous (``agents`` x ``nproc``).
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
BIN = Path(sys.executable).parent
WORKER = str(HERE / "t8_worker.py")
LAUNCHERS = ("t8run",)


def scenarios(S) -> list[dict]:
    tr = {"launcher": "t8run"}
    pylog = {"K10S_PYLOG": "1"}
    return [
        S("t8-trun-dcp-missing-shard-rank1", fault="dcp-missing-shard", rank=1, cause="python-exception", **tr),
        S("t8-trun-unpicklable-object-rank2", fault="unpicklable", rank=2, cause="python-exception", opts=["--tee", "3"], **tr),
        S("t8-trun-loader-deadlock-rank1", fault="loader-deadlock", rank=1, cause="python-exception", **tr),
        S("t8-trun-save-recursion-rank3", fault="save-recursion", rank=3, cause="python-exception",
          opts=["--tee", "3", "--log-dir", "{logdir}"], **tr),
        S("t8-trun-segv-faulthandler-threads-rank2", fault="segv-threads", rank=2, cause="segfault", **tr),
        S("t8-trun-sigxcpu-rank1", fault="sigxcpu", rank=1, cause="sigxcpu", **tr),
        S("t8-trun-bad-env-rank3", fault="bad-env", rank=3, cause="python-exception", **tr),
        S("t8-trun-pylog-unpicklable-rank0", fault="unpicklable", rank=0, cause="python-exception", env=pylog, **tr),
        # controls: no rank may be named
        S("t8-trun-clean-info-noise", env={"K10S_NOISE": "1", "TORCH_CPP_LOG_LEVEL": "INFO"}, opts=["--tee", "3"], **tr),
        S("t8-trun-common-mode-config-missing", fault="config-missing", rank=-1, culprits=[], step=1, env=pylog, **tr),
    ]


def commands(sc: dict, opts: list[str], port: str) -> list[list[str]]:
    """Each node's command line."""
    torchrun, n, nodes = str(BIN / "torchrun"), str(sc["nproc"]), sc["agents"]
    tail = [*opts] if "--max-restarts" in opts else [*opts, "--max-restarts", "0"]
    rdzv = ["--rdzv-backend", "c10d", "--rdzv-endpoint", f"127.0.0.1:{port}", "--rdzv-id", sc["name"], "--rdzv-conf", "join_timeout=10"]
    return [[torchrun, "--nnodes", str(nodes), "--nproc-per-node", n, *rdzv, "--monitor-interval", "0.5", *tail, WORKER]
            for _ in range(nodes)]


def public(part: str) -> str:
    """A command part as the user would type it."""
    if part == WORKER:
        return "t8_worker.py"
    return Path(part).name if part.endswith("/torchrun") else part


__all__ = ["LAUNCHERS", "commands", "public", "scenarios"]
