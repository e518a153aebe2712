"""The seventieth set of recorded runs (held out when recorded, the truths written from the draw before any
recording): the SIXTY-FIRST SET'S JOINT DRAW with a new seed, ``random.Random(70)`` (tests/tools/torch_scenarios61.py's
``draw``, ``name`` and ``scenarios``, its items, rules of replacement and truths, all called, not copied, through
``torch_scenarios61.reseeded``), the same 16 items (13 faults, 3 controls), t61_worker.py's program, gloo on CPU, gloo
timeouts of 3 s; recorded with torch 2.13.0 and 2.14.1.

The draw (``python -c "import torch_scenarios70 as t; [print(r) for r in t.draw()]"``; the draws that could not run
listed after it):

    item               launcher    layout rank step option           local handler   style          rankfmt crash    exception     phase      ckpt   w lsig
    sigkill            trun        2x3    5    8    redirects-logdir 0     print-exc print-norank   RANK    sigbus   raise-value   checkpoint shards 0 sigbus
    segfault           trun        3x2    2    5    redirects-logdir 1     exception print-norank   field   abort    assert        eval       rank0  0 sigbus
    raise              trun        3x2    2    2    tee              0     uncaught  deepspeed      field   raise    missing-shard init       rank0  2 sigbus
    abort              standalone  1x6    4    3    none             2     print-exc print-norank   RANK    sigbus   raise-runtime init       shards 0 sigkill
    sigbus             trun        2x3    0    5    none             2     record    lightning      RANK    sigkill  missing-shard eval       rank0  0 sigbus
    never-joins        static      3x2    1    5    tee-logdir       0     uncaught  logging-norank paren   sigkill  raise-runtime shutdown   rank0  0 sigbus
    monitored-barrier  trun        2x3    3    4    redirects-logdir 0     exception lightning      paren   sigbus   missing-shard eval       shards 0 sigkill
    op-mismatch        trun        2x2    0    8    tee-filter       1     exception deepspeed      RANK    abort    missing-shard shutdown   shards 2 sigkill
    size-mismatch      standalone  1x6    1    6    redirects-logdir 5     error     rank0-only     rank=   segfault assert        checkpoint rank0  2 sigkill
    every-attempt      trun        2x2    0    2    tee              0     exception lightning      field   sigbus   missing-shard shutdown   shards 2 sigbus
    recovered          standalone  1x4    3    8    tee-logdir       2     exception logging-norank field   raise    raise-runtime checkpoint shards 0 sigkill
    loader-worker      trun        2x2    2    6    redirects-logdir 1     error     deepspeed      rank=   sigkill  assert        train      shards 2 sigkill
    exception          trun        2x2    0    4    none             0     exception rank0-only     slash   segfault memoryerror   init       shards 0 sigkill
    node-killed        trun        2x2    1    4    tee-filter       0     exception logging-norank RANK    sigkill  memoryerror   init       rank0  2 sigkill
    clean              trun        2x2    2    6    tee-filter       0     uncaught  rank0-only     slash   sigkill  raise-runtime init       rank0  0 sigbus
    config-every-rank  trun        2x2    3    3    none             0     print-exc lightning      RANK    segfault assert        checkpoint rank0  2 sigkill

Replaced draws (launcher/option/phase/workers), by item (6): raise: spawn/tee/shutdown/0; every-attempt:
spawn/tee-logdir/shutdown/2; loader-worker: trun/redirects-logdir/eval/0, spawn/none/shutdown/2,
static/tee-logdir/shutdown/2; exception: legacy/tee/train/0.

Scenarios, in the same order, with their truths (t61's: the cause names as earlier sets give them; ``victims``: every
other rank; controls: no rank may be named):

    t70-trun-2x3-sigkill-rank5-step8-ckpt-shards-w0-print-exc-norank-redirects                               rank 5, host-oom-kill
    t70-trun-3x2-segfault-rank2-step5-eval-w0-exception-norank-redirects                                     rank 2, segfault
    t70-trun-3x2-raise-rank2-init-w2-uncaught-deepspeed-tee                                                  rank 2, python-exception
    t70-standalone-1x6-abort-rank4-init-w0-print-exc-norank                                                  rank 4, abort
    t70-trun-2x3-sigbus-rank0-step5-eval-w0-record-lightning                                                 rank 0, sigbus
    t70-static-3x2-never-joins-rank1-w0-uncaught-logging-norank-logdir                                       rank 1, never-joined
    t70-trun-2x3-monitored-barrier-rank3-step4-eval-w0-exception-lightning-redirects                         rank 3, never-joined
    t70-trun-2x2-op-mismatch-rank0-shutdown-w2-exception-deepspeed-filter1                                   rank 0, collective-mismatch
    t70-standalone-1x6-size-mismatch-rank1-step6-ckpt-rank0-w2-error-rank0only-redirects                     rank 1, collective-mismatch
    t70-trun-2x2-restarts1-sigbus-rank0-shutdown-w2-exception-lightning-tee                                  rank 0, sigbus
    t70-standalone-1x4-restarts1-recovered-raise-rank3-step8-ckpt-shards-w0-exception-logging-norank-logdir  rank 3, python-exception
    t70-trun-2x2-loader-sigkill-rank2-step6-train-w2-error-deepspeed-redirects                               rank 2, host-oom-kill
    t70-trun-2x2-memoryerror-rank0-init-w0-exception-rank0only                                               rank 0, host-oom
    t70-trun-2x2-node0-killed-by-rank1-init-w2-exception-logging-norank-filter0                              control (node 0 lost whole)
    t70-trun-2x2-clean-w0-uncaught-rank0only-filter0                                                         control (clean)
    t70-trun-2x2-config-every-rank-step3-ckpt-rank0-w2-print-exc-lightning                                   control (every rank's ValueError)

The awkward ones kept: THREE faults at ``init`` (rank 2's uncaught raise under ``--tee 3``, 3 x 2, DataLoader workers
2; rank 4's SIGABRT under ``--standalone``, 1 x 6, ``print_exc``; rank 0's caught ``MemoryError`` under ``rank0-only``,
the culprit the one rank that logs) and the node-lost control at ``init`` too (node 0, the store's host, lost whole by
rank 1 under a filter of local rank 0); THREE in the validation loop (rank 2's segfault under ``--redirects 3
--log-dir``, 3 x 2; rank 0's SIGBUS under ``@record``, 2 x 3; the ``monitored_barrier`` late rank 3 under ``--redirects
3 --log-dir``, 2 x 3); TWO at shutdown (the op mismatch of rank 0 under ``--tee 3`` filtered to local rank 1, 2 x 2;
the every-attempt SIGBUS of rank 0, both attempts failing after the last step); ``--standalone`` for three (the abort;
the DETAIL size mismatch of rank 1 at step 6's rank-0 checkpoint save under ``rank0-only`` and ``--redirects 3
--log-dir``, 1 x 6; the recovered run's raise of rank 3 at step 8's shard save under ``--max-restarts 1 --tee 3
--log-dir``, 1 x 4); static rendezvous for one (the never-joining rank 1, 3 x 2, ``--tee 3 --log-dir``); the DataLoader
worker's SIGKILL of rank 2 at step 6 under ``--redirects 3 --log-dir``; rank 0 the culprit in four rows (the SIGBUS in
eval, the op mismatch, the every-attempt SIGBUS, the caught ``MemoryError``); neither ``legacy`` nor ``mp.spawn`` drawn
(spawn's three draws and legacy's one replaced); ``num_workers`` 2 in five of the thirteen fault rows (and in two
controls: the node lost, every rank's ``ValueError``).

Recorded (session 69, after the truths were committed): every fault fired in both versions at the first recording
(checked in the node logs and ``--log-dir`` files: the culprit's signal in the tables, its message, or its victims'
``monitoredBarrier``, ``Detected mismatch`` or gloo errors naming it; the every-attempt SIGBUS twice, the recovered
run's raise once); no re-recording, t61_worker.py unchanged. Nothing in the draw or the truths changed.
"""

from __future__ import annotations

import torch_scenarios61 as t61

#: t61's joint draw with ``random.Random(70)`` (``draw(replaced)``), its scenarios and command lines under the ``t70``
#: prefix
LAUNCHERS, cleanup, public, draw, scenarios, commands = t61.reseeded(70)
