"""The seventy-third set of recorded runs (held out when recorded, the truths written from the draw before any
recording): the SIXTY-FIRST SET'S JOINT DRAW with a new seed, ``random.Random(73)`` (tests/tools/torch_scenarios61.py's
``draw``, ``name`` and ``scenarios``, its items, rules of replacement and truths, all called, not copied, through
``t61.reseeded``), the same 16 items (13 faults, 3 controls), t61_worker.py's program, gloo on CPU, gloo timeouts of
3 s; recorded with torch 2.13.0 and 2.14.1.

The draw (``python -c "import torch_scenarios73 as t; [print(r) for r in t.draw()]"``; the draws that could not run
listed after it):

    item              launcher   layout rank step option           local handler   style          rankfmt crash    exception     phase      ckpt   w lsig
    sigkill           standalone 1x4    3    3    redirects-logdir 2     uncaught  print-norank   slash   abort    keyerror      shutdown   rank0  2 sigkill
    segfault          trun       2x3    3    1    redirects-logdir 1     uncaught  rank0-only     slash   sigbus   missing-shard train      rank0  2 sigkill
    raise             trun       2x3    5    6    tee-logdir       0     error     print-norank   RANK    raise    assert        init       rank0  0 sigbus
    abort             trun       2x2    0    4    tee              0     record    rank0-only     slash   sigbus   raise-value   eval       shards 0 sigkill
    sigbus            legacy     2x2    3    7    none             0     print-exc rank0-only     RANK    raise    missing-shard init       rank0  0 sigkill
    never-joins       standalone 1x6    3    5    redirects-logdir 0     record    print-norank   field   sigkill  memoryerror   eval       shards 0 sigkill
    monitored-barrier static     2x2    1    2    none             1     error     lightning      RANK    abort    raise-runtime shutdown   shards 0 sigkill
    op-mismatch       trun       2x2    1    7    tee              1     exception print-norank   paren   abort    assert        shutdown   shards 2 sigkill
    size-mismatch     standalone 1x6    2    3    redirects-logdir 3     record    rank0-only     RANK    abort    assert        eval       rank0  2 sigbus
    every-attempt     trun       2x2    3    6    tee-filter       0     print-exc deepspeed      slash   abort    missing-shard checkpoint rank0  0 sigkill
    recovered         trun       2x2    2    4    tee-logdir       1     uncaught  lightning      rank=   sigkill  raise-runtime shutdown   shards 2 sigbus
    loader-worker     legacy     2x3    1    1    none             0     error     logging-rank   field   raise    raise-value   train      rank0  2 sigbus
    exception         trun       2x2    2    2    redirects-logdir 0     record    logging-norank rank=   abort    memoryerror   train      rank0  2 sigkill
    node-killed       trun       2x3    3    7    redirects-logdir 0     exception print-norank   paren   segfault keyerror      init       rank0  0 sigbus
    clean             trun       2x3    2    1    tee-logdir       2     print-exc logging-norank rank=   sigkill  missing-shard eval       shards 2 sigbus
    config-every-rank trun       3x2    2    2    none             1     uncaught  logging-rank   field   segfault missing-shard checkpoint rank0  2 sigbus

Replaced draws (launcher/option/phase/workers), by item (3): loader-worker: static/tee-filter/shutdown/0,
trun/tee-filter/eval/0, static/tee/checkpoint/0.

Scenarios, in the same order, with their truths (t61's: the cause names as earlier sets give them; ``victims``: every
other rank; controls: no rank may be named):

    t73-standalone-1x4-sigkill-rank3-shutdown-w2-uncaught-norank-redirects                rank 3, host-oom-kill
    t73-trun-2x3-segfault-rank3-step1-train-w2-uncaught-rank0only-redirects               rank 3, segfault
    t73-trun-2x3-raise-rank5-init-w0-error-norank-logdir                                  rank 5, python-exception
    t73-trun-2x2-abort-rank0-step4-eval-w0-record-rank0only-tee                           rank 0, abort
    t73-legacy-2x2-sigbus-rank3-init-w0-print-exc-rank0only                               rank 3, sigbus
    t73-standalone-1x6-never-joins-rank3-w0-record-norank-redirects                       rank 3, never-joined
    t73-static-2x2-monitored-barrier-rank1-shutdown-w0-error-lightning                    rank 1, never-joined
    t73-trun-2x2-op-mismatch-rank1-shutdown-w2-exception-norank-tee                       rank 1, collective-mismatch
    t73-standalone-1x6-size-mismatch-rank2-step3-eval-w2-record-rank0only-redirects       rank 2, collective-mismatch
    t73-trun-2x2-restarts1-abort-rank3-step6-ckpt-rank0-w0-print-exc-deepspeed-filter0    rank 3, abort
    t73-trun-2x2-restarts1-recovered-sigkill-rank2-shutdown-w2-uncaught-lightning-logdir  rank 2, host-oom-kill
    t73-legacy-2x3-loader-sigbus-rank1-step1-train-w2-error-logging-field                 rank 1, sigbus
    t73-trun-2x2-memoryerror-rank2-step2-train-w2-record-logging-norank-redirects         rank 2, host-oom
    t73-trun-2x3-node1-killed-by-rank3-init-w0-exception-norank-redirects                 control (node 1 lost whole)
    t73-trun-2x3-clean-w2-print-exc-logging-norank-logdir                                 control (clean)
    t73-trun-3x2-config-every-rank-step2-ckpt-rank0-w2-uncaught-logging-field             control (every rank's ValueError)

The awkward ones kept: TWO faults at ``init`` (rank 5's ``error`` raise under ``--tee 3 --log-dir``, 2 x 3, the
last rank; rank 3's SIGBUS under ``legacy`` ``torch.distributed.launch``, 2 x 2, ``rank0-only``, the culprit not the
one rank that logs) and the node-lost control at ``init`` too (node 1 lost whole by rank 3 under ``--redirects 3
--log-dir``, 2 x 3); FOUR at shutdown (rank 3's SIGKILL under ``--standalone --redirects 3 --log-dir``, 1 x 4,
DataLoader workers 2; the ``monitored_barrier`` late rank 1 under static rendezvous, 2 x 2; the op mismatch of rank 1
under ``--tee 3``, workers 2; the recovered run's SIGKILL of rank 2 under ``--max-restarts 1 --tee 3 --log-dir``, the
second attempt running clean); THREE in the validation loop (rank 0's SIGABRT at step 4 under ``@record`` and ``--tee
3``, the store's host the culprit; the never-joining rank 3 under ``--standalone --redirects 3 --log-dir``, 1 x 6; the
DETAIL size mismatch of rank 2 at step 3 under ``--standalone``, ``rank0-only``, ``--redirects 3 --log-dir``, 1 x 6);
THREE in the training loop, all at an early step (rank 3's segfault at step 1 under ``rank0-only`` and ``--redirects 3
--log-dir``, 2 x 3; the DataLoader worker's SIGBUS of rank 1 at step 1 under ``legacy``, 2 x 3; rank 2's caught
``MemoryError`` at step 2 under ``@record`` and ``--redirects 3 --log-dir``); ONE at a rank-0 checkpoint save (the
every-attempt SIGABRT of rank 3 at step 6 under ``--tee 3 --local-ranks-filter 0``, the culprit local rank 1 so its
own lines filtered out, both attempts failing); ``legacy`` for two (the SIGBUS at init, the loader worker),
``--standalone`` for three (the SIGKILL, the never-joining rank, the size mismatch), static rendezvous for one (the late
barrier rank), ``mp.spawn`` not drawn; rank 0 the culprit in one row only (the SIGABRT in eval); ``num_workers`` 2 in
seven of the thirteen fault rows (and in two controls: the clean run, every rank's ``ValueError``).

Recorded (session 70, after the truths were committed): every fault fired in both versions at the first recording
(checked in the node logs and ``--log-dir`` files: the culprit's signal in the tables, its message, or its victims'
``monitoredBarrier``, ``Detected mismatch``, store-key (``keys: /default_pg/0//cpu//0/3``) or gloo errors naming it;
the every-attempt SIGABRT twice, the recovered run's SIGKILL once); no re-recording, t61_worker.py unchanged. Nothing in
the draw or the truths changed.
"""

from __future__ import annotations

import torch_scenarios61 as t61

#: t61's joint draw with ``random.Random(73)`` (``draw(replaced)``), its scenarios and command lines under the ``t73``
#: prefix
LAUNCHERS, cleanup, public, draw, scenarios, commands = t61.reseeded(73)
