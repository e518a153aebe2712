"""The draw plumbing the drawn launcher sets share (tests/tools/torch_scenarios56.py to torch_scenarios60.py): the
fields each row draws from its ``random.Random(seed)``, in the order the sets draw them (so a set's stream, its table and
its scenarios stay as committed), the output options' command-line parts, the victims, the launchers' command lines; and
the sixtieth / sixty-first sets' shared row (``joint``), its rules (``runs``), truths (``CAUSE``) and environment."""

from __future__ import annotations

import random
import sys

import torch_scenarios11 as t11
import torch_scenarios41 as t41

#: torchrun's output options (each set draws from its own subset, in this order)
OPTIONS = ("none", "tee", "tee-logdir", "redirects-logdir", "tee-filter")
#: the program's top-level handling of its failure (the fifty-ninth set's)
HANDLERS = ("exception", "error", "print-exc", "record", "uncaught")
#: the program's logging conventions and, for ``logging-rank``, where the rank sits (the fifty-eighth set's)
STYLES = ("print-norank", "logging-rank", "logging-norank", "rank0-only", "deepspeed", "lightning")
RANKFMTS = ("field", "RANK", "rank=", "slash", "paren")
_STYLE_TAG = {"print-norank": "norank", "logging-rank": "logging", "logging-norank": "logging-norank",
              "rank0-only": "rank0only", "deepspeed": "deepspeed", "lightning": "lightning"}


def rank_step(rng: random.Random, nodes: int, nproc: int) -> tuple[int, int]:
    """The culprit's global rank (uniform over the world) and the fault's step (1-8 of 10)."""
    return rng.randrange(nodes * nproc), rng.randint(1, 8)


def placed(rng: random.Random, nodes: int, nproc: int, options: tuple[str, ...]) -> tuple[int, int, str, int]:
    """:func:`rank_step`, then torchrun's output option and the filter's local rank (uniform over the node's)."""
    rank, step = rank_step(rng, nodes, nproc)
    option = rng.choice(options)
    return rank, step, option, rng.randrange(nproc)


def program(rng: random.Random, handling: bool = True) -> tuple[str, ...]:
    """The program's (top-level handling, where ``handling``), logging convention and rank format."""
    handler = (rng.choice(HANDLERS),) if handling else ()
    style = rng.choice(STYLES)
    return (*handler, style, rng.choice(RANKFMTS))


def opts(option: str, local: int) -> list[str]:
    """The option's command-line parts (``{logdir}``: the recorder's log folder)."""
    return {"none": [], "tee": ["--tee", "3"], "tee-logdir": ["--tee", "3", "--log-dir", "{logdir}"],
            "redirects-logdir": ["--redirects", "3", "--log-dir", "{logdir}"],
            "tee-filter": ["--tee", "3", "--local-ranks-filter", str(local)]}[option]


def others(world: int, *culprits: int) -> list[int]:
    """Every rank of the world but the culprits: the victims."""
    return [r for r in range(world) if r not in culprits]


def style_env(style: str, rankfmt: str) -> dict[str, str]:
    """The worker's environment for the logging convention (the rank format only where it is used)."""
    return {"K10S_LOG_STYLE": style, **({"K10S_RANK_FORMAT": rankfmt} if style == "logging-rank" else {})}


def style_tag(style: str, rankfmt: str) -> str:
    """The convention as a scenario name writes it."""
    return _STYLE_TAG[style] + (f"-{rankfmt.rstrip('=')}" if style == "logging-rank" else "")


def launcher_commands(kind: str, sc: dict, opts: list[str], port: str, worker: str) -> list[list[str]]:
    """Each node's command line running ``worker`` under the launcher ``kind`` (``trun``: plain multi-node c10d
    ``torchrun``; ``spawn``: the worker's own ``mp.spawn`` spawner; ``standalone``; ``static``; else the legacy
    ``torch.distributed.launch --use-env``)."""
    n, nodes = str(sc["nproc"]), sc["agents"]
    if kind == "trun":
        return t41.plain_torchrun(sc, opts, port, worker)
    if kind == "spawn":
        return [[sys.executable, worker, "--spawn", n, "--nnodes", str(nodes), "--node-rank", str(i), "--master-port",
                 port] for i in range(nodes)]
    if kind == "standalone":
        return [[str(t11.BIN / "torchrun"), "--standalone", "--nproc-per-node", n, *opts, worker]]
    if kind == "static":
        return [[str(t11.BIN / "torchrun"), "--nnodes", str(nodes), "--nproc-per-node", n, "--rdzv-backend", "static",
                 "--node-rank", str(i), "--master-addr", "127.0.0.1", "--master-port", port, *opts, worker]
                for i in range(nodes)]
    return [[sys.executable, "-m", "torch.distributed.launch", "--use-env", "--nnodes", str(nodes), "--node-rank",
             str(i), "--nproc-per-node", n, "--master-addr", "127.0.0.1", "--master-port", port, *opts, worker]
            for i in range(nodes)]


#: the jointly drawn sets' (sixtieth, sixty-first) launchers (multi-node c10d: most draws), layouts, crashes, exceptions
KINDS = ("trun", "trun", "trun", "trun", "standalone", "static", "legacy", "spawn")
LAYOUTS = ((2, 2), (2, 3), (3, 2))
CRASH = ("sigkill", "segfault", "raise", "abort", "sigbus")
EXCEPTIONS = ("raise-runtime", "raise-value", "assert", "missing-shard", "keyerror", "memoryerror")
TORCHRUN = ("trun", "standalone", "static")
RESTARTS = ("every-attempt", "recovered")
DETAIL = {"TORCH_DISTRIBUTED_DEBUG": "DETAIL"}
#: each crash's / caught exception's truth cause (as earlier sets give them)
CAUSE = {"sigkill": "host-oom-kill", "segfault": "segfault", "raise": "python-exception", "abort": "abort",
         "sigbus": "sigbus", "raise-runtime": "python-exception", "raise-value": "python-exception",
         "assert": "python-exception", "missing-shard": "python-exception", "keyerror": "python-exception",
         "memoryerror": "host-oom"}


def joint(rng: random.Random) -> tuple:
    """The sixtieth set's row, in its order: (launcher, nodes, nproc, rank, step, option, filter local rank, handler,
    style, rank format, crash, exception); under ``--standalone`` one node of all the layout's processes."""
    launcher = rng.choice(KINDS)
    nodes, nproc = rng.choice(LAYOUTS)
    if launcher == "standalone":
        nodes, nproc = 1, nodes * nproc
    rank, step, option, local = placed(rng, nodes, nproc, OPTIONS)
    handler, style, rankfmt = program(rng)
    return launcher, nodes, nproc, rank, step, option, local, handler, style, rankfmt, rng.choice(CRASH), \
        rng.choice(EXCEPTIONS)


def runs(item: str, launcher: str, option: str) -> bool:
    """The sixtieth set's rules: no output option under ``legacy`` / ``spawn`` (they are torchrun's), ``--max-restarts``
    under c10d torchrun / ``--standalone`` only, no node lost whole under ``--standalone`` (one node)."""
    if launcher not in TORCHRUN and option != "none":
        return False
    if item in RESTARTS and launcher not in ("trun", "standalone"):
        return False
    return not (item == "node-killed" and launcher == "standalone")


def joint_env(item: str, handler: str, style: str, rankfmt: str) -> dict[str, str]:
    """The worker's environment for a jointly drawn row (gloo timeouts of 3 s, handling, convention, DETAIL for the
    mismatches, the rounds' prefixes under ``--max-restarts``, the recovered run's first attempt only)."""
    return {"K10S_GLOO_TIMEOUT_S": "3", "K10S_HANDLER": handler, **style_env(style, rankfmt),
            **(DETAIL if item.endswith("-mismatch") else {}), **({"K10S_ROUNDS": "1"} if item in RESTARTS else {}),
            **({"K10S_FAULT_ATTEMPTS": "1"} if item == "recovered" else {})}


def joint_victims(item: str, world: int, nproc: int, rank: int, control: bool) -> list[int]:
    """Node lost whole: the other nodes' ranks (the drawn rank's node is lost); a control: none; else every other rank."""
    if item == "node-killed":
        return [r for r in range(world) if r // nproc != rank // nproc]
    return [] if control else others(world, rank)
