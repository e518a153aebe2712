"""The sixty-second set of recorded runs (held out when recorded, the truths written from the draw before any
recording): the SIXTY-FIRST SET'S JOINT DRAW with a new seed, ``random.Random(62)`` (tests/tools/torch_scenarios61.py's
``draw``, ``name`` and ``scenarios``, its items, rules of replacement and truths, all called, not copied), the same 16
items (13 faults, 3 controls), t61_worker.py's program, gloo on CPU, gloo timeouts of 3 s; recorded with torch 2.13.0
and 2.14.1.

The draw (``python -c "import torch_scenarios61 as t; [print(r) for r in t.draw(62)]"``; the draws that could not run
listed after it):

    item               launcher    layout rank step option           local handler   style          rankfmt crash    exception     phase      ckpt   w lsig
    sigkill            trun        2x2    1    8    tee-logdir       1     error     deepspeed      RANK    segfault raise-runtime eval       rank0  0 sigkill
    segfault           standalone  1x6    2    8    none             2     print-exc deepspeed      slash   segfault memoryerror   shutdown   shards 0 sigkill
    raise              trun        3x2    4    4    none             0     error     logging-rank   field   raise    missing-shard checkpoint shards 0 sigbus
    abort              trun        2x3    1    7    tee-filter       2     record    logging-norank slash   abort    raise-runtime eval       rank0  0 sigkill
    sigbus             trun        2x3    0    8    tee-logdir       1     record    lightning      RANK    sigbus   memoryerror   train      rank0  0 sigbus
    never-joins        static      2x3    3    6    tee              0     exception logging-rank   rank=   sigkill  assert        shutdown   rank0  2 sigkill
    monitored-barrier  trun        3x2    5    5    none             1     uncaught  logging-norank slash   raise    assert        shutdown   shards 0 sigbus
    op-mismatch        standalone  1x6    1    6    redirects-logdir 3     uncaught  print-norank   RANK    raise    raise-runtime checkpoint rank0  2 sigbus
    size-mismatch      trun        2x3    5    7    tee-logdir       0     uncaught  rank0-only     paren   sigbus   keyerror      eval       rank0  2 sigkill
    every-attempt      standalone  1x4    2    3    tee-filter       0     record    logging-norank RANK    segfault raise-runtime checkpoint shards 2 sigkill
    recovered          trun        2x3    1    6    tee-logdir       2     uncaught  deepspeed      rank=   segfault raise-value   train      shards 2 sigbus
    loader-worker      trun        2x3    2    4    redirects-logdir 0     exception rank0-only     field   abort    raise-runtime eval       shards 2 sigbus
    exception          trun        3x2    0    1    tee-logdir       1     error     rank0-only     field   abort    assert        eval       shards 0 sigkill
    node-killed        static      3x2    5    5    redirects-logdir 1     error     print-norank   paren   sigkill  keyerror      train      shards 0 sigbus
    clean              trun        2x2    3    2    tee              0     error     rank0-only     slash   segfault raise-value   init       shards 2 sigkill
    config-every-rank  trun        2x2    0    8    tee-filter       1     print-exc logging-norank rank=   segfault raise-value   init       rank0  0 sigkill

Replaced draws (launcher/option/phase/workers), by item: segfault: spawn/tee-logdir/shutdown/0; sigbus:
spawn/tee-logdir/checkpoint/2; recovered: static/tee-filter/init/0, static/redirects-logdir/eval/2; loader-worker:
trun/tee-filter/shutdown/0, trun/tee-filter/init/2, static/none/eval/0, legacy/tee/checkpoint/2, standalone/none/eval/0,
trun/tee-logdir/checkpoint/0, trun/tee-logdir/init/2, standalone/redirects-logdir/init/2, trun/tee-logdir/checkpoint/2,
static/tee-filter/checkpoint/2, spawn/tee-logdir/shutdown/2, trun/redirects-logdir/shutdown/2, trun/tee-filter/train/0,
trun/tee/eval/0, standalone/tee/init/2.

Scenarios, in the same order, with their truths (t61's: the cause names as earlier sets give them; ``victims``: every
other rank; controls: no rank may be named):

    t62-trun-2x2-sigkill-rank1-step8-eval-w0-error-deepspeed-logdir                       rank 1, host-oom-kill
    t62-standalone-1x6-segfault-rank2-shutdown-w0-print-exc-deepspeed                      rank 2, segfault
    t62-trun-3x2-raise-rank4-step4-ckpt-shards-w0-error-logging-field                      rank 4, python-exception
    t62-trun-2x3-abort-rank1-step7-eval-w0-record-logging-norank-filter2                   rank 1, abort
    t62-trun-2x3-sigbus-rank0-step8-train-w0-record-lightning-logdir                       rank 0, sigbus
    t62-static-2x3-never-joins-rank3-w2-exception-logging-rank-tee                         rank 3, never-joined
    t62-trun-3x2-monitored-barrier-rank5-shutdown-w0-uncaught-logging-norank               rank 5, never-joined
    t62-standalone-1x6-op-mismatch-rank1-step6-ckpt-rank0-w2-uncaught-norank-redirects     rank 1, collective-mismatch
    t62-trun-2x3-size-mismatch-rank5-step7-eval-w2-uncaught-rank0only-logdir               rank 5, collective-mismatch
    t62-standalone-1x4-restarts1-segfault-rank2-step3-ckpt-shards-w2-record-logging-norank-filter0  rank 2, segfault
    t62-trun-2x3-restarts1-recovered-segfault-rank1-step6-train-w2-uncaught-deepspeed-logdir rank 1, segfault
    t62-trun-2x3-loader-sigbus-rank2-step4-eval-w2-exception-rank0only-redirects           rank 2, sigbus
    t62-trun-3x2-assert-rank0-step1-eval-w0-error-rank0only-logdir                         rank 0, python-exception
    t62-static-3x2-node2-killed-by-rank5-step5-train-w0-error-norank-redirects             control (node 2 lost whole)
    t62-trun-2x2-clean-w2-error-rank0only-tee                                              control (clean)
    t62-trun-2x2-config-every-rank-init-w0-print-exc-logging-norank-filter1                control (every rank's ValueError)

The awkward ones kept: ``mp.spawn`` and ``legacy`` again never drawn (spawn's three draws all came with a torchrun
output option, legacy's one with the loader worker in a checkpoint); ``--standalone`` for three (a one-node 1 x 6
segfault at shutdown, the op mismatch under ``--redirects`` at the rank-0 checkpoint save, the every-attempt 1 x 4);
a monitored barrier late at SHUTDOWN (rank 5 late to the closing barrier); the sigbus and the exception (an
``AssertionError``) on rank 0; node 2 lost whole under static rendezvous, ``--redirects`` and the ``error`` handler;
the DataLoader worker's SIGBUS in the validation loop under ``--redirects``; six ``--log-dir`` runs without
``--redirects`` (``tee-logdir``), four without any output option.
"""

from __future__ import annotations

import torch_scenarios61 as t61

LAUNCHERS = tuple(f"t62{launcher.removeprefix('t61')}" for launcher in t61.LAUNCHERS)
cleanup = t61.cleanup
public = t61.public


def draw(replaced: list | None = None) -> list[tuple]:
    """t61's joint draw with ``random.Random(62)``."""
    return t61.draw(62, replaced)


def scenarios(S) -> list[dict]:
    return t61.scenarios(S, seed=62, tag="t62")


def commands(sc: dict, opts: list[str], port: str) -> list[list[str]]:
    """Each node's command line for the scenario's launcher, running t61_worker.py."""
    return t61.commands({**sc, "launcher": sc["launcher"].replace("t62", "t61", 1)}, opts, port)
