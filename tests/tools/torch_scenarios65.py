"""The sixty-fifth set of recorded runs (held out when recorded, the truths written from the draw before any
recording): the SIXTY-FIRST SET'S JOINT DRAW with a new seed, ``random.Random(65)`` (tests/tools/torch_scenarios61.py's
``draw``, ``name`` and ``scenarios``, its items, rules of replacement and truths, all called, not copied, as
tests/tools/torch_scenarios64.py calls them), the same 16 items (13 faults, 3 controls), t61_worker.py's program, gloo
on CPU, gloo timeouts of 3 s; recorded with torch 2.13.0 and 2.14.1.

The draw (``python -c "import torch_scenarios65 as t; [print(r) for r in t.draw()]"``; the draws that could not run
listed after it):

    item               launcher    layout rank step option           local handler   style          rankfmt crash    exception     phase      ckpt   w lsig
    sigkill            standalone  1x4    3    1    tee-logdir       0     error     deepspeed      RANK    sigkill  raise-value   eval       shards 2 sigkill
    segfault           trun        2x3    3    8    none             2     error     print-norank   rank=   raise    assert        eval       rank0  0 sigbus
    raise              trun        2x3    4    1    tee              0     uncaught  deepspeed      slash   abort    raise-value   shutdown   shards 2 sigkill
    abort              trun        2x3    4    6    tee              1     uncaught  deepspeed      field   raise    memoryerror   init       shards 2 sigbus
    sigbus             trun        2x2    1    2    tee-logdir       1     uncaught  lightning      slash   raise    keyerror      init       shards 0 sigkill
    never-joins        static      3x2    5    1    tee              1     error     logging-rank   rank=   raise    raise-value   eval       shards 0 sigbus
    monitored-barrier  trun        3x2    5    5    none             1     print-exc logging-rank   RANK    segfault keyerror      shutdown   shards 2 sigbus
    op-mismatch        trun        2x2    2    1    tee-logdir       1     print-exc logging-rank   slash   abort    memoryerror   shutdown   rank0  2 sigkill
    size-mismatch      standalone  1x6    4    3    redirects-logdir 0     uncaught  logging-norank paren   raise    keyerror      train      rank0  2 sigbus
    every-attempt      trun        2x2    3    3    redirects-logdir 1     print-exc lightning      paren   abort    memoryerror   eval       rank0  0 sigkill
    recovered          trun        2x3    5    6    tee              2     record    rank0-only     RANK    sigkill  assert        train      shards 0 sigkill
    loader-worker      trun        3x2    1    1    tee-logdir       1     record    deepspeed      rank=   sigbus   missing-shard train      rank0  2 sigkill
    exception          static      3x2    4    1    tee-logdir       0     record    deepspeed      paren   segfault raise-runtime shutdown   shards 0 sigbus
    node-killed        trun        2x2    1    3    none             1     print-exc lightning      field   sigkill  memoryerror   shutdown   rank0  0 sigbus
    clean              trun        2x3    3    6    redirects-logdir 0     record    print-norank   RANK    segfault raise-value   train      rank0  0 sigkill
    config-every-rank  standalone  1x4    1    2    tee-logdir       0     error     logging-rank   slash   segfault memoryerror   init       shards 0 sigkill

Replaced draws (launcher/option/phase/workers), by item (22): sigkill: legacy/redirects-logdir/checkpoint/0;
never-joins: spawn/redirects-logdir/checkpoint/0; loader-worker (16): trun/tee/init/0, trun/redirects-logdir/train/0,
legacy/tee-logdir/shutdown/0, legacy/tee-logdir/init/0, trun/tee-filter/checkpoint/2, trun/tee/shutdown/2,
trun/redirects-logdir/eval/0, legacy/none/train/0, trun/redirects-logdir/eval/0, trun/none/checkpoint/0,
spawn/none/checkpoint/2, trun/none/checkpoint/2, standalone/redirects-logdir/checkpoint/0,
legacy/redirects-logdir/train/0, standalone/tee-filter/init/2, standalone/tee-logdir/shutdown/0; exception:
spawn/tee/checkpoint/0, spawn/tee-logdir/train/0; node-killed: standalone/tee/train/2; config-every-rank:
legacy/redirects-logdir/checkpoint/0.

Scenarios, in the same order, with their truths (t61's: the cause names as earlier sets give them; ``victims``: every
other rank; controls: no rank may be named):

    t65-standalone-1x4-sigkill-rank3-step1-eval-w2-error-deepspeed-logdir                    rank 3, host-oom-kill
    t65-trun-2x3-segfault-rank3-step8-eval-w0-error-norank                                   rank 3, segfault
    t65-trun-2x3-raise-rank4-shutdown-w2-uncaught-deepspeed-tee                              rank 4, python-exception
    t65-trun-2x3-abort-rank4-init-w2-uncaught-deepspeed-tee                                  rank 4, abort
    t65-trun-2x2-sigbus-rank1-init-w0-uncaught-lightning-logdir                              rank 1, sigbus
    t65-static-3x2-never-joins-rank5-w0-error-logging-rank-tee                               rank 5, never-joined
    t65-trun-3x2-monitored-barrier-rank5-shutdown-w2-print-exc-logging-RANK                  rank 5, never-joined
    t65-trun-2x2-op-mismatch-rank2-shutdown-w2-print-exc-logging-slash-logdir                rank 2, collective-mismatch
    t65-standalone-1x6-size-mismatch-rank4-step3-train-w2-uncaught-logging-norank-redirects  rank 4, collective-mismatch
    t65-trun-2x2-restarts1-abort-rank3-step3-eval-w0-print-exc-lightning-redirects           rank 3, abort
    t65-trun-2x3-restarts1-recovered-sigkill-rank5-step6-train-w0-record-rank0only-tee       rank 5, host-oom-kill
    t65-trun-3x2-loader-sigkill-rank1-step1-train-w2-record-deepspeed-logdir                 rank 1, host-oom-kill
    t65-static-3x2-raise-runtime-rank4-shutdown-w0-record-deepspeed-logdir                   rank 4, python-exception
    t65-trun-2x2-node0-killed-by-rank1-shutdown-w0-print-exc-lightning                       control (node 0 lost whole)
    t65-trun-2x3-clean-w0-record-norank-redirects                                            control (clean)
    t65-standalone-1x4-config-every-rank-init-w0-error-logging-slash-logdir                  control (every rank's ValueError)

The awkward ones kept: THREE faults at INIT (just after ``init_process_group``, before the first step): rank 4's
``os.abort()`` under uncaught handling and ``--tee 3``, rank 1's SIGBUS under ``--tee 3 --log-dir``, and the control's
every-rank ``ValueError`` under ``--standalone`` 1 x 4 and ``logger.error``; the every-attempt ``os.abort()`` in step 3's
validation loop under ``--redirects 3 --log-dir`` (t61's and t62's ``--redirects`` misses were consoles of tables only)
with ``print_exc``; the clean control under ``--redirects``; the size mismatch at step 3 under ``--standalone`` 1 x 6 and
``--redirects``; node 0 (the rendezvous's first node) lost whole at shutdown; rank 5 late to the closing
``monitored_barrier`` at shutdown, 3 x 2; rank 5 never joining under static rendezvous 3 x 2; rank 4's
``RuntimeError`` at shutdown under static rendezvous and ``@record``; the DataLoader worker's SIGKILL at step 1 under
``@record`` and ``--tee 3 --log-dir``; six ``--log-dir`` runs without ``--redirects`` (``tee-logdir``), three with;
``logger.exception``, ``--local-ranks-filter``, ``mp.spawn``, ``legacy`` and the checkpoint phase never drawn;
``num_workers`` 2 in seven rows, 0 in nine.

Recorded (session 68, after the truths were committed): every fault fired in both versions at the first recording
(checked in the node logs and ``--log-dir`` files: the culprit's signal in the tables, its traceback or message, or its
victims' closed connections, ``monitoredBarrier`` errors or DETAIL mismatch messages naming it); nothing was
re-recorded and t61_worker.py is unchanged.
"""

from __future__ import annotations

import torch_scenarios61 as t61

#: t61's joint draw with ``random.Random(65)`` (``draw(replaced)``), its scenarios and command lines under the ``t65``
#: prefix
LAUNCHERS, cleanup, public, draw, scenarios, commands = t61.reseeded(65)
