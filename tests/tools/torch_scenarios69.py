"""The sixty-ninth set of recorded runs (held out when recorded, the truths written from the draw before any
recording): the SIXTY-FIRST SET'S JOINT DRAW with a new seed, ``random.Random(69)`` (tests/tools/torch_scenarios61.py's
``draw``, ``name`` and ``scenarios``, its items, rules of replacement and truths, all called, not copied, through
``t61.reseeded``), the same 16 items (13 faults, 3 controls), t61_worker.py's program, gloo on CPU, gloo timeouts of
3 s; recorded with torch 2.13.0 and 2.14.1.

The draw (``python -c "import torch_scenarios69 as t; [print(r) for r in t.draw()]"``; the draws that could not run
listed after it):

    item              launcher   layout rank step option           local handler   style          rankfmt crash    exception     phase      ckpt   w lsig
    sigkill           trun       2x2    1    2    tee-filter       1     print-exc deepspeed      slash   abort    missing-shard shutdown   shards 2 sigbus
    segfault          trun       2x3    3    2    redirects-logdir 1     error     logging-rank   RANK    raise    raise-value   shutdown   rank0  0 sigkill
    raise             trun       2x3    5    2    tee-logdir       2     print-exc deepspeed      paren   abort    raise-runtime eval       rank0  0 sigbus
    abort             static     2x3    1    1    redirects-logdir 1     error     deepspeed      rank=   abort    raise-value   init       shards 0 sigkill
    sigbus            trun       3x2    3    6    none             1     record    deepspeed      rank=   sigbus   missing-shard train      rank0  0 sigkill
    never-joins       standalone 1x4    0    3    tee-logdir       1     exception logging-norank RANK    raise    keyerror      shutdown   rank0  2 sigkill
    monitored-barrier standalone 1x6    2    1    none             4     record    logging-norank paren   sigbus   assert        checkpoint shards 2 sigbus
    op-mismatch       trun       3x2    3    3    none             0     print-exc lightning      paren   sigbus   raise-value   checkpoint shards 2 sigbus
    size-mismatch     standalone 1x4    3    1    tee              2     error     logging-norank rank=   segfault missing-shard checkpoint shards 2 sigkill
    every-attempt     trun       2x2    1    3    redirects-logdir 1     exception logging-rank   paren   abort    raise-runtime init       shards 2 sigkill
    recovered         trun       3x2    2    5    tee              1     uncaught  print-norank   slash   segfault raise-value   eval       shards 2 sigbus
    loader-worker     trun       2x3    5    7    tee              0     exception logging-norank field   abort    missing-shard eval       shards 2 sigkill
    exception         trun       3x2    5    7    tee              1     print-exc logging-norank slash   raise    raise-runtime checkpoint shards 2 sigkill
    node-killed       spawn      2x2    2    6    none             0     uncaught  deepspeed      slash   raise    raise-value   init       rank0  0 sigkill
    clean             trun       3x2    4    6    tee-logdir       0     error     rank0-only     RANK    sigkill  raise-runtime train      rank0  0 sigbus
    config-every-rank trun       2x2    1    6    redirects-logdir 0     error     logging-norank paren   sigbus   raise-value   train      shards 2 sigkill

Replaced draws (launcher/option/phase/workers), by item (10): raise: legacy/tee-logdir/train/0; abort:
legacy/redirects-logdir/checkpoint/2, spawn/tee-filter/checkpoint/0; sigbus: spawn/tee-filter/train/0; every-attempt:
legacy/tee/init/2; loader-worker: trun/tee/init/0, standalone/none/eval/0, legacy/redirects-logdir/init/0,
standalone/redirects-logdir/init/0, legacy/tee-filter/eval/0.

Scenarios, in the same order, with their truths (t61's: the cause names as earlier sets give them; ``victims``: every
other rank; controls: no rank may be named):

    t69-trun-2x2-sigkill-rank1-shutdown-w2-print-exc-deepspeed-filter1                      rank 1, host-oom-kill
    t69-trun-2x3-segfault-rank3-shutdown-w0-error-logging-RANK-redirects                    rank 3, segfault
    t69-trun-2x3-raise-rank5-step2-eval-w0-print-exc-deepspeed-logdir                       rank 5, python-exception
    t69-static-2x3-abort-rank1-init-w0-error-deepspeed-redirects                            rank 1, abort
    t69-trun-3x2-sigbus-rank3-step6-train-w0-record-deepspeed                               rank 3, sigbus
    t69-standalone-1x4-never-joins-rank0-w2-exception-logging-norank-logdir                 rank 0, never-joined
    t69-standalone-1x6-monitored-barrier-rank2-step1-ckpt-shards-w2-record-logging-norank   rank 2, never-joined
    t69-trun-3x2-op-mismatch-rank3-step3-ckpt-shards-w2-print-exc-lightning                 rank 3, collective-mismatch
    t69-standalone-1x4-size-mismatch-rank3-step1-ckpt-shards-w2-error-logging-norank-tee    rank 3, collective-mismatch
    t69-trun-2x2-restarts1-abort-rank1-init-w2-exception-logging-paren-redirects            rank 1, abort
    t69-trun-3x2-restarts1-recovered-segfault-rank2-step5-eval-w2-uncaught-norank-tee       rank 2, segfault
    t69-trun-2x3-loader-sigkill-rank5-step7-eval-w2-exception-logging-norank-tee            rank 5, host-oom-kill
    t69-trun-3x2-raise-runtime-rank5-step7-ckpt-shards-w2-print-exc-logging-norank-tee      rank 5, python-exception
    t69-spawn-2x2-node1-killed-by-rank2-init-w0-uncaught-deepspeed                          control (node 1 lost whole)
    t69-trun-3x2-clean-w0-error-rank0only-logdir                                            control (clean)
    t69-trun-2x2-config-every-rank-step6-train-w2-error-logging-norank-redirects            control (every rank's ValueError)

The awkward ones kept: TWO faults at ``shutdown`` (rank 1's SIGKILL under ``--tee 3`` filtered to local rank 1, 2 x 2;
rank 3's segfault under ``--redirects 3 --log-dir``, 2 x 3); TWO faults at ``init`` (rank 1's abort under static
rendezvous and ``--redirects 3 --log-dir``, 2 x 3; the every-attempt abort of rank 1 under ``--redirects 3
--log-dir``, so both attempts fail before the first step) and the control's node kill at ``init`` under ``mp.spawn``
(node 1 lost whole by rank 2 before the first step, 2 x 2); ``--standalone`` for three (rank 0 never joining, 1 x 4,
the only row with rank 0 the culprit; the ``monitored_barrier`` late rank 2 at step 1's shard save, 1 x 6; the DETAIL
size mismatch of rank 3 at step 1's shard save under ``--tee 3``, 1 x 4); the op mismatch of rank 3 at step 3's shard
save, 3 x 2; the recovered run's segfault of rank 2 in the validation loop at step 5 under ``--tee 3``; the DataLoader
worker's SIGKILL of rank 5 in the validation loop under ``--tee 3``; rank 5's RuntimeError, printed by ``print_exc``,
at step 7's shard save under ``--tee 3``; static rendezvous for one fault row only and ``mp.spawn`` for none (only the
node-kill control); legacy never drawn (its five draws replaced); ``num_workers`` 2 in nine of the thirteen fault rows
(and the config control).

Recorded (session 69, after the truths were committed): every fault fired in both versions at the first recording
(checked in the node logs and ``--log-dir`` files: the culprit's signal in the tables, its message, or its victims'
``monitoredBarrier``, ``Detected mismatch`` or store-timeout errors naming it; the every-attempt SIGABRT twice, the
recovered run's segfault once); no re-recording, t61_worker.py unchanged. (One count above was miscounted when drawn,
legacy's "four draws replaced", corrected after recording to the replaced list's five; nothing else in the draw or the
truths changed.)
"""

from __future__ import annotations

import torch_scenarios61 as t61

#: t61's joint draw with ``random.Random(69)`` (``draw(replaced)``), its scenarios and command lines under the ``t69``
#: prefix
LAUNCHERS, cleanup, public, draw, scenarios, commands = t61.reseeded(69)
