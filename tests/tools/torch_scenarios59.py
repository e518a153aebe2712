"""The fifty-ninth set of recorded runs (held out when recorded, the truths written from the draw before any
recording): the program HANDLES its own failure at its top level and logs it in its own style, drawn at random, a
generalization check of issue 18's bar on runs nobody tuned for. The fifty-eighth set drew how a program logs and found
k10s anchoring on the lines torch and torchrun write themselves (torch's ``[rankN]:`` stamp on an uncaught traceback,
the launchers' failure tables); real programs very often catch the exception at the top and log it themselves, so the
stamp is gone. Here ``draw()`` below (``random.Random(59)``, committed) draws, for each item of the list in the list's
order, a layout (2 x 2 or 2 x 3: agents x processes), the culprit's global rank (uniform over the world), the fault's
step (1-8 of 10), torchrun's output option (none, ``--tee 3``, ``--tee 3 --local-ranks-filter <local>``; not
``--redirects``, whose consoles hold only tables, a class the fifty-sixth and fifty-eighth sets measured), the filter's
local rank, the top-level handling (tests/tools/t59_worker.py: ``exception``: ``logger.exception("training failed")``
then ``sys.exit(1)``; ``error``: ``logger.error(f"rank {rank}: {e}")`` then ``sys.exit(2)``; ``print-exc``:
``traceback.print_exc()`` then ``os._exit(1)``; ``record``: torch's ``@record`` on main, re-raised; ``uncaught``), the
logging convention (t58_worker.py's: ``print-norank``, ``logging-rank``, ``logging-norank``, ``rank0-only``,
``deepspeed``, ``lightning``) and, for ``logging-rank``, where the rank sits. The victims' errors (gloo timeouts,
connection resets, ``DistBackendError``) go through the SAME handler: every failing rank logs alike, the culprit told
only by what its error says. Plain ``torchrun`` (two agents on 127.0.0.1, c10d, gloo on CPU, gloo timeouts of 3 s)
running t59_worker.py; recorded with torch 2.13.0 and 2.14.1. 12 scenarios: 9 catchable faults (a ``RuntimeError`` and
a ``ValueError`` with telling messages, an ``AssertionError``, a ``FileNotFoundError`` of the rank's own shard, a
``KeyError`` in its batch, an op and a size mismatch under ``TORCH_DISTRIBUTED_DEBUG=DETAIL`` with gradients summed by
hand, ``monitored_barrier`` with one rank 12 s late, a ``MemoryError`` from the rank's own 1 PiB allocation) and 3
controls (every rank's same configuration ``ValueError`` caught and logged alike; every rank's same missing
``data/vocab/tokenizer.json``; a clean run).

The draw (``python -c "import torch_scenarios59 as t; [print(r) for r in t.draw()]"``):

    item                layout rank step option      local handler    style           rankfmt -> scenario
    raise-runtime       2x2    0    8    none        0     print-exc  lightning       field   -> t59-trun-2x2-raise-runtime-rank0-step8-print-exc-lightning
    raise-value         2x2    3    7    tee         1     error      lightning       paren   -> t59-trun-2x2-raise-value-rank3-step7-error-lightning-tee
    assert              2x3    5    3    tee-filter  0     exception  logging-norank  field   -> t59-trun-2x3-assert-rank5-step3-exception-logging-norank-filter0
    missing-shard       2x3    2    2    none        0     exception  deepspeed       paren   -> t59-trun-2x3-missing-shard-rank2-step2-exception-deepspeed
    keyerror            2x2    2    5    none        0     print-exc  deepspeed       RANK    -> t59-trun-2x2-keyerror-rank2-step5-print-exc-deepspeed
    op-mismatch         2x3    0    2    tee         1     uncaught   deepspeed       RANK    -> t59-trun-2x3-op-mismatch-rank0-step2-uncaught-deepspeed-tee
    size-mismatch       2x3    4    7    tee-filter  1     uncaught   lightning       RANK    -> t59-trun-2x3-size-mismatch-rank4-step7-uncaught-lightning-filter1
    monitored-barrier   2x2    3    8    tee-filter  1     print-exc  logging-norank  RANK    -> t59-trun-2x2-monitored-barrier-rank3-step8-print-exc-logging-norank-filter1
    memoryerror         2x2    3    4    none        1     error      deepspeed       paren   -> t59-trun-2x2-memoryerror-rank3-step4-error-deepspeed
    config-every-rank   2x3    1    6    tee-filter  0     print-exc  print-norank    rank=   -> t59-trun-2x3-config-every-rank-step6-print-exc-norank-filter0
    missing-every-rank  2x3    4    7    tee-filter  0     exception  deepspeed       slash   -> t59-trun-2x3-missing-every-rank-step7-exception-deepspeed-filter0
    clean               2x2    1    7    none        1     record     logging-rank    rank=   -> t59-trun-2x2-clean-record-logging-rank

Unused draws (every row draws every field so the stream never depends on the item): the controls' rank, the clean
run's step, the local rank where the option is no filter, the rank format where the style is not ``logging-rank``. No
combination was replaced: every drawn one could run. The awkward ones kept: ``record`` drawn only for the clean run
(so no failing run here carries ``@record``'s error file into the launcher's table), ``uncaught`` drawn twice (the two
mismatches: the contrast), ``logging-rank`` drawn only for the clean run and ``rank0-only`` never (so every failing
run's own lines carry no rank, or Lightning's ``[rank: N]``); the ``error`` handler drawn for the ``MemoryError``
(whose message is empty: the rank's record reads ``rank 3: `` and nothing else); the monitored-barrier culprit rank 3
under ``--local-ranks-filter 1`` (ranks 1 and 3 shown; rank 0, whose error names the late rank, filtered out); the
op-mismatch culprit is rank 0.

Truths (the cause names as earlier sets give them for the same fault): the raised ``RuntimeError`` / ``ValueError``,
the ``AssertionError``, the ``FileNotFoundError`` and the ``KeyError`` -> ``python-exception``; the op and the size
mismatch -> ``collective-mismatch``; ``monitored_barrier`` 12 s late -> ``never-joined``; the ``MemoryError`` ->
``host-oom`` (as the fortieth and forty-sixth sets). ``victims``: every other rank. Controls (no rank may be named):
every rank's same configuration ``ValueError`` at step 6; every rank's same ``FileNotFoundError`` at step 7; a clean
run.
"""

from __future__ import annotations

import random
from pathlib import Path

import torch_draw as td
import torch_scenarios41 as t41

HERE = Path(__file__).resolve().parent
WORKER = str(HERE / "t59_worker.py")
LAUNCHERS = ("t59run",)
DETAIL = {"TORCH_DISTRIBUTED_DEBUG": "DETAIL"}
ITEMS = ("raise-runtime", "raise-value", "assert", "missing-shard", "keyerror", "op-mismatch", "size-mismatch",
         "monitored-barrier", "memoryerror", "config-every-rank", "missing-every-rank", "clean")
LAYOUTS = ((2, 2), (2, 3))
OPTIONS = ("none", "tee", "tee-filter")
HANDLERS = td.HANDLERS
STYLES = td.STYLES
RANKFMTS = td.RANKFMTS


def draw(seed: int = 59) -> list[tuple]:
    """Each item's (item, agents, nproc, rank, step, option, filter local rank, handler, style, rank format), in the
    list's order (every row draws every field)."""
    rng = random.Random(seed)
    rows = []
    for item in ITEMS:
        agents, nproc = rng.choice(LAYOUTS)
        rank, step, option, local = td.placed(rng, agents, nproc, OPTIONS)
        handler, style, rankfmt = td.program(rng)
        rows.append((item, agents, nproc, rank, step, option, local, handler, style, rankfmt))
    return rows


#: each item's worker fault and truth cause (None: a control, no rank may be named)
_FAULTS = {"raise-runtime": ("raise-runtime", "python-exception"), "raise-value": ("raise-value", "python-exception"),
           "assert": ("assert", "python-exception"), "missing-shard": ("missing-shard", "python-exception"),
           "keyerror": ("keyerror", "python-exception"), "op-mismatch": ("op-mismatch", "collective-mismatch"),
           "size-mismatch": ("size-mismatch", "collective-mismatch"),
           "monitored-barrier": ("monitored-barrier", "never-joined"), "memoryerror": ("memoryerror", "host-oom"),
           "config-every-rank": ("config", None), "missing-every-rank": ("missing-every", None), "clean": ("none", None)}


_opts = td.opts
_others = td.others


def name(row: tuple) -> str:
    """The scenario's name from its drawn row."""
    item, agents, nproc, rank, step, option, local, handler, style, rankfmt = row
    control = _FAULTS[item][1] is None
    parts = [f"t59-trun-{agents}x{nproc}-{item}"]
    if not control:
        parts.append(f"rank{rank}")
    if item != "clean":
        parts.append(f"step{step}")
    parts += [handler, td.style_tag(style, rankfmt)]
    parts += {"none": [], "tee": ["tee"], "tee-filter": [f"filter{local}"]}[option]
    return "-".join(parts)


def scenarios(S) -> list[dict]:
    out = []
    for row in draw():
        item, agents, nproc, rank, step, option, local, handler, style, rankfmt = row
        fault, cause = _FAULTS[item]
        control = cause is None
        env = {"K10S_GLOO_TIMEOUT_S": "3", "K10S_HANDLER": handler, **td.style_env(style, rankfmt),
               **(DETAIL if item.endswith("-mismatch") else {})}
        sc = S(name(row), launcher="t59run", fault=fault, rank=-1 if control else rank, cause=cause,
               culprits=[] if control else None, nproc=nproc, agents=agents, opts=_opts(option, local), step=step,
               steps=10, env=env)
        out.append({**sc, "victims": [] if control else _others(agents * nproc, rank), "limit_s": 120})
    return out


def commands(sc: dict, opts: list[str], port: str) -> list[list[str]]:
    """Each node's command line: plain ``torchrun`` running t59_worker.py."""
    return t41.plain_torchrun(sc, opts, port, WORKER)


def cleanup() -> None:
    """Nothing left behind (no holders, no folders)."""


def public(part: str) -> str:
    """A command part as the user would type it."""
    return "train.py" if part == WORKER else part
