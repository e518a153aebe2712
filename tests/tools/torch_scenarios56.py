"""The fifty-sixth set of recorded runs (held out when recorded, the truths written from the draw before any recording):
the issue's fault list RE-DRAWN AT RANDOM, a generalization check of issue 18's bar on runs nobody tuned for. Earlier
sets chose each fault's rank, layout and output option by hand; here ``draw()`` below (``random.Random(56)``, committed)
draws them: for each item of the issue's list, in the list's order, a layout (2 x 2, 2 x 3, 3 x 2: agents x processes),
the culprit's global rank (uniform over the world), the fault's step (1-8 of 10), torchrun's output option (none,
``--tee 3``, ``--tee 3 --log-dir``, ``--redirects 3 --log-dir``, ``--tee 3 --local-ranks-filter <local>``), the filter's
local rank (uniform over the node's processes) and a crash fault (used by the two ``--max-restarts 1`` rows only). Plain
``torchrun`` (tests/tools/t56_worker.py: a tiny DDP model on gloo on CPU, gloo timeouts of 3 s), c10d rendezvous on
127.0.0.1, recorded with torch 2.13.0 and 2.14.1. The brief asked for 12 scenarios; its list holds 11 faults and 3
controls, so all 14 items are recorded (none dropped by choice).

The draw (``python -c "import torch_scenarios56 as t; [print(r) for r in t.draw()]"``):

    item               layout rank step option            local crash    -> scenario
    sigkill            3x2    0    8    tee-filter        1     sigbus   -> t56-trun-3x2-sigkill-rank0-step8-filter1
    segfault           2x3    5    4    none              1     sigbus   -> t56-trun-2x3-segfault-rank5-step4
    raise              2x2    2    5    tee-filter        0     sigkill  -> t56-trun-2x2-raise-rank2-step5-filter0
    abort              3x2    1    1    tee-filter        0     abort    -> t56-trun-3x2-abort-rank1-step1-filter0
    sigbus             3x2    0    3    redirects-logdir  0     segfault -> t56-trun-3x2-sigbus-rank0-step3-redirects
    never-joins        2x2    1    4    redirects-logdir  0     abort    -> t56-trun-2x2-never-joins-rank1-redirects
    monitored-barrier  2x2    0    4    tee-filter        0     segfault -> t56-trun-2x2-monitored-barrier-rank0-step4-filter0
    op-mismatch        2x2    1    8    tee-logdir        0     sigkill  -> t56-trun-2x2-op-mismatch-rank1-step8-logdir
    size-mismatch      3x2    2    1    tee-filter        0     sigbus   -> t56-trun-3x2-size-mismatch-rank2-step1-filter0
    every-attempt      3x2    0    8    redirects-logdir  1     abort    -> t56-trun-3x2-restarts1-abort-rank0-step8-redirects
    node-killed        2x3    1    8    tee-filter        1     sigkill  -> t56-trun-2x3-node0-killed-by-rank1-step8-filter1
    clean              3x2    1    3    tee-logdir        1     segfault -> t56-trun-3x2-clean-logdir
    config-every-rank  2x2    1    5    tee               1     abort    -> t56-trun-2x2-config-every-rank-step2-tee
    recovered          2x2    1    1    tee-filter        1     sigbus   -> t56-trun-2x2-restarts1-recovered-sigbus-rank1-step1-filter1

Unused draws (every row draws every field so the stream never depends on the item): never-joins' step (it sleeps before
its init), the controls' ranks and the clean run's step, the config error's step (the brief fixes it at step 2), the
local rank where the option is no filter, the crash where the row is not a ``--max-restarts 1`` one. No combination was
replaced: every drawn one could run (the awkward ones kept: rank 0 late to ``monitored_barrier`` (rank 0 is the barrier's
coordinator), node 0 lost (its agent hosts the c10d store), the culprit's own output filtered out by
``--local-ranks-filter`` in the sigkill and abort rows).

Two things of the worker, not of the draw, were fixed while recording 2.13.0 (no scenario replaced, no truth changed):
under ``TORCH_DISTRIBUTED_DEBUG=DETAIL`` DDP's constructor segfaults on every rank on gloo on CPU (2.13.0 and 2.14.1
alike, before any step), so the two mismatch rows all-reduce the gradients by hand (t56_worker.py's ``BY_HAND``); under
``--max-restarts 1`` each agent counts its restarts its own way (the failing node's agent 1, the other's 0: it restarted
for the waiting node) and the agent store keeps the last round's gloo addresses, so the second attempt never formed its
process group (the abort fired once, the recovered run never recovered): the two restart rows key each rendezvous
round's gloo set-up apart (``K10S_ROUNDS=1``). Both rows were recorded again after the fix.

Truths (the cause names as the thirty-eighth and forty-second sets give them for the same fault): ``sigkill`` ->
``host-oom-kill``; ``segfault``; ``raise`` (a ``RuntimeError``) -> ``python-exception``; ``abort``; ``sigbus``;
never-joins and ``monitored_barrier`` late -> ``never-joined``; the op and the size mismatch under
``TORCH_DISTRIBUTED_DEBUG=DETAIL`` -> ``collective-mismatch``; the fault on every attempt under ``--max-restarts 1`` (the
drawn crash: ``os.abort()``) -> ``abort``. ``victims``: the ranks that fail or wait because of the culprit. Controls (no
rank may be named), as t38/t42 treat them: node 0 lost whole (the worker rank 1 SIGKILLs its agent's process group and
every process under its agent: ranks 3-5 are the victims, no rank is guilty); a clean run; every rank's same
configuration ``ValueError`` at step 2. The recovered run (``--max-restarts 1``: rank 1's SIGBUS at step 1 on the first
attempt only, the second attempt completes) is NOT a control: neither t38 nor t42 has one, and the repo's earlier
recovered run (t13-trun-first-attempt-only-rank2) names the first attempt's rank as the truth; so here: rank 1,
``sigbus``.
"""

from __future__ import annotations

import random
from pathlib import Path

import torch_draw as td
import torch_scenarios41 as t41

HERE = Path(__file__).resolve().parent
WORKER = str(HERE / "t56_worker.py")
LAUNCHERS = ("t56run",)
DETAIL = {"TORCH_DISTRIBUTED_DEBUG": "DETAIL"}
ITEMS = ("sigkill", "segfault", "raise", "abort", "sigbus", "never-joins", "monitored-barrier", "op-mismatch",
         "size-mismatch", "every-attempt", "node-killed", "clean", "config-every-rank", "recovered")
LAYOUTS = ((2, 2), (2, 3), (3, 2))
OPTIONS = td.OPTIONS
CRASH = ("sigkill", "segfault", "raise", "abort", "sigbus")


def draw(seed: int = 56) -> list[tuple]:
    """Each item's (item, agents, nproc, rank, step, option, filter local rank, crash), in the list's order."""
    rng = random.Random(seed)
    rows = []
    for item in ITEMS:
        agents, nproc = rng.choice(LAYOUTS)
        rank, step, option, local = td.placed(rng, agents, nproc, OPTIONS)
        crash = rng.choice(CRASH)
        rows.append((item, agents, nproc, rank, step, option, local, crash))
    return rows


_opts = td.opts
_others = td.others


def scenarios(S) -> list[dict]:
    d = {row[0]: row for row in draw()}

    def T(name: str, item: str, victims: list[int], fault: str, cause: str | None, culprits: list[int] | None = None,
          step: int | None = None, restarts: bool = False, env: dict | None = None, **kw) -> dict:
        _, agents, nproc, rank, drawn_step, option, local, _crash = d[item]
        opts = (["--max-restarts", "1"] if restarts else []) + _opts(option, local)
        env = {**(env or {}), **({"K10S_ROUNDS": "1"} if restarts else {})}
        sc = S(name, launcher="t56run", fault=fault, rank=rank if culprits is None else -1, cause=cause,
               culprits=culprits, nproc=nproc, agents=agents, opts=opts, step=drawn_step if step is None else step,
               steps=10, env={"K10S_GLOO_TIMEOUT_S": "3", **(env or {})}, **kw)
        return {**sc, "victims": victims, "limit_s": 120}

    rows = [
        # 3 x 2: rank 0 (node 0, local 0) SIGKILLs itself at step 8; --tee 3 --local-ranks-filter 1 (its output hidden)
        T("t56-trun-3x2-sigkill-rank0-step8-filter1", "sigkill", _others(6, 0), "sigkill", "host-oom-kill"),
        # 2 x 3: rank 5 (node 1, local 2) segfaults (ctypes.string_at(0)) at step 4; torchrun's defaults
        T("t56-trun-2x3-segfault-rank5-step4", "segfault", _others(6, 5), "segfault", "segfault"),
        # 2 x 2: rank 2 (node 1, local 0) raises RuntimeError at step 5; --tee 3 --local-ranks-filter 0 (shown)
        T("t56-trun-2x2-raise-rank2-step5-filter0", "raise", _others(4, 2), "raise", "python-exception"),
        # 3 x 2: rank 1 (node 0, local 1) calls os.abort() at step 1; --tee 3 --local-ranks-filter 0 (its output hidden)
        T("t56-trun-3x2-abort-rank1-step1-filter0", "abort", _others(6, 1), "abort", "abort"),
        # 3 x 2: rank 0 (node 0, local 0) sends itself SIGBUS at step 3; --redirects 3 --log-dir
        T("t56-trun-3x2-sigbus-rank0-step3-redirects", "sigbus", _others(6, 0), "sigbus", "sigbus"),
        # 2 x 2: rank 1 (node 0, local 1) sleeps 18 s before init_process_group, then exits 0; --redirects 3 --log-dir
        T("t56-trun-2x2-never-joins-rank1-redirects", "never-joins", _others(4, 1), "never-joins", "never-joined"),
        # 2 x 2: rank 0 (the barrier's coordinator) reaches monitored_barrier 12 s late at step 4; --tee 3
        # --local-ranks-filter 0 (shown)
        T("t56-trun-2x2-monitored-barrier-rank0-step4-filter0", "monitored-barrier", _others(4, 0), "monitored-barrier",
          "never-joined"),
        # 2 x 2: rank 1 all_gathers where the others all_reduce at step 8, under DETAIL; --tee 3 --log-dir
        T("t56-trun-2x2-op-mismatch-rank1-step8-logdir", "op-mismatch", _others(4, 1), "op-mismatch",
          "collective-mismatch", env=DETAIL),
        # 3 x 2: rank 2 (node 1, local 0) all-reduces 5 elements where the others all-reduce 8 at step 1, under DETAIL;
        # --tee 3 --local-ranks-filter 0 (shown)
        T("t56-trun-3x2-size-mismatch-rank2-step1-filter0", "size-mismatch", _others(6, 2), "size-mismatch",
          "collective-mismatch", env=DETAIL),
        # 3 x 2, --max-restarts 1: rank 0 calls os.abort() at step 8 on both attempts (the drawn crash); --redirects 3
        # --log-dir
        T("t56-trun-3x2-restarts1-abort-rank0-step8-redirects", "every-attempt", _others(6, 0), "abort", "abort",
          restarts=True),
        # the recovered run (not a control: the first attempt's rank, as t13-trun-first-attempt-only-rank2): 2 x 2,
        # --max-restarts 1, rank 1 sends itself SIGBUS at step 1 on the first attempt only, the second completes;
        # --tee 3 --local-ranks-filter 1 (shown)
        T("t56-trun-2x2-restarts1-recovered-sigbus-rank1-step1-filter1", "recovered", _others(4, 1), "sigbus", "sigbus",
          restarts=True, env={"K10S_FAULT_ATTEMPTS": "1"}),
        # controls: no rank may be named
        # 2 x 3: node 0 lost whole at step 8 (rank 1 SIGKILLs its agent's process group and every process under its
        # agent); ranks 3-5 fail; --tee 3 --local-ranks-filter 1
        {**T("t56-trun-2x3-node0-killed-by-rank1-step8-filter1", "node-killed", [3, 4, 5], "node-kill", None,
             culprits=[]), "rank": 1},
        # 3 x 2: a clean run; --tee 3 --log-dir
        T("t56-trun-3x2-clean-logdir", "clean", [], "none", None, culprits=[]),
        # 2 x 2: every rank raises the same configuration ValueError at step 2; --tee 3
        T("t56-trun-2x2-config-every-rank-step2-tee", "config-every-rank", [], "config", None, culprits=[], step=2),
    ]
    return rows


def commands(sc: dict, opts: list[str], port: str) -> list[list[str]]:
    """Each node's command line: plain ``torchrun`` running t56_worker.py."""
    return t41.plain_torchrun(sc, opts, port, WORKER)


def cleanup() -> None:
    """Nothing left behind (no holders, no folders)."""


def public(part: str) -> str:
    """A command part as the user would type it."""
    return "train.py" if part == WORKER else part
