"""The sixty-sixth set of recorded runs (held out when recorded, the truths written from the draw before any
recording): the SIXTY-FIRST SET'S JOINT DRAW with a new seed, ``random.Random(66)`` (tests/tools/torch_scenarios61.py's
``draw``, ``name`` and ``scenarios``, its items, rules of replacement and truths, all called, not copied, as
tests/tools/torch_scenarios62.py calls them), the same 16 items (13 faults, 3 controls), t61_worker.py's program, gloo
on CPU, gloo timeouts of 3 s; recorded with torch 2.13.0 and 2.14.1.

The draw (``python -c "import torch_scenarios66 as t; [print(r) for r in t.draw()]"``; the draws that could not run
listed after it):

    item               launcher    layout rank step option           local handler   style          rankfmt crash    exception     phase      ckpt   w lsig
    sigkill            trun        2x3    3    4    redirects-logdir 1     print-exc deepspeed      field   abort    raise-value   checkpoint rank0  0 sigbus
    segfault           trun        2x3    5    8    tee-filter       0     uncaught  print-norank   slash   segfault assert        init       rank0  0 sigbus
    raise              trun        3x2    2    8    tee-logdir       0     print-exc print-norank   RANK    raise    memoryerror   eval       shards 0 sigbus
    abort              trun        2x3    2    1    tee-filter       0     print-exc rank0-only     paren   abort    raise-runtime checkpoint rank0  2 sigbus
    sigbus             trun        3x2    2    6    none             1     exception logging-norank field   sigkill  missing-shard init       rank0  0 sigkill
    never-joins        trun        3x2    3    2    tee-filter       0     print-exc lightning      slash   sigbus   keyerror      train      rank0  0 sigbus
    monitored-barrier  trun        2x2    3    6    tee              0     print-exc rank0-only     RANK    raise    missing-shard init       shards 0 sigbus
    op-mismatch        trun        3x2    1    3    tee-filter       0     exception print-norank   field   sigbus   missing-shard init       rank0  2 sigbus
    size-mismatch      trun        2x2    3    5    tee-logdir       0     uncaught  rank0-only     RANK    sigkill  missing-shard init       shards 2 sigkill
    every-attempt      trun        3x2    1    6    tee              1     error     logging-norank rank=   sigkill  missing-shard checkpoint shards 2 sigbus
    recovered          trun        3x2    0    5    none             1     print-exc deepspeed      RANK    raise    memoryerror   checkpoint rank0  0 sigbus
    loader-worker      standalone  1x4    1    8    none             3     record    rank0-only     rank=   abort    raise-runtime train      rank0  2 sigkill
    exception          static      2x3    5    5    redirects-logdir 2     record    logging-rank   rank=   abort    raise-value   checkpoint rank0  0 sigbus
    node-killed        trun        2x2    2    2    tee              1     print-exc deepspeed      paren   sigbus   raise-runtime checkpoint rank0  2 sigkill
    clean              static      2x3    0    5    tee              2     exception print-norank   rank=   abort    missing-shard checkpoint rank0  2 sigbus
    config-every-rank  trun        2x2    0    1    redirects-logdir 0     error     lightning      rank=   sigkill  missing-shard shutdown   shards 0 sigbus

Replaced draws (launcher/option/phase/workers), by item (12): sigbus: spawn/tee/eval/2; size-mismatch:
legacy/tee-logdir/checkpoint/0; recovered: legacy/tee/eval/2, legacy/none/init/2; loader-worker: static/tee/train/0,
static/tee-logdir/init/0, trun/redirects-logdir/shutdown/2, standalone/none/checkpoint/0, legacy/tee-filter/checkpoint/0;
exception: spawn/tee-filter/checkpoint/2, legacy/tee/eval/0; clean: spawn/tee-filter/checkpoint/2.

Scenarios, in the same order, with their truths (t61's: the cause names as earlier sets give them; ``victims``: every
other rank; controls: no rank may be named):

    t66-trun-2x3-sigkill-rank3-step4-ckpt-rank0-w0-print-exc-deepspeed-redirects            rank 3, host-oom-kill
    t66-trun-2x3-segfault-rank5-init-w0-uncaught-norank-filter0                             rank 5, segfault
    t66-trun-3x2-raise-rank2-step8-eval-w0-print-exc-norank-logdir                          rank 2, python-exception
    t66-trun-2x3-abort-rank2-step1-ckpt-rank0-w2-print-exc-rank0only-filter0                rank 2, abort
    t66-trun-3x2-sigbus-rank2-init-w0-exception-logging-norank                              rank 2, sigbus
    t66-trun-3x2-never-joins-rank3-w0-print-exc-lightning-filter0                           rank 3, never-joined
    t66-trun-2x2-monitored-barrier-rank3-init-w0-print-exc-rank0only-tee                    rank 3, never-joined
    t66-trun-3x2-op-mismatch-rank1-init-w2-exception-norank-filter0                         rank 1, collective-mismatch
    t66-trun-2x2-size-mismatch-rank3-init-w2-uncaught-rank0only-logdir                      rank 3, collective-mismatch
    t66-trun-3x2-restarts1-sigkill-rank1-step6-ckpt-shards-w2-error-logging-norank-tee      rank 1, host-oom-kill
    t66-trun-3x2-restarts1-recovered-raise-rank0-step5-ckpt-rank0-w0-print-exc-deepspeed    rank 0, python-exception
    t66-standalone-1x4-loader-sigkill-rank1-step8-train-w2-record-rank0only                 rank 1, host-oom-kill
    t66-static-2x3-raise-value-rank5-step5-ckpt-rank0-w0-record-logging-rank-redirects      rank 5, python-exception
    t66-trun-2x2-node1-killed-by-rank2-step2-ckpt-rank0-w2-print-exc-deepspeed-tee          control (node 1 lost whole)
    t66-static-2x3-clean-w2-exception-norank-tee                                            control (clean)
    t66-trun-2x2-config-every-rank-shutdown-w0-error-lightning-redirects                    control (every rank's ValueError)

The awkward ones kept: FIVE faults at ``init`` (just after ``init_process_group``, before the first step: rank 5's
segfault under a filter of local rank 0, rank 2's SIGBUS, the ``monitored_barrier`` late rank 3 (not the barrier's
checker) under rank-0-only prints, the op mismatch of rank 1 under a filter of local rank 0, the DETAIL size mismatch of
rank 3 under ``--tee 3 --log-dir``); ``--redirects 3 --log-dir`` for
three (the SIGKILL at step 4's rank-0 checkpoint save, where rank 3 is a waiter in the barrier; the caught
``ValueError`` of rank 5 under static rendezvous and ``@record``; the control whose every rank raises the same
configuration ``ValueError`` at shutdown under ``logger.error``); static rendezvous for two (the caught exception, the
clean run); ``--standalone`` once, for the DataLoader worker's SIGKILL at step 8 under ``@record`` and rank-0-only
prints (1 x 4, the culprit rank 1 not rank 0); the recovered run a ``RuntimeError`` at step 5's rank-0 save by rank 0
itself (the saver); the every-attempt SIGKILL of rank 1 at step 6's shard save under ``logger.error``; node 1 lost whole
by rank 2 at step 2's checkpoint save; the filter shows local rank 0 in all four filtered rows, never the culprit
(ranks 5, 2, 3 and 1: local ranks 2, 2, 1 and 1, all hidden); ``mp.spawn`` and legacy never drawn (spawn's three and
legacy's five draws all replaced); ``num_workers`` 0 in eight of the thirteen fault rows.

Recorded (session 68, after the truths were committed): every fault fired in both versions at the first recording
(checked in the node logs and ``--log-dir`` files: the culprit's signal in the tables, its message, or its victims'
``monitoredBarrier``, ``Detected mismatch`` or store-timeout errors naming it); no re-recording, t61_worker.py unchanged.
"""

from __future__ import annotations

import torch_scenarios61 as t61

#: t61's joint draw with ``random.Random(66)`` (``draw(replaced)``), its scenarios and command lines under the ``t66``
#: prefix
LAUNCHERS, cleanup, public, draw, scenarios, commands = t61.reseeded(66)
