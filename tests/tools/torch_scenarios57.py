"""The fifty-seventh set of recorded runs (held out when recorded, the truths written from the draw before any
recording): the issue's fault list RE-DRAWN AT RANDOM ACROSS LAUNCHERS, a generalization check of issue 18's bar on
runs nobody tuned for. The fifty-sixth set drew layouts, ranks, steps and output options under plain multi-node
``torchrun``; here ``draw()`` below (``random.Random(57)``, committed) draws, for each item of the issue's list in the
list's order, the LAUNCHER among those the issue lists beside torchrun, the culprit's global rank (uniform over the
launcher's world) and the fault's step (1-8 of 10):

- ``t57legacy``: ``python -m torch.distributed.launch --use-env`` (the legacy launcher; both versions take
  ``--use-env``), two static nodes of 2 (``--nnodes 2 --node-rank k --master-addr 127.0.0.1 --master-port P``);
- ``t57spawn``: ``torch.multiprocessing.spawn``, one spawner per node, two nodes of 2 (``python train.py --spawn 2
  --nnodes 2 --node-rank k --master-port P``: each process's RANK = k x 2 + its local rank, ``env://``);
- ``t57standalone``: ``torchrun --standalone --nproc-per-node 4``, one node of 4;
- ``t57static``: ``torchrun --nnodes 2 --nproc-per-node 2 --rdzv-backend static --node-rank k --master-addr 127.0.0.1
  --master-port P``, two nodes of 2.

``accelerate`` is importable in neither torch venv (2.13.0, 2.14.1), so ``accelerate launch`` is not a launcher here
(nothing installed). Every launcher runs tests/tools/t57_worker.py (t56_worker.py's program and faults, unchanged; a
spawner of its own for ``mp.spawn``), gloo on CPU, gloo timeouts of 3 s, torchrun's and the launchers' default output
(no output option drawn: the brief draws the launcher, not the option), recorded with torch 2.13.0 and 2.14.1. The
brief asked for 12 scenarios: its 9 faults (the mismatch item as two, op and size, as the fifty-sixth set has them)
and 3 controls (a clean run; every rank's same configuration ``ValueError``; node lost whole, the control of the
fifty-sixth and earlier sets).

The draw (``python -c "import torch_scenarios57 as t; [print(r) for r in t.draw()]"``):

    item               launcher       layout rank step -> scenario
    sigkill            t57legacy      2x2    2    1    -> t57-legacy-2x2-sigkill-rank2-step1
    segfault           t57spawn       2x2    2    8    -> t57-spawn-2x2-segfault-rank2-step8
    raise              t57standalone  1x4    3    7    -> t57-standalone-1x4-raise-rank3-step7
    abort              t57legacy      2x2    1    6    -> t57-legacy-2x2-abort-rank1-step6
    sigbus             t57static      2x2    3    2    -> t57-static-2x2-sigbus-rank3-step2
    never-joins        t57static      2x2    2    3    -> t57-static-2x2-never-joins-rank2
    monitored-barrier  t57spawn       2x2    1    7    -> t57-spawn-2x2-monitored-barrier-rank1-step7
    op-mismatch        t57spawn       2x2    3    3    -> t57-spawn-2x2-op-mismatch-rank3-step3
    size-mismatch      t57static      2x2    2    4    -> t57-static-2x2-size-mismatch-rank2-step4
    clean              t57spawn       2x2    2    7    -> t57-spawn-2x2-clean
    config-every-rank  t57spawn       2x2    3    8    -> t57-spawn-2x2-config-every-rank-step8
    node-killed        t57legacy      2x2    3    8    -> t57-legacy-2x2-node1-killed-by-rank3-step8

Unused draws (every row draws every field so the stream never depends on the item): never-joins' step (it sleeps
before its init), the clean run's rank and step, the config error's rank (every rank raises). No combination was
replaced (the one rule: node lost whole needs two nodes, so a ``t57standalone`` draw for it would have been replaced by
the RNG's next draw; it drew ``t57legacy``). The awkward ones kept: ``torchrun --standalone`` drawn once only (the
raise row); five of twelve rows under ``mp.spawn``, whose report names the failing process by its LOCAL index
(``-- Process N terminated``) and whose spawner stops its node's other processes.

Truths (the cause names as the fifty-sixth set gives them for the same fault): ``sigkill`` -> ``host-oom-kill``;
``segfault``; ``raise`` (a ``RuntimeError``) -> ``python-exception``; ``abort``; ``sigbus``; never-joins (sleeps 18 s
before ``init_process_group``, then exits 0) and ``monitored_barrier`` 12 s late -> ``never-joined``; the op and the size
mismatch under ``TORCH_DISTRIBUTED_DEBUG=DETAIL`` (gradients all-reduced by hand, not DDP) -> ``collective-mismatch``.
``victims``: the ranks that fail or wait because of the culprit (every other rank). Controls (no rank may be named): a
clean run; every rank's same configuration ``ValueError`` at step 8; node 1 lost whole at step 8 (the worker rank 3
SIGKILLs its launcher's process group and every process under it: ranks 0-1 are the victims, no rank is guilty).
"""

from __future__ import annotations

import random
from pathlib import Path

import torch_draw as td

HERE = Path(__file__).resolve().parent
WORKER = str(HERE / "t57_worker.py")
LAUNCHERS = ("t57legacy", "t57spawn", "t57standalone", "t57static")
DETAIL = {"TORCH_DISTRIBUTED_DEBUG": "DETAIL"}
ITEMS = ("sigkill", "segfault", "raise", "abort", "sigbus", "never-joins", "monitored-barrier", "op-mismatch",
         "size-mismatch", "clean", "config-every-rank", "node-killed")


def layout(launcher: str) -> tuple[int, int]:
    """(nodes, processes per node): one node of 4 under ``--standalone``, two of 2 otherwise."""
    return (1, 4) if launcher == "t57standalone" else (2, 2)


def draw(seed: int = 57) -> list[tuple]:
    """Each item's (item, launcher, nodes, nproc, rank, step), in the list's order; a combination that cannot run
    (node lost whole on one node) is replaced by the RNG's next draw."""
    rng = random.Random(seed)
    rows = []
    for item in ITEMS:
        while True:
            launcher = rng.choice(LAUNCHERS)
            agents, nproc = layout(launcher)
            rank, step = td.rank_step(rng, agents, nproc)
            if not (item == "node-killed" and agents == 1):
                break
        rows.append((item, launcher, agents, nproc, rank, step))
    return rows


_others = td.others


def scenarios(S) -> list[dict]:
    d = {row[0]: row for row in draw()}

    def T(name: str, item: str, victims: list[int], fault: str, cause: str | None, culprits: list[int] | None = None,
          env: dict | None = None, **kw) -> dict:
        _, launcher, agents, nproc, rank, step = d[item]
        sc = S(name, launcher=launcher, fault=fault, rank=rank if culprits is None else -1, cause=cause,
               culprits=culprits, nproc=nproc, agents=agents, step=step, steps=10,
               env={"K10S_GLOO_TIMEOUT_S": "3", **(env or {})}, **kw)
        return {**sc, "victims": victims, "limit_s": 120}

    return [
        # legacy launcher 2 x 2: rank 2 (node 1, local 0) SIGKILLs itself at step 1
        T("t57-legacy-2x2-sigkill-rank2-step1", "sigkill", _others(4, 2), "sigkill", "host-oom-kill"),
        # mp.spawn 2 x 2: rank 2 (node 1's process 0) segfaults (ctypes.string_at(0)) at step 8
        T("t57-spawn-2x2-segfault-rank2-step8", "segfault", _others(4, 2), "segfault", "segfault"),
        # torchrun --standalone 1 x 4: rank 3 raises RuntimeError at step 7
        T("t57-standalone-1x4-raise-rank3-step7", "raise", _others(4, 3), "raise", "python-exception"),
        # legacy launcher 2 x 2: rank 1 (node 0, local 1) calls os.abort() at step 6
        T("t57-legacy-2x2-abort-rank1-step6", "abort", _others(4, 1), "abort", "abort"),
        # torchrun static 2 x 2: rank 3 (node 1, local 1) sends itself SIGBUS at step 2
        T("t57-static-2x2-sigbus-rank3-step2", "sigbus", _others(4, 3), "sigbus", "sigbus"),
        # torchrun static 2 x 2: rank 2 (node 1, local 0) sleeps 18 s before init_process_group, then exits 0
        T("t57-static-2x2-never-joins-rank2", "never-joins", _others(4, 2), "never-joins", "never-joined"),
        # mp.spawn 2 x 2: rank 1 (node 0's process 1) reaches monitored_barrier 12 s late at step 7
        T("t57-spawn-2x2-monitored-barrier-rank1-step7", "monitored-barrier", _others(4, 1), "monitored-barrier",
          "never-joined"),
        # mp.spawn 2 x 2: rank 3 (node 1's process 1) all_gathers where the others all_reduce at step 3, under DETAIL
        T("t57-spawn-2x2-op-mismatch-rank3-step3", "op-mismatch", _others(4, 3), "op-mismatch", "collective-mismatch",
          env=DETAIL),
        # torchrun static 2 x 2: rank 2 all-reduces 5 elements where the others all-reduce 8 at step 4, under DETAIL
        T("t57-static-2x2-size-mismatch-rank2-step4", "size-mismatch", _others(4, 2), "size-mismatch",
          "collective-mismatch", env=DETAIL),
        # controls: no rank may be named
        # mp.spawn 2 x 2: a clean run
        T("t57-spawn-2x2-clean", "clean", [], "none", None, culprits=[]),
        # mp.spawn 2 x 2: every rank raises the same configuration ValueError at step 8
        T("t57-spawn-2x2-config-every-rank-step8", "config-every-rank", [], "config", None, culprits=[]),
        # legacy launcher 2 x 2: node 1 lost whole at step 8 (rank 3 SIGKILLs its launcher's process group and every
        # process under it); ranks 0-1 fail
        {**T("t57-legacy-2x2-node1-killed-by-rank3-step8", "node-killed", [0, 1], "node-kill", None, culprits=[]),
         "rank": 3},
    ]


def commands(sc: dict, opts: list[str], port: str) -> list[list[str]]:
    """Each node's command line for the scenario's launcher, running t57_worker.py."""
    return td.launcher_commands(sc["launcher"].removeprefix("t57"), sc, opts, port, WORKER)

def cleanup() -> None:
    """Nothing left behind (no holders, no folders)."""


def public(part: str) -> str:
    """A command part as the user would type it."""
    return "train.py" if part == WORKER else part
