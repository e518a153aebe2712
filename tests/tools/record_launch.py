"""The launcher command lines of recorded runs (tests/tools/record_torch.py): each node's command for a
scenario, by its launch style (the first two sets' ``torchrun``, legacy launcher and ``mp.spawn`` here; every
later set's styles in its own torch_scenariosN module), and a command as a user would type it."""

from __future__ import annotations

import socket
import sys
from pathlib import Path

import torch_scenarios3
import torch_scenarios4
import torch_scenarios5
import torch_scenarios6
import torch_scenarios7
import torch_scenarios8
import torch_scenarios9
import torch_scenarios10
import torch_scenarios11
import torch_scenarios12
import torch_scenarios13
import torch_scenarios14
import torch_scenarios15
import torch_scenarios16
import torch_scenarios17
import torch_scenarios18
import torch_scenarios19
import torch_scenarios20
import torch_scenarios21
import torch_scenarios22
import torch_scenarios23
import torch_scenarios24
import torch_scenarios25
import torch_scenarios26
import torch_scenarios27
import torch_scenarios28
import torch_scenarios29
import torch_scenarios30
import torch_scenarios31
import torch_scenarios32
import torch_scenarios33
import torch_scenarios34
import torch_scenarios36
import torch_scenarios37
import torch_scenarios38
import torch_scenarios40
import torch_scenarios41
import torch_scenarios42
import torch_scenarios43
import torch_scenarios44
import torch_scenarios45
import torch_scenarios46
import torch_scenarios47
import torch_scenarios48
import torch_scenarios49
import torch_scenarios50
import torch_scenarios51
import torch_scenarios52
import torch_scenarios53
import torch_scenarios54
import torch_scenarios55
import torch_scenarios56
import torch_scenarios57
import torch_scenarios58
import torch_scenarios59
import torch_scenarios60
import torch_scenarios61
import torch_scenarios62
import torch_scenarios63
import torch_scenarios64
import torch_scenarios65
import torch_scenarios66
import torch_scenarios67
import torch_scenarios68
import torch_scenarios69
import torch_scenarios70
import torch_scenarios71
import torch_scenarios72
import torch_scenarios73
import torch_scenarios74
import torch_scenarios75
import torch_scenarios76
import torch_scenarios77
import torch_scenarios78
import torch_scenarios79
import torch_scenarios80

HERE = Path(__file__).resolve().parent
WORKER = HERE / "torch_worker.py"
#: The sets whose launch styles take (sc, opts, port), newest first (a style is looked up in this order).
_STYLED = (torch_scenarios80, torch_scenarios79, torch_scenarios78, torch_scenarios77, torch_scenarios76, torch_scenarios75, torch_scenarios74, torch_scenarios73, torch_scenarios72, torch_scenarios71, torch_scenarios70, torch_scenarios69, torch_scenarios68, torch_scenarios67, torch_scenarios66, torch_scenarios65, torch_scenarios64, torch_scenarios63, torch_scenarios62, torch_scenarios61, torch_scenarios60, torch_scenarios59, torch_scenarios58, torch_scenarios57, torch_scenarios56, torch_scenarios55, torch_scenarios54, torch_scenarios53, torch_scenarios52, torch_scenarios51, torch_scenarios50, torch_scenarios49, torch_scenarios48, torch_scenarios47, torch_scenarios46, torch_scenarios45, torch_scenarios44, torch_scenarios43, torch_scenarios42, torch_scenarios41, torch_scenarios40, torch_scenarios38, torch_scenarios37, torch_scenarios36, torch_scenarios34, torch_scenarios33, torch_scenarios32, torch_scenarios31, torch_scenarios30, torch_scenarios29, torch_scenarios28, torch_scenarios27, torch_scenarios26, torch_scenarios25, torch_scenarios24, torch_scenarios23, torch_scenarios22, torch_scenarios21, torch_scenarios20, torch_scenarios19, torch_scenarios18, torch_scenarios17, torch_scenarios16, torch_scenarios15, torch_scenarios14, torch_scenarios13, torch_scenarios12,
           torch_scenarios11, torch_scenarios10, torch_scenarios9, torch_scenarios8, torch_scenarios7, torch_scenarios6, torch_scenarios5)
#: The sets' own ``public`` readings of a command part, the fifth's first.
_PUBLIC = (torch_scenarios5, torch_scenarios6, torch_scenarios7, torch_scenarios8, torch_scenarios9, torch_scenarios10,
           torch_scenarios11, torch_scenarios12, torch_scenarios13, torch_scenarios14, torch_scenarios15, torch_scenarios16,
           torch_scenarios17, torch_scenarios18, torch_scenarios19, torch_scenarios20, torch_scenarios21, torch_scenarios22,
           torch_scenarios23, torch_scenarios24, torch_scenarios25, torch_scenarios26, torch_scenarios27, torch_scenarios28, torch_scenarios29, torch_scenarios30, torch_scenarios31, torch_scenarios32, torch_scenarios33, torch_scenarios34,
           torch_scenarios36, torch_scenarios37, torch_scenarios38, torch_scenarios40, torch_scenarios41, torch_scenarios42, torch_scenarios43, torch_scenarios44, torch_scenarios45, torch_scenarios46, torch_scenarios47, torch_scenarios48, torch_scenarios49, torch_scenarios50, torch_scenarios51, torch_scenarios52, torch_scenarios53, torch_scenarios54, torch_scenarios55, torch_scenarios56, torch_scenarios57, torch_scenarios58, torch_scenarios59, torch_scenarios60, torch_scenarios61, torch_scenarios62, torch_scenarios63, torch_scenarios64, torch_scenarios65, torch_scenarios66, torch_scenarios67, torch_scenarios68, torch_scenarios69, torch_scenarios70, torch_scenarios71, torch_scenarios72, torch_scenarios73, torch_scenarios74, torch_scenarios75, torch_scenarios76, torch_scenarios77, torch_scenarios78, torch_scenarios79, torch_scenarios80)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def commands(sc: dict, logdir: str) -> list[list[str]]:
    """Each node's command line for the scenario (``{logdir}`` in its options: ``logdir``)."""
    py, n = sys.executable, str(sc["nproc"])
    opts = [o.replace("{logdir}", logdir) for o in sc["opts"]]
    if sc["launcher"] == "spawn":
        code = ("import sys, torch.multiprocessing as mp; sys.path.insert(0, %r); import torch_worker as w; "
                "mp.spawn(w.spawn_main, args=(%s, %d), nprocs=%s)") % (str(HERE), n, free_port(), n)
        return [[py, "-c", code]]
    port = str(free_port())
    for module in _STYLED:
        if sc["launcher"] in module.LAUNCHERS:
            return module.commands(sc, opts, port)
    if sc["launcher"] in torch_scenarios4.LAUNCHERS:
        return torch_scenarios4.commands(sc, port)
    if sc["launcher"] in torch_scenarios3.LAUNCHERS:
        return torch_scenarios3.commands(sc, opts, port, str(WORKER))
    if sc["launcher"] == "legacy":
        return [[py, "-m", "torch.distributed.launch", "--nnodes", "2", "--node-rank", str(i), "--nproc-per-node", n,
                 "--master-addr", "127.0.0.1", "--master-port", port, *opts, str(WORKER)] for i in (0, 1)]
    base = [py, "-m", "torch.distributed.run", "--nnodes", str(sc["agents"]), "--nproc-per-node", n, "--rdzv-backend", "c10d",
            "--rdzv-endpoint", f"127.0.0.1:{port}", "--rdzv-id", sc["name"], "--rdzv-conf", "join_timeout=8",
            "--monitor-interval", "0.5"]
    if "--max-restarts" not in opts:
        base += ["--max-restarts", "0"]
    agents = 1 if sc["one_agent"] else sc["agents"]
    return [base + opts + [str(WORKER)] for _ in range(agents)]


def public(cmd: list[str], logdir: str) -> str:
    """The command as a user would type it (no paths of this machine)."""
    parts = ["python" if c == sys.executable else Path(c).name if Path(c).parent == torch_scenarios4.BIN
             else c.replace(str(WORKER), "torch_worker.py").replace(torch_scenarios4.WORKER, "wrapper_worker.py").replace(logdir, "logs")
             .replace(str(HERE), ".") for c in map(_own_part, cmd)]
    return " ".join(p if " " not in p and ";" not in p else repr(p) for p in parts)


def _own_part(part: str) -> str:
    """One command part through each set's own ``public`` (the fifth's first)."""
    for module in _PUBLIC:
        part = module.public(part)
    return part


def cleanup() -> None:
    """What the sets' runs left behind (their own ``cleanup``)."""
    for module in (torch_scenarios5, torch_scenarios7, torch_scenarios9, torch_scenarios28, torch_scenarios29, torch_scenarios30, torch_scenarios33,
                   torch_scenarios46, torch_scenarios48, torch_scenarios49, torch_scenarios50, torch_scenarios51, torch_scenarios52, torch_scenarios53, torch_scenarios54, torch_scenarios55, torch_scenarios56, torch_scenarios57, torch_scenarios58, torch_scenarios59, torch_scenarios60, torch_scenarios61, torch_scenarios62, torch_scenarios63, torch_scenarios64, torch_scenarios65, torch_scenarios66, torch_scenarios67, torch_scenarios68, torch_scenarios69, torch_scenarios70, torch_scenarios71, torch_scenarios72, torch_scenarios73, torch_scenarios74, torch_scenarios75, torch_scenarios76, torch_scenarios77, torch_scenarios78, torch_scenarios79, torch_scenarios80):
        module.cleanup()


__all__ = ["HERE", "commands", "cleanup", "free_port", "public"]
