"""The sixty-seventh set of recorded runs (held out when recorded, the truths written from the draw before any
recording): the SIXTY-FIRST SET'S JOINT DRAW with a new seed, ``random.Random(67)`` (tests/tools/torch_scenarios61.py's
``draw``, ``name`` and ``scenarios``, its items, rules of replacement and truths, all called, not copied, as
tests/tools/torch_scenarios62.py calls them), the same 16 items (13 faults, 3 controls), t61_worker.py's program, gloo
on CPU, gloo timeouts of 3 s; recorded with torch 2.13.0 and 2.14.1.

The draw (``python -c "import torch_scenarios67 as t; [print(r) for r in t.draw()]"``; the draws that could not run
listed after it):

    item               launcher    layout rank step option           local handler   style          rankfmt crash    exception     phase      ckpt   w lsig
    sigkill            trun        2x2    3    8    redirects-logdir 1     uncaught  rank0-only     slash   sigbus   assert        train      rank0  0 sigbus
    segfault           trun        2x2    3    3    none             0     record    logging-norank RANK    abort    memoryerror   shutdown   rank0  2 sigkill
    raise              trun        2x3    4    1    redirects-logdir 2     error     lightning      slash   sigkill  assert        train      shards 0 sigbus
    abort              static      2x2    0    3    tee-filter       0     error     deepspeed      RANK    abort    raise-runtime checkpoint rank0  2 sigbus
    sigbus             trun        3x2    1    1    redirects-logdir 1     uncaught  print-norank   slash   sigkill  assert        checkpoint shards 0 sigkill
    never-joins        trun        3x2    3    8    tee              1     exception rank0-only     rank=   raise    keyerror      shutdown   shards 2 sigkill
    monitored-barrier  trun        2x3    0    4    redirects-logdir 0     error     deepspeed      rank=   raise    memoryerror   train      rank0  2 sigkill
    op-mismatch        standalone  1x6    4    5    none             5     error     logging-rank   RANK    abort    raise-runtime checkpoint shards 0 sigkill
    size-mismatch      static      3x2    4    2    tee-filter       1     uncaught  lightning      field   raise    keyerror      train      rank0  0 sigbus
    every-attempt      trun        2x2    0    8    tee-logdir       1     uncaught  logging-norank field   sigbus   raise-runtime checkpoint shards 2 sigbus
    recovered          trun        3x2    2    6    tee-logdir       0     uncaught  logging-rank   paren   raise    keyerror      checkpoint shards 0 sigkill
    loader-worker      static      3x2    0    1    tee              0     print-exc rank0-only     RANK    sigbus   keyerror      train      shards 2 sigkill
    exception          static      3x2    2    5    tee              1     print-exc deepspeed      rank=   abort    keyerror      init       shards 0 sigkill
    node-killed        trun        3x2    0    8    none             1     exception lightning      paren   raise    keyerror      train      rank0  2 sigbus
    clean              standalone  1x4    0    5    tee-logdir       0     exception logging-norank paren   abort    raise-runtime checkpoint shards 0 sigbus
    config-every-rank  trun        3x2    1    7    redirects-logdir 0     exception lightning      field   raise    raise-value   init       rank0  0 sigbus

Replaced draws (launcher/option/phase/workers), by item (4): recovered: spawn/redirects-logdir/shutdown/0,
static/none/checkpoint/2; node-killed: spawn/tee-filter/shutdown/2, standalone/tee-filter/init/2.

Scenarios, in the same order, with their truths (t61's: the cause names as earlier sets give them; ``victims``: every
other rank; controls: no rank may be named):

    t67-trun-2x2-sigkill-rank3-step8-train-w0-uncaught-rank0only-redirects                   rank 3, host-oom-kill
    t67-trun-2x2-segfault-rank3-shutdown-w2-record-logging-norank                            rank 3, segfault
    t67-trun-2x3-raise-rank4-step1-train-w0-error-lightning-redirects                        rank 4, python-exception
    t67-static-2x2-abort-rank0-step3-ckpt-rank0-w2-error-deepspeed-filter0                   rank 0, abort
    t67-trun-3x2-sigbus-rank1-step1-ckpt-shards-w0-uncaught-norank-redirects                 rank 1, sigbus
    t67-trun-3x2-never-joins-rank3-w2-exception-rank0only-tee                                rank 3, never-joined
    t67-trun-2x3-monitored-barrier-rank0-step4-train-w2-error-deepspeed-redirects            rank 0, never-joined
    t67-standalone-1x6-op-mismatch-rank4-step5-ckpt-shards-w0-error-logging-RANK             rank 4, collective-mismatch
    t67-static-3x2-size-mismatch-rank4-step2-train-w0-uncaught-lightning-filter1             rank 4, collective-mismatch
    t67-trun-2x2-restarts1-sigbus-rank0-step8-ckpt-shards-w2-uncaught-logging-norank-logdir  rank 0, sigbus
    t67-trun-3x2-restarts1-recovered-raise-rank2-step6-ckpt-shards-w0-uncaught-logging-paren-logdir rank 2, python-exception
    t67-static-3x2-loader-sigkill-rank0-step1-train-w2-print-exc-rank0only-tee               rank 0, host-oom-kill
    t67-static-3x2-keyerror-rank2-init-w0-print-exc-deepspeed-tee                            rank 2, python-exception
    t67-trun-3x2-node0-killed-by-rank0-step8-train-w2-exception-lightning                    control (node 0 lost whole)
    t67-standalone-1x4-clean-w0-exception-logging-norank-logdir                              control (clean)
    t67-trun-3x2-config-every-rank-init-w0-exception-lightning-redirects                     control (every rank's ValueError)

The awkward ones kept: node 0 lost whole (by rank 0 at step 8 of training, 3 x 2, the c10d rendezvous host's agent
gone with it), where earlier draws lost node 1; static rendezvous for four (the abort of rank 0 at step 3's rank-0
checkpoint save under a filter of local rank 0, the culprit shown; the DETAIL size mismatch of rank 4 at step 2 under a
filter of local rank 1, 3 x 2, the culprit's local rank 0 hidden; the DataLoader worker's SIGKILL of rank 0 at step 1
under ``print_exc`` and rank-0-only prints; the caught ``KeyError`` of rank 2 at ``init`` under ``--tee 3``);
``--redirects 3 --log-dir`` for five (the SIGKILL of rank 3 at step 8, the ``logger.error`` exception of rank 4 at step
1, rank 1's SIGBUS at step 1's shard save, the ``monitored_barrier`` with rank 0, the barrier's own checker, late at
step 4, and the every-rank configuration ``ValueError`` at ``init``); the segfault of rank 3 at SHUTDOWN under
``@record``; ``--standalone`` 1 x 6 for the op mismatch of rank 4 at step 5's shard save; every fault at step 1 or
step 8 in five rows; ``mp.spawn`` and legacy never drawn (spawn's two draws replaced).

Recorded (session 68, after the truths were committed): every fault fired in both versions at the first recording
(checked in the node logs and ``--log-dir`` files: the culprit's signal in the tables, its message, or its victims'
``monitoredBarrier``, ``Detected mismatch`` or store-timeout errors naming it; node 0's agent gone with exit -9 after
step 7); no re-recording, t61_worker.py unchanged.
"""

from __future__ import annotations

import torch_scenarios61 as t61

#: t61's joint draw with ``random.Random(67)`` (``draw(replaced)``), its scenarios and command lines under the ``t67``
#: prefix
LAUNCHERS, cleanup, public, draw, scenarios, commands = t61.reseeded(67)
