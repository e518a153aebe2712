"""The sixty-first set of recorded runs (held out when recorded, the truths written from the draw before any recording):
EVERY DIMENSION DRAWN AT ONCE, as the sixtieth set (tests/tools/torch_scenarios60.py: the fault list, the launcher, the
layout, the culprit's rank, the step, torchrun's output option, the program's logging convention and top-level handling,
``torch_draw.joint``'s row in its order), plus TWO NEW dimensions drawn after it in each row: the PHASE the fault strikes
in (``init``: just after ``init_process_group``, before the first step; ``train``: at the step; ``eval``: in the
validation loop after the step, a validation DataLoader then ``dist.all_gather_object`` / ``all_reduce`` of the metrics;
``checkpoint``: in the checkpoint save after the step, ``rank0`` (rank 0 writes while the others wait in a barrier) or
``shards`` (every rank writes its shard), the checkpoint mode drawn too; ``shutdown``: after the last step, before the
closing barrier and ``destroy_process_group``) and the DATA LOADER's ``num_workers`` (0 or 2, a
``torch.utils.data.DataLoader`` over a small in-memory dataset); and one NEW fault: a DataLoader worker of the culprit
rank killed (the worker's signal drawn: SIGKILL, torch's ``DataLoader worker (pid N) is killed by signal: Killed.``, or
SIGBUS, ``... Bus error.``). ``draw()`` below (``random.Random(61)``, committed). tests/tools/t61_worker.py (t59's
program, faults, conventions and handlers, t60_worker.py's ``mp.spawn`` spawner), gloo on CPU, gloo timeouts of 3 s;
recorded with torch 2.13.0 and 2.14.1.

16 scenarios: 13 faults (the issue's 11 as t60 gives them, the recovered run among them; ``loader-worker``, the new
fault; ``exception``, a caught exception of t59's list, drawn) and 3 controls (node lost whole, a clean run, every rank's
same configuration ``ValueError``).

Combinations that cannot run, each replaced by the RNG's next draw (rules fixed before drawing): t60's (an output option
under ``legacy`` / ``spawn``; ``--max-restarts 1`` under a launcher other than c10d torchrun / ``--standalone``; node lost
whole under ``--standalone``); and the loader-worker fault with ``num_workers`` 0 (no worker to kill) or in a phase
that iterates no loader (``init``, ``checkpoint``, ``shutdown``).

The draw (``python -c "import torch_scenarios61 as t; [print(r) for r in t.draw()]"``; the draws that could not run
listed after it):

    item               launcher    layout rank step option           local handler   style          rankfmt crash    exception     phase      ckpt   w lsig
    sigkill            static      3x2    0    2    tee              1     exception rank0-only     RANK    segfault memoryerror   checkpoint shards 2 sigbus
    segfault           static      3x2    2    1    redirects-logdir 1     record    rank0-only     RANK    segfault raise-runtime checkpoint shards 0 sigbus
    raise              trun        3x2    0    7    tee              0     print-exc deepspeed      slash   abort    assert        checkpoint rank0  2 sigkill
    abort              trun        2x2    1    7    redirects-logdir 0     print-exc logging-rank   paren   raise    raise-runtime shutdown   rank0  0 sigbus
    sigbus             trun        2x2    1    8    none             1     print-exc rank0-only     RANK    abort    missing-shard shutdown   shards 0 sigkill
    never-joins        trun        3x2    5    6    redirects-logdir 0     uncaught  logging-rank   paren   sigbus   raise-runtime init       shards 2 sigbus
    monitored-barrier  static      3x2    4    5    redirects-logdir 1     error     deepspeed      rank=   sigbus   keyerror      train      shards 2 sigkill
    op-mismatch        trun        2x3    4    7    none             0     uncaught  logging-rank   slash   raise    memoryerror   checkpoint rank0  2 sigkill
    size-mismatch      trun        3x2    4    1    tee              0     uncaught  deepspeed      paren   sigkill  keyerror      eval       rank0  2 sigbus
    every-attempt      trun        2x2    2    6    tee              1     print-exc rank0-only     field   sigbus   assert        train      shards 2 sigbus
    recovered          trun        2x2    3    2    tee-logdir       0     exception logging-rank   RANK    segfault memoryerror   init       rank0  2 sigkill
    loader-worker      static      2x2    1    8    tee-filter       1     exception rank0-only     field   raise    raise-value   train      shards 2 sigbus
    exception          trun        2x3    0    5    redirects-logdir 0     error     deepspeed      slash   raise    missing-shard shutdown   rank0  2 sigbus
    node-killed        trun        2x2    3    6    tee              0     record    rank0-only     rank=   abort    missing-shard checkpoint rank0  0 sigkill
    clean              trun        2x2    0    4    none             1     exception logging-rank   slash   segfault missing-shard train      rank0  2 sigbus
    config-every-rank  trun        2x3    5    6    none             1     exception print-norank   slash   raise    raise-value   checkpoint rank0  0 sigbus

Replaced draws (launcher/option/phase/workers), by item: sigkill: spawn/tee-logdir/checkpoint/2; segfault:
spawn/tee/train/0, spawn/tee-logdir/init/0; raise: spawn/tee-logdir/init/0; size-mismatch: legacy/tee/shutdown/2;
recovered: spawn/tee-logdir/train/0, legacy/tee-filter/init/2; loader-worker: trun/redirects-logdir/shutdown/0,
trun/tee-filter/eval/0, trun/none/train/0, spawn/tee-filter/train/2, trun/tee-logdir/init/2, spawn/tee/shutdown/0,
static/tee/eval/0, trun/tee-logdir/shutdown/2, trun/none/shutdown/2, trun/none/train/0, legacy/tee/checkpoint/0,
trun/redirects-logdir/shutdown/0, standalone/redirects-logdir/init/0, static/redirects-logdir/checkpoint/0,
trun/tee-filter/checkpoint/0, trun/tee/init/2, legacy/tee-filter/shutdown/0, trun/redirects-logdir/shutdown/2.

Scenarios, in the same order:

    t61-static-3x2-sigkill-rank0-step2-ckpt-shards-w2-exception-rank0only-tee
    t61-static-3x2-segfault-rank2-step1-ckpt-shards-w0-record-rank0only-redirects
    t61-trun-3x2-raise-rank0-step7-ckpt-rank0-w2-print-exc-deepspeed-tee
    t61-trun-2x2-abort-rank1-shutdown-w0-print-exc-logging-paren-redirects
    t61-trun-2x2-sigbus-rank1-shutdown-w0-print-exc-rank0only
    t61-trun-3x2-never-joins-rank5-w2-uncaught-logging-paren-redirects
    t61-static-3x2-monitored-barrier-rank4-step5-train-w2-error-deepspeed-redirects
    t61-trun-2x3-op-mismatch-rank4-step7-ckpt-rank0-w2-uncaught-logging-slash
    t61-trun-3x2-size-mismatch-rank4-step1-eval-w2-uncaught-deepspeed-tee
    t61-trun-2x2-restarts1-sigbus-rank2-step6-train-w2-print-exc-rank0only-tee
    t61-trun-2x2-restarts1-recovered-segfault-rank3-init-w2-exception-logging-RANK-logdir
    t61-static-2x2-loader-sigbus-rank1-step8-train-w2-exception-rank0only-filter1
    t61-trun-2x3-missing-shard-rank0-shutdown-w2-error-deepspeed-redirects
    t61-trun-2x2-node1-killed-by-rank3-step6-ckpt-rank0-w0-record-rank0only-tee
    t61-trun-2x2-clean-w2-exception-logging-slash
    t61-trun-2x3-config-every-rank-step6-ckpt-rank0-w0-exception-norank

Unused draws (every row draws every field so the stream never depends on the item): t60's (never-joins' step, the
controls' ranks but node lost whole's, the clean run's step, the local rank where the option is no filter, the rank
format where the style is not ``logging-rank``, the crash where the row is not a ``--max-restarts 1`` one, the exception
where the row is not ``exception``); the phase of never-joins (it never reaches ``init_process_group``'s end) and of the
clean run; the checkpoint mode where the phase is not ``checkpoint``; the loader signal where the fault is not
``loader-worker``; the step where the phase is ``init`` or ``shutdown``.

The awkward ones kept: neither ``legacy`` nor ``mp.spawn`` drawn (spawn's five draws all came with a torchrun output
option, legacy's three with an option or a ``--max-restarts`` row); static rendezvous for the sigkill, segfault, the
monitored barrier and the loader worker; ``rank0-only`` for six rows (the sigkill culprit IS rank 0, the others' words
are the tables' and the handlers' only); six rows at the checkpoint save, three at shutdown (the fault after the last
step, the others failing in the closing barrier), one (the recovered run) at ``init``, only the size mismatch in the
validation loop; the segfault under ``--redirects`` and ``@record``; the monitored barrier and the missing shard under
the ``error`` handler (the message only) and ``--redirects``; the loader worker's SIGBUS at step 8, the batch the loader
prefetches for it fetched while the step-8 validation builds its own loader (where the main process learns of it); node
1 lost (not the store's host) by rank 3 at step 6's checkpoint save.

Truths (the cause names as earlier sets give them for the same fault): t60's (``sigkill`` -> ``host-oom-kill``;
``segfault``; ``raise`` -> ``python-exception``; ``abort``; ``sigbus``; never-joins and ``monitored_barrier`` late ->
``never-joined``; the op and the size mismatch under DETAIL -> ``collective-mismatch``; every attempt / recovered -> the
drawn crash's; the caught exception -> ``python-exception`` (``memoryerror``: ``host-oom``)); the DataLoader worker
killed -> its signal's, as the forty-seventh set's ``loader-kill`` (SIGKILL: ``host-oom-kill``; SIGBUS: ``sigbus``), the
culprit the worker's rank. ``victims``: every other rank. Controls (no rank may be named): node lost whole (the drawn
rank SIGKILLs its agent's process group and every process under its agent: the other nodes' ranks are the victims); a
clean run; every rank's same configuration ``ValueError``.
"""

from __future__ import annotations

import random
import tempfile
from functools import partial
from pathlib import Path

import torch_draw as td

HERE = Path(__file__).resolve().parent
WORKER = str(HERE / "t61_worker.py")
LAUNCHERS = ("t61trun", "t61standalone", "t61static", "t61legacy", "t61spawn")
ITEMS = ("sigkill", "segfault", "raise", "abort", "sigbus", "never-joins", "monitored-barrier", "op-mismatch",
         "size-mismatch", "every-attempt", "recovered", "loader-worker", "exception", "node-killed", "clean",
         "config-every-rank")
PHASES = ("init", "train", "eval", "checkpoint", "shutdown")
CKPTS = ("rank0", "shards")
WORKERS = (0, 2)
LOADER_SIGNALS = ("sigkill", "sigbus")
CONTROLS = ("node-killed", "clean", "config-every-rank")
_FAULTS = {"never-joins": "never-joined", "monitored-barrier": "never-joined", "op-mismatch": "collective-mismatch",
           "size-mismatch": "collective-mismatch"}
_OPT_TAG = {"none": [], "tee": ["tee"], "tee-logdir": ["logdir"], "redirects-logdir": ["redirects"]}


def _runs(item: str, launcher: str, option: str, phase: str, workers: int) -> bool:
    """Whether the combination can run (else the RNG's next draw replaces it)."""
    if item == "loader-worker" and (workers == 0 or phase not in ("train", "eval")):
        return False
    return td.runs(item, launcher, option)


def draw(seed: int = 61, replaced: list | None = None) -> list[tuple]:
    """Each item's (item, t60's joint row (launcher, nodes, nproc, rank, step, option, filter local rank, handler,
    style, rank format, crash, exception), phase, checkpoint mode, num_workers, loader signal), in the list's order."""
    rng = random.Random(seed)
    rows = []
    for item in ITEMS:
        while True:
            row = (*td.joint(rng), rng.choice(PHASES), rng.choice(CKPTS), rng.choice(WORKERS),
                   rng.choice(LOADER_SIGNALS))
            if _runs(item, row[0], row[5], row[12], row[14]):
                break
            if replaced is not None:
                replaced.append((item, row[0], row[5], row[12], row[14]))
        rows.append((item, *row))
    return rows


def _fault(row: tuple) -> tuple[str, str | None]:
    """The row's worker fault and truth cause (None: a control)."""
    item, crash, exception, lsig = row[0], row[11], row[12], row[16]
    if item in ("every-attempt", "recovered"):
        return crash, td.CAUSE[crash]
    if item == "exception":
        return exception, td.CAUSE[exception]
    if item == "loader-worker":
        return f"loader-{lsig}", td.CAUSE[lsig]
    return {"node-killed": ("node-kill", None), "clean": ("none", None), "config-every-rank": ("config", None)}.get(
        item, (item, _FAULTS.get(item, td.CAUSE.get(item))))


def _phase_tag(row: tuple) -> list[str]:
    item, phase, ckpt, workers = row[0], row[13], row[14], row[15]
    tag = [] if item in ("never-joins", "clean") else [f"ckpt-{ckpt}" if phase == "checkpoint" else phase]
    return [*tag, f"w{workers}"]


def name(row: tuple, tag: str = "t61") -> str:
    """The scenario's name from its drawn row (``tag``: the set's prefix)."""
    item, launcher, nodes, nproc, rank, step, option, local, handler, style, rankfmt, crash, _e, phase = row[:14]
    fault, _cause = _fault(row)
    what = {"every-attempt": f"restarts1-{crash}", "recovered": f"restarts1-recovered-{crash}", "exception": fault,
            "loader-worker": fault, "node-killed": f"node{rank // nproc}-killed-by-rank{rank}"}
    parts = [f"{tag}-{launcher}-{nodes}x{nproc}-{what.get(item, item)}"]
    if item not in CONTROLS:
        parts.append(f"rank{rank}")
    if item not in ("clean", "never-joins") and phase not in ("init", "shutdown"):
        parts.append(f"step{step}")
    parts += [*_phase_tag(row), handler, td.style_tag(style, rankfmt)]
    parts += _OPT_TAG.get(option, [f"filter{local}"])
    return "-".join(parts)


def scenarios(S, seed: int = 61, tag: str = "t61") -> list[dict]:
    """The set's scenarios from ``draw(seed)`` (``tag``: the prefix of their names and launchers)."""
    out = []
    for row in draw(seed):
        item, launcher, nodes, nproc, rank, step, option, local, handler, style, rankfmt = row[:11]
        phase, ckpt, workers = row[13:16]
        fault, cause = _fault(row)
        control = item in CONTROLS
        env = {**td.joint_env(item, handler, style, rankfmt), "K10S_PHASE": phase, "K10S_CKPT": ckpt,
               "K10S_LOADER_WORKERS": str(workers)}
        opts = (["--max-restarts", "1"] if item in td.RESTARTS else []) + td.opts(option, local)
        sc = S(name(row, tag), launcher=f"{tag}{launcher}", fault=fault, rank=-1 if control else rank,
               cause=None if control else cause, culprits=[] if control else None, nproc=nproc, agents=nodes,
               opts=opts, step=step, steps=10, env=env)
        sc = {**sc, "victims": td.joint_victims(item, nodes * nproc, nproc, rank, control), "limit_s": 120}
        if item == "node-killed":
            sc["rank"] = rank
        out.append(sc)
    return out


def commands(sc: dict, opts: list[str], port: str) -> list[list[str]]:
    """Each node's command line for the scenario's launcher, running t61_worker.py."""
    return td.launcher_commands(sc["launcher"].removeprefix("t61"), sc, opts, port, WORKER)


def cleanup() -> None:
    """The checkpoint files a rank that failed mid-save left behind (t61_worker.py's ``k10s-t61-*.pt``)."""
    for path in Path(tempfile.gettempdir()).glob("k10s-t61-*.pt"):
        path.unlink(missing_ok=True)


def public(part: str) -> str:
    """A command part as the user would type it."""
    return "train.py" if part == WORKER else part


def reseeded(seed: int) -> tuple:
    """A later set of this draw with another seed (the sixty-fourth on): its ``LAUNCHERS`` under the ``t<seed>`` prefix,
    ``cleanup`` and ``public`` (this set's), ``draw`` and ``scenarios`` (this set's with the seed and the prefix) and
    ``commands`` (this set's for the launcher without the prefix), in that order."""
    tag = f"t{seed}"

    def seeded_commands(sc: dict, opts: list[str], port: str) -> list[list[str]]:
        """Each node's command line: t61's for the launcher without the set's prefix, running t61_worker.py."""
        return commands({**sc, "launcher": "t61" + sc["launcher"].removeprefix(tag)}, opts, port)

    return (tuple(f"{tag}{launcher.removeprefix('t61')}" for launcher in LAUNCHERS), cleanup, public,
            partial(draw, seed), partial(scenarios, seed=seed, tag=tag), seeded_commands)
