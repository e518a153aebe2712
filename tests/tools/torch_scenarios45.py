"""The forty-fifth set of recorded runs (held out when recorded, the truths written before any recording): the logging
libraries and error renderers of today's training scripts (tests/tools/t45_worker.py: rich's handler and box-drawn
tracebacks, loguru's sink and ``@logger.catch``, one JSON object per record with the traceback escaped in ``exc_info``,
hydra's ``@hydra.main`` and its ``Error executing job with overrides``), under plain ``torchrun`` (c10d rendezvous on
127.0.0.1, 2 agents x 2 processes, gloo timeouts of 3 s), torchrun's output options varied. Culprits: rank 1's KeyError
in a rich traceback box, rank 2's segfault among rich records, rank 2's ZeroDivisionError that loguru's ``@logger.catch``
swallows (the rank exits 0 and its peers' gloo errors are swallowed alike: every process exits 0, no failure table),
rank 3's failed 1 PiB CPU allocation under ``@logger.catch(reraise=True)`` (loguru's report, then Python's), rank 3's
corrupt shard logged as JSON before ``sys.exit(1)``, rank 1 hung before its all-reduce with every record JSON (the
peers' gloo timeouts too: ``never-joined``), rank 0's empty evaluation set under hydra. Controls: every rank's config
lacking a key under hydra (omegaconf's ``ConfigAttributeError`` on each), a loguru run whose WARNING records mention
errors. The set needs ``rich``, ``loguru`` and ``hydra-core`` beside torch (``pip install rich loguru hydra-core``).
``victims``: the ranks that fail or wait because of the culprit.
"""

from __future__ import annotations

from pathlib import Path

import torch_scenarios41 as t41

HERE = Path(__file__).resolve().parent
WORKER = str(HERE / "t45_worker.py")
LAUNCHERS = ("t45run",)


def _others(*culprits: int, world: int = 4) -> list[int]:
    return [r for r in range(world) if r not in culprits]


def scenarios(S) -> list[dict]:
    def T(name: str, style: str, victims: list[int], **kw) -> dict:
        env = {"K10S_GLOO_TIMEOUT_S": "3", "K10S_LOG_STYLE": style, **kw.pop("env", {})}
        return {**S(name, launcher="t45run", env=env, nproc=2, **kw), "victims": victims, "limit_s": 120}

    return [
        # rich: rank 1's batch lacks its label; --tee 3 (each line tagged [defaultN]:)
        T("t45-trun-2x2-rich-keyerror-rank1-tee", "rich", _others(1), fault="keyerror", rank=1, cause="python-exception",
          opts=["--tee", "3"]),
        # rich records, rank 2 segfaults (no faulthandler): torchrun's defaults
        T("t45-trun-2x2-rich-segfault-rank2", "rich", _others(2), fault="segfault", rank=2, cause="segfault"),
        # loguru's @logger.catch swallows rank 2's ZeroDivisionError: the rank returns and exits 0, its peers' gloo
        # errors are caught and swallowed alike (every process exits 0); --tee 3
        T("t45-trun-2x2-loguru-catch-swallows-zerodiv-rank2", "loguru", _others(2), fault="zerodiv", rank=2,
          cause="python-exception", opts=["--tee", "3"]),
        # loguru's @logger.catch(reraise=True): rank 3's 1 PiB allocation fails, loguru reports it, Python's traceback follows
        T("t45-trun-2x2-loguru-reraise-alloc-rank3", "loguru", _others(3), fault="alloc", rank=3, cause="host-oom",
          env={"K10S_LOGURU_RERAISE": "1"}),
        # JSON records: rank 3's shard fails its checksum, logged with LOG.exception, then sys.exit(1)
        T("t45-trun-2x2-json-corrupt-shard-rank3", "json", _others(3), fault="corrupt-shard", rank=3,
          cause="python-exception"),
        # JSON records: rank 1 sleeps past the gloo timeout before its all-reduce; --tee 3
        T("t45-trun-2x2-json-hang-rank1-tee", "json", _others(1), fault="hang", rank=1, cause="never-joined",
          opts=["--tee", "3"]),
        # hydra: rank 0's evaluation set is empty
        T("t45-trun-2x2-hydra-eval-empty-rank0", "hydra", _others(0), fault="eval-empty", rank=0, cause="python-exception"),
        # controls: no rank may be named
        # hydra: every rank's config lacks `optim` (omegaconf's ConfigAttributeError on each, before the process group)
        T("t45-trun-2x2-hydra-missing-key-every-rank", "hydra", [], fault="missing-key", rank=-1, culprits=[]),
        # loguru: a clean run whose WARNING records mention errors; --tee 3
        T("t45-trun-2x2-loguru-noisy-clean", "loguru", [], fault="noisy", rank=-1, culprits=[], opts=["--tee", "3"]),
    ]


def commands(sc: dict, opts: list[str], port: str) -> list[list[str]]:
    """Each node's command line: plain ``torchrun`` running t45_worker.py."""
    return t41.plain_torchrun(sc, opts, port, WORKER)


def public(part: str) -> str:
    """A command part as the user would type it."""
    return "train.py" if part == WORKER else part
