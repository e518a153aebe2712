"""The fifty-eighth set of recorded runs (held out when recorded, the truths written from the draw before any
recording): the issue's fault list drawn at random as the fifty-sixth set's is, AND HOW THE PROGRAM ITSELF LOGS drawn
beside it, a generalization check of issue 18's bar on runs nobody tuned for. Every program of the fifty-sixth and
fifty-seventh sets prints ``rank N step ...``; real scripts do not. Here ``draw()`` below (``random.Random(58)``,
committed) draws, for each item of the list in the list's order, a layout (2 x 2 or 2 x 3: agents x processes), the
culprit's global rank (uniform over the world), the fault's step (1-8 of 10), torchrun's output option (none, ``--tee
3``, ``--redirects 3 --log-dir``, ``--tee 3 --local-ranks-filter <local>``), the filter's local rank (uniform over the
node's processes), the program's logging convention (tests/tools/t58_worker.py: ``print-norank``, ``logging-rank``,
``logging-norank``, ``rank0-only``, ``deepspeed``, ``lightning``) and, for ``logging-rank``, where the rank sits
(``field``: ``%(asctime)s - [rank %(rank)s] - ...``; ``RANK``: ``[RANK 3]``; ``rank=``: ``rank=3``; ``slash``:
``[3/8]``; ``paren``: ``(rank 3)``). Plain ``torchrun`` (two agents on 127.0.0.1, c10d, gloo on CPU, gloo timeouts of 3
s) running t58_worker.py: t56_worker.py's program and faults unchanged, its own lines rewritten in the drawn style;
recorded with torch 2.13.0 and 2.14.1. Earlier sets' workers already log with the rank in the format (t41, t43, t44,
t54, t55: ``[rank N]``, ``[RANK N]``, ``[rankN]``), with loguru, rich, JSON and hydra (t45): none prints without a rank,
logs from rank 0 only, or writes DeepSpeed's or Lightning's shapes, which is what this set adds. 12 scenarios: the 9
faults (the mismatch item as two, op and size, as the fifty-sixth set has them) and 3 controls (a clean run; every
rank's same configuration ``ValueError`` at the drawn step; node lost whole, the fifty-sixth and fifty-seventh sets'
third control).

The draw (``python -c "import torch_scenarios58 as t; [print(r) for r in t.draw()]"``):

    item               layout rank step option            local style          rankfmt -> scenario
    sigkill            2x2    1    4    none              0     rank0-only     slash   -> t58-trun-2x2-sigkill-rank1-step4-rank0only
    segfault           2x3    2    5    tee-filter        2     rank0-only     rank=   -> t58-trun-2x3-segfault-rank2-step5-rank0only-filter2
    raise              2x2    0    8    tee               1     print-norank   slash   -> t58-trun-2x2-raise-rank0-step8-norank-tee
    abort              2x3    5    6    none              0     lightning      RANK    -> t58-trun-2x3-abort-rank5-step6-lightning
    sigbus             2x3    0    3    redirects-logdir  1     logging-rank   paren   -> t58-trun-2x3-sigbus-rank0-step3-logging-paren-redirects
    never-joins        2x2    0    3    tee               1     logging-rank   RANK    -> t58-trun-2x2-never-joins-rank0-logging-RANK-tee
    monitored-barrier  2x2    1    1    redirects-logdir  1     lightning      field   -> t58-trun-2x2-monitored-barrier-rank1-step1-lightning-redirects
    op-mismatch        2x3    4    5    redirects-logdir  2     rank0-only     RANK    -> t58-trun-2x3-op-mismatch-rank4-step5-rank0only-redirects
    size-mismatch      2x3    2    4    tee-filter        0     deepspeed      RANK    -> t58-trun-2x3-size-mismatch-rank2-step4-deepspeed-filter0
    clean              2x3    4    2    tee               0     rank0-only     rank=   -> t58-trun-2x3-clean-rank0only-tee
    config-every-rank  2x3    5    8    tee-filter        1     lightning      slash   -> t58-trun-2x3-config-every-rank-step8-lightning-filter1
    node-killed        2x2    0    3    none              0     print-norank   rank=   -> t58-trun-2x2-node0-killed-by-rank0-step3-norank

Unused draws (every row draws every field so the stream never depends on the item): never-joins' step (it sleeps
before its init), the clean run's rank and step, the config error's rank (every rank raises), the local rank where the
option is no filter, the rank format where the style is not ``logging-rank``. No combination was replaced: every drawn
one could run. The awkward ones kept: ``rank0-only`` drawn four times (the sigkill, segfault, op-mismatch and clean
rows: only rank 0 says anything of its own) and ``logging-norank`` never drawn (so no run here has timestamped
rank-less records from every rank); the never-joins culprit is rank 0 (the process group's rank 0, whose absence the
others' init waits on); node 0 lost (its agent hosts the c10d store) by rank 0 at step 3; the size-mismatch culprit's
own output filtered out by ``--local-ranks-filter 0`` (it is node 0's local 2).

Truths (the cause names as the fifty-sixth set gives them for the same fault): ``sigkill`` -> ``host-oom-kill``;
``segfault``; ``raise`` (a ``RuntimeError``) -> ``python-exception``; ``abort``; ``sigbus``; never-joins (sleeps 18 s
before ``init_process_group``, then exits 0) and ``monitored_barrier`` 12 s late -> ``never-joined``; the op and the size
mismatch under ``TORCH_DISTRIBUTED_DEBUG=DETAIL`` (gradients all-reduced by hand, not DDP) -> ``collective-mismatch``.
``victims``: the ranks that fail or wait because of the culprit (every other rank). Controls (no rank may be named): a
clean run; every rank's same configuration ``ValueError`` at step 8; node 0 lost whole at step 3 (the worker rank 0
SIGKILLs its agent's process group and every process under its agent: ranks 2-3 are the victims, no rank is guilty).
"""

from __future__ import annotations

import random
from pathlib import Path

import torch_draw as td
import torch_scenarios41 as t41

HERE = Path(__file__).resolve().parent
WORKER = str(HERE / "t58_worker.py")
LAUNCHERS = ("t58run",)
DETAIL = {"TORCH_DISTRIBUTED_DEBUG": "DETAIL"}
ITEMS = ("sigkill", "segfault", "raise", "abort", "sigbus", "never-joins", "monitored-barrier", "op-mismatch",
         "size-mismatch", "clean", "config-every-rank", "node-killed")
LAYOUTS = ((2, 2), (2, 3))
OPTIONS = ("none", "tee", "redirects-logdir", "tee-filter")
STYLES = td.STYLES
RANKFMTS = td.RANKFMTS


def draw(seed: int = 58) -> list[tuple]:
    """Each item's (item, agents, nproc, rank, step, option, filter local rank, style, rank format), in the list's
    order (every row draws every field)."""
    rng = random.Random(seed)
    rows = []
    for item in ITEMS:
        agents, nproc = rng.choice(LAYOUTS)
        rank, step, option, local = td.placed(rng, agents, nproc, OPTIONS)
        style, rankfmt = td.program(rng, handling=False)
        rows.append((item, agents, nproc, rank, step, option, local, style, rankfmt))
    return rows


_opts = td.opts
_others = td.others


def scenarios(S) -> list[dict]:
    d = {row[0]: row for row in draw()}

    def T(name: str, item: str, victims: list[int], fault: str, cause: str | None, culprits: list[int] | None = None,
          env: dict | None = None, **kw) -> dict:
        _, agents, nproc, rank, step, option, local, style, rankfmt = d[item]
        style_env = td.style_env(style, rankfmt)
        sc = S(name, launcher="t58run", fault=fault, rank=rank if culprits is None else -1, cause=cause,
               culprits=culprits, nproc=nproc, agents=agents, opts=_opts(option, local), step=step, steps=10,
               env={"K10S_GLOO_TIMEOUT_S": "3", **style_env, **(env or {})}, **kw)
        return {**sc, "victims": victims, "limit_s": 120}

    return [
        # 2 x 2, only rank 0 prints: rank 1 (node 0, local 1) SIGKILLs itself at step 4; torchrun's defaults
        T("t58-trun-2x2-sigkill-rank1-step4-rank0only", "sigkill", _others(4, 1), "sigkill", "host-oom-kill"),
        # 2 x 3, only rank 0 prints: rank 2 (node 0, local 2) segfaults at step 5; --tee 3 --local-ranks-filter 2
        # (shown)
        T("t58-trun-2x3-segfault-rank2-step5-rank0only-filter2", "segfault", _others(6, 2), "segfault", "segfault"),
        # 2 x 2, print with no rank: rank 0 raises RuntimeError at step 8; --tee 3
        T("t58-trun-2x2-raise-rank0-step8-norank-tee", "raise", _others(4, 0), "raise", "python-exception"),
        # 2 x 3, Lightning-like [rank: N]: rank 5 (node 1, local 2) calls os.abort() at step 6; torchrun's defaults
        T("t58-trun-2x3-abort-rank5-step6-lightning", "abort", _others(6, 5), "abort", "abort"),
        # 2 x 3, logging with "... (rank N)": rank 0 sends itself SIGBUS at step 3; --redirects 3 --log-dir
        T("t58-trun-2x3-sigbus-rank0-step3-logging-paren-redirects", "sigbus", _others(6, 0), "sigbus", "sigbus"),
        # 2 x 2, logging with "[RANK N]": rank 0 sleeps 18 s before init_process_group, then exits 0; --tee 3
        T("t58-trun-2x2-never-joins-rank0-logging-RANK-tee", "never-joins", _others(4, 0), "never-joins",
          "never-joined"),
        # 2 x 2, Lightning-like: rank 1 reaches monitored_barrier 12 s late at step 1; --redirects 3 --log-dir
        T("t58-trun-2x2-monitored-barrier-rank1-step1-lightning-redirects", "monitored-barrier", _others(4, 1),
          "monitored-barrier", "never-joined"),
        # 2 x 3, only rank 0 prints: rank 4 (node 1, local 1) all_gathers where the others all_reduce at step 5, under
        # DETAIL; --redirects 3 --log-dir
        T("t58-trun-2x3-op-mismatch-rank4-step5-rank0only-redirects", "op-mismatch", _others(6, 4), "op-mismatch",
          "collective-mismatch", env=DETAIL),
        # 2 x 3, DeepSpeed-like records: rank 2 (node 0, local 2) all-reduces 5 elements where the others all-reduce 8
        # at step 4, under DETAIL; --tee 3 --local-ranks-filter 0 (its output hidden)
        T("t58-trun-2x3-size-mismatch-rank2-step4-deepspeed-filter0", "size-mismatch", _others(6, 2), "size-mismatch",
          "collective-mismatch", env=DETAIL),
        # controls: no rank may be named
        # 2 x 3, only rank 0 prints: a clean run; --tee 3
        T("t58-trun-2x3-clean-rank0only-tee", "clean", [], "none", None, culprits=[]),
        # 2 x 3, Lightning-like: every rank raises the same configuration ValueError at step 8; --tee 3
        # --local-ranks-filter 1
        T("t58-trun-2x3-config-every-rank-step8-lightning-filter1", "config-every-rank", [], "config", None,
          culprits=[]),
        # 2 x 2, print with no rank: node 0 lost whole at step 3 (rank 0 SIGKILLs its agent's process group and every
        # process under its agent); ranks 2-3 fail
        {**T("t58-trun-2x2-node0-killed-by-rank0-step3-norank", "node-killed", [2, 3], "node-kill", None,
             culprits=[]), "rank": 0},
    ]


def commands(sc: dict, opts: list[str], port: str) -> list[list[str]]:
    """Each node's command line: plain ``torchrun`` running t58_worker.py."""
    return t41.plain_torchrun(sc, opts, port, WORKER)


def cleanup() -> None:
    """Nothing left behind (no holders, no folders)."""


def public(part: str) -> str:
    """A command part as the user would type it."""
    return "train.py" if part == WORKER else part
